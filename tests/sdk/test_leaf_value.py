"""sample_bots/leaf_value.py: a cut-short rollout of 2-seat maumau valued by the fitted chance of winning."""

from __future__ import annotations

import importlib
import math
import random

from arena import games

from tests.scripts_loaded import load_script
from tests.sdk.test_sample_bots import load
from tests.sdk.test_searcher_bot import play_against_tacticians, start_with_options, turn_for

searcher_module = load("searcher")  # puts sample_bots/ on the path
tactician_module = load("tactician")
leaf_value = importlib.import_module("leaf_value")


def test_the_leaf_searcher_cuts_its_rollouts_and_plays_a_whole_game_legally():
    bot = searcher_module.SearchBot(worlds=3, seed=5, leaf=4)
    start_with_options(bot, "maumau", 2, {})
    searcher = bot.games["g"][0]
    assert isinstance(searcher, leaf_value.LeafValued) and searcher.budget.depth == 4
    state, _ = play_against_tacticians(bot, "maumau", 2)
    assert state.is_over
    plain = searcher_module.SearchBot(worlds=3, seed=5, leaf=0)  # 0: every rollout to the end of the hand
    start_with_options(plain, "maumau", 2, {})
    assert not isinstance(plain.games["g"][0], leaf_value.LeafValued) and plain.games["g"][0].budget.depth == 60
    second = searcher_module.SearchBot(worlds=3, seed=5, leaf=12, second_step=True)  # values its own full rollouts
    start_with_options(second, "maumau", 2, {})
    assert not isinstance(second.games["g"][0], leaf_value.LeafValued) and second.games["g"][0].budget.depth == 60


def test_a_cut_rollout_is_valued_by_the_win_chance_of_the_state_it_reached():
    bot = searcher_module.SearchBot(worlds=3, seed=5, leaf=2)
    start_with_options(bot, "maumau", 2, {})
    searcher = bot.games["g"][0]
    cut = finished = 0
    for seed in range(40, 60):
        state = games.new_game("maumau", 2, seed)
        seat = state.current
        for action in state.legal_actions():
            value = searcher.trial(state, str(action), seat, None, random.Random(seed))
            reached = state.clone()
            reached.apply(str(action))
            searcher.rollout(reached, random.Random(seed))
            if reached.is_over:
                finished += 1
                assert value == (1.0 if reached.result().placements[seat] == 1 else 0.0)
            else:
                cut += 1
                assert value == leaf_value.win_chance(reached, seat) and 0.0 < value < 1.0
    assert cut > 10


def test_the_model_is_the_same_from_either_seat_and_predicts_fresh_games_better_than_a_constant(monkeypatch):
    fit = load_script(monkeypatch, "fit_leaf_value")
    x, y = fit.samples(range(300_000, 300_150), 0.5)  # games the model was not fitted on
    chances = [leaf_value.logistic(row, leaf_value.COEFFICIENTS) for row in x]
    for k in range(0, len(chances), 2):  # rows come in pairs: the same state from seat 0, then seat 1
        assert math.isclose(chances[k] + chances[k + 1], 1.0, abs_tol=1e-9)
    loss = -sum(math.log(p) if won else math.log(1 - p) for p, won in zip(chances, y)) / len(y)
    assert loss < math.log(2) - 0.05  # a constant 1/2 loses log 2 (0.693); the fit's check games gave 0.587


def test_the_choice_depends_on_the_seats_view_alone_not_on_the_opponents_real_cards():
    state = games.new_game("maumau", 2, 34)
    assert len(state.legal_actions()) == 4  # a choice: the bot searches it
    position = state.to_position()
    seat = state.current
    other = 1 - seat
    swapped = dict(position, hands=[list(h) for h in position["hands"]], stock=list(position["stock"]))
    swapped["hands"][other], swapped["stock"][:5] = swapped["stock"][:5], swapped["hands"][other]
    twin = games.from_position("maumau", swapped)
    assert twin.to_position()["hands"][other] != position["hands"][other]
    choices = []
    for real in (state, twin):
        turn = turn_for(real, seat, events=[])
        assert turn.observation == turn_for(state, seat, events=[]).observation
        bot = searcher_module.SearchBot(worlds=8, seed=9, leaf=6)
        start_with_options(bot, "maumau", 2, {})
        choices.append(str(bot.act(turn)))
    assert choices[0] == choices[1]
