"""Replays stay verifiable: the state hashes of earlier versions, pinned.

A replay stores `GameState.state_hash()` after its decisions, and `arena replay --verify` re-simulates
it and compares.  Any change to what a position holds (a new counter, a new option) changes every hash
of that ruleset, and every replay recorded before would then report a divergence that is no rules
change at all.  `replay_hashes.json` holds the hashes of one random game at the smallest and largest
table of every ruleset, at fixed decisions and at the end, as the engine of the version named in it
recorded them.  When this test fails, leave the new key out of `hashed_position` (as Mose and DD MAU
do for ``decisions``); regenerate the file only for a real rules change, and say so in the changelog.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena import games

PINNED = json.loads((Path(__file__).with_name("replay_hashes.json")).read_text())["games"]
CHECKPOINTS = {1, 2, 5, 10, 50, 100, 500, 1000, 2000, 5000}


def hashes_of_a_random_game(ruleset: str, players: int) -> list[list]:
    """[decision, hash] at `CHECKPOINTS` and at the end, of seed 7 played by a seeded random chooser."""
    state = games.new_game(ruleset, players=players, seed=7)
    rng = random.Random(f"golden/{ruleset}/{players}")
    decisions, marks = 0, []
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
        decisions += 1
        if decisions in CHECKPOINTS:
            marks.append([decisions, state.state_hash()])
    marks.append([decisions, state.state_hash()])
    return marks


def test_every_ruleset_and_table_size_is_pinned():
    expected = {f"{r}/{n}" for r in games.rulesets()
                for n in {games.ruleset_info(r).min_players, games.ruleset_info(r).max_players}}
    assert set(PINNED) == expected


@pytest.mark.parametrize("game", sorted(PINNED))
def test_a_random_game_hashes_as_the_pinned_version_recorded_it(game):
    ruleset, players = game.split("/")
    assert hashes_of_a_random_game(ruleset, int(players)) == PINNED[game]


def test_a_non_default_decision_limit_is_part_of_the_mose_hash():
    """Left out at its default only: a game played under another limit is another game."""
    default, other = games.new_game("mose", players=2, seed=1), games.new_game("mose", players=2, seed=1,
                                                                                decision_limit=30000)
    assert default.state_hash() != other.state_hash()
    assert "decisions" in default.to_position() and "decisions" not in default.hashed_position()
