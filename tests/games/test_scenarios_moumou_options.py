"""Moumou: the named alternatives of RULES.md 3.10 as options, each against its default (A-2, A-12, A-14, A-25)."""

from __future__ import annotations

import pytest

from arena import games
from tests.games.scenario import hands, legal, position, run, top

R = "moumou"


def test_A2_option_extra_upcard_acts_on_nobody_and_the_opponent_opens():
    for seed in range(400):
        state = games.new_game(R, players=2, seed=seed, opening="extra_card_no_effect")
        if state.to_position()["discard"][0][0] in "78":
            break
    else:
        pytest.fail("no seed opened with a 7 or an 8")
    pos = state.to_position()
    assert pos["dealer"] == 0 and len(pos["discard"]) == 1
    assert [len(h) for h in pos["hands"]] == [5, 5]  # the dealer keeps 5, nobody drew for the 7/8
    assert state.current == 1 and state.decision == "turn"
    default = games.new_game(R, players=2, seed=seed).to_position()
    assert len(default["hands"][0]) == 4  # by default the upcard is the dealer's own 5th card


def test_A2_option_an_opening_jack_demands_nothing():
    for seed in range(400):
        state = games.new_game(R, players=2, seed=seed, opening="extra_card_no_effect")
        if top(state)[0] == "J":
            break
    else:
        pytest.fail("no seed opened with a Jack")
    assert state.decision == "turn" and state.current == 1
    assert state.observation(1)["active_suit"] is None


def test_A12_option_failed_demand_expires_with_the_opponents_turn():
    pos = position([["Kc", "9d"], ["Qh", "Qs", "Ts"]], ["8c", "Js"], ["9c"], active_suit="h", suit_kind="demand")
    assert legal(run(R, pos, ["draw"])) == ["play Qh"]  # default: the Jack's player is bound too
    state = run(R, pos, ["draw"], demand_expires_after_opponent_turn=True)
    assert hands(state)[0] == ["Kc", "9d", "9c"] and state.current == 1
    assert state.observation(1)["active_suit"] is None
    assert legal(state) == ["play Qs", "play Ts"]  # a plain Js on top: spades or a Jack


def test_A12_option_a_demand_that_is_met_is_unchanged():
    pos = position([["Kc", "9d"], ["Qh", "Qs"]], ["8c", "Js"], ["8h", "9c"], active_suit="h", suit_kind="demand")
    state = run(R, pos, ["draw"], demand_expires_after_opponent_turn=True)
    assert legal(state) == ["play 8h"]  # the drawn heart must still be played on the demand


def test_A14_option_s7_literal_opponent_who_can_play_after_drawing_one_plays():
    pos = position([["As"], ["9c", "Kd"]], ["Ts"], ["9s", "Kh"])
    state = run(R, pos, ["play As"], ace_last="s7_literal")
    assert not state.is_over and hands(state)[0] == []
    assert hands(state)[1] == ["9c", "Kd", "9s"]  # drew 1 instead of being skipped
    assert state.current == 1 and legal(state) == ["play 9s"]
    state = run(R, pos, ["play As"])  # default: skipped, no draw, the Ace player draws on
    assert state.current == 0 and hands(state)[1] == ["9c", "Kd"]


def test_A14_option_s7_literal_opponent_who_still_cannot_play_skips():
    pos = position([["As"], ["9c", "Kd"]], ["Ts"], ["Qh", "Kh", "9s"])
    state = run(R, pos, ["play As"], ace_last="s7_literal")
    assert hands(state)[1] == ["9c", "Kd", "Qh"] and not state.is_over
    assert state.current == 0 and hands(state)[0] == [] and legal(state) == ["draw"]  # no win: draws on
    state.apply("draw")
    assert hands(state)[0] == ["Kh", "9s"] and legal(state) == ["play 9s"]


def test_A14_option_s7_literal_leaves_an_ace_before_the_last_card_alone():
    pos = position([["As", "Kd"], ["9c", "Kc"]], ["Ts"], ["8h"])
    state = run(R, pos, ["play As"], ace_last="s7_literal")
    assert state.current == 0 and hands(state)[1] == ["9c", "Kc"]  # the ordinary skip


def test_A25_option_voluntary_draw_while_holding_a_legal_card():
    pos = position([["9s", "Kd"], ["9c"]], ["Ts"], ["Qh", "8s", "7c"])
    assert legal(run(R, pos)) == ["play 9s"]
    state = run(R, pos, voluntary_draw=True)
    assert legal(state) == ["play 9s", "draw"]
    assert str(state.default_action()) == "play 9s"  # a timeout never grows a hand by choice
    state.apply("draw")
    assert hands(state)[0] == ["9s", "Kd", "Qh", "8s"]  # until a playable card
    assert legal(state) == ["play 9s", "play 8s"]  # and then a legal card must be played


def test_new_options_are_listed_with_their_resolutions():
    info = games.ruleset_info(R)
    for name, ref in (("opening", "A-2"), ("demand_expires_after_opponent_turn", "A-12"),
                      ("ace_last", "A-14"), ("voluntary_draw", "A-25")):
        assert ref in info.options[name].help
        assert name in info.resolutions
