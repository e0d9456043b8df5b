"""The searcher's rollout policy (`sample_bots/quick_tactician.py`) makes the tactician's choices: over
the wire the same as the tactician, and from an engine observation (no `seats`) the same as the
tactician over the wire would."""

from __future__ import annotations

import importlib
import random

import pytest

from arena import games
from arena import messages as convert
from arena.games.facts import family_of
from mau_arena_sdk import Turn

from tests.sdk.test_sample_bots import load, start

Tactician = load("tactician").Tactician
QuickTactician = importlib.import_module("quick_tactician").QuickTactician  # load() put sample_bots/ on the path
pimc = importlib.import_module("pimc")

SHEDDING = [r for r in games.rulesets() if family_of(r) == "shedding"]


def player_counts(ruleset):
    info = games.ruleset_info(ruleset)
    return sorted({info.min_players, info.max_players})


@pytest.mark.parametrize("ruleset", SHEDDING)
def test_the_quick_tactician_chooses_as_the_tactician_at_every_decision_of_random_games(ruleset):
    compared = 0
    for players in player_counts(ruleset):
        tactician, quick = Tactician(), QuickTactician()
        start(tactician, ruleset, players=players)
        start(quick, ruleset, players=players)
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
            assert turn.index_of(quick.act(turn)) == wire
            moves = [pimc._move(a) for a in legal]
            rollout = pimc.PolicyTurn("g", ruleset, seat, state.decision, observation, moves)
            assert moves.index(quick.act(rollout)) == wire  # an engine observation: the next seat found alike
            compared += len(legal) > 1
            state.apply(legal[wire] if rng.random() < 0.7 else rng.choice(legal))  # off the tactician's path too
    assert compared > 10

