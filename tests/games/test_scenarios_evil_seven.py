"""Evil Seven scenarios (RULES.md 5.2 Iran, C-21, C-22): the differences from base Mau-Mau."""

from __future__ import annotations

from collections import Counter

import pytest

from arena import games
from arena.games import IllegalActionError
from tests.games.scenario import hands, legal, position, run

R = "evil-seven"


def test_52_cards_seven_each():
    pos = games.new_game(R, players=4, seed=2, starter_effects=False).to_position()
    deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
    assert sum(deck.values()) == 52 and [len(h) for h in pos["hands"]] == [7, 7, 7, 7]


def test_C22_two_lets_the_player_choose_who_draws_one():
    pos = position([["2h", "Kd", "Qd"], ["9c", "Ks"], ["Qc", "8d"]], ["Th"], ["5c", "6c"])
    state = run(R, pos, ["play 2h"])
    assert state.current == 0 and state.decision == "target" and legal(state) == ["target 1", "target 2"]
    state.apply("target 2")
    assert hands(state)[2] == ["Qc", "8d", "5c"] and hands(state)[1] == ["9c", "Ks"]
    assert state.current == 1 and state.decision == "turn"
    with pytest.raises(IllegalActionError):
        run(R, pos, ["play 2h"]).apply("target 0")  # not oneself


def test_C21_seven_stacks_and_the_payer_plays_on():
    pos = position([["7h", "Kd", "Qd"], ["7c", "Ks", "9s"], ["Qh", "8d"]], ["Th"],
                   ["8c", "9c", "Tc", "Jc", "As"])
    state = run(R, pos, ["play 7h"])
    assert legal(state) == ["play 7c", "accept"]
    state.apply("play 7c")
    assert state.current == 2 and legal(state) == ["accept"]  # no 7, asked all the same: a step taken for it would tell the table it has no answer
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "8d", "8c", "9c", "Tc", "Jc"] and state.current == 2
    assert legal(state) == ["play 8c", "play 9c", "play Tc", "play Jc"]


def test_ace_skips():
    state = run(R, position([["Ah", "Kd", "Qd"], ["9h"], ["Qh", "8d"]], ["Th"], ["7c"]), ["play Ah"])
    assert state.current == 2


def test_ten_reverses():
    state = run(R, position([["Th", "Kd", "Qd"], ["9h"], ["Qh", "8d"]], ["Ts"], ["7c"]), ["play Th"])
    assert state.current == 2 and state.observation(0)["direction"] == -1


def test_eight_must_be_followed_or_draw_one():
    pos = position([["8h", "Kh", "Qd"], ["9c"], ["Qc"]], ["Th"], ["7c"])
    state = run(R, pos, ["play 8h"])
    assert state.current == 0 and state.decision == "follow" and legal(state) == ["play Kh"]
    state = run(R, position([["8h", "Kd", "Qd"], ["9c"], ["Qc"]], ["Th"], ["7c"]), ["play 8h"])
    assert hands(state)[0] == ["Kd", "Qd", "7c"] and state.current == 1


def test_a_last_eight_cannot_win():
    state = run(R, position([["8h"], ["9c", "Ks"], ["Qc"]], ["Th"], ["7c"]), ["play 8h"])
    assert not state.is_over and hands(state)[0] == ["7c"]


def test_single_card_call_and_catch():
    pos = position([["9h", "Kd"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c"])
    state = run(R, pos, ["play 9h"])
    assert legal(state) == ["call single-card", "pass"]
    state = run(R, pos, ["play 9h", "pass", "accuse 0"])
    assert hands(state)[0] == ["Kd", "8c"]


def test_losers_score_one_point_per_card():
    state = run(R, position([["9h"], ["Ah", "2s", "Kd"], ["9d"]], ["Th"], ["Kc"]), ["play 9h"])
    assert state.is_over and state.scores == [0, 3, 1] and state.result().placements == (1, 3, 2)
