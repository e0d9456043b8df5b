"""Pesten scenarios (RULES.md 5.2 Netherlands, C-5, C-23..C-27)."""

from __future__ import annotations

from collections import Counter

from arena import games
from tests.games.scenario import hands, legal, position, run

R = "pesten"


def test_52_cards_two_jokers_seven_each():
    pos = games.new_game(R, players=3, seed=2, starter_effects=False).to_position()
    deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
    assert sum(deck.values()) == 54 and deck["X1"] == deck["X2"] == 1
    assert [len(h) for h in pos["hands"]] == [7, 7, 7]
    pos = games.new_game(R, players=3, seed=2, jokers=3, hand_size=5, starter_effects=False).to_position()
    assert [len(h) for h in pos["hands"]] == [5, 5, 5] and "X3" in str(pos)


def test_C24_twos_and_jokers_stack_across_each_other():
    stock = ["3c", "4c", "5c", "6c", "3d", "4d", "5d", "6d", "9s"]
    pos = position([["X1", "Kd", "Qd"], ["2s", "Ks", "9c"], ["Qh", "8d", "3h"]], ["Th"], stock)
    state = run(R, pos, ["play X1"])
    assert legal(state) == ["play 2s", "accept"]  # a 2 of any suit answers the Joker
    state.apply("play 2s")
    # seat 2 has neither (asked all the same: a step taken for it would tell the table it has no answer): 5 + 2 = 7 cards, then (C-5) it plays on
    assert state.current == 2 and legal(state) == ["accept"]
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "8d", "3h", *stock[:7]] and state.current == 2
    assert state.decision == "turn"


def test_C23_after_a_joker_chain_the_payer_may_play_any_card():
    pos = position([["X1", "Kd", "Qd"], ["Qs", "9c", "4h"]], ["Th"], ["3c", "4c", "5c", "6c", "3d"])
    state = run(R, pos, ["play X1", "accept"])  # seat 1 holds no 2 or Joker: it pays, then plays
    assert state.current == 1 and legal(state) == [f"play {c}" for c in ["Qs", "9c", "4h", "3c", "4c", "5c", "6c", "3d"]]


def test_C25_seven_and_king_play_again_or_draw_one():
    pos = position([["7h", "Kh", "Qd"], ["9c"], ["Qc"]], ["Th"], ["3c"])
    state = run(R, pos, ["play 7h"])
    assert state.current == 0 and state.decision == "follow" and legal(state) == ["play Kh"]
    state.apply("play Kh")  # nothing goes on the King: the engine draws 1 and the turn ends
    assert hands(state)[0] == ["Qd", "3c"] and state.current == 1


def test_eight_skips():
    state = run(R, position([["8h", "Kd", "Qd"], ["9h"], ["Qh", "8d"]], ["Th"], ["7c"]), ["play 8h"])
    assert state.current == 2


def test_ace_reverses_and_C26_with_two_players_plays_again():
    pos = position([["Ah", "Kd", "Qd"], ["9h"], ["Qh", "8d"]], ["Th"], ["7c"])
    state = run(R, pos, ["play Ah"])
    assert state.current == 2 and state.observation(0)["direction"] == -1
    state = run(R, position([["Ah", "Kd", "Qd"], ["9h"]], ["Th"], ["7c"]), ["play Ah"])
    assert state.current == 0 and state.decision == "turn"


def test_jack_is_wild_with_a_wish():
    state = run(R, position([["Jc", "Kd", "Qd"], ["9h", "9s"], ["Qh"]], ["Th"], ["7c"]), ["play Jc", "suit s"])
    assert state.current == 1 and legal(state) == ["play 9s"]


def test_C27_the_last_card_may_not_be_an_effect_card():
    state = run(R, position([["8h"], ["9c"]], ["Th"], ["7c"]))
    assert legal(state) == ["draw"]
    state = run(R, position([["2h"], ["2c", "9c"]], ["2s"], ["7c"]), [])
    assert legal(state) == ["draw"]


def test_C27_finish_on_effect_penalty_option():
    pos = position([["8h"], ["9c"], ["Qd"]], ["Th"], ["3c", "4c", "5c", "6c", "7c", "8c"])
    state = run(R, pos, ["play 8h"], finish_on_effect="penalty")
    assert not state.is_over and hands(state)[0] == ["3c", "4c", "5c", "6c", "7c"] and state.current == 2


def test_laatste_kaart_forgotten_and_caught_draws_a_new_hand():
    stock = ["3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc"]
    pos = position([["9h", "Kd"], ["9s", "Ks"], ["Qd", "Qs"]], ["Th"], stock)
    state = run(R, pos, ["play 9h"])
    assert legal(state) == ["call laatste-kaart", "pass"]
    state.apply("pass")
    state.apply("accuse 0")
    assert hands(state)[0] == ["Kd", *stock[:7]]
