"""sample_bots/own_plan.py: the searcher's own next decisions searched inside each sampled world (2-seat maumau)."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
from pathlib import Path

from arena import games

from tests.sdk.test_sample_bots import load
from tests.sdk.test_searcher_bot import play_against_tacticians, start_with_options, turn_for

searcher_module = load("searcher")  # puts sample_bots/ on the path
tactician_module = load("tactician")
own_plan = importlib.import_module("own_plan")
pimc = importlib.import_module("pimc")


def test_the_planning_searcher_is_used_where_asked_and_plays_a_whole_game_legally():
    bot = searcher_module.SearchBot(worlds=3, seed=5, plan=2)
    start_with_options(bot, "maumau", 2, {})
    searcher = bot.games["g"][0]
    assert isinstance(searcher, own_plan.OwnPlan) and searcher.own == 2
    state, _ = play_against_tacticians(bot, "maumau", 2)
    assert state.is_over
    flat = searcher_module.SearchBot(worlds=3, seed=5, plan=0)
    start_with_options(flat, "maumau", 2, {})
    assert not isinstance(flat.games["g"][0], own_plan.OwnPlan)


def test_in_each_world_the_plan_is_worth_at_least_the_tacticians_own_continuation():
    """A world fixes the stock's order and the reshuffles' seed and the tactician is deterministic, so a world's flat
    trial is one line of play, which the plan's search of the own next decisions includes: its value is never lower,
    and higher somewhere (the search finds a better line than the tactician's in some world)."""
    bot = searcher_module.SearchBot(worlds=1, seed=3, plan=2)
    start_with_options(bot, "maumau", 2, {})
    planned = bot.games["g"][0]
    rng = random.Random(8)
    better = 0
    for seed in range(40, 52):
        state = games.new_game("maumau", 2, seed)
        seat = state.current
        for action in state.legal_actions():
            text = str(action)
            flat = pimc.Searcher.trial(planned, state, text, seat, None, random.Random(1))
            again = pimc.Searcher.trial(planned, state, text, seat, None, random.Random(2))
            assert flat == again  # the world decides the line: no chance left in a trial
            for own in (1, 2):
                planned.own = own
                value = planned.trial(state, text, seat, None, rng)
                assert value >= flat
                better += value > flat
    assert better > 0


def test_a_mix_of_0_values_a_node_by_the_tacticians_child_as_the_flat_search_does():
    bot = searcher_module.SearchBot(worlds=1, seed=3, plan=1)
    start_with_options(bot, "maumau", 2, {})
    planned = bot.games["g"][0]
    planned.mix = 0.0
    rng = random.Random(8)
    for seed in range(40, 46):
        state = games.new_game("maumau", 2, seed)
        for action in state.legal_actions():
            flat = pimc.Searcher.trial(planned, state, str(action), state.current, None, random.Random(1))
            assert planned.trial(state, str(action), state.current, None, rng) == flat


def test_the_choice_depends_on_the_seats_view_alone_not_on_the_opponents_real_cards():
    """Mid-game, with the public history: the opponent's real hand swapped with cards of the stock (the same view
    and the same events for the seat) leaves the planning searcher's choice as it was."""
    found = None
    for seed in range(60, 90):
        state = games.new_game("maumau", 2, seed)
        log = state.record_events()
        bots = [tactician_module.Tactician(), tactician_module.Tactician()]
        for b in bots:
            start_with_options(b, "maumau", 2, {})
        moves = 0
        while not state.is_over:
            if moves >= 4 and state.current == 0 and len(state.legal_actions()) > 1 and state.decision != "call":
                found = (state, list(log))
                break
            turn = turn_for(state, state.current, events=log)
            state.apply(state.legal_actions()[turn.index_of(bots[state.current].act(turn))])
            moves += 1
        if found:
            break
    assert found is not None
    state, events = found
    position = state.to_position()
    hand, stock = list(position["hands"][1]), list(position["stock"])
    assert len(stock) >= len(hand)
    swapped = dict(position, hands=[list(position["hands"][0]), stock[:len(hand)]], stock=hand + stock[len(hand):])
    twin = games.from_position("maumau", swapped)
    assert sorted(twin.to_position()["hands"][1]) != sorted(hand)
    choices = []
    for real in (state, twin):
        turn = turn_for(real, 0, events=events)
        assert turn.observation == turn_for(state, 0, events=events).observation
        bot = searcher_module.SearchBot(worlds=6, seed=9, plan=1)
        start_with_options(bot, "maumau", 2, {})
        choices.append(str(bot.act(turn)))
    assert choices[0] == choices[1]


def test_a_negative_or_odd_plan_is_refused_in_one_line_before_the_bot_connects():
    bot = Path(__file__).resolve().parents[2] / "sample_bots" / "searcher.py"
    for value in ("-1", "x", "1.5"):
        shown = subprocess.run([sys.executable, str(bot), "--plan", value, "--arena", "127.0.0.1:1"],
                               capture_output=True, text=True, timeout=60)
        assert shown.returncode == 2, (value, shown.stderr)
        assert "argument --plan" in shown.stderr and "Traceback" not in shown.stderr, shown.stderr
        assert "cannot reach the arena" not in shown.stderr  # refused before any connection was tried


def test_a_plan_with_the_second_step_or_cut_rollouts_is_refused_instead_of_left_unused():
    bot = Path(__file__).resolve().parents[2] / "sample_bots" / "searcher.py"
    for other in (["--second-step"], ["--leaf", "12"]):
        shown = subprocess.run([sys.executable, str(bot), "--plan", "1", *other, "--arena", "127.0.0.1:1"],
                               capture_output=True, text=True, timeout=60)
        assert shown.returncode == 2, (other, shown.stderr)
        assert "--plan does not combine with --second-step or --leaf" in shown.stderr, shown.stderr
        assert "Traceback" not in shown.stderr and "cannot reach the arena" not in shown.stderr
