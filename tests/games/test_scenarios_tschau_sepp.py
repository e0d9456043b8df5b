"""Tschau Sepp scenarios (RULES.md 5.2 Switzerland, decision 10.5): the default profile and its options."""

from __future__ import annotations

from collections import Counter

from arena import games
from tests.games.scenario import hands, legal, position, run

R = "tschau-sepp"


def test_36_cards_five_each_counter_clockwise_seat_0_first():
    state = games.new_game(R, players=4, seed=3, starter_effects=False)
    pos = state.to_position()
    deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
    assert sum(deck.values()) == 36 and [len(h) for h in pos["hands"]] == [5, 5, 5, 5]
    assert state.current == 0 and pos["direction"] == -1
    state.apply(state.legal_actions()[0])
    if state.decision == "turn":
        assert state.current == 3


def test_under_is_wild_with_a_wish():
    pos = position([["Jc", "Kd", "Qd"], ["Qh"], ["9h", "9s", "8d"]], ["Th"], ["7c"], direction=-1)
    state = run(R, pos, ["play Jc", "suit s"])
    assert state.current == 2 and legal(state) == ["play 9s"]


def test_seven_draws_two_eight_skips():
    pos = position([["7h", "Kd", "Qd"], ["Qh"], ["9h", "Ks"]], ["Th"], ["8c", "8d"], direction=-1)
    state = run(R, pos, ["play 7h"])
    assert hands(state)[2] == ["9h", "Ks", "8c", "8d"] and state.current == 2
    pos = position([["8h", "Kd", "Qd"], ["Qh"], ["9h", "Ks"]], ["Th"], ["7c"], direction=-1)
    assert run(R, pos, ["play 8h"]).current == 1


def test_eight_follow_option():
    pos = position([["8h", "Kh", "Qd"], ["Qc"], ["9c"]], ["Th"], ["7c"], direction=-1)
    state = run(R, pos, ["play 8h"], eight="follow")
    assert state.decision == "follow" and legal(state) == ["play Kh"]


def test_ace_plain_by_default_reverse_or_cover_as_options():
    pos = position([["Ah", "Kd", "Qd"], ["Qc"], ["9c"]], ["Th"], ["7c"], direction=-1)
    assert run(R, pos, ["play Ah"]).current == 2
    state = run(R, pos, ["play Ah"], ace="reverse")
    assert state.current == 1 and state.observation(0)["direction"] == 1
    state = run(R, position([["Ah", "As", "Qd"], ["Qc"], ["9c"]], ["Th"], ["7c"], direction=-1),
                ["play Ah"], ace="cover")
    assert state.decision == "cover" and legal(state) == ["play As"]
    state = run(R, position([["Ah"], ["Qc"], ["9c"]], ["Th"], ["7c", "8c"], direction=-1), ["play Ah"], ace="cover")
    assert not state.is_over  # a bare last Ace never wins


def test_ten_reverse_option():
    pos = position([["Th", "Kd", "Qd"], ["Qc"], ["9c"]], ["Ts"], ["7c"], direction=-1)
    assert run(R, pos, ["play Th"]).current == 2
    assert run(R, pos, ["play Th"], ten="reverse").current == 1


def test_tschau_call_and_a_catch_costs_two():
    pos = position([["9h", "Kd"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c", "7c"], direction=-1)
    state = run(R, pos, ["play 9h"])
    assert legal(state) == ["call tschau", "pass"]
    state = run(R, pos, ["play 9h", "pass", "accuse 0"])
    assert hands(state)[0] == ["Kd", "8c", "7c"]


def test_jass_points_and_the_match_ends_at_the_limit():
    pos = position([["9h"], ["Ah", "Tc", "Kd", "Qd", "Jd", "6s"], ["9d"]], ["Th"], ["Kc"], direction=-1)
    state = run(R, pos, ["play 9h", "call sepp"])
    assert state.scores == [0, 30, 0] and not state.is_over
    state = run(R, pos, ["play 9h", "call sepp"], limit=30)
    assert state.is_over and state.result().placements == (1, 3, 1)


def test_decision_limit_after_a_cover_draw_leaves_no_card_owed():
    # The drawn cover card had to be played next; the limit ended the game first.  A finished
    # position has no seat to owe it (the property tests found one that failed to load).
    pos = position([["Ah", "Kd", "Qd"], ["Qc"], ["9c"]], ["Th"], ["7c", "8c", "As"], direction=-1, decisions=0)
    state = run(R, pos, ["play Ah", "draw"], ace="cover", decision_limit=2)
    assert state.is_over and state.to_position()["forced"] is None
    assert games.from_position(R, state.to_position(), ace="cover", decision_limit=2).to_position() == state.to_position()
