"""Faraón scenarios (RULES.md 5.2 Slovakia, C-11, C-19, C-30..C-32)."""

from __future__ import annotations

from arena import games
from arena.games import PositionError
import pytest
from tests.games.scenario import hands, legal, position, run

R = "faraon"


def test_C11_each_ace_of_a_combo_skips_one_player():
    pos = position([["Ah", "As", "Kd"], ["9h", "8c"], ["Qh", "8d"], ["9c", "Tc"]], ["Th"], ["7c"])
    state = run(R, pos, ["play Ah"])
    assert state.decision == "combo" and legal(state) == ["play As", "stop"]
    state.apply("play As")
    assert state.current == 3
    assert run(R, pos, ["play Ah", "stop"]).current == 2


def test_C19_an_ace_cannot_be_answered_unless_the_option():
    pos = position([["Ah", "Kd", "Qd"], ["As", "9h", "8c"], ["Qh", "8d"]], ["Th"], ["7c"])
    assert run(R, pos, ["play Ah"]).current == 2
    state = run(R, pos, ["play Ah"], ace_deflect=True)
    assert legal(state) == ["play As", "accept"]


def test_seven_debt_is_three_per_seven_and_the_payer_may_not_play():
    pos = position([["7h", "7s", "Kd"], ["7c", "Ks", "9s"], ["Qh", "8d", "9d"]], ["Th"],
                   ["8c", "9c", "Tc", "Jc", "Ac", "Ad", "Kc", "Qc", "Ts"])
    state = run(R, pos, ["play 7h", "play 7s"])
    assert state.current == 1 and state.observation(1)["pending"] == {"draw": 6}
    state.apply("play 7c")
    assert state.current == 2 and legal(state) == ["accept"]  # no 7, asked all the same: a step taken for it would tell the table it has no answer
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "8d", "9d", "8c", "9c", "Tc", "Jc", "Ac", "Ad", "Kc", "Qc", "Ts"]
    assert state.current == 0


def test_C31_unter_of_leaves_cancels_the_debt_takes_unters_and_anything_follows():
    pos = position([["7h", "Kd", "8d"], ["Js", "Jc", "9s"], ["Kc", "9d"]], ["Th"], ["8c", "9c", "Tc"])
    state = run(R, pos, ["play 7h"])
    assert legal(state) == ["play Js", "accept"]
    state.apply("play Js")
    assert state.decision == "combo" and legal(state) == ["play Jc", "stop"]
    state.apply("stop")
    assert state.observation(2)["pending"] == {} and hands(state)[2] == ["Kc", "9d"]
    assert state.current == 2 and legal(state) == ["play Kc", "play 9d"]


def test_C31_unter_of_leaves_goes_on_any_card_other_unters_are_plain():
    state = run(R, position([["Js", "Jd", "8d"], ["9c"]], ["Th"], ["8c"]))
    assert legal(state) == ["play Js"]


def test_C32_ober_wild_but_not_on_a_live_seven():
    state = run(R, position([["7h", "Kd"], ["Qs", "7s", "9c"], ["Qh"]], ["Th"], ["8s"]), ["play 7h"])
    assert legal(state) == ["play 7s", "accept"]
    state = run(R, position([["Qc", "Kd", "8d"], ["9h", "9s", "8h"], ["Kh"]], ["Th"], ["7c"]),
                ["play Qc", "suit s"])
    assert legal(state) == ["play 9s"]


def test_C30_out_players_leave_and_play_goes_on():
    pos = position([["9h"], ["Kc", "8s"], ["Qd", "9c"]], ["Th"], ["7c", "8c"])
    state = run(R, pos, ["play 9h"])
    assert not state.is_over and state.current == 1
    assert state.observation(1)["finished"] == [0]
    state.apply("draw")  # 7c cannot go on the 9h: passing is all that is left
    assert state.current == 1 and [str(a) for a in state.legal_actions()] == ["pass"]
    state.apply("pass")
    assert state.current == 2  # seat 0 takes no more turns


def test_C30_the_last_holder_loses_a_card_and_the_winner_leads():
    pos = position([["9h"], ["9s"], ["Qd", "Kc"]], ["Th"], ["7c", "8c"], finished=[])
    state = run(R, pos, ["play 9h", "play 9s"], starter_effects=False)
    after = state.to_position()
    assert after["losses"] == [0, 0, 1] and after["finished"] == [] and after["hand_number"] == 2
    assert [len(h) for h in after["hands"]] == [5, 5, 4] and state.scores == [0, 0, 1]
    assert state.current == 0  # seat 0, the first out, leads


def test_C30_out_at_the_fifth_loss_and_the_last_player_wins():
    pos = position([["9h"], ["9s"], ["Qd"]], ["Th"], ["7c"], losses=[4, 2, 4])
    state = run(R, pos, ["play 9h", "play 9s"])
    assert not state.is_over and state.to_position()["losses"] == [4, 2, 5]
    assert state.hands[2] == [] and state.scores[2] == 7  # out: 5 + the 2 players still in
    pos = position([["9h"], ["9s", "Kc"], []], ["Th"], ["7c"], losses=[4, 4, 5], scores=[4, 4, 7])
    state = run(R, pos, ["play 9h"])
    assert state.is_over and state.scores == [4, 6, 7] and state.result().placements == (1, 2, 3)


def test_positions_without_the_ladder_reject_its_keys():
    with pytest.raises(PositionError):
        games.from_position("maumau", position([["9h"], ["9s"]], ["Th"], ["7c"], losses=[1, 0]))
