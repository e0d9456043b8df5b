"""A bot samples worlds from the observation it receives over the wire (mau_arena_sdk.Observation)."""

from __future__ import annotations

import random

import pytest

from arena import games
from arena import messages as convert
from mau_arena_sdk import Turn


@pytest.mark.parametrize("name,players,options", [("moumou", 2, {}), ("tschau-sepp", 3, {"blind": True}),
                                                   ("mose", 3, {}), ("ddmau", 4, {})])
def test_a_world_sampled_from_the_wire_observation_fits_the_engines(name, players, options):
    state = games.new_game(name, players, seed=4, **options)
    rng = random.Random(9)
    for _ in range(30):
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current
    legal = state.legal_actions()
    message = convert.turn_request_to_pb("g", 1, state.observation(seat), legal, 1000, 1000,
                                         [f"p{i}" for i in range(players)])
    turn = Turn.from_pb(message)
    world = games.sample_world(name, turn.observation, rng, **options)
    assert world.observation(seat) == state.observation(seat)
    assert world.legal_actions() == legal
