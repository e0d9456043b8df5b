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
    assert state.current == 2 and legal(state) == ["accept"]  # no 7: asked all the same, it takes the 6
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "8d", "Jd", "8c", "9c", "Tc", "Jc", "As", "Ks"]


def test_quick_keeps_the_aggregation_of_rulesets_that_already_combo():
    for name in ("moumou", "faraon"):
        plain = games.new_game(name, players=2, seed=1)
        quick = games.new_game(name, players=2, seed=1, quick=True)
        assert quick.rules.combo_aggregation == plain.rules.combo_aggregation == "sum"
        assert quick.rules.combo_per_card == plain.rules.combo_per_card


# -- Blind ------------------------------------------------------------------------------------

BLIND_POS = position([["Kd", "9h", "8c"], ["Qc", "7s", "8s"], ["Qd", "9d"]], ["Th"], ["Ac", "Ad", "As", "Ah"])


def test_blind_plays_offer_every_held_card_as_every_legal_claim():
    state = run("maumau", BLIND_POS, blind=True)
    actions = legal(state)
    assert "blind Kd 7h" in actions and "blind 9h 9h" in actions and "blind 8c Jc" in actions
    assert "blind Kd 7s" not in actions  # 7 of spades is not legal on the 10 of hearts
    assert not any(a.startswith("play ") for a in actions) and "draw" not in actions
    assert str(state.default_action()) == "blind 9h 9h"  # the timeout play is a truthful legal card


def test_blind_the_claim_not_the_card_is_what_others_see():
    state = run("maumau", BLIND_POS, ["blind Kd 7h"], blind=True)
    assert state.current == 1 and state.decision == "challenge" and legal(state) == ["challenge", "believe"]
    for seat in (1, 2, None):
        seen = state.observation(seat).to_dict()
        assert "Kd" not in str(seen) and seen["discard"] == ["??"]
        assert seen["claim"] == {"rank": "7", "suit": "h", "open": True}
    assert state.observation(0).to_dict()["hand"] == ["9h", "8c"]
    assert state.to_position()["discard"] == ["Th", "Kd"] and state.to_position()["claims"] == [[1, "7h"]]


def test_C13_believed_claim_is_canon_and_resolves_as_the_claimed_card():
    state = run("maumau", BLIND_POS, ["blind Kd 7h", "believe"], blind=True)
    # the claimed 7 makes seat 1 draw 2; the pile still shows a face-down card
    assert hands(state)[1] == ["Qc", "7s", "8s", "Ac", "Ad"] and state.current == 1
    assert state.observation(1)["discard"] == ["??"]
    assert state.observation(1)["claim"] == {"rank": "7", "suit": "h", "open": False}
    assert "blind 7s 7s" in legal(state)  # the canon top is the 7 of hearts


def test_C13_a_caught_liar_takes_the_card_back_draws_one_and_the_turn_ends():
    state = run("maumau", BLIND_POS, ["blind Kd 7h", "challenge"], blind=True)
    assert hands(state)[0] == ["9h", "8c", "Kd", "Ac"] and hands(state)[1] == ["Qc", "7s", "8s"]
    assert state.to_position()["discard"] == ["Th"] and state.current == 1 and state.decision == "turn"


def test_C13_a_wrong_challenger_draws_one_and_loses_the_turn():
    state = run("maumau", BLIND_POS, ["blind 9h 9h", "challenge"], blind=True)
    assert hands(state)[1] == ["Qc", "7s", "8s", "Ac"] and state.current == 2
    assert state.observation(2)["discard"] == ["9h"]  # turned face up
    assert state.observation(2)["claim"] is None


def test_blind_claims_respect_a_wish_and_recycled_cards_return_as_themselves():
    state = run("maumau", BLIND_POS, ["blind Kd Jc", "believe", "suit s"], blind=True)
    assert state.current == 1 and "blind Qc 7s" in legal(state) and "blind Qc Qd" not in legal(state)
    pos = position([["9h", "8c", "Qd"], ["Qc", "8s"]], ["Th", "7h", "Ts"], [], claims=[[1, "7h"], [2, "Ts"]])
    pos["discard"] = ["Th", "Kd", "Ts"]
    state = run("maumau", pos, ["blind 8c Tc", "challenge"], blind=True)  # a lie: the liar draws 1
    after = state.to_position()
    assert after["discard"] == ["Ts"] and after["claims"] == [[0, "Ts"]]
    assert sorted(after["hands"][0][3:] + after["stock"]) == ["Kd", "Th"]  # the 7h claim was the Kd


@pytest.mark.parametrize("name", ["prsi", "pesten", "faraon", "tschau-sepp", "moumou", "maumau-online"])
def test_blind_games_keep_the_real_card_out_of_every_other_view(name):
    info = games.ruleset_info(name)
    state = games.new_game(name, players=info.min_players, seed=11, blind=True)
    for _ in range(150):
        if state.is_over:
            break
        if state.decision == "challenge":
            real = state.to_position()["blind_play"]["card"]
            claim = state.to_position()["blind_play"]["claim"]
            owner = state.to_position()["blind_play"]["seat"]
            for seat in [*range(state.players), None]:
                if seat != owner and real != claim:
                    shown = state.observation(seat).to_dict()
                    assert real not in shown["discard"] and shown["claim"]["open"]
        state.apply(state.legal_actions()[len(state.legal_actions()) // 2])


def test_blind_a_drawn_card_played_face_down_is_no_longer_owed():
    """A card that must be played after a draw can go face down; the saved position stays loadable."""
    pos = position(hands=[["7c", "8c"], ["Qc", "8s"]], discard=["Th"], stock=["Jd", "9s"])
    state = run("maumau", pos, ["draw"], blind=True)
    assert "blind Jd Jd" in legal(state)
    state.apply("blind Jd Jd")
    assert state.decision == "challenge"
    restored = games.from_position("maumau", state.to_position(), blind=True)
    assert restored.to_position() == state.to_position()


def test_decision_limit_ends_a_game_nobody_finishes_scored_as_it_stands():
    """The arena's safeguard (not a seed rule): the game ends at the limit, scored like a blocked hand."""
    pos = position(hands=[["7c", "8c"], ["Qd", "9s"]], discard=["Th"], stock=["Ks", "As", "Ad"], decisions=3)
    state = run("maumau", pos, ["draw"], decision_limit=4)
    assert state.is_over and state.to_position()["reason"] == "decision-limit"
    assert state.result().points == (7 + 8 + 10, 10 + 9)  # both hands scored as they stand (C-10 values)
    unlimited = run("maumau", pos, ["draw", "pass"], decision_limit=0)  # Ks does not fit: it passes
    assert not unlimited.is_over and unlimited.current == 1


def test_decision_limit_must_not_be_negative():
    with pytest.raises(games.OptionError, match="decision_limit"):
        games.new_game("maumau", players=2, seed=1, decision_limit=-1)


def test_decision_limit_ends_a_whole_match_not_just_its_hand():
    pos = position(hands=[["7c", "8c"], ["Qd", "9s"]], discard=["Th"], stock=["Ks", "As", "Ad"], decisions=3,
                   scores=[3, 5])
    state = run("moumou", pos, ["draw"], decision_limit=4)
    assert state.is_over and state.to_position()["reason"] == "decision-limit"


def test_decision_limit_closes_an_open_blind_claim_and_a_catch_window():
    # The limit can fall on any decision; an over position has nothing left open (the property
    # tests found an unjudged claim that made the final position unloadable).
    state = run("maumau", {**BLIND_POS, "decisions": 0}, ["blind Kd 7h"], blind=True, decision_limit=1)
    final = state.to_position()
    assert state.is_over and final["phase"] == "over" and final.get("blind_play") is None
    assert games.from_position("maumau", final, blind=True, decision_limit=1).to_position() == final
    pos = position([["Kh", "9c"], ["Qd", "9s"], ["8h"], ["7d"]], ["Th"], ["8c", "8d", "2s", "3s", "4s"], decisions=0)
    state = run("maumau-online", pos, ["play Kh"], decision_limit=1)
    final = state.to_position()
    assert state.is_over and final.get("window") is None
    assert games.from_position("maumau-online", final, decision_limit=1).to_position() == final
