"""`LadderSummary`: what a ladder run hands back to `arena serve` when it stops.

The run's counts, why it stopped (`arena serve`'s last line says it), whether a Ctrl-C played a part
(the command then exits 130) and where the time between games went.  `arena.ladder.director`
re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class LadderSummary:
    """What a ladder run did, and why it stopped."""

    finished: int
    aborted: int
    decisions: int
    seconds: float
    stopped_because: str
    #: Whether a Ctrl-C (SIGINT) reached the ladder, to stop it or to abort its draining games: `arena serve`
    #: then exits 130, as an interrupted command does, whatever stopped the ladder first.
    interrupted: bool = False
    #: Where the time between games went (`GameGaps.summary`).
    gaps: dict[str, Any] = field(default_factory=dict)
    #: Whether another process took over this host's name on a shared ladder while this one was cut off from the
    #: database (`LadderDirector.replaced_host`): `arena serve` then exits 1.
    host_replaced: bool = False
