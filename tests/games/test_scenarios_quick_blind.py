"""The Quick and Blind variations (RULES.md 5.1, C-11, C-13) as options of every shedding ruleset."""

from __future__ import annotations

import pytest

from arena import games
from tests.games.scenario import hands, legal, position, run

SHEDDING = [n for n in games.rulesets() if "quick" in games.ruleset_info(n).options]


def test_every_shedding_ruleset_offers_quick_and_blind():
    assert {"maumau", "moumou", "prsi", "faraon", "pesten", "tschau-sepp"} <= set(SHEDDING)
    for name in SHEDDING:
        options = games.ruleset_info(name).options
        assert options["quick"].default is False and options["quick"].help
        if "blind" in options:
            assert options["blind"].default is False and options["blind"].help


# -- Quick ------------------------------------------------------------------------------------


def test_quick_same_rank_cards_together_the_first_one_legal():
    pos = position([["9h", "9s", "Kd", "Kc"], ["Qc", "8c"], ["Qd"]], ["Th"], ["7c"])
    state = run("maumau", pos, quick=True)
    assert legal(state) == ["play 9h"]  # 9s is not legal on the 10 of hearts, so it cannot start
    state.apply("play 9h")
    assert state.decision == "combo" and legal(state) == ["play 9s", "stop"]
    state.apply("play 9s")
    assert state.current == 1 and hands(state)[0] == ["Kd", "Kc"]


def test_C11_quick_sevens_add_up_per_card():
    pos = position([["7h", "7s", "Kd", "Kc"], ["Qc", "8c"], ["Qd"]], ["Th"], ["8h", "9h", "Ts", "Jh", "Ah"])
    state = run("maumau", pos, ["play 7h", "play 7s"], quick=True)
    assert hands(state)[1] == ["Qc", "8c", "8h", "9h", "Ts", "Jh"]


def test_C11_quick_other_power_cards_count_once():
    pos = position([["8h", "8s", "Kd", "Kc"], ["Qc", "Tc"], ["Qd"], ["9c"]], ["Th"], ["7c"])
    state = run("maumau", pos, ["play 8h", "play 8s"], quick=True)
    assert state.current == 2  # one skip, not two
    pos = position([["Ah", "As", "Kd", "Kc"], ["Ac", "Qc"], ["Qd", "Ks"]], ["Th"], ["7c"])
    state = run("prsi", pos, ["play Ah", "play As"], quick=True)
    assert state.observation(1)["pending"] == {"skip": 1}


def test_quick_with_stacking_sevens_the_answer_is_a_combo_too():
    pos = position([["7h", "Kd", "Qd"], ["7c", "7d", "9s", "9d"], ["Qh", "8d", "Jd"]], ["Th"],
                   ["8c", "9c", "Tc", "Jc", "As", "Ks", "Qs"])
    state = run("maumau", pos, ["play 7h", "play 7c", "play 7d"], quick=True, seven_stack=True)
    assert hands(state)[2] == ["Qh", "8d", "Jd", "8c", "9c", "Tc", "Jc", "As", "Ks"]


def test_quick_keeps_the_aggregation_of_rulesets_that_already_combo():
    for name in ("moumou", "faraon"):
        plain = games.new_game(name, players=2, seed=1)
        quick = games.new_game(name, players=2, seed=1, quick=True)
        assert quick.rules.combo_aggregation == plain.rules.combo_aggregation == "sum"
        assert quick.rules.combo_per_card == plain.rules.combo_per_card
