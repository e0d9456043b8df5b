"""Mau-Mau: the named alternatives of RULES.md 5.3 as options, each against its default (C-8, C-9; C-1, C-12 omitted)."""

from __future__ import annotations

from arena import games
from tests.games.scenario import hands, legal, position, run, top

R = "maumau"


def test_C8_option_a_failed_follow_passes_the_obligation_on():
    pos = position([["Ah", "9d", "8c"], ["Qs", "Kc"], ["Qc", "7h"]], ["Th"], ["Ks", "9c"])
    state = run(R, pos, ["play Ah"])  # default: seat 0 draws, the Ace obliges nobody
    assert state.current == 1 and state.decision == "turn" and hands(state)[1] == ["Qs", "Kc"]
    state = run(R, pos, ["play Ah"], follow_fail="pass_obligation")
    assert hands(state)[0] == ["9d", "8c", "Ks"]
    assert hands(state)[1] == ["Qs", "Kc", "9c"]  # seat 1 could not follow either: drew 1
    assert state.current == 2 and state.decision == "follow" and legal(state) == ["play 7h"]
    assert state.observation(2)["obligation"] == "follow" and top(state) == "Ah"


def test_C8_option_the_obligation_lapses_when_nothing_can_be_drawn():
    pos = position([["Ah", "9d", "8c"], ["Qs", "Kc"], ["Qc", "7c"]], ["Th"], ["Ks"])
    state = run(R, pos, ["play Ah"], follow_fail="pass_obligation")
    assert hands(state)[1] == ["Qs", "Kc", "Th"]  # the recycled pile's last card
    assert hands(state)[2] == ["Qc", "7c"]  # drew nothing, so the obligation stopped with seat 2
    assert state.current == 0 and state.decision == "turn" and top(state) == "Ah"


def test_C8_option_the_obligation_waits_out_the_call_of_a_final_ace():
    pos = position([["Ah"], ["Qs", "Kh"], ["Qc"]], ["Th"], ["9c"])
    state = run(R, pos, ["play Ah"], follow_fail="pass_obligation")
    assert state.decision == "call" and hands(state)[0] == ["9c"]
    assert state.to_position()["carry_follow"] is True
    restored = games.from_position(R, state.to_position(), follow_fail="pass_obligation")
    for s in (state, restored):
        s.apply("call mau")
        assert s.current == 1 and s.decision == "follow" and legal(s) == ["play Kh"]


def test_C9_option_on_going_out_no_call_at_one_card():
    pos = position([["9h", "Kd"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c"])
    assert run(R, pos, ["play 9h"]).decision == "call"  # default
    state = run(R, pos, ["play 9h"], call_model="on_going_out")
    assert state.current == 1 and state.decision == "turn" and hands(state)[0] == ["Kd"]


def test_C9_option_on_going_out_the_word_wins():
    pos = position([["Td"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c", "9d"])
    state = run(R, pos, call_model="on_going_out")
    assert legal(state) == ["play Td", "call mau"]
    assert str(state.default_action()) == "call mau"
    state.apply("call mau")
    assert legal(state) == ["play Td"]
    state.apply("play Td")
    assert state.is_over and state.result().placements[0] == 1


def test_C9_option_on_going_out_without_the_word_draws_two():
    pos = position([["Td"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c", "9d"])
    state = run(R, pos, ["play Td"], call_model="on_going_out")
    assert not state.is_over and hands(state)[0] == ["8c", "9d"] and top(state) == "Td"
    assert state.current == 1 and state.decision == "turn"


def test_C9_option_on_going_out_word_for_a_jack_and_none_without_a_play():
    pos = position([["Jd"], ["9c"], ["Qd"]], ["Th"], ["8c"])
    assert legal(run(R, pos, call_model="on_going_out")) == ["play Jd", "call mau-mau"]
    pos = position([["Kc"], ["9c"], ["Qd"]], ["Th"], ["8c"])
    assert legal(run(R, pos, call_model="on_going_out")) == ["draw"]


def test_new_options_are_listed_and_the_omissions_explained():
    info = games.ruleset_info(R)
    for name, ref in (("follow_fail", "C-8"), ("call_model", "C-9")):
        assert ref in info.options[name].help
        assert name in info.resolutions
    assert "C-1 no cut" in info.resolutions and "extra_decks_on_shortage" in info.resolutions


def test_C9_option_on_going_out_a_quick_combo_finish_needs_no_word():
    pos = position([["Td", "Ts"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c", "9d"])
    state = run(R, pos, ["play Td"], call_model="on_going_out", quick=True)
    assert state.decision == "combo"
    state.apply("play Ts")
    assert state.is_over  # the word is said at one card, which this hand never held
