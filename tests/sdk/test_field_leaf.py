"""sample_bots/field_leaf.py: a cut-short rollout of Online Mau-Mau valued by the fitted chance of finishing ahead of each seat."""

from __future__ import annotations

import importlib
import math
import random
from dataclasses import replace

from arena import games

from tests.scripts_loaded import load_script
from tests.sdk.test_sample_bots import load
from tests.sdk.test_searcher_bot import play_against_tacticians, start_with_options

searcher_module = load("searcher")  # puts sample_bots/ on the path
tactician_module = load("tactician")
field_leaf = importlib.import_module("field_leaf")
pimc = importlib.import_module("pimc")


def test_the_field_leaf_searcher_cuts_its_rollouts_and_plays_a_whole_game_legally():
    bot = searcher_module.SearchBot(worlds=3, seed=5, leaf=6)
    start_with_options(bot, "maumau-online", 4, {})
    searcher = bot.games["g"][0]
    assert isinstance(searcher, field_leaf.FieldLeafValued) and searcher.budget.depth == 6
    state, _ = play_against_tacticians(bot, "maumau-online", 4)
    assert state.is_over
    default = searcher_module.SearchBot(seed=5)  # the default since Session 14: cut at 30, 150 worlds raced
    start_with_options(default, "maumau-online", 4, {})
    chosen = default.games["g"][0]
    assert isinstance(chosen, field_leaf.FieldLeafValued) and chosen.budget.depth == 30 and chosen.budget.worlds == 150
    plain = searcher_module.SearchBot(worlds=3, seed=5, leaf=0)  # 0: `pimc.evaluate` at the budget's depth
    start_with_options(plain, "maumau-online", 4, {})
    assert not isinstance(plain.games["g"][0], field_leaf.FieldLeafValued) and plain.games["g"][0].budget.depth == 60
    two_seat = searcher_module.SearchBot(worlds=3, seed=5, leaf=6)  # 2-seat maumau keeps its own leaf value
    start_with_options(two_seat, "maumau", 2, {})
    assert not isinstance(two_seat.games["g"][0], field_leaf.FieldLeafValued)
    moumou = searcher_module.SearchBot(worlds=3, seed=5, leaf=6)  # a ruleset the model was not fitted on
    start_with_options(moumou, "moumou", 2, {})
    assert not isinstance(moumou.games["g"][0], field_leaf.FieldLeafValued)


def test_a_cut_rollout_is_valued_by_the_field_value_of_the_state_it_reached():
    bot = searcher_module.SearchBot(worlds=3, seed=5, leaf=8)
    start_with_options(bot, "maumau-online", 4, {})
    searcher = bot.games["g"][0]
    points = searcher.points
    cut = finished = 0
    for seed in range(40, 80):
        state = games.new_game("maumau-online", 4, seed)
        searcher.budget, budget = replace(searcher.budget, depth=random.Random(seed).randrange(0, 60)), searcher.budget
        searcher.rollout(state, random.Random(seed))  # the tacticians play somewhere into the game, some near its end
        searcher.budget = budget
        if state.is_over:
            continue
        seat = state.current
        for action in state.legal_actions():
            value = searcher.trial(state, str(action), seat, [0] * 4, random.Random(seed))
            reached = state.clone()
            reached.apply(str(action))
            searcher.rollout(reached, random.Random(seed))
            if reached.is_over:
                finished += 1
                assert value == pimc.evaluate(reached, seat, [0] * 4, points, True, searcher.budget.edge)
            else:
                cut += 1
                assert value == field_leaf.field_value(reached, seat, points, searcher.budget.edge, model=searcher.model)
                assert -0.1 <= value <= 1.1
    assert cut > 10 and finished > 0


def test_the_pair_model_is_antisymmetric_and_both_models_predict_fresh_games_better_than_the_card_count(monkeypatch):
    fit = load_script(monkeypatch, "fit_field_leaf")
    points = fit.card_points(4)
    _, _, states, _ = fit.samples(range(300_000, 300_120), 4, 0.3, points)  # games the models were not fitted on
    for _, _, state in states[:50]:
        for i in range(4):
            for j in range(4):
                if i != j:
                    both = field_leaf.ahead(state, i, j, points) + field_leaf.ahead(state, j, i, points)
                    assert math.isclose(both, 1.0, abs_tol=1e-9)
    for model, (_, coefficients) in field_leaf.MODELS.items():
        (_, count, errors, ordered), _ = fit.check(states, 4, points, coefficients, 60, model)
        assert count == len(states) > 500
        # the fit's 2,000 check games: 0.1218 (pair) and 0.1227 (public) against 0.1289 and a constant's 0.1377
        assert errors["field_value"] < errors["evaluate"] < errors["constant"], model
        assert ordered["field_value"] > 0.6, model


def test_the_public_model_reads_no_card_of_the_other_seats_hand():
    state = games.new_game("maumau-online", 4, 7)
    points = {card: 1 for card in ("2c", "3c")}
    view = field_leaf.views(state)
    hands, *rest = view
    other = [list(hand) for hand in hands]
    other[2] = ["Jc", "Js", "7h", "7d", "Ah"][: len(hands[2])]  # another hand of the same size for seat 2
    swapped = (other, *rest)
    assert field_leaf.public_features(state, 0, 2, points, view) == field_leaf.public_features(state, 0, 2, points, swapped)
    assert field_leaf.pair_features(state, 0, 2, points, view) != field_leaf.pair_features(state, 0, 2, points, swapped)
