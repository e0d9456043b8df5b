"""Fixtures: a test-only ruleset, and a helper that plays a random game into a replay file."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.games import new_game, registry, ruleset_info, rulesets
from arena.replay import ReplayWriter

from . import toy_game


def all_rulesets() -> list[str]:
    """Every registered ruleset, plus the toy one (so the suite means something before rulesets land)."""
    return [*rulesets(), toy_game.NAME]


def players_for(ruleset: str) -> int:
    info = ruleset_info(ruleset)
    return info.default_players or info.min_players


@pytest.fixture
def toy_ruleset(monkeypatch):
    """Register the toy ruleset for one test only; other suites never see it."""
    monkeypatch.setitem(registry._REGISTRY, toy_game.NAME, toy_game.INFO)
    return toy_game.NAME


def record_random_game(directory: Path, ruleset: str, players: int = 2, seed: int = 7, game_id: str = "g1",
                       max_decisions: int = 3000, options: dict | None = None, names: list[str] | None = None,
                       started_at: str = "2026-11-22T04:00:00Z") -> Path:
    """Play uniformly random legal actions, writing every decision through `ReplayWriter`."""
    state = new_game(ruleset, players, seed, **(options or {}))
    chooser = random.Random(seed)
    header = {
        "game_id": game_id, "ruleset": ruleset, "players": players, "seed": seed,
        "options": dict(state.options), "seats": [{"name": (names or [])[i] if i < len(names or []) else f"bot{i}", "version": "1"}
                  for i in range(players)],
        "time_control": {"move_ms": 1000}, "started_at": started_at,
    }
    writer = ReplayWriter.create(directory, header)
    count = 0
    while not state.is_over and count < max_decisions:
        seat = state.current
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        count += 1
        writer.decision(seat, str(action), think_ms=chooser.randint(0, 50), timeout=count % 17 == 0,
                        strike=count % 29 == 0, state_hash=state.state_hash())
    if state.is_over:
        return writer.finish(state.result())
    return writer.abort(f"stopped after {max_decisions} decisions")
