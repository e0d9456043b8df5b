"""Finding and summarising the replays in a directory, for `arena replays`."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from arena.replay.format import PART_SUFFIX, SUFFIX, ReplayFormatError, parse_time
from arena.replay.reader import Replay, load


@dataclass(frozen=True)
class ReplaySummary:
    path: Path
    started_at: str
    game_id: str
    ruleset: str
    bots: tuple[str, ...]
    decisions: int
    status: str  # finished | aborted | partial
    outcome: str  # the winner(s), or why the game stopped

    @classmethod
    def of(cls, replay: Replay) -> "ReplaySummary":
        names = replay.header.names
        result = replay.result or {}
        placements = result.get("placements")
        if replay.result is None:
            outcome = "cut off"
        elif placements:
            winners = [names[i] if i < len(names) else f"seat {i}" for i, p in enumerate(placements) if p == 1]
            outcome = ("winner " if len(winners) == 1 else "tied ") + ", ".join(winners)
        else:
            outcome = str(result.get("reason") or result.get("status") or "")
        return cls(replay.path, replay.header.started_at, replay.header.game_id, replay.header.ruleset,
                   tuple(names), len(replay.decisions), replay.status, outcome)


def replay_files(directory: Path) -> Iterable[Path]:
    """Finished (``.jsonl``) and cut-off (``.jsonl.part``) replays anywhere under ``directory``."""
    for root, _dirs, files in os.walk(directory):
        for name in files:
            if name.endswith(SUFFIX) or name.endswith(PART_SUFFIX):
                yield Path(root) / name


def scan(
    directory: "str | os.PathLike[str]",
    bot: str | None = None,
    ruleset: str | None = None,
    limit: int | None = None,
) -> tuple[list[ReplaySummary], list[str]]:
    """Summaries newest first, filtered by bot name and ruleset, and a list of files that could not be read."""
    directory = Path(directory)
    if not directory.exists():
        raise ReplayFormatError(f"{directory}: no such directory")
    if not directory.is_dir():
        raise ReplayFormatError(f"{directory} is not a directory (to open one replay: arena replay FILE)")
    found: list[ReplaySummary] = []
    problems: list[str] = []
    for path in replay_files(directory):
        try:
            summary = ReplaySummary.of(load(path))
        except ReplayFormatError as error:
            problems.append(str(error))
            continue
        if bot and bot.lower() not in (name.lower() for name in summary.bots):
            continue
        if ruleset and summary.ruleset != ruleset:
            continue
        found.append(summary)
    oldest = datetime.min.replace(tzinfo=timezone.utc)
    found.sort(key=lambda s: (parse_time(s.started_at) or oldest, s.game_id), reverse=True)
    return (found[:limit] if limit else found), problems
