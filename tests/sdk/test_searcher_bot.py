"""The sample searcher (PIMC over sampled worlds): legal play in every ruleset, a deterministic
choice for a fixed seed and budget, and search that finds what its rollout policy misses."""

from __future__ import annotations

import importlib
import random

import pytest

from arena import games
from arena import messages as convert
from mau_arena_sdk import Turn

from tests.sdk.test_sample_bots import load, start

searcher_module = load("searcher")
pimc = importlib.import_module("pimc")  # the searcher's own helper module (load() put sample_bots/ on the path)

#: Options that keep a whole game short enough for the default suite.
SHORT = {"mose": {"rounds": 1}, "ddmau": {"max_hands": 1}, "moumou": {"limit": 30}, "tschau-sepp": {"limit": 60}}


def turn_for(state, seat, game_id="g", events=None, move_ms=60000):
    """The turn request of `seat`, with the time limit of the measured runs of `sample_bots/README.md` (so the
    searcher's clock guard never acts)."""
    names = [f"p{i}" for i in range(state.players)]
    extra = () if events is None else (list(events),)
    message = convert.turn_request_to_pb(game_id, 1, state.observation(seat), state.legal_actions(), move_ms, 600000,
                                         names, *extra)
    return Turn.from_pb(message)


def play_out(state, bots, log):
    """Play ``state`` to its end, seat i answered by ``bots[i]``; each turn carries the public log so far."""
    while not state.is_over:
        turn = turn_for(state, state.current, events=log)
        answer = bots[state.current].act(turn)
        state.apply(state.legal_actions()[turn.index_of(answer)])


def play_against_tacticians(bot, ruleset, players, seed=21):
    """Play a whole ``ruleset`` game dealt from ``seed``: ``bot`` (its game started already) in seat 0, tacticians in
    the others; returns the ended state and its public log.  An illegal answer raises in `index_of` or `apply`."""
    tactician = load("tactician")
    others = [tactician.Tactician() for _ in range(players - 1)]
    for other in others:
        start_with_options(other, ruleset, players, {})
    state = games.new_game(ruleset, players, seed)
    log = state.record_events()
    play_out(state, [bot, *others], log)
    return state, log


def start_with_options(bot, ruleset, players, options):
    from arena.match.seat import GameStart
    from arena.match.timecontrol import TimeControl
    from mau_arena_sdk import GameInfo

    names = tuple(f"p{i}" for i in range(players))
    info = GameInfo.from_pb(convert.game_started_to_pb(GameStart("g", ruleset, options, 0, names, TimeControl())))
    bot.on_game_start(info)
    return info


@pytest.mark.parametrize("ruleset", games.rulesets())
def test_the_searcher_plays_a_whole_game_of_every_ruleset_legally_with_a_tiny_budget(ruleset):
    info = games.ruleset_info(ruleset)
    players = info.default_players or info.min_players
    options = {k: v for k, v in SHORT.get(ruleset, {}).items() if k in info.options}
    bot = searcher_module.SearchBot(worlds=1, depth=3, seed=7)
    start_with_options(bot, ruleset, players, options)
    rng = random.Random(3)
    state = games.new_game(ruleset, players, 11, **options)
    searched = 0
    for _ in range(20000):
        if state.is_over:
            break
        legal = state.legal_actions()
        if state.current == 0:
            turn = turn_for(state, 0)
            searched += len(legal) > 1
            state.apply(legal[turn.index_of(bot.act(turn))])  # index_of raises on an illegal answer
        else:
            state.apply(rng.choice(legal))
    assert state.is_over, f"{ruleset} did not finish"
    assert searched > 0


def test_with_a_fixed_seed_and_budget_the_choice_is_deterministic():
    state = games.new_game("maumau-online", 4, 21)
    while len(state.legal_actions()) < 3 or state.current != 0:
        state.apply(state.legal_actions()[-1])
    turn = turn_for(state, 0)
    runs = []
    for _ in range(2):
        bot = searcher_module.SearchBot(worlds=6, depth=20, seed=99)
        start_with_options(bot, "maumau-online", 4, {})
        runs.append([bot.act(turn).text for _ in range(3)])  # the bot's rng moves on between calls
    assert runs[0] == runs[1]
    searcher = pimc.Searcher("maumau-online", {}, lambda t: t.legal[0], pimc.Budget(worlds=6, depth=20))
    first = searcher.values(turn.observation, turn.legal, random.Random(5))
    assert searcher.values(turn.observation, turn.legal, random.Random(5)) == first
    assert len(set(first)) > 1  # the values tell the actions apart


def test_budget_zero_plays_the_tactician():
    state = games.new_game("maumau", 2, 4)
    bot = searcher_module.SearchBot(worlds=0, seed=1)
    tactician = load("tactician").Tactician()
    for b in (bot, tactician):
        start(b, "maumau")
    for _ in range(40):
        if state.is_over:
            break
        turn = turn_for(state, state.current)
        assert bot.act(turn).text == tactician.act(turn).text
        state.apply(state.legal_actions()[turn.index_of(tactician.act(turn))])


def test_the_search_goes_out_when_it_can_even_if_its_rollout_policy_would_not():
    # Moumou with voluntary draws: a last card 9h on a 9c top. A policy that always draws never goes out; the search,
    # trying every action, sees that playing on wins the hand sooner than drawing.
    position = games.new_game("moumou", 2, 1, voluntary_draw=True).to_position()
    deck = [c for place in (*position["hands"], position["discard"], position["stock"]) for c in place]
    hands, discard = [["9h"], ["Ks", "Kd", "Qd", "8s", "7c"]], ["9c"]
    stock = [c for c in deck if c not in {*hands[0], *hands[1], *discard}]
    position.update(hands=hands, discard=discard, stock=stock, current=0, phase="turn",
                    combo=[], opening=False, pending={"draw": 0, "skip": 0}, active_suit=None, suit_kind=None)
    state = games.from_position("moumou", position, voluntary_draw=True)
    assert {str(a) for a in state.legal_actions()} >= {"play 9h", "draw"}
    never_plays = lambda t: next((a for a in t.legal if not a.cards), t.legal[0])  # noqa: E731
    searcher = pimc.Searcher("moumou", {"voluntary_draw": True}, never_plays, pimc.Budget(worlds=4, depth=30))
    legal = state.legal_actions()
    values = dict(zip(map(str, legal), searcher.values(state.observation(0), legal, random.Random(1))))
    assert values["play 9h"] > values["draw"]
    assert str(searcher.choose(state.observation(0), legal, random.Random(1))) == "play 9h"


@pytest.mark.parametrize("ruleset,players", [("maumau", 2), ("moumou", 2), ("maumau-online", 4)])
def test_what_the_history_tells_is_true_of_the_real_deal_and_the_worlds_agree_with_it(ruleset, players):
    # Tacticians play when they can, so every void the tracker infers from a draw holds in the real
    # deal, and every card it knows buried is under the pile; worlds moved to agree keep the seat's view.
    from collections import Counter

    inference = importlib.import_module("inference")
    tactician = load("tactician").Tactician()
    info = start_with_options(tactician, ruleset, players, {})
    rng = random.Random(2)
    inferred = moved = 0
    for seed in range(3):
        state = games.new_game(ruleset, players, seed)
        state.record_events()
        tracker = inference.CardTracker(info.facts)
        sampler_checks = 0
        for _ in range(600):
            if state.is_over:
                break
            if state.current == 0:
                tracker.update(state.events)  # as the searcher feeds it
                position, obs = state.to_position(), state.observation(0)
                visible = len(obs["discard"])
                pile = position["discard"]
                assert not tracker.buried - Counter(pile), "a card known buried is not in the pile"
                for void in tracker.voids:
                    if void.seat != 0:
                        fitting = [c for c in position["hands"][void.seat] if tracker.fits(c, void.top, void.named)]
                        assert len(fitting) <= void.drawn, (void, fitting)
                        inferred += 1
                if sampler_checks < 5 and len(state.legal_actions()) > 1:
                    sampler_checks += 1
                    world = games.sample_world(ruleset, obs, rng)
                    agreed = tracker.agree(world, 0, rng, visible)
                    moved += agreed is not world
                    assert agreed.observation(0).to_dict() == obs.to_dict()
                    assert [str(a) for a in agreed.legal_actions()] == [str(a) for a in state.legal_actions()]
                    agreed_pile = agreed.to_position()["discard"]
                    assert not tracker.buried - Counter(agreed_pile)
            state.apply(state.legal_actions()[turn_for(state, state.current).index_of(
                tactician.act(turn_for(state, state.current)))])
    assert inferred > 0 and moved > 0


def test_the_search_leaves_the_policys_choice_only_for_a_gain_beyond_its_noise():
    class Fixed(pimc.Searcher):
        rows: list = []

        def table(self, observation, legal, rng, tracker=None, history=None):
            return self.rows

    searcher = Fixed("maumau", {}, lambda t: t.legal[0], pimc.Budget(worlds=4, confidence=1.0))
    legal = ["a", "b", "c"]
    Fixed.rows = [[0.5, 0.9, 0.5], [0.5, 0.1, 0.5], [0.5, 0.9, 0.5], [0.5, 0.2, 0.5]]  # b: +0.025, noisy
    assert searcher.choose({}, legal, random.Random(1), prior=2) == "c"
    assert searcher.choose({}, legal, random.Random(1)) == "b"  # without a prior the best mean wins
    Fixed.rows = [[0.5, 0.6, 0.5], [0.4, 0.5, 0.4], [0.5, 0.6, 0.5], [0.3, 0.45, 0.3]]  # b: a steady gain
    assert searcher.choose({}, legal, random.Random(1), prior=2) == "b"
    Fixed.rows = [[0.5, 0.5, 0.5]] * 4  # all equal: the prior
    assert searcher.choose({}, legal, random.Random(1), prior=1) == "b"


def test_maumau_online_rollouts_stop_at_the_depth_cap_and_score_the_cut_state_by_the_cards_held():
    # Tactician games of Online Mau-Mau last thousands of decisions, so a rollout to the end would cost
    # seconds: the searcher's budget caps it and scores the unfinished state (pimc.evaluate's cut-off branch).
    budget = searcher_module.default_budget("maumau-online")
    assert 0 < budget.depth <= 100 and budget.worlds > 0
    tactician = load("tactician").Tactician()
    start_with_options(tactician, "maumau-online", 4, {})
    calls = []

    def policy(turn):
        calls.append(turn.seat)
        return tactician.act(turn)

    tactician.facts["rollout"] = tactician.facts["g"]
    searcher = pimc.Searcher("maumau-online", {}, policy, budget)
    state = games.new_game("maumau-online", 4, 1)  # its tactician game runs 5,670 decisions
    searcher.rollout(state, random.Random(2))
    assert not state.is_over, "the rollout ran past its cap"
    assert 0 < len(calls) <= budget.depth
    value = pimc.evaluate(state, 0, None, {}, True)
    assert 0.0 <= value <= 1.0
    assert value == 0.5 + 0.15 * pimc.hand_value(state, 0, {})  # the cut-off branch: no scores, cards held

    # The cut-off value tells hands apart: the seat with the fewest cards stands best, the most the worst.
    sizes = state.observation(0)["hand_sizes"]
    values = [pimc.evaluate(state, seat, None, {}, True) for seat in range(4)]
    assert values[sizes.index(min(sizes))] == max(values) and values[sizes.index(max(sizes))] == min(values)
    assert len(set(values)) > 1


def test_a_trial_in_maumau_online_is_scored_at_the_cap_not_played_to_the_end():
    # Every trial (one action in one world) costs at most depth + 1 engine decisions.
    budget = pimc.Budget(worlds=2, depth=12)
    applied = []

    class Counting(pimc.Searcher):
        def rollout(self, state, rng):
            before = len(applied)
            super().rollout(state, rng)
            assert len(applied) - before <= self.budget.depth

    def policy(turn):
        applied.append(turn.seat)
        return turn.legal[-1]

    state = games.new_game("maumau-online", 4, 1)
    while len(state.legal_actions()) < 2 or state.current != 0:
        state.apply(state.legal_actions()[0])
    searcher = Counting("maumau-online", {}, policy, budget)
    legal = state.legal_actions()
    rows = searcher.table(state.observation(0), legal, random.Random(4))
    assert len(rows) == budget.worlds and all(len(row) == len(legal) for row in rows)
    assert all(0.0 <= v <= 1.0 for row in rows for v in row)
    assert 0 < len(applied) <= budget.worlds * len(legal) * budget.depth


@pytest.mark.parametrize("ruleset", ["maumau", "moumou"])
def test_worlds_from_the_engine_history_keep_the_real_pile_and_break_no_void(ruleset):
    # With the engine's history (arena.games.worlds.Tracker) each sampled world has the real pile card by card,
    # so no card the history shows buried is in the opponent's hand or the stock; the card tracker's voids then
    # judge the worlds (Budget.tries), and the world kept breaks none (tacticians play when they can, so the real
    # deal breaks none either).
    from collections import Counter

    from arena.games.worlds import Tracker

    inference = importlib.import_module("inference")
    tactician = load("tactician").Tactician()
    info = start_with_options(tactician, ruleset, 2, {})
    searcher = pimc.Searcher(ruleset, {}, tactician.act, pimc.Budget(worlds=1, tries=30))
    rng = random.Random(4)
    judged = plain_broken = played = 0
    for seed in range(4):
        state = games.new_game(ruleset, 2, seed)
        log = state.record_events()
        model = importlib.import_module("play_model").PlayModel(info.facts) if ruleset == "maumau" else None
        cards, history = inference.CardTracker(info.facts, policy_tells=True, play_model=model), Tracker(ruleset)
        for _ in range(400):
            if state.is_over:
                break
            turn = turn_for(state, state.current)
            if state.current == 0 and len(turn.legal) > 1:
                cards.update(log)
                history.update(log)
                assert cards.excess(state, 0) == 0  # the real deal agrees with every void
                sampler = searcher.sampler(turn.observation, history)
                assert sampler.history is not None
                real = state.to_position()
                for _ in range(4):
                    world = searcher.world(sampler, rng, cards, 0, len(turn.observation["discard"]))
                    position = world.to_position()
                    assert position["discard"] == real["discard"]
                    assert not Counter(position["hands"][1]) & Counter(real["discard"])
                    assert world.observation(0).to_dict() == state.observation(0).to_dict()
                    assert cards.excess(world, 0) == 0
                    judged += bool([v for v in cards.voids if v.seat == 1])
                    played += bool([t for t in cards.plays if t.seat == 1])
                    plain_broken += cards.excess(sampler.sample(rng), 0) > 0
            state.apply(state.legal_actions()[turn.index_of(tactician.act(turn))])
    assert judged > 0  # voids were there to judge by
    assert (played > 0) == (ruleset == "maumau")  # and in Mau-Mau the opponent's choices of card (PlayTell)
    assert plain_broken > 0  # and worlds drawn without judging do break them: the judging is not idle


def test_a_wild_card_and_the_suit_named_after_it_tell_what_a_tactician_like_opponent_held():
    # Seat 1 plays Jc on Kh with 3 cards left and names spades.  A tactician keeps its wilds while a plain card
    # fits and names the suit it holds most of: so it held no heart and no King, and no suit more than spades.
    from types import SimpleNamespace

    from mau_arena_sdk.history import Event

    inference = importlib.import_module("inference")
    info = start_with_options(load("tactician").Tactician(), "maumau", 2, {})
    events = [Event(None, "deal", "", {"hand": 1, "dealer": 1, "hand_sizes": [5, 5]}),
              Event(None, "open", "", {"card": "8d"}), Event(0, "play", "", {"card": "9d"}),
              Event(1, "play", "", {"card": "9h"}), Event(0, "play", "", {"card": "Kh"}),
              Event(1, "play", "", {"card": "Jc"}), Event(1, "suit", "", {"suit": "s"})]
    tracker = inference.CardTracker(info.facts, policy_tells=True)
    tracker.update(events)

    def excess(hand):
        return tracker.excess(SimpleNamespace(hands=[["8d", "Kd", "Ad"], hand]), 0)

    assert excess(["7s", "As", "Qd"]) == 0  # no plain card fitted Kh (the top before the Jack), spades the most
    assert excess(["Ks", "7s", "Jd"]) == 1  # Ks fitted the King: it would have kept the Jack
    assert excess(["Qc", "Ac", "7s"]) == 1  # two clubs, one spade: it would have named clubs
    assert excess(["8c", "8s", "Jd"]) == 0  # wilds count for no suit
    plain = inference.CardTracker(info.facts)  # without policy_tells: only what the rules force
    plain.update(events)
    assert plain.excess(SimpleNamespace(hands=[[], ["Ks", "Qc", "Ac"]]), 0) == 0
    tracker.update([*events, Event(1, "draw", "", {"count": 1})])  # a card drawn since: the named suit tells less
    assert excess(["Qc", "Ac", "7s", "7d"]) == 0


def test_the_card_an_opponent_chose_tells_what_a_tactician_would_have_played_instead():
    # Seat 1 plays 9h on 9c: a tactician sheds the most points first and attacks with 7s and 8s, so it held
    # no club that scores above a 9 (no 7c, Tc, Qc...); cards that did not fit 9c tell nothing, nor a Jack it kept.
    # The tell lasts until seat 1 draws (its hand then is no longer its hand now plus what it played); its draw
    # on 9s leaves only the void it shows.
    from types import SimpleNamespace

    from mau_arena_sdk.history import Event

    inference = importlib.import_module("inference")
    info = start_with_options(load("tactician").Tactician(), "maumau", 2, {})
    model = importlib.import_module("play_model").PlayModel(info.facts)
    events = [Event(None, "deal", "", {"hand": 1, "dealer": 1, "hand_sizes": [5, 5]}),
              Event(None, "open", "", {"card": "8c"}), Event(0, "play", "", {"card": "9c"}),
              Event(1, "play", "", {"card": "9h"})]
    tracker = inference.CardTracker(info.facts, policy_tells=True, play_model=model)
    tracker.update(events)

    def excess(hand, tracker=tracker):
        return tracker.excess(SimpleNamespace(hands=[["8d", "Kc", "Ac", "Qs"], hand]), 0)

    assert tracker.judging() and [(t.seat, t.card) for t in tracker.plays if t.seat == 1] == [(1, "9h")]
    assert excess(["7s", "Ts", "Qd", "8s"]) == 0  # no card that fitted 9c scored above 9h
    assert excess(["Ah", "7s", "Ts", "Qd"]) == 0  # Ah is worth more but did not fit 9c
    assert excess(["Qc", "7s", "Ts", "Qd"]) == 1  # Qc fitted and is worth more: it would have gone first
    assert excess(["Tc", "7s", "Ts", "Qd"]) == 1  # Tc fitted 9c and is worth more: it would have gone first
    assert excess(["7c", "7s", "Ts", "Qd"]) == 1  # an attacking 7 fitted: the tactician plays it first
    assert excess(["Jd", "7s", "Ts", "Qd"]) == 0  # a Jack: kept while a plain card fits
    plain = inference.CardTracker(info.facts, policy_tells=True)  # no play model (the other rulesets): no tell
    plain.update(events)
    assert not plain.judging() and excess(["Tc", "7s", "Ts", "Qd"], plain) == 0
    tracker.update([*events, Event(0, "play", "", {"card": "9s"}), Event(1, "draw", "", {"count": 1})])
    assert not [t for t in tracker.plays if t.seat == 1] and excess(["Tc", "7d", "Td", "Qd", "Kd"]) == 0


@pytest.mark.parametrize("ruleset,players", [("maumau", 2), ("maumau-online", 4)])
def test_against_tacticians_the_play_model_never_rules_out_the_real_deal(ruleset, players):
    # The opponents are tacticians, so a right model of their choices keeps their real hands: in Online
    # Mau-Mau that needs the direction of play (a Queen reverses it: the "next player" the tactician
    # attacks); the turns where an accusation is open are read like any other (the tactician plays them
    # by its scoring).
    inference = importlib.import_module("inference")
    tactician = load("tactician").Tactician()
    info = start_with_options(tactician, ruleset, players, {})
    model = importlib.import_module("play_model").PlayModel(info.facts)
    judged = 0
    for seed in range(4):
        state = games.new_game(ruleset, players, seed)
        state.record_events()
        tracker = inference.CardTracker(info.facts, policy_tells=True, play_model=model)
        for _ in range(400):
            if state.is_over:
                break
            turn = turn_for(state, state.current)
            if state.current == 0:
                tracker.update(state.events)
                judged += bool(tracker.plays)
                assert tracker.broken(state.to_position()["hands"], 0) == 0, (seed, tracker.plays, tracker.voids)
            state.apply(state.legal_actions()[turn.index_of(tactician.act(turn))])
    assert judged > 20


def test_the_tracker_follows_the_direction_of_play_that_the_tacticians_next_player_depends_on():
    # Online Mau-Mau: a Queen reverses play, the upcard's too (its effects apply, B-2); a play tell keeps the
    # direction before the play, so the model scores the attack on the right "next player".
    from mau_arena_sdk.history import Event

    inference = importlib.import_module("inference")
    info = start_with_options(load("tactician").Tactician(), "maumau-online", 4, {})
    model = importlib.import_module("play_model").PlayModel(info.facts)
    tracker = inference.CardTracker(info.facts, policy_tells=True, play_model=model)
    tracker.update([Event(None, "deal", "", {"hand": 1, "dealer": 0, "hand_sizes": [5, 5, 5, 5]}),
                    Event(None, "open", "", {"card": "Qd", "from_hand": False})])
    assert tracker.step == -1
    tracker.update([*tracker_events(), Event(3, "play", "", {"card": "5d"}), Event(2, "play", "", {"card": "5h"}),
                    Event(1, "play", "", {"card": "Qh"}), Event(2, "play", "", {"card": "4h"})])
    assert [(t.seat, t.card, t.step) for t in tracker.plays] == [(3, "5d", -1), (2, "5h", -1), (1, "Qh", -1),
                                                                (2, "4h", 1)]
    no_effects = inference.CardTracker(start_with_options(load("tactician").Tactician(), "maumau-online", 4,
                                                          {"starter_effects": False}).facts)
    no_effects.update(tracker_events())
    assert no_effects.step == 1


def tracker_events():
    from mau_arena_sdk.history import Event

    return [Event(None, "deal", "", {"hand": 1, "dealer": 0, "hand_sizes": [5, 5, 5, 5]}),
            Event(None, "open", "", {"card": "Qd", "from_hand": False})]


def test_the_searchers_help_lists_its_own_flags_and_the_sdks():
    """`searcher.py --help`: the search's flags (which the SDK's parser never sees) and then the SDK's."""
    import subprocess
    import sys
    from pathlib import Path

    bot = Path(__file__).resolve().parents[2] / "sample_bots" / "searcher.py"
    shown = subprocess.run([sys.executable, str(bot), "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    for flag in ("--worlds", "--depth", "--play-model", "--no-history", "--arena", "--games-limit"):
        assert flag in shown.stdout, (flag, shown.stdout)


def test_a_negative_leaf_or_prune_is_refused_in_one_line_before_the_bot_connects():
    import subprocess
    import sys
    from pathlib import Path

    bot = Path(__file__).resolve().parents[2] / "sample_bots" / "searcher.py"
    for flag, value in (("--leaf", "-3"), ("--prune", "-0.5"), ("--leaf", "x"), ("--step-extra", "-1")):
        shown = subprocess.run([sys.executable, str(bot), flag, value, "--arena", "127.0.0.1:1"],
                               capture_output=True, text=True, timeout=60)
        assert shown.returncode == 2, (flag, value, shown.stderr)
        assert f"argument {flag}" in shown.stderr and "Traceback" not in shown.stderr, shown.stderr
        assert "cannot reach the arena" not in shown.stderr  # refused before any connection was tried


def test_a_finished_game_is_valued_by_placement_alone_with_edge_zero_as_the_maumau_default():
    # A 2-seat maumau game is one hand and the arena counts placements: its default budget weighs the score edge 0;
    # with the weight of the other rulesets (0.1) the loser's points move the value off the placement.
    tactician = load("tactician").Tactician()
    start(tactician, "maumau")
    state = games.new_game("maumau", 2, 3)
    while not state.is_over:
        turn = turn_for(state, state.current)
        state.apply(state.legal_actions()[turn.index_of(tactician.act(turn))])
    points = {card: 10 for card in ("Ac", "Ad", "Ah", "As", "Tc", "Td", "Th", "Ts")}
    winner = state.result().placements.index(1)
    values = [pimc.evaluate(state, seat, [0, 0], points, True, edge_weight=0.0) for seat in (0, 1)]
    assert values[winner] == 1.0 and values[1 - winner] == 0.0
    assert state.result().points[1 - winner] > 0  # the loser held points, so the default weight moves the value
    assert pimc.evaluate(state, winner, [0, 0], points, True) > 1.0
    assert searcher_module.default_budget("maumau").edge == 0.0
    assert all(searcher_module.default_budget(r).edge == 0.1 for r in ("moumou", "maumau-online", "mose", "ddmau"))


class Scripted(pimc.Searcher):
    """A searcher whose worlds are numbers and whose rollouts read a fixed table: `values(world, action)`."""

    def __init__(self, budget, values):
        super().__init__("maumau-online", {}, lambda t: t.legal[0], budget)
        self.values_of = values
        self.drawn = 0
        self.rollouts = []

    def sampler(self, observation, history=None):
        return None

    def world(self, sampler, rng, tracker, seat, visible):
        self.drawn += 1
        return self.drawn - 1

    def trial(self, world, text, seat, start_scores, rng):
        self.rollouts.append(text)
        return self.values_of(world, text)


def test_racing_gives_a_clearly_worse_actions_rollouts_to_more_worlds_for_the_close_ones():
    # "bad" trails by 0.5 in every world; "a" and "b" are close and noisy.  After the warm-up "bad" is pruned and its
    # share of the rollouts (worlds x actions) goes to more worlds for the other two.
    def value(world, text):
        noise = 0.3 if world % 2 else -0.3
        return {"a": 0.5 + noise, "b": 0.5 + noise + (0.1 if world % 3 == 0 else -0.04), "bad": 0.0}[text]

    searcher = Scripted(pimc.Budget(worlds=10, prune=2.0, warmup=4), value)
    choice = searcher.race({"seat": 0}, ["a", "b", "bad"], random.Random(1), prior=0)
    assert searcher.rollouts.count("bad") == 4  # the warm-up only
    assert len(searcher.rollouts) <= 30 and searcher.drawn == 4 + (30 - 12) // 2
    assert choice == 1  # b's mean gain over 13 worlds: (5 x 0.1 - 8 x 0.04) / 13 > 0
    assert pimc.survivors([0, 1, 2], {0: [0.5, 0.1], 1: [0.5, 0.1], 2: [0.0, -0.4]}, 2.0) == [0, 1]
    assert pimc.survivors([0, 1, 2], {0: [0.5, 0.1], 1: [0.5, 0.1], 2: [0.0, -0.4]}, 2.0, keep=2) == [0, 1, 2]


def test_racing_keeps_the_prior_unless_the_leader_gains_beyond_the_confidence():
    def value(world, text):  # b's gain over a: +0.2 or -0.18 by world, a small mean against its noise
        return {"a": 0.5, "b": 0.7 if world % 2 else 0.32}[text]

    searcher = Scripted(pimc.Budget(worlds=6, prune=2.0, warmup=4, confidence=1.0), value)
    assert searcher.race({"seat": 0}, ["a", "b"], random.Random(1), prior=0) == 0
    assert searcher.drawn == 6  # neither pruned: the rollouts of 6 worlds, no more
    searcher = Scripted(pimc.Budget(worlds=6, prune=2.0, warmup=4, confidence=0.0), value)
    assert searcher.race({"seat": 0}, ["a", "b"], random.Random(1), prior=0) == 1


def test_racing_stops_at_the_most_worlds_and_when_one_action_is_left():
    searcher = Scripted(pimc.Budget(worlds=4, prune=2.0, warmup=2, most=5), lambda w, t: 0.5)
    assert searcher.race({"seat": 0}, ["a", "b", "c"], random.Random(1), prior=2) == 2  # all equal: the prior
    assert searcher.drawn == 4  # 12 rollouts, 3 a world: never pruned, the budget ends it
    searcher = Scripted(pimc.Budget(worlds=4, prune=2.0, warmup=2), lambda w, t: {"a": 0.9, "b": 0.1}[t])
    assert searcher.race({"seat": 0}, ["a", "b"], random.Random(1), prior=0) == 0
    assert searcher.drawn == 2  # b pruned after the warm-up: the decision is made
    searcher = Scripted(pimc.Budget(worlds=4, prune=2.0, warmup=2), lambda w, t: {"a": 0.9, "b": 0.1}[t])
    assert searcher.race({"seat": 0}, ["a", "b"], random.Random(1), prior=1) == 0
    assert searcher.drawn == 4  # the prior is never pruned: only the final test leaves it


@pytest.mark.parametrize("ruleset, players", [("maumau-online", 4), ("maumau", 2)])
def test_the_racing_searcher_plays_legally_and_deterministically(ruleset, players):
    state = games.new_game(ruleset, players, 21)
    log = state.record_events()
    names = [f"p{i}" for i in range(players)]
    runs = []
    for _ in range(2):
        bot = searcher_module.SearchBot(worlds=3, depth=8, seed=5, prune=1.0)
        start_with_options(bot, ruleset, players, {})
        assert bot.games["g"][0].budget.prune == 1.0
        game = state.clone()
        chosen = []
        for _ in range(12):
            if game.is_over:
                break
            message = convert.turn_request_to_pb("g", 1, game.observation(game.current), game.legal_actions(), 1000,
                                                 1000, names, list(log))
            turn = Turn.from_pb(message)
            action = game.legal_actions()[turn.index_of(bot.act(turn))]  # index_of raises on an illegal answer
            chosen.append(str(action))
            game.apply(action)
        runs.append(chosen)
    assert runs[0] == runs[1]


def test_a_search_short_of_time_decides_on_the_worlds_it_has_searched():
    """The budget is a count of worlds; `TIME_SHARE` of the turn's time limit is a guard that ends the search early
    (`pimc.Searcher.stop_at`) instead of answering late.  With room (60 s) every world is searched; with 1 ms
    the first world is searched and the answer is still a legal one."""
    searcher_module = load("searcher")
    state = games.new_game("moumou", 2, 4)
    while len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    searched = {}
    for time_left_ms in (60000, 1):
        bot = searcher_module.SearchBot(worlds=40, seed=2)
        start_with_options(bot, "moumou", 2, {})
        searcher = bot.games["g"][0]
        calls = []
        original = searcher.trial

        def counting(*args, original=original, calls=calls):
            calls.append(1)
            return original(*args)

        searcher.trial = counting
        turn = turn_for(state, state.current, move_ms=time_left_ms)
        answer = bot.act(turn)
        assert turn.index_of(answer) in range(len(state.legal_actions()))
        searched[time_left_ms] = len(calls)
    legal = len(state.legal_actions())
    assert searched == {60000: 40 * legal, 1: legal}


def test_the_searcher_paces_its_answers_over_the_wire_unless_told_not_to():
    """Its forced decisions would leave at once and its searched ones after 40-500 ms, which every seat sees
    (tests/server/test_fairplay_timing.py): it answers at the SDK's steady pace, and `--no-steady` (the SDK's
    flag, passed through by its own parser) turns that off for measurements."""
    from mau_arena_sdk import ClientOptions
    from mau_arena_sdk.flags import parse_flags

    bot = searcher_module.SearchBot()
    assert bot.steady is True
    for argv, steady in (([], True), (["--worlds", "5", "--no-steady"], False)):
        budget, rest = searcher_module.parse_budget(argv)
        options, _ = parse_flags(rest, ClientOptions(name="searcher", steady=bot.steady))
        assert options.steady is steady
