"""What the ladder store hands out and takes in: seat and game records, per-bot totals, its error."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    bot: str
    placement: int | None = None
    points: int | None = None
    strikes: int = 0
    timeouts: int = 0
    think_ms: int = 0
    decisions: int = 0
    forfeited: bool = False
    errors: int = 0


@dataclass(frozen=True)
class GameRecord:
    id: str
    ruleset: str
    options: dict[str, Any]
    seed: int
    set_id: str
    rotation: int
    started_at: str
    ended_at: str | None
    replay_path: str | None
    status: str
    reason: str
    decisions: int
    seats: tuple[SeatRecord, ...]


@dataclass(frozen=True)
class BotTotals:
    """What the leaderboard shows besides the rating."""

    bot: str
    games: int = 0
    wins: int = 0
    timeouts: int = 0
    strikes: int = 0
    forfeits: int = 0
    errors: int = 0


class StoreError(Exception):
    """The database cannot be used (unreachable, newer schema, not a ladder database...): one line for the operator."""


class NoLadder(StoreError):
    """A reader opened a database that holds no ladder (no schema): it creates none (`LadderStore.open`)."""


class OldSchema(StoreError):
    """A reader opened a ladder of an older schema: it migrates nothing (`LadderStore.open`); `arena serve` does."""


class GameClosed(StoreError):
    """A result for a game that is no longer running: another host closed it (aborted) meanwhile.

    Raised by `LadderStore.game_ended` for a finished result that met an aborted row (its host was
    taken for dead while it lived on, see arena/ladder/README.md, "Fencing"): the row stays as the
    other host left it, and the runner tells the seats the game was aborted.
    """

    def __init__(self, game_id: str, status: str, reason: str) -> None:
        super().__init__(f"game {game_id} was already closed as {status} ({reason}); its result is not stored")
        self.game_id, self.status, self.reason = game_id, status, reason


class UnknownGame(StoreError):
    """A result for a game that has no row: its start was never recorded in this database.

    Raised by `LadderStore.game_ended`.  The ladder records a game's start (and, on a shared ladder,
    claims its seats) before any move is played, so a result without a row is a fault: a result
    sent to the wrong database, or a start lost.  Storing nothing in silence would lose the result
    without a word; the error names the game, and the runner aborts it (its seats are told).
    """

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id} has no row in this database (its start was never recorded); "
                         "its result is not stored")
        self.game_id = game_id
