"""Async seats that follow a script, for driving the runner under trio's MockClock.

Each decide() call takes the next step of the script (after the script runs
out, the seat answers its first legal action at once).  Think time is
`trio.sleep` on the mock clock and every answer is stamped with
`trio.current_time()`, so tests pass ``clock=trio.current_time`` to the runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import trio

from arena.match.seat import MalformedAnswer, SeatAnswer, SeatDisconnected


@dataclass
class Answer:
    delay: float = 0.0          # seconds of think time
    index: int | None = None    # default: the legal action whose text is `text`, else 0
    text: str | None = None     # default: the text of legal[index]
    request_id: int | None = None  # default: the request's own id
    deliver_after: float = 0.0  # extra delay between the stamp and handing the answer over


@dataclass
class Hang:
    """Never answers."""


@dataclass
class Raise:
    error: BaseException


@dataclass
class Stale:
    """First an answer naming an old request id, then `then` (via next_answer)."""

    then: Any = field(default_factory=Hang)
    delay: float = 0.0


@dataclass
class Disconnect:
    back_after: float | None = None  # seconds until wait_reconnected succeeds; None: never
    delay: float = 0.0


class ScriptedSeat:
    def __init__(self, name: str, *steps: Any, version: str = "1"):
        self.name = name
        self.version = version
        self.steps = list(steps)
        self.requests: list[Any] = []
        self.notices: list[Any] = []
        self.started: list[Any] = []
        self.ended: list[Any] = []
        self._pending_after_stale: Any = None
        self._back_after: float | None = None

    async def game_started(self, start):
        self.started.append(start)

    async def game_ended(self, end):
        self.ended.append(end)

    async def notify(self, notice):
        self.notices.append(notice)

    async def decide(self, request):
        self.requests.append(request)
        step = self.steps.pop(0) if self.steps else Answer()
        return await self._play(step, request)

    async def next_answer(self, request):
        step, self._pending_after_stale = self._pending_after_stale, None
        return await self._play(step or Hang(), request)

    async def wait_reconnected(self, timeout_s):
        if self._back_after is None or self._back_after > timeout_s:
            await trio.sleep(timeout_s)
            return False
        await trio.sleep(self._back_after)
        return True

    async def _play(self, step, request):
        if isinstance(step, Answer):
            await trio.sleep(step.delay)
            stamp = trio.current_time()
            await trio.sleep(step.deliver_after)
            legal = [str(a) for a in request.legal]
            index = step.index
            if index is None:
                index = legal.index(step.text) if step.text in legal else 0
            text = step.text if step.text is not None else legal[index]
            request_id = request.request_id if step.request_id is None else step.request_id
            return SeatAnswer(request_id, index, text, stamp)
        if isinstance(step, Hang):
            await trio.sleep_forever()
        if isinstance(step, Raise):
            raise step.error
        if isinstance(step, Stale):
            await trio.sleep(step.delay)
            self._pending_after_stale = step.then
            return SeatAnswer(request.request_id - 1, 0, str(request.legal[0]), trio.current_time())
        if isinstance(step, Disconnect):
            await trio.sleep(step.delay)
            self._back_after = step.back_after
            raise SeatDisconnected("connection lost")
        if step == "malformed":
            raise MalformedAnswer("garbage on the wire")
        if step == "not-an-answer":
            return {"index": 0}
        raise AssertionError(f"unknown step {step!r}")


class Recorder:
    """Collects what the runner records, like the replay writer would."""

    def __init__(self):
        self.decisions: list[tuple] = []
        self.finished: dict | None = None
        self.aborted: str | None = None

    def decision(self, seat, action, think_ms, timeout, strike, state_hash, bot_error=""):
        self.decisions.append((seat, action, think_ms, timeout, strike, state_hash, bot_error))

    def finish(self, result):
        self.finished = result

    def abort(self, reason):
        self.aborted = reason
