"""sample_bots/second_step.py: the searcher's own next decision searched across the worlds of one information set."""

from __future__ import annotations

import importlib
import random

from arena import games
from arena import messages as convert
from mau_arena_sdk import Turn

from tests.sdk.test_sample_bots import load
from tests.sdk.test_searcher_bot import play_against_tacticians, start_with_options

searcher_module = load("searcher")  # puts sample_bots/ on the path
tactician_module = load("tactician")
second_step = importlib.import_module("second_step")  # the module the searcher uses (its dataclasses need it imported)


def positions(seed, count):
    """(bot, turn) at the first `count` decisions with a choice of a 2-seat maumau game, the bot in seat 0
    (its trackers fed), the tactician in seat 1."""
    bot = searcher_module.SearchBot(worlds=12, seed=seed, second_step=True)
    start_with_options(bot, "maumau", 2, {})
    other = tactician_module.Tactician()
    start_with_options(other, "maumau", 2, {})
    state = games.new_game("maumau", 2, seed)
    log = state.record_events()
    found = []
    while not state.is_over and len(found) < count:
        legal = state.legal_actions()
        message = convert.turn_request_to_pb("g", 1, state.observation(state.current), legal, 60000, 600000,
                                             ["p0", "p1"], list(log))
        turn = Turn.from_pb(message)
        if state.current == 0:
            searcher, _, tracker, history = bot.games["g"]
            tracker.update(turn.history)
            history.update(turn.history)
            searcher.posterior.update(turn.history, turn.observation)
            if len(legal) > 1 and state.decision != "call":
                found.append((bot, turn, state.clone()))
            answer = bot.policy.act(turn)
        else:
            answer = other.act(turn)
        state.apply(legal[turn.index_of(answer)])
    return found


def test_the_searcher_uses_the_second_step_where_asked_and_plays_a_whole_game_legally():
    bot = searcher_module.SearchBot(worlds=2, depth=10, seed=5, second_step=True)
    start_with_options(bot, "maumau", 2, {})
    assert isinstance(bot.games["g"][0], second_step.SecondStepSearcher)
    state, _ = play_against_tacticians(bot, "maumau", 2)
    assert state.is_over


def test_without_extra_rollouts_the_values_are_the_flat_searchs():
    for bot, turn, _ in positions(7, 2):
        searcher, _, tracker, history = bot.games["g"]
        flat = importlib.import_module("posterior").PosteriorSearcher(searcher.ruleset, searcher.options, searcher.policy, searcher.budget,
                                                   searcher.points)
        flat.posterior = searcher.posterior
        searcher.step = second_step.SecondStep(extra=0)
        chain = list(searcher.posterior.cards)
        one = searcher.table(turn.observation, turn.legal, random.Random(4), tracker, history)
        searcher.posterior.cards[:] = chain
        two = flat.table(turn.observation, turn.legal, random.Random(4), tracker, history)
        assert one == two and len(one) == 12


def test_a_node_gathers_only_worlds_that_give_the_seat_the_same_view():
    """Every world of a node shows the searcher the same observation there: what picks its action is its own
    information, never a world's hidden cards (the searcher knows the same in all of them)."""
    checked = 0
    for bot, turn, _ in positions(11, 2):
        searcher, _, tracker, history = bot.games["g"]
        nodes = {}
        original = searcher._first_pass

        def noting(world, k, text, seat, start_scores, rng, nodes_, w):
            nodes.update({id(nodes_): nodes_})
            return original(world, k, text, seat, start_scores, rng, nodes_, w)

        searcher._first_pass = noting
        searcher.table(turn.observation, turn.legal, random.Random(2), tracker, history)
        del searcher._first_pass
        for table in nodes.values():
            for node in table.values():
                views = {repr(sorted(m[1].observation(0).to_dict().items())) for m in node.members}
                assert len(views) == 1
                assert all(str(a) for a in node.legal)
                checked += len(node.members) > 1
    assert checked > 0


def test_a_worlds_value_comes_from_the_action_the_other_worlds_of_its_node_pick():
    node = second_step.Node(("play 7h", "play Kh"), prior=0)
    node.members = [[w, None, 0, values] for w, values in
                    enumerate([{0: 0.0, 1: 1.0}, {0: 0.0, 1: 1.0}, {0: 1.0, 1: 0.0}, {0: 0.0, 1: 1.0}])]
    searcher = second_step.SecondStepSearcher.__new__(second_step.SecondStepSearcher)
    searcher.step = second_step.SecondStep(min_group=3, margin=0.0)
    # world 2 alone favours the prior; the others pick "play Kh" for it, so it gets its own "play Kh" value
    assert searcher._value(2, 1.0, node) == 0.0
    # world 0's others (1, 2, 3) gain 1/3 on average by "play Kh": it gets 1.0
    assert searcher._value(0, 0.0, node) == 1.0
    # a node with too few worlds keeps the first pass's value
    node.members = node.members[:2]
    assert searcher._value(0, 0.0, node) == 0.0



def test_the_pass_2_budget_is_the_bots_step_extra_and_caps_the_extra_rollouts():
    default = searcher_module.SearchBot(worlds=2, seed=5, second_step=True)
    start_with_options(default, "maumau", 2, {})
    assert default.games["g"][0].step.extra == second_step.SecondStep().extra == 120
    asked = searcher_module.SearchBot(worlds=2, seed=5, second_step=True, step_extra=9)
    start_with_options(asked, "maumau", 2, {})
    assert asked.games["g"][0].step.extra == 9
    extras = {}
    for extra in (0, 9, 40):
        for bot, turn, _ in positions(7, 3):
            searcher, _, tracker, history = bot.games["g"]
            searcher.step = second_step.SecondStep(extra=extra)
            calls, second = [], []
            finish, second_pass = searcher._finish, searcher._second_pass
            searcher._finish = lambda *args: calls.append(bool(second)) or finish(*args)
            searcher._second_pass = lambda *args: second.append(1) or second_pass(*args)
            searcher.table(turn.observation, turn.legal, random.Random(4), tracker, history)
            del searcher._finish, searcher._second_pass
            assert sum(calls) <= extra  # every pass-2 rollout finishes once
            extras[extra] = extras.get(extra, 0) + sum(calls)
    assert extras[40] > extras[0] == 0  # the larger budget is spent
