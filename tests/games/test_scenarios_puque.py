"""Puque scenarios (RULES.md 5.2 Portugal, C-28): the differences from base Mau-Mau."""

from __future__ import annotations

from collections import Counter

from arena import games
from tests.games.scenario import hands, legal, position, run

R = "puque"


def test_C28_a_52_card_pack_or_the_40_card_portuguese_pack():
    pos = games.new_game(R, players=3, seed=4).to_position()
    deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
    assert sum(deck.values()) == 52 and "2s" in deck
    pos = games.new_game(R, players=3, seed=4, deck="40").to_position()
    deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
    assert sum(deck.values()) == 40 and not {"8s", "9h", "Td"} & set(deck)


def test_two_skips_the_next_player():
    state = run(R, position([["2h", "Kd", "Qd"], ["9h", "Ks"], ["Qh", "8d"]], ["Th"], ["7c"]), ["play 2h"])
    assert state.current == 2


def test_eight_is_plain():
    state = run(R, position([["8h", "Kd", "Qd"], ["9h", "Ks"], ["Qh", "8d"]], ["Th"], ["7c"]), ["play 8h"])
    assert state.current == 1


def test_seven_draws_two_and_the_drawer_plays_on():
    pos = position([["7h", "Kd", "Qd"], ["9h", "Ks"], ["Qc"]], ["Th"], ["8c", "8d"])
    state = run(R, pos, ["play 7h"])
    assert hands(state)[1] == ["9h", "Ks", "8c", "8d"] and state.current == 1 and legal(state) == ["play 9h"]


def test_C8_ace_must_be_followed_and_a_final_ace_does_not_win():
    state = run(R, position([["Ah"], ["Qs", "Kd"], ["Qc"]], ["Th"], ["9c"]), ["play Ah"])
    assert not state.is_over and hands(state)[0] == ["9c"]


def test_puque_is_called_with_the_next_to_last_card():
    pos = position([["9h", "Jd"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c"])
    state = run(R, pos, ["play 9h"])
    # the same word even when the last card is a Jack
    assert state.decision == "call" and legal(state) == ["call puque", "pass"]
    state.apply("call puque")
    assert state.current == 1 and state.decision == "turn"


def test_C9_forgotten_puque_caught_costs_one_card():
    pos = position([["9h", "Kd"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c"])
    state = run(R, pos, ["play 9h", "pass", "accuse 0"])
    assert hands(state)[0] == ["Kd", "8c"] and state.current == 1


def test_C10_a_winning_jack_still_doubles():
    pos = position([["Jh"], ["Ah", "2s"], ["9d"]], ["Th"], ["Kc"])
    state = run(R, pos, ["play Jh"])
    assert state.is_over and state.scores == [0, 26, 18]
