"""`GameGaps`: where a ladder's time between games goes, summed as the games run.

A connected bot that can play is either in a game or between two: whatever the ladder spends between a
game's last decision and its seats' next first decision is time in which no game runs on those seats.  With
as many bots as the game slots need (the benchmark's 200 bots for 100 games of two), that time alone sets
how many games run.  The director notes a few clock readings per game (`time.monotonic`, no I/O), and this
adds them up by step:

* the game's end: ``result_queue`` (the result waits for the group commit in progress to end),
  ``result_commit`` (its transaction, with the replay's result line before and the seal after),
  ``told`` (the bots told, the seats released, back in the director);
* each seat's way to its next game: ``to_plan`` (from its release until a planning round seats it: the
  round's wake-up, its batching pause, a partner free and fair),
  ``start_queue`` and ``start_commit`` (the start's group commit, claim included, and the replay file
  created), ``to_play`` (until the runner has the game);
* how many planning rounds, and group commits with how many writes each.

`arena serve` prints the means when it stops (`summary`), and scripts/bench_ladder.py reads them.
"""

from __future__ import annotations

import time
from typing import Any

#: The steps, in the order a game's end and its seats' next start go through them.
END_STEPS = ("result_queue", "result_commit", "told")
SEAT_STEPS = ("to_plan", "start_queue", "start_commit", "to_play")
#: Not a gap: a game from the runner taking it to the runner giving it back (its decisions, and its end's steps).
IN_GAME = "in_game"


class GameGaps:
    def __init__(self) -> None:
        self.sums = dict.fromkeys(END_STEPS + SEAT_STEPS + (IN_GAME,), 0.0)
        self.counts = dict.fromkeys(END_STEPS + SEAT_STEPS + (IN_GAME,), 0)
        self._freed: dict[str, float] = {}  # bot -> when its last game released it (one entry per bot)
        self.rounds = 0
        self.batches = 0
        self.batch_calls = 0

    def add(self, step: str, seconds: float) -> None:
        self.sums[step] += seconds
        self.counts[step] += 1

    def freed(self, bots: Any, at: float | None = None) -> None:
        """These bots' game has ended and released them (they may be seated again)."""
        at = time.monotonic() if at is None else at
        for bot in bots:
            self._freed[bot] = at

    def planned(self, bots: Any, at: float) -> None:
        """A planning round seated these bots: the time since each one's release is its ``to_plan``."""
        for bot in bots:
            since = self._freed.pop(bot, None)
            if since is not None:
                self.add("to_plan", at - since)

    def gone(self, bot: str) -> None:
        self._freed.pop(bot, None)

    def round(self) -> None:
        self.rounds += 1

    def batch(self, calls: int) -> None:
        """A group commit ran ``calls`` writes together."""
        self.batches += 1
        self.batch_calls += calls

    def summary(self) -> dict[str, Any]:
        """Mean milliseconds of each step (and how many were timed), the planning rounds, the group commits."""
        means = {step: round(self.sums[step] / self.counts[step] * 1e3, 2) if self.counts[step] else None
                 for step in self.sums}
        return {
            "mean_ms": means,
            "counts": dict(self.counts),
            "rounds": self.rounds,
            "group_commits": self.batches,
            "writes_per_group_commit": round(self.batch_calls / self.batches, 2) if self.batches else None,
        }
