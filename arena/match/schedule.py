"""Playing a match's plan: up to C games at once, stopping early when the SPRT decides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable

from arena.ladder.elo import SPRT
from arena.match.outcome import GameOutcome
from arena.match.plan import PlannedGame
from arena.match.stats import MatchStats


PlayOne = Callable[[PlannedGame], Awaitable[GameOutcome]]


@dataclass
class MatchRun:
    """The shared state of one run, readable after an interrupt for the partial result."""

    plan: list[PlannedGame]
    stats: MatchStats
    sprt: SPRT | None = None
    verdict: str | None = None
    on_progress: Callable[..., None] | None = None  # (run, planned game, its outcome)


async def play_all(run: MatchRun, play_one: PlayOne, concurrency: int) -> None:
    """Play the plan with up to ``concurrency`` games at once; stop early when the SPRT decides."""
    import trio

    slots = trio.Semaphore(concurrency)

    async def one(planned: PlannedGame, nursery: trio.Nursery) -> None:
        try:
            outcome = await play_one(planned)
        finally:
            slots.release()
        run.stats.add(planned, outcome)
        if run.sprt is not None and sum(run.stats.pairs):
            run.verdict = run.sprt.verdict(pairs=run.stats.pairs)
            if run.verdict is not None:
                nursery.cancel_scope.cancel()
        if run.on_progress is not None:
            run.on_progress(run, planned, outcome)

    async with trio.open_nursery() as nursery:
        for planned in run.plan:
            await slots.acquire()
            nursery.start_soon(one, planned, nursery)
