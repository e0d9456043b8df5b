"""Scenarios for the national-variant gaps closed after the first pass (RULES.md 5.2, C-14).

* Tschau Sepp: "Sepp" with the last card, caught in the same window as "Tschau".
* Faraón: the optional rescue while paying a 7-debt (P2 ``rescue_first_k``).
* Evil Seven and Pesten: a second pack for tables one pack does not serve (C-14).
"""

from __future__ import annotations

from collections import Counter

import pytest

from arena import games
from arena.games import PositionError
from tests.games.scenario import hands, legal, position, run

TS = "tschau-sepp"


def _sepp_position(last: str = "9h") -> dict:
    """Seat 0 holds its last card; play runs counter-clockwise (0, 2, 1)."""
    return position([[last], ["Qc", "Kc"], ["Qd", "Qs"]], ["Th"], ["8c", "7c", "6c", "6d"], direction=-1)


# -- Tschau Sepp: "Sepp" with the last card -------------------------------------------


def test_sepp_is_asked_after_the_play_that_empties_the_hand():
    state = run(TS, _sepp_position(), ["play 9h"])
    assert state.decision == "call" and state.current == 0
    assert legal(state) == ["call sepp", "pass"]
    assert str(state.default_action()) == "call sepp"  # a timeout says the word


def test_sepp_said_goes_out():
    state = run(TS, _sepp_position(), ["play 9h", "call sepp"])
    last = state.observation(0)["last_hand"]
    assert last["winner"] == 0 and last["reason"] == "out" and state.to_position()["hand_number"] == 2


def test_sepp_forgotten_and_caught_draws_two_and_plays_on():
    state = run(TS, _sepp_position(), ["play 9h", "pass"])
    assert state.decision == "accuse" and state.current == 2 and legal(state) == ["accuse 0", "pass"]
    state.apply("accuse 0")
    assert hands(state)[0] == ["8c", "7c"]
    assert state.decision == "turn" and state.current == 2  # the next player acts; same hand
    assert state.to_position()["hand_number"] == 1 and state.observation(0)["last_hand"] is None


def test_sepp_forgotten_and_caught_by_a_later_seat():
    state = run(TS, _sepp_position(), ["play 9h", "pass", "pass", "accuse 0"])
    assert hands(state)[0] == ["8c", "7c"] and state.current == 2


def test_sepp_forgotten_but_uncaught_the_finish_stands():
    state = run(TS, _sepp_position(), ["play 9h", "pass", "pass", "pass"])
    assert state.observation(0)["last_hand"]["winner"] == 0 and state.to_position()["hand_number"] == 2


def test_sepp_caught_with_a_last_seven_the_seven_then_acts():
    state = run(TS, _sepp_position("7h"), ["play 7h", "pass", "accuse 0"])
    assert hands(state)[0] == ["8c", "7c"]
    assert hands(state)[2] == ["Qd", "Qs", "6c", "6d"] and state.current == 2


def test_sepp_caught_with_a_last_under_then_wishes():
    state = run(TS, _sepp_position("Jh"), ["play Jh", "pass", "accuse 0"])
    assert state.decision == "suit" and state.current == 0
    state.apply("suit s")
    assert state.current == 2 and legal(state) == ["play Qs"]


def test_sepp_caught_with_a_short_stock_draws_what_there_is():
    pos = position([["9h"], ["Qc", "Kc"], ["Qd", "Qs"]], ["Th"], [], direction=-1)
    state = run(TS, pos, ["play 9h", "pass", "accuse 0"])  # C-12: the recycled Th, the rest forgiven
    assert hands(state)[0] == ["Th"] and state.observation(0)["last_hand"] is None
    # back to one card after its own play: the Tschau is owed now, as after any play leaving one card
    assert state.current == 0 and legal(state) == ["call tschau", "pass"]


def test_tschau_then_sepp_in_one_game():
    pos = position([["9h", "9s"], ["9c", "Kc"], ["9d", "Qs"]], ["Th"], ["8c", "7c"], direction=-1)
    state = run(TS, pos, ["play 9h", "call tschau", "play 9d", "call tschau", "play 9c", "call tschau", "play 9s"])
    assert state.decision == "call" and legal(state) == ["call sepp", "pass"]


def test_sepp_positions_round_trip():
    for actions in (["play 9h"], ["play 9h", "pass"]):
        state = run(TS, _sepp_position(), actions)
        pos = state.to_position()
        assert pos["going_out"] is True
        again = games.from_position(TS, pos)
        assert again.to_position() == pos and legal(again) == legal(state)
    bad = {**_sepp_position(), "phase": "call", "going_out": True, "hands": [["9h"], ["Qc"], ["Qd"]]}
    with pytest.raises(PositionError, match="no cards"):
        games.from_position(TS, bad)
    window = run(TS, _sepp_position(), ["play 9h", "pass"]).to_position()
    window["window"]["offender"] = "zero"
    with pytest.raises(PositionError, match="seat number"):
        games.from_position(TS, window)


# -- Faraón: the optional rescue of a 7-debt --------------------------------------------

FA = "faraon"


def _debt(stock: list[str], owed: int = 6, hand=("7c", "8s")) -> dict:
    """Seat 1 owes `owed` for the 7s on top and holds a 7 of its own (so nothing is forced)."""
    return position(
        [["9d", "Kd"], list(hand), ["Th", "Ts"]], ["7h", "7s"], stock, current=1, pending={"draw": owed}
    )


def test_rescue_off_by_default_the_debt_is_drawn_at_once():
    state = run(FA, _debt(["8c", "7d", "9h", "9c", "Tc", "Kc"]), ["accept"])
    assert hands(state)[1] == ["7c", "8s", "8c", "7d", "9h", "9c", "Tc", "Kc"] and state.current == 2


def test_rescue_seven_among_the_first_three_passes_a_new_debt_of_three():
    state = run(FA, _debt(["8c", "7d", "9h", "9c", "Tc", "Kc"]), ["accept"], rescue=True)
    assert state.decision == "rescue" and state.current == 1
    assert legal(state) == ["play 7d", "accept"]
    assert state.observation(1)["pending"] == {"draw": 4}
    state.apply("play 7d")
    assert hands(state)[1] == ["7c", "8s", "8c"]  # the card drawn before it is kept, the rest lapses
    # seat 2 owes the rescue 7's own 3: it has no 7 or Js, and is asked all the same (a step taken for it
    # would tell the table so); it pays, then seat 0 plays
    assert state.current == 2 and legal(state) == ["accept"]
    state.apply("accept")
    assert hands(state)[2] == ["Th", "Ts", "9h", "9c", "Tc"] and state.current == 0


def test_rescue_unter_of_leaves_cancels_the_debt():
    state = run(FA, _debt(["Js", "9h", "9c"]), ["accept"], rescue=True)
    assert legal(state) == ["play Js", "accept"]
    state.apply("play Js")
    assert hands(state)[1] == ["7c", "8s"] and state.current == 2
    assert state.observation(2)["pending"] == {} and legal(state) == ["play Th", "play Ts"]


def test_rescue_declined_goes_on_paying():
    state = run(FA, _debt(["7d", "9h", "9c", "Tc", "Kc", "Ac"]), ["accept", "accept"], rescue=True)
    assert hands(state)[1] == ["7c", "8s", "7d", "9h", "9c", "Tc", "Kc", "Ac"] and state.current == 2


def test_rescue_only_among_the_first_three_cards():
    state = run(FA, _debt(["8c", "9h", "9c", "7d", "Tc", "Kc"]), ["accept"], rescue=True)
    assert hands(state)[1] == ["7c", "8s", "8c", "9h", "9c", "7d", "Tc", "Kc"] and state.current == 2


def test_rescue_declined_then_a_second_chance_within_the_three():
    state = run(FA, _debt(["7d", "Js", "9c", "Tc", "Kc", "Ac"]), ["accept", "accept"], rescue=True)
    assert state.decision == "rescue" and legal(state) == ["play Js", "accept"]
    state.apply("play Js")
    assert hands(state)[1] == ["7c", "8s", "7d"] and state.observation(2)["pending"] == {}


def test_rescue_applies_to_a_payment_with_no_answer_in_hand_too():
    pos = _debt(["7d", "9h", "9c"], owed=3, hand=("8s", "9s"))  # no 7 in hand: accept is its only action
    state = run(FA, pos, ["accept"], rescue=True)
    assert state.decision == "rescue" and state.current == 1 and legal(state) == ["play 7d", "accept"]


def test_rescue_positions_round_trip():
    state = run(FA, _debt(["8c", "7d", "9h", "9c", "Tc", "Kc"]), ["accept"], rescue=True)
    pos = state.to_position()
    assert pos["phase"] == "rescue" and pos["paying"] == 2 and pos["forced"] == "7d"
    again = games.from_position(FA, pos, rescue=True)
    assert again.to_position() == pos and legal(again) == legal(state)
    with pytest.raises(PositionError, match="rescue"):
        games.from_position(FA, pos)  # without the option there is no paying state


# -- Evil Seven and Pesten: a second pack beyond one pack's table (C-14) -------------------


@pytest.mark.parametrize(
    ("ruleset", "one_pack_players", "one_pack", "two_packs"),
    [("evil-seven", 5, 52, 104), ("pesten", 6, 54, 108)],
)
def test_more_players_than_one_pack_serves_play_two_packs(ruleset, one_pack_players, one_pack, two_packs):
    for players, size in ((one_pack_players, one_pack), (one_pack_players + 1, two_packs), (10, two_packs)):
        pos = games.new_game(ruleset, players=players, seed=4).to_position()
        deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
        assert sum(deck.values()) == size, (ruleset, players)
        assert max(deck.values()) == size // one_pack
    assert games.ruleset_info(ruleset).max_players == 10


def test_pesten_second_pack_brings_its_jokers():
    pos = games.new_game("pesten", players=7, seed=4, jokers=3).to_position()
    cards = pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h]
    assert sorted(c for c in cards if c[0] == "X") == ["X1", "X2", "X3", "X4", "X5", "X6"]


def test_two_packs_identical_cards_are_one_legal_action_and_positions_check_the_count():
    six = [["7h", "7h", "Kd"], ["Qc"], ["9c"], ["9d"], ["9s"], ["Ts"]]
    state = run("evil-seven", position(six, ["Th"], ["2c"]))
    assert legal(state) == ["play 7h"]
    state.apply("play 7h")
    assert hands(state)[0] == ["7h", "Kd"]
    with pytest.raises(PositionError, match="appears 2 times"):
        games.from_position("evil-seven", position(six[:5], ["Th"], ["2c"]))
