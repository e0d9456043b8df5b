"""The ladder's typical game, from the database: what a host's scheduler assumes before it finishes a game.

A host that joins a shared ladder has finished no game of its own, yet its fairness caps need a
typical game to know when a busy bot stops counting and a held-back bot is released
(`arena.ladder.scheduler`).  The ladder's recent finished games, played on any host, say how long
one takes: the median of their durations.
"""

from __future__ import annotations

import statistics
from datetime import datetime
from typing import Any, Iterable

#: How many of the latest finished games the typical game is the median of (the scheduler's own window).
RECENT = 64


def game_seconds(started_at: str | None, ended_at: str | None) -> float | None:
    """How long a game took by its stored times (ISO 8601), or None when one is missing or unreadable."""
    if not started_at or not ended_at:
        return None
    try:
        seconds = (datetime.fromisoformat(ended_at.replace("Z", "+00:00"))
                   - datetime.fromisoformat(started_at.replace("Z", "+00:00"))).total_seconds()
    except (TypeError, ValueError):
        return None
    return seconds if seconds > 0 else None


def typical_of(records: Iterable[Any]) -> float | None:
    """The median duration of these game records' finished games, None when none has one."""
    lengths = [s for r in records if r.status == "finished"
               for s in [game_seconds(r.started_at, r.ended_at)] if s is not None]
    return statistics.median(lengths) if lengths else None


def ladder_typical_game(store: Any) -> float | None:
    """The median duration of the ladder's latest finished games (every host's), None before any."""
    return typical_of(store.games(status="finished", limit=RECENT))
