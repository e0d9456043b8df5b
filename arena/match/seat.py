"""A seat is anything that answers decisions: a remote bot session or an in-process bot.

The match runner (`arena.match.runner`) owns the clock: it sends a
`DecisionRequest`, waits in a cancel scope, and judges lateness by
`SeatAnswer.received_at`, the `time.monotonic()` stamp taken by whoever
read the answer off the wire (never by when the game task woke up).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from arena.games import Action, Observation


class SeatDisconnected(Exception):
    """The seat's connection is gone; the runner may wait for it to come back."""


@dataclass(frozen=True)
class GameStart:
    game_id: str
    ruleset: str
    options: dict[str, Any]
    seat: int
    players: tuple[str, ...]
    time_control: "Any"  # arena.match.timecontrol.TimeControl


@dataclass(frozen=True)
class DecisionRequest:
    game_id: str
    request_id: int
    seat: int
    observation: Observation
    legal: Sequence[Action]
    move_ms: int
    bank_ms: int


@dataclass(frozen=True)
class SeatAnswer:
    request_id: int
    action_index: int
    action_text: str
    received_at: float = field(default=0.0)  # time.monotonic() when read off the wire


@dataclass(frozen=True)
class GameEnd:
    game_id: str
    seat: int
    outcome: "Any"  # arena.match.outcome.GameOutcome


class Seat(Protocol):
    name: str
    version: str

    async def game_started(self, start: GameStart) -> None: ...

    async def decide(self, request: DecisionRequest) -> SeatAnswer:
        """Ask for one decision; raises SeatDisconnected if the peer is gone."""
        ...

    async def game_ended(self, end: GameEnd) -> None: ...

    async def wait_reconnected(self, timeout_s: float) -> bool:
        """After SeatDisconnected: wait up to timeout_s for the bot to come back."""
        ...
