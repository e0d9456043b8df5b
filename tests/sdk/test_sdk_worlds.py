"""A bot samples worlds from the observation it receives over the wire (mau_arena_sdk.Observation)."""

from __future__ import annotations

import random

import pytest

from arena import games
from arena import messages as convert
from mau_arena_sdk import History, Turn


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


@pytest.mark.parametrize("name,players,options", [("maumau", 3, {}), ("tschau-sepp", 3, {"blind": True}),
                                                   ("mose", 3, {}), ("ddmau", 3, {})])
def test_a_bot_samples_worlds_with_the_history_it_received_over_the_wire(name, players, options):
    """Each seat's requests carry the events since its previous one; the SDK's `turn.history` is the whole
    log, and a `Tracker` fed with it each turn pins what the engine's own log pins."""
    from arena.games.worlds import Tracker, WorldSampler

    state = games.new_game(name, players, seed=6, **options)
    log = state.record_events()
    rng = random.Random(6)
    seat = 1
    history = History()  # the game's log, as the client keeps it
    sent = 0
    tracker = Tracker(name, **options)
    checked = 0
    for _ in range(120):
        if state.is_over:
            break
        if state.current == seat:
            legal = state.legal_actions()
            message = convert.turn_request_to_pb("g", 1, state.observation(seat), legal, 1000, 1000,
                                                 [f"p{i}" for i in range(players)], log[sent:])
            sent = len(log)
            turn = Turn.from_pb(message, history)
            assert [e.to_dict()["text"] for e in turn.history] == [e.text for e in log]
            tracker.update(turn.history)
            sampler = WorldSampler(name, turn.observation, tracker, **options)
            engine_side = WorldSampler(name, state.observation(seat), log, **options)
            assert sampler.pinned == engine_side.pinned
            world = sampler.sample(rng)
            assert world.observation(seat) == state.observation(seat)
            assert world.legal_actions() == legal
            checked += 1
        state.apply(rng.choice(state.legal_actions()))
    assert checked >= 5
