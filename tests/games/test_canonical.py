"""The fast canonical JSON writes exactly the bytes the state hash has always digested."""

from __future__ import annotations

import random

import pytest

from arena import games
from arena.games.canonical import canonical_json, standard_json


@pytest.mark.parametrize("ruleset", games.rulesets())
def test_every_position_of_random_games_encodes_as_the_standard_library_does(ruleset):
    info = games.ruleset_info(ruleset)
    positions = 0
    for seed in range(2):
        state = games.new_game(ruleset, info.min_players, seed)
        rng = random.Random(seed)
        for _ in range(300):
            position = state.to_position()
            assert canonical_json(position) == standard_json(position)
            positions += 1
            if state.is_over:
                break
            state.apply(rng.choice(state.legal_actions()))
    assert positions > 20


def test_what_the_fast_encoder_would_write_differently_goes_the_standard_way():
    for position in ({"name": "Zoë", "hand": ["7h"]}, {1: "a", 2: ["b"]}, {"seed": 2**70}):
        assert canonical_json(position) == standard_json(position)
