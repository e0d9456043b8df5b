"""Random self-play in-process: the engine alone, no seats, no network.

`arena selfplay`, the engine benchmark and smoke tests all need the same
loop: ask who decides, build that seat's observation (as the arena would
before asking a bot), pick a legal action at random, apply it.  The random
choices come from their own generator, seeded separately from the game, so
a (seed, chooser seed) pair replays a game exactly.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from arena import games
from arena.games.base import GameState, Result

#: A random game that runs longer than this is an engine bug (a loop), not bad luck.
MAX_DECISIONS = 200_000


class StalledGameError(RuntimeError):
    """A game did not end within the decision bound: the engine loops."""


@dataclass
class PlayedGame:
    ruleset: str
    players: int
    seed: int
    options: dict[str, Any]
    result: Result
    decisions: int
    seconds: float
    decisions_by_seat: list[int] = field(default_factory=list)


def chooser(seed: int) -> random.Random:
    """The action picker's generator: distinct from the engine's chance for the same seed."""
    return random.Random(f"mau-arena/selfplay/{seed}")


def play_random_game(
    ruleset: str,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    rng: random.Random | None = None,
    observe: bool = True,
    max_decisions: int = MAX_DECISIONS,
    on_decision: Callable[[GameState], None] | None = None,
) -> PlayedGame:
    """Play one game with uniformly random legal actions.

    ``observe`` builds the acting seat's observation at every decision, as
    the arena does before each request, so timings are honest.
    """
    state = games.new_game(ruleset, players=players, seed=seed, **dict(options or {}))
    rng = rng or chooser(seed)
    by_seat = [0] * players
    decisions = 0
    started = time.perf_counter()
    while not state.is_over:
        if decisions >= max_decisions:
            raise StalledGameError(
                f"{ruleset} ({players} players, seed {seed}) did not end within {max_decisions} decisions"
            )
        seat = state.current
        if observe:
            state.observation(seat)
        state.apply(rng.choice(state.legal_actions()))
        by_seat[seat] += 1
        decisions += 1
        if on_decision is not None:
            on_decision(state)
    seconds = time.perf_counter() - started
    return PlayedGame(
        ruleset=ruleset,
        players=players,
        seed=seed,
        options=dict(state.options),
        result=state.result(),
        decisions=decisions,
        seconds=seconds,
        decisions_by_seat=by_seat,
    )
