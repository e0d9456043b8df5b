"""Pharaoh / 101 scenarios (RULES.md 5.2 Russia, C-29)."""

from __future__ import annotations

from collections import Counter

from arena import games
from tests.games.scenario import hands, legal, position, run

R = "pharaoh-101"


def test_36_cards_five_each():
    pos = games.new_game(R, players=3, seed=2, starter_effects=False).to_position()
    deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
    assert sum(deck.values()) == 36 and set(c[0] for c in deck) == set("6789TJQKA")
    assert [len(h) for h in pos["hands"]] == [5, 5, 5]


def test_ace_skips():
    state = run(R, position([["Ah", "Kd", "Qd"], ["9h"], ["Kh", "8d"]], ["Th"], ["7c"]), ["play Ah"])
    assert state.current == 2


def test_C29_seven_one_card_stacks_and_the_payer_plays_on():
    pos = position([["7h", "Kd"], ["7c", "Ks", "9s"], ["Qh", "7d", "9c"]], ["Th"], ["8c", "9d", "Tc"])
    state = run(R, pos, ["play 7h"])
    assert legal(state) == ["play 7c", "accept"]
    state.apply("play 7c")
    assert state.observation(2)["pending"] == {"draw": 2} and legal(state) == ["play 7d", "accept"]
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "7d", "9c", "8c", "9d"] and state.current == 2
    assert legal(state) == ["play Qh", "play 7d", "play 9c", "play 8c"]


def test_C29_six_one_card_and_skip_stacks_with_sixes():
    pos = position([["6h", "Kd"], ["6c", "Ks"], ["Qh", "8d"]], ["Th"], ["8c", "9d", "Tc"])
    state = run(R, pos, ["play 6h", "play 6c"])
    # seat 2 holds no 6 (asked all the same: a step taken for it would tell the table it has no answer): it takes the 2 cards and its turn is over
    assert state.current == 2 and legal(state) == ["accept"]
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "8d", "8c", "9d"] and state.current == 0


def test_queen_is_wild_with_a_wish_but_not_on_a_live_seven():
    pos = position([["Qc", "Kd", "Qd"], ["9h", "9s"], ["Qh"]], ["Th"], ["7c"])
    state = run(R, pos, ["play Qc", "suit s"])
    assert state.current == 1 and legal(state) == ["play 9s"]
    state = run(R, position([["7h", "Kd"], ["Qs", "7s", "9c"], ["Qh"]], ["Th"], ["8c"]), ["play 7h"])
    assert legal(state) == ["play 7s", "accept"]


def test_ten_reverse_option():
    pos = position([["Th", "Kd", "Qd"], ["9h"], ["Qh", "8d"]], ["Ts"], ["7c"])
    assert run(R, pos, ["play Th"]).current == 1
    assert run(R, pos, ["play Th"], ten_reverse=True).current == 2


def test_king_of_spades_option_takes_four_and_skips():
    pos = position([["Ks", "Kd", "Qd"], ["9s", "Kc"], ["Qh", "8d"]], ["Ts"], ["6c", "7c", "8c", "9c", "Tc"])
    state = run(R, pos, ["play Ks"], king_spades=True)
    assert hands(state)[1] == ["9s", "Kc", "6c", "7c", "8c", "9c"] and state.current == 2
    assert run(R, pos, ["play Ks"]).current == 1


def test_no_call_and_one_point_per_card():
    state = run(R, position([["9h", "Kd"], ["9c"], ["Qd"]], ["Th"], ["8c"]), ["play 9h"])
    assert state.decision == "turn" and state.current == 1
    state = run(R, position([["9h"], ["Ah", "6s"], ["9d"]], ["Th"], ["Kc"]), ["play 9h"])
    assert state.scores == [0, 2, 1]
