"""Finding and summarising the replays in a directory, for `arena replays`."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple

from arena.replay.format import (
    ABORTED,
    FINISHED,
    HEADER,
    PART_SUFFIX,
    PARTIAL,
    RESULT,
    SUFFIX,
    ReplayFormatError,
    ReplayHeader,
    parse_time,
)


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
    def read(cls, path: Path) -> "ReplaySummary":
        """Read only what a listing needs: the header, the last line, and a line count.

        Much faster than `load` for long games; a file damaged in the middle
        still lists here and is reported when it is opened or verified.
        """
        try:
            raw = path.read_bytes()
        except OSError as error:
            raise ReplayFormatError(f"{path}: cannot read ({error.strerror})") from None
        lines = [line for line in raw.split(b"\n") if line.strip()]
        if not lines:
            raise ReplayFormatError(f"{path}: not a replay (empty file)")
        try:
            first = json.loads(lines[0])
        except ValueError:
            raise ReplayFormatError(f"{path}: not a replay (the first line is not JSON)") from None
        if not isinstance(first, dict) or first.get("type", HEADER) != HEADER:
            raise ReplayFormatError(f"{path}: not a replay (no header line)")
        try:
            header = ReplayHeader.from_dict(first)
        except ReplayFormatError as error:
            raise ReplayFormatError(f"{path}: {error}") from None
        body = lines[1:]
        result = None
        if body:
            try:
                last = json.loads(body[-1])
            except ValueError:
                last = None
                body = body[:-1]  # torn by a crash
            if isinstance(last, dict) and last.get("type") == RESULT:
                result = last
                body = body[:-1]
        return cls.of(path, header, len(body), result)

    @classmethod
    def of(cls, path: Path, header: ReplayHeader, decisions: int, result: dict[str, Any] | None) -> "ReplaySummary":
        names = header.names
        placements = (result or {}).get("placements")
        if result is None:
            status, outcome = PARTIAL, "running or cut off"  # an `arena match` in progress, or an older ladder's crash
        else:
            status = str(result.get("status") or (FINISHED if placements else ABORTED))
            if placements:
                winners = [names[i] if i < len(names) else f"seat {i}" for i, p in enumerate(placements) if p == 1]
                outcome = ("winner " if len(winners) == 1 else "tied ") + ", ".join(winners)
            else:
                outcome = str(result.get("reason") or status)
        return cls(path, header.started_at, header.game_id, header.ruleset, tuple(names), decisions, status, outcome)


def replay_files(directory: Path) -> Iterable[Path]:
    """Finished (``.jsonl``) and cut-off (``.jsonl.part``) replays anywhere under ``directory``."""
    for root, _dirs, files in os.walk(directory):
        for name in files:
            if name.endswith(SUFFIX) or name.endswith(PART_SUFFIX):
                yield Path(root) / name


class Scan(NamedTuple):
    """What `scan` found: the summaries that match, newest first; the files that could not be read; and
    whether any readable replay, whatever its ruleset, has a seat of the ``bot`` asked about (True when
    none was asked about): a name no replay knows is a usage error for `arena replays`, as a name its
    ladder database does not know is."""

    found: list[ReplaySummary]
    problems: list[str]
    bot_seen: bool


def scan(
    directory: "str | os.PathLike[str]",
    bot: str | None = None,
    ruleset: str | None = None,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Scan:
    """Summaries newest first, filtered by bot name (in any case) and ruleset, the files that could not be
    read, and whether the bot plays in any replay there (`Scan`)."""
    directory = Path(directory)
    if not directory.exists():
        raise ReplayFormatError(f"{directory}: no such directory")
    if not directory.is_dir():
        raise ReplayFormatError(f"{directory} is not a directory (to open one replay: arena replay FILE)")
    found: list[ReplaySummary] = []
    problems: list[str] = []
    bot_seen = not bot
    paths = list(replay_files(directory))
    for done, path in enumerate(paths, start=1):
        if progress is not None:
            progress(done, len(paths))
        try:
            summary = ReplaySummary.read(path)
        except ReplayFormatError as error:
            problems.append(str(error))
            continue
        if bot and bot.lower() not in (name.lower() for name in summary.bots):
            continue
        bot_seen = True
        if ruleset and summary.ruleset != ruleset:
            continue
        found.append(summary)
    oldest = datetime.min.replace(tzinfo=timezone.utc)
    found.sort(key=lambda s: (parse_time(s.started_at) or oldest, s.game_id), reverse=True)
    return Scan(found[:limit] if limit else found, problems, bot_seen)
