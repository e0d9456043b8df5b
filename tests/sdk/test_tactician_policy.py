"""The tactician's choices, over the wire and as the searcher's rollout policy: from an engine observation
(no `seats`) the same as over the wire, and pinned on fixed games (its strength figures were measured
with these choices, so a change to them must be deliberate)."""

from __future__ import annotations

import hashlib
import importlib
import random

import pytest

from arena import games
from arena import messages as convert
from arena.games.facts import family_of
from mau_arena_sdk import Turn

from tests.sdk.test_sample_bots import load, start

Tactician = load("tactician").Tactician
pimc = importlib.import_module("pimc")  # load() put sample_bots/ on the path

SHEDDING = [r for r in games.rulesets() if family_of(r) == "shedding"]


def player_counts(ruleset):
    info = games.ruleset_info(ruleset)
    return sorted({info.min_players, info.max_players})


@pytest.mark.parametrize("ruleset", SHEDDING)
def test_the_tactician_chooses_alike_over_the_wire_and_as_a_rollout_policy_at_every_decision(ruleset):
    """The searcher's rollouts hand the tactician an engine observation and `Move`s, not a `Turn`: the same
    choice must come out (the next seat, for one, is found from the observation alone)."""
    compared = 0
    for players in player_counts(ruleset):
        tactician, rollout_policy = Tactician(), Tactician()
        start(tactician, ruleset, players=players)
        start(rollout_policy, ruleset, players=players)
        names = [f"p{i}" for i in range(players)]
        state = games.new_game(ruleset, players, 7)
        rng = random.Random(7)
        for _ in range(250):
            if state.is_over:
                break
            legal, seat = state.legal_actions(), state.current
            observation = state.observation(seat)
            turn = Turn.from_pb(convert.turn_request_to_pb("g", 1, observation, legal, 1000, 1000, names))
            wire = turn.index_of(tactician.act(turn))
            moves = [pimc._move(a) for a in legal]
            rollout = pimc.PolicyTurn("g", ruleset, seat, state.decision, observation, moves)
            assert moves.index(rollout_policy.act(rollout)) == wire
            compared += len(legal) > 1
            state.apply(legal[wire] if rng.random() < 0.7 else rng.choice(legal))  # off the tactician's path too
    assert compared > 10



#: (ruleset, seats, options, choices made, digest of the choices): the tactician's choices on two fixed games
#: each, off its own path a fifth of the time.  Measured with the tactician as it was when the searcher's
#: rollouts still had their own copy of its scoring (main at ad71bc1), and unchanged by the scoring's merge.
PINNED = [("maumau", 2, {}, 40, "5eaeb83834de2d91"), ("moumou", 2, {}, 191, "36069118b3b0890c"),
          ("maumau-online", 4, {}, 272, "425952af2ebd1707"), ("pesten", 3, {}, 212, "f5e312efa333029f"),
          ("mose", 2, {"rounds": 1}, 107, "1bbcfa144b7fa095"), ("ddmau", 3, {"max_hands": 1}, 300, "e21bf7d9f605ba42")]


@pytest.mark.parametrize("ruleset,players,options,count,digest", PINNED, ids=[case[0] for case in PINNED])
def test_the_tacticians_choices_on_fixed_games_are_pinned(ruleset, players, options, count, digest):
    from arena.match.seat import GameStart
    from arena.match.timecontrol import TimeControl
    from mau_arena_sdk import GameInfo

    names = tuple(f"p{i}" for i in range(players))
    tactician = Tactician()
    tactician.on_game_start(GameInfo.from_pb(convert.game_started_to_pb(
        GameStart("g", ruleset, options, 0, names, TimeControl()))))
    choices = []
    for seed in range(2):
        state = games.new_game(ruleset, players, seed, **options)
        rng = random.Random(seed)
        for _ in range(150):
            if state.is_over:
                break
            legal = state.legal_actions()
            turn = Turn.from_pb(convert.turn_request_to_pb("g", 1, state.observation(state.current), legal, 1000,
                                                           1000, list(names)))
            choice = turn.index_of(tactician.act(turn))
            choices.append(choice)
            state.apply(legal[choice] if rng.random() < 0.8 else rng.choice(legal))
    assert (len(choices), hashlib.sha256(bytes(choices)).hexdigest()[:16]) == (count, digest)
