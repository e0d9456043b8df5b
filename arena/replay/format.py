"""The replay file format: JSON Lines, one header, one line per decision, one result.

Kept in one place so the writer, the reader and the docs
(`arena/replay/README.md`) agree.  Every line is a JSON object with a
``type`` key; readers ignore keys they do not know, so later minor
additions never break old readers.  A different *major* version is
rejected with a clear error instead of being misread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

FORMAT_NAME = "mau-arena-replay"
FORMAT_VERSION = 1
SUFFIX = ".jsonl"
PART_SUFFIX = ".jsonl.part"

HEADER = "header"
DECISION = "decision"
RESULT = "result"

FINISHED = "finished"
ABORTED = "aborted"
PARTIAL = "partial"  # no result line: the writer was cut off (crash, kill, power loss)

# Game ids become file names: keep them to one harmless path component.
_GAME_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")


class ReplayFormatError(ValueError):
    """The file is not a replay this reader understands; the message says why and where."""


def utc_now() -> str:
    """ISO 8601 UTC with a ``Z``, second precision: sortable as text."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime | None:
    """An ISO 8601 stamp (``...Z`` or ``...+00:00``, with or without fractions) as aware UTC; None if unreadable."""
    try:
        stamp = datetime.fromisoformat(str(text).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return (stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


def show_time(text: str) -> str:
    """``2026-11-22 04:31:41`` (UTC) for tables; the raw text if it is not a time."""
    stamp = parse_time(text)
    return stamp.strftime("%Y-%m-%d %H:%M:%S") if stamp else str(text)


def check_game_id(game_id: Any) -> str:
    if not isinstance(game_id, str) or not _GAME_ID.match(game_id) or ".." in game_id:
        raise ReplayFormatError(
            f"game id {game_id!r} cannot name a replay file: use letters, digits, '-', '_' and '.' (max 128)"
        )
    return game_id


def major_version(version: Any) -> int:
    """The major part of ``1`` or ``"1.2"``; a clear error for anything else."""
    try:
        if isinstance(version, bool):
            raise ValueError
        if isinstance(version, int):
            return version
        return int(str(version).split(".")[0])
    except ValueError:
        raise ReplayFormatError(f"replay version {version!r} is not a version number") from None


@dataclass
class SeatInfo:
    """Who sat where: the bot's name and version as it introduced itself."""

    seat: int
    name: str
    version: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "version": self.version}


@dataclass
class ReplayHeader:
    """The first line of a replay: everything needed to re-simulate the game."""

    game_id: str
    ruleset: str
    players: int
    seed: int
    seats: list[SeatInfo]
    options: dict[str, Any] = field(default_factory=dict)
    time_control: dict[str, Any] = field(default_factory=dict)
    started_at: str = field(default_factory=utc_now)
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. ladder or match ids; kept verbatim
    # Which code recorded it ('' for replays older than the field): a replay that
    # no longer re-simulates can then be told apart from a tampered one.
    engine: str = field(default_factory=lambda: engine_version())

    def __post_init__(self) -> None:
        """Accept seats as names, dicts or Seat objects, and a TimeControl object, as callers have them."""
        check_game_id(self.game_id)
        self.seats = [_seat_info(i, s) for i, s in enumerate(self.seats)]
        if hasattr(self.time_control, "to_dict"):
            self.time_control = self.time_control.to_dict()

    def to_dict(self) -> dict[str, Any]:
        line = {
            "type": HEADER,
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "game_id": self.game_id,
            "ruleset": self.ruleset,
            "players": self.players,
            "seed": self.seed,
            "options": dict(self.options),
            "seats": [s.to_dict() for s in self.seats],
            "time_control": dict(self.time_control),
            "started_at": self.started_at,
            "engine": self.engine,
        }
        for key, value in self.extra.items():
            line.setdefault(key, value)
        return line

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ReplayHeader":
        """Validate a header line (or a caller's header dict) and keep unknown keys in ``extra``."""
        missing = [k for k in ("game_id", "ruleset", "players", "seed") if k not in data]
        if missing:
            raise ReplayFormatError(f"replay header lacks {', '.join(missing)}")
        if data.get("format", FORMAT_NAME) != FORMAT_NAME:
            raise ReplayFormatError(f"not a Mau Arena replay (format {data.get('format')!r})")
        version = data.get("version", FORMAT_VERSION)
        if major_version(version) != FORMAT_VERSION:
            raise ReplayFormatError(
                f"replay format version {version} is not supported; this reader reads version {FORMAT_VERSION}.x"
            )
        players = data["players"]
        if not isinstance(players, int) or isinstance(players, bool) or players < 1:
            raise ReplayFormatError(f"replay header: players must be a positive integer, not {players!r}")
        seed = data["seed"]
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ReplayFormatError(f"replay header: seed must be an integer, not {seed!r}")
        seats = [_seat_info(i, s) for i, s in enumerate(data.get("seats") or [])]
        while len(seats) < players:
            seats.append(SeatInfo(len(seats), f"seat {len(seats)}"))
        known = {"type", "format", "version", "game_id", "ruleset", "players", "seed", "options", "seats",
                 "time_control", "started_at", "engine"}
        return cls(
            game_id=check_game_id(data["game_id"]),
            ruleset=str(data["ruleset"]),
            players=players,
            seed=seed,
            seats=seats,
            options=dict(data.get("options") or {}),
            time_control=data.get("time_control") or {},
            started_at=str(data.get("started_at") or utc_now()),
            extra={k: v for k, v in data.items() if k not in known},
            engine=str(data.get("engine") or ""),
        )

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]


def engine_version() -> str:
    from arena import __version__

    return f"mau-arena {__version__}"


def _seat_info(index: int, raw: Any) -> SeatInfo:
    if isinstance(raw, SeatInfo):
        return raw
    if isinstance(raw, str):
        return SeatInfo(index, raw)
    if isinstance(raw, Mapping):
        return SeatInfo(int(raw.get("seat", index)), str(raw.get("name", f"seat {index}")), str(raw.get("version") or ""))
    if hasattr(raw, "name"):  # a Seat (arena.match.seat) or anything else with a name and a version
        return SeatInfo(index, str(raw.name), str(getattr(raw, "version", "") or ""))
    raise ReplayFormatError(f"replay header: seat {index} should be a name or an object, not {raw!r}")


def decision_dict(i: int, seat: int, action: str, think_ms: int = 0, timeout: bool = False, strike: bool = False,
                  hash: str | None = None, bot_error: str = "") -> dict[str, Any]:
    """A decision line's fields (`DecisionRecord.to_dict`), built without the record: the writer's
    per-decision path."""
    record = {
        "type": DECISION,
        "i": i,
        "seat": seat,
        "action": action,
        "think_ms": think_ms,
        "timeout": timeout,
        "strike": strike,
        "hash": hash,
    }
    if bot_error:  # only when there is one: replays of clean games keep their bytes
        record["bot_error"] = bot_error
    return record


@dataclass(frozen=True)
class DecisionRecord:
    """One applied decision; ``i`` counts from 1, and step ``i`` is the state after it."""

    i: int
    seat: int
    action: str
    think_ms: int = 0
    timeout: bool = False
    strike: bool = False
    hash: str | None = None
    bot_error: str = ""  # the bot's report that its code failed here (its client answered a fallback)

    def to_dict(self) -> dict[str, Any]:
        return decision_dict(self.i, self.seat, self.action, self.think_ms, self.timeout, self.strike, self.hash,
                             self.bot_error)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], line: int) -> "DecisionRecord":
        try:
            return cls(
                i=int(data["i"]),
                seat=int(data["seat"]),
                action=str(data["action"]),
                think_ms=int(data.get("think_ms") or 0),
                timeout=bool(data.get("timeout", False)),
                strike=bool(data.get("strike", False)),
                hash=None if data.get("hash") is None else str(data["hash"]),
                bot_error=str(data.get("bot_error") or ""),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ReplayFormatError(f"line {line}: bad decision record ({error!r})") from None


def result_line(result: Any, players: int, status: str = FINISHED, reason: str = "") -> dict[str, Any]:
    """Normalise what the runner hands over into the result line.

    Accepts `Result.to_dict()`, `GameOutcome.to_dict()` (per-seat records
    under ``seats``), either of those objects, or a plain mapping with
    ``placements``/``points``/``strikes``/``timeouts``/``forfeits`` lists.
    """
    if hasattr(result, "to_dict"):
        result = result.to_dict()
    data = dict(result or {})
    seats = data.get("seats")
    per_seat: list[Mapping[str, Any]] = [s for s in seats if isinstance(s, Mapping)] if isinstance(seats, list) else []
    by_seat = {int(s.get("seat", i)): s for i, s in enumerate(per_seat)}

    def column(list_key: str, seat_key: str, default: Any) -> list[Any]:
        given = data.get(list_key)
        if isinstance(given, (list, tuple)):
            return list(given)
        if by_seat:
            return [by_seat.get(i, {}).get(seat_key, default) for i in range(players)]
        return [default] * players

    line = {
        "type": RESULT,
        "status": status,
        "placements": column("placements", "placement", None) if (data.get("placements") or by_seat) else None,
        "points": column("points", "points", None) if (data.get("points") or by_seat) else None,
        "strikes": column("strikes", "strikes", 0),
        "timeouts": column("timeouts", "timeouts", 0),
        "forfeits": column("forfeits", "forfeited", False),
        "errors": column("errors", "errors", 0),
        "reason": str(reason or data.get("reason") or ""),
        "ended_at": str(data.get("ended_at") or utc_now()),
    }
    stalled = data.get("stalled_ms")
    if isinstance(stalled, int) and not isinstance(stalled, bool) and stalled > 0:
        line["stalled_ms"] = stalled  # time the arena could not run during the game, charged to no seat
    return line
