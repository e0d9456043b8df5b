"""Neuner scenarios (RULES.md 5.2 Austria and Bavaria, C-15): wild Nines, a Joker, the knock."""

from __future__ import annotations

from collections import Counter

from arena import games
from tests.games.scenario import hands, legal, position, run

R = "neuner"


def test_32_cards_and_one_joker():
    pos = games.new_game(R, players=3, seed=2, starter_effects=False).to_position()
    deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
    assert sum(deck.values()) == 33 and deck["X1"] == 1
    pos = games.new_game(R, players=3, seed=2, jokers=2, starter_effects=False).to_position()
    assert sum(Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h]).values()) == 34


def test_nine_is_wild_with_a_wish_and_the_jack_is_plain():
    pos = position([["9c", "Jd", "Qd"], ["Kh", "Ks", "Jh"], ["Qh"]], ["Th"], ["7c"])
    state = run(R, pos)
    assert legal(state) == ["play 9c"]  # the Jack of diamonds does not match the 10 of hearts
    state.apply("play 9c")
    state.apply("suit s")
    assert state.current == 1 and legal(state) == ["play Ks"]


def test_C15_the_joker_is_wild_with_a_wish():
    pos = position([["X1", "Kd", "Qd"], ["Kh", "Ks"], ["Qh"]], ["Th"], ["7c"])
    state = run(R, pos, ["play X1"])
    assert state.decision == "suit"
    state.apply("suit h")
    assert legal(state) == ["play Kh", "call knock"]  # seat 1 holds 2 cards: it may knock


def test_seven_stacks_and_eight_skips():
    pos = position([["7h", "Kd", "Qd"], ["7c", "Ks", "9s"], ["Qh", "8d", "Ad"]], ["Th"],
                   ["8c", "9c", "Tc", "Jc"])
    state = run(R, pos, ["play 7h", "play 7c"])
    assert state.current == 2 and legal(state) == ["accept"]  # no 7, asked all the same: a step taken for it would tell the table it has no answer
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "8d", "Ad", "8c", "9c", "Tc", "Jc"] and state.current == 2
    state = run(R, position([["8h", "Kd", "Qd"], ["9h"], ["Qh", "8d"]], ["Th"], ["7c"]), ["play 8h"])
    assert state.current == 2


def test_knock_before_the_next_to_last_card():
    pos = position([["Kh", "Qd"], ["Ks", "Qs"], ["Qh", "8d"]], ["Th"], ["7c", "8c"])
    state = run(R, pos)
    assert legal(state) == ["play Kh", "call knock"]
    state.apply("call knock")
    state.apply("play Kh")
    assert state.decision == "accuse" and legal(state) == ["accuse 0", "pass"]
    state.apply("accuse 0")  # a false accusation costs the accuser 2
    assert hands(state)[1] == ["Ks", "Qs", "7c", "8c"] and hands(state)[0] == ["Qd"]


def test_forgotten_knock_caught_costs_two_cards():
    pos = position([["Kh", "Qd"], ["Ks", "Qs"], ["Qh", "8d"]], ["Th"], ["7c", "8c"])
    state = run(R, pos, ["play Kh", "pass", "accuse 0"])
    assert hands(state)[0] == ["Qd", "7c", "8c"]


def test_a_winning_nine_doubles_the_points():
    pos = position([["9h"], ["Ah", "X1"], ["8d"]], ["Th"], ["Kc"])
    state = run(R, pos, ["play 9h"])
    assert state.is_over and state.scores == [0, 62, 16]
