"""sample_bots/own_tree.py: the searcher's own next decisions chosen by nodes over its information sets (2-seat maumau)."""

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
own_tree = importlib.import_module("own_tree")
pimc = importlib.import_module("pimc")


def treed(worlds=1, seed=3, own=2):
    bot = searcher_module.SearchBot(worlds=worlds, seed=seed, tree=own)
    start_with_options(bot, "maumau", 2, {})
    return bot, bot.games["g"][0]


def test_the_tree_searcher_is_used_where_asked_and_plays_whole_games_legally_and_the_same_each_time():
    bot, searcher = treed(worlds=4, seed=5, own=2)
    assert isinstance(searcher, own_tree.OwnTree) and searcher.own == 2
    flat = searcher_module.SearchBot(worlds=3, seed=5, tree=0)
    start_with_options(flat, "maumau", 2, {})
    assert not isinstance(flat.games["g"][0], own_tree.OwnTree)
    lines = []
    for _ in range(2):
        bot, _ = treed(worlds=4, seed=5, own=2)
        state, log = play_against_tacticians(bot, "maumau", 2)
        assert state.is_over
        lines.append([(e.seat, e.kind, dict(e.details or {})) for e in log])
    assert lines[0] == lines[1]  # a pure function of the seed and the game: no clock, no global randomness


def test_a_fresh_node_plays_the_tacticians_choice_so_a_first_trial_is_the_flat_searchs():
    _, searcher = treed()
    for seed in range(40, 48):
        state = games.new_game("maumau", 2, seed)
        for action in state.legal_actions():
            searcher._nodes = {}
            flat = pimc.Searcher.trial(searcher, state, str(action), state.current, None, random.Random(1))
            assert searcher.trial(state, str(action), state.current, None, random.Random(1)) == flat


def test_the_worlds_that_reach_a_node_share_it_and_a_better_action_found_there_is_kept():
    """One world, tried again and again: its node under the root action sees every visit, tries the other actions as
    its visits grow, and then plays the best it found in that world, whose value is never below the tactician's line."""
    _, searcher = treed(own=1)
    searcher.widen = 1  # explore from the second visit
    found = 0
    for seed in range(40, 60):
        state = games.new_game("maumau", 2, seed)
        seat = state.current
        for action in state.legal_actions():
            text = str(action)
            flat = pimc.Searcher.trial(searcher, state, text, seat, None, random.Random(1))
            searcher._nodes = {}
            values = [searcher.trial(state, text, seat, None, random.Random(1)) for _ in range(40)]
            assert values[0] == flat
            if not searcher._nodes:
                assert set(values) == {flat}  # no own decision with a choice before the hand ended
                continue
            (node,) = searcher._nodes.values()
            assert node.visits == 40 and sum(n for n, _ in node.stats.values()) == 40
            best = max(node.mean(t) for t in node.stats)
            assert best >= flat - 1e-9  # a mean of equal floats may differ in the last bit
            if best > flat + 1e-9:
                found += 1
                assert abs(values[-1] - best) < 1e-9  # the node settled on it
    assert found > 0


def test_a_node_is_keyed_by_what_the_seat_knows_not_by_the_order_of_its_hand():
    key = own_tree.OwnTree().key
    assert key(["play 7h"], {"hand": ["Ks", "8d"]}) == key(["play 7h"], {"hand": ["8d", "Ks"]})
    assert key(["play 7h"], {"hand": ["Ks", "8d"]}) != key(["play 7h"], {"hand": ["Ks", "9d"]})
    assert key(["play 7h", "draw"], {"hand": ["Ks"]}) != key(["play 7h"], {"hand": ["Ks"]})
    merged = own_tree.OwnTree()
    merged.merge = True  # keyed by what the choice depends on: two histories that end in the same view share a node
    view = {"hand": ["Ks", "8d"], "discard": ["9h", "8h"], "active_suit": None, "hand_sizes": [2, 4], "decision": "turn"}
    assert merged.key(["play 7h", "play 9h", "play 8h"], view) == merged.key(["play 7h", "draw", "play 8h"], view)
    assert merged.key(["play 7h"], view) != merged.key(["play 7s"], view)  # never across root actions
    assert merged.key(["play 7h"], view) != merged.key(["play 7h"], dict(view, hand_sizes=[2, 3]))


def test_the_budget_is_a_count_of_trials_not_time(monkeypatch):
    """worlds × legal actions trials a decision, whatever the clock says (the clock is not read: a frozen one changes
    nothing), and the nodes are dropped after the decision."""
    import time

    monkeypatch.setattr(time, "time", lambda: 0.0)
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    monkeypatch.setattr(time, "process_time", lambda: 0.0)
    bot, searcher = treed(worlds=5, seed=2, own=2)
    calls = []
    original = searcher.trial

    def counting(*args):
        calls.append(args[1])
        return original(*args)

    searcher.trial = counting
    state = games.new_game("maumau", 2, 33)
    log = state.record_events()
    other = tactician_module.Tactician()
    start_with_options(other, "maumau", 2, {})
    searched = 0
    while not state.is_over and searched < 3:
        turn = turn_for(state, state.current, events=log)
        if state.current == 0 and len(state.legal_actions()) > 1:
            calls.clear()
            answer = bot.act(turn)
            assert len(calls) == 5 * len(state.legal_actions())
            assert searcher._nodes is None
            searched += 1
        else:
            answer = other.act(turn)
        state.apply(state.legal_actions()[turn.index_of(answer)])
    assert searched == 3


def test_the_choice_depends_on_the_seats_view_alone_not_on_the_opponents_real_cards():
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
    swapped = dict(position, hands=[list(position["hands"][0]), stock[:len(hand)]], stock=hand + stock[len(hand):])
    twin = games.from_position("maumau", swapped)
    assert sorted(twin.to_position()["hands"][1]) != sorted(hand)
    choices = []
    for real in (state, twin):
        turn = turn_for(real, 0, events=events)
        bot, _ = treed(worlds=6, seed=9, own=2)
        choices.append(str(bot.act(turn)))
    assert choices[0] == choices[1]


def test_a_tree_with_another_search_of_the_own_decisions_is_refused_in_one_line():
    bot = Path(__file__).resolve().parents[2] / "sample_bots" / "searcher.py"
    for other in (["--second-step"], ["--plan", "1"]):
        shown = subprocess.run([sys.executable, str(bot), "--tree", "2", *other, "--arena", "127.0.0.1:1"],
                               capture_output=True, text=True, timeout=60)
        assert shown.returncode == 2, (other, shown.stderr)
        assert "--tree does not combine with --second-step or --plan" in shown.stderr, shown.stderr
        assert "Traceback" not in shown.stderr and "cannot reach the arena" not in shown.stderr


def test_a_tree_with_cut_rollouts_values_a_cut_trial_by_the_win_chance_and_a_finished_one_by_its_placement():
    """`--tree N --leaf D`: the nodes' trials stop after D decisions, and a trial that stopped before the hand's end is
    valued as the flat leaf searcher values its cut rollouts (`leaf_value.win_chance` of the state it reached)."""
    leaf_value = importlib.import_module("leaf_value")
    bot = searcher_module.SearchBot(worlds=2, seed=3, tree=2, leaf=4)
    start_with_options(bot, "maumau", 2, {})
    searcher = bot.games["g"][0]
    assert isinstance(searcher, own_tree.OwnTree) and isinstance(searcher, leaf_value.LeafValued)
    assert searcher.budget.depth == 4 and searcher.own == 2
    reached = []
    real_cut = searcher.cut_value
    searcher.cut_value = lambda state, seat, scores: reached.append((state.clone(), seat)) or real_cut(state, seat, scores)
    cut = 0
    for seed in range(60, 90):
        state = games.new_game("maumau", 2, seed)
        for action in state.legal_actions():
            searcher._nodes = {}
            reached.clear()
            value = searcher.trial(state, str(action), state.current, None, random.Random(seed))
            if reached:
                (end, seat), = reached
                assert not end.is_over and value == leaf_value.win_chance(end, seat)
                assert 0.0 < value < 1.0
                cut += 1
            else:
                assert value in (0.0, 1.0)  # the hand ended inside the cut: its placement
    assert cut > 0
    state, _ = play_against_tacticians(bot, "maumau", 2)
    assert state.is_over
