"""A seat is anything that answers decisions: a remote bot session or an in-process bot.

The match runner (`arena.match.runner`) owns the clock: it sends a
`DecisionRequest`, waits in a cancel scope, and judges lateness by
`SeatAnswer.received_at`, the `time.monotonic()` stamp taken by whoever
read the answer off the wire (never by when the game task woke up).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from arena.games import Action, Observation, PublicEvent


class SeatDisconnected(Exception):
    """The seat's connection is gone; the runner may wait for it to come back.

    ``after_delivery`` says the request reached the peer before the connection
    dropped: the seat was connected when asked, so this is a new absence, with a
    reconnect window of its own, even if the runner last saw the seat away (it
    came back after an earlier decision's clock ran out).  A seat that cannot
    tell leaves it False, and the runner treats the drop as the old absence.
    """

    def __init__(self, message: str = "", *, after_delivery: bool = False) -> None:
        super().__init__(message)
        self.after_delivery = after_delivery


class MalformedAnswer(Exception):
    """The peer sent something that is not an answer at all; the runner gives a strike.

    Raise it from `Seat.decide` / `Seat.next_answer` when a message cannot be
    understood (an illegal-but-well-formed answer is returned as a normal
    `SeatAnswer` instead: the runner judges legality itself).
    """


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
    #: The public events since this seat's previous request of the game (from the start for its first).
    events: Sequence[PublicEvent] = ()


@dataclass(frozen=True)
class SeatAnswer:
    request_id: int
    action_index: int
    action_text: str
    received_at: float = field(default=0.0)  # time.monotonic() when read off the wire
    bot_error: str = ""  # non-empty: the bot's code failed and its client answered a fallback (Answer.bot_error)
    #: When the request it answers was handed to the transport (same clock); 0.0: unknown, the runner's own start.
    #: Only a seat with ``clock_starts_on_write = True`` is believed, and only up to the runner's write credit.
    sent_at: float = 0.0


@dataclass(frozen=True)
class SeatNotice:
    """Something the runner tells a seat mid-game: a penalty or a dropped answer.

    ``code`` is one of "timeout", "illegal", "malformed", "stale",
    "disconnected", "error" (the seat raised) and "forfeit"; the remote seat
    maps it onto the protocol's ``Error.Code``.
    """

    game_id: str
    request_id: int
    code: str
    message: str


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
        """Send the request and return the next answer the peer sends.

        Raises SeatDisconnected if the peer is gone, MalformedAnswer if it sent
        something unreadable.  The runner cancels this call at the deadline.
        The answer may name another request id (a stale answer): the runner
        counts it and then calls `next_answer` (if the seat has it).
        """
        ...

    # Optional (looked up with getattr, so older seats keep working):
    #
    # async def next_answer(self, request: DecisionRequest) -> SeatAnswer:
    #     """Keep waiting for an answer to a request already sent, without re-sending it."""
    #
    # async def notify(self, notice: SeatNotice) -> None:
    #     """Tell the peer about a penalty or a dropped answer (best effort, bounded by the runner)."""

    async def game_ended(self, end: GameEnd) -> None: ...

    async def wait_reconnected(self, timeout_s: float) -> bool:
        """After SeatDisconnected: wait up to timeout_s for the bot to come back."""
        ...
