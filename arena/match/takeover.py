"""Taking over a seat of a logged game: the exact state at decision N, then a bot plays on from there.

`arena replay FILE --seat S --from N --bot CMD` is how a bot author finds out what their bot does
in the position where a logged game went wrong.  The engines are pure, so the state after the
replay's first N decisions is rebuilt exactly (the runner's ``prelude``); seat S is then asked by
the given bot, and every other seat repeats its own logged actions, in order, while they stay
legal (`LoggedSeat`).  Once a seat's next logged action is no longer legal (the game has gone
another way) it hands over to the bot named for the other seats, or plays the first legal action.
`Course` records the actions actually played (it is the runner's recorder) and finds where they
first depart from the log.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import trio

from arena.games import Action, ActionParseError
from arena.match.seat import DecisionRequest, GameEnd, GameStart, Seat, SeatAnswer


class LoggedSeat:
    """A seat that repeats its logged actions while they are legal, then hands over.

    ``inner``: the seat that plays once the log no longer applies (a bot named with
    ``--others``), told about the game from its start so it has the whole history; None: the
    first legal action from then on.
    """

    def __init__(self, name: str, logged: Sequence[str], inner: Seat | None = None,
                 clock: Callable[[], float] = time.monotonic, number: Callable[[], int] | None = None) -> None:
        self.name = name
        self.version = getattr(inner, "version", "") if inner is not None else ""
        self._logged = deque(logged)
        self._inner = inner
        self._clock = clock
        self._number = number or (lambda: 0)  # the decision being asked, for `left_log_at`
        self.left_log_at: int | None = None  # the decision where the log stopped applying

    @property
    def on_log(self) -> bool:
        return self.left_log_at is None

    async def game_started(self, start: GameStart) -> None:
        if self._inner is not None:
            await self._inner.game_started(start)

    async def decide(self, request: DecisionRequest) -> SeatAnswer:
        if self.on_log:
            index = _logged_index(self._logged[0], request.legal) if self._logged else None
            if index is not None:
                self._logged.popleft()
                return SeatAnswer(request.request_id, index, str(request.legal[index]), self._clock())
            self.left_log_at = self._number()
        if self._inner is not None:
            return await self._inner.decide(request)
        return SeatAnswer(request.request_id, 0, str(request.legal[0]), self._clock())

    async def next_answer(self, request: DecisionRequest) -> SeatAnswer:
        follow = getattr(self._inner, "next_answer", None)
        if follow is None:
            await trio.sleep_forever()
        return await follow(request)

    async def notify(self, notice: Any) -> None:
        tell = getattr(self._inner, "notify", None)
        if tell is not None:
            await tell(notice)

    async def game_ended(self, end: GameEnd) -> None:
        if self._inner is not None:
            await self._inner.game_ended(end)

    async def wait_reconnected(self, timeout_s: float) -> bool:
        return True if self._inner is None else await self._inner.wait_reconnected(timeout_s)


def _logged_index(text: str, legal: Sequence[Action]) -> int | None:
    try:
        action = Action.parse(text)
    except ActionParseError:
        return None
    return next((i for i, candidate in enumerate(legal) if candidate == action), None)


@dataclass(frozen=True)
class Played:
    """One decision played after the takeover point: its number in the game, the seat, the action,
    and what the log had at that number (None past the log's end)."""

    number: int
    seat: int
    action: str
    logged: str | None
    logged_seat: int | None
    timeout: bool = False
    strike: bool = False
    bot_error: str = ""


@dataclass
class Course:
    """The decisions played from the takeover point, and the first that departs from the log."""

    start: int                                # decisions replayed before the first one played here
    log: Sequence[tuple[int, str]]            # (seat, action) of every logged decision
    played: list[Played] = field(default_factory=list)
    departure: Played | None = None

    result: dict[str, Any] | None = None
    aborted: str | None = None

    # The runner's recorder protocol: every decision played, with its full action text.
    def decision(self, seat: int, action_text: str, think_ms: int = 0, timeout: bool = False, strike: bool = False,
                 state_hash: str | None = None, bot_error: str = "") -> None:
        number = self.start + len(self.played) + 1
        logged_seat, logged = self.log[number - 1] if number <= len(self.log) else (None, None)
        played = Played(number, seat, action_text, logged, logged_seat, timeout, strike, bot_error)
        self.played.append(played)
        if self.departure is None and (logged is None or logged_seat != seat or not _same(logged, action_text)):
            self.departure = played

    def finish(self, record: dict[str, Any]) -> None:
        self.result = record

    def abort(self, reason: str) -> None:
        self.aborted = reason


def _same(logged: str, played: str) -> bool:
    try:
        return Action.parse(logged) == Action.parse(played)
    except ActionParseError:
        return logged == played
