"""A stream's messages on their way out: queued by whichever thread has one, written in order by one task."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Optional


class Outgoing:
    """Our messages waiting for the stream's writer task.

    `put_owned` is for the thread that owns the loop (running it, or between two runs): nothing
    crosses threads.  `put_threadsafe` is for any other thread: one ``deque.append`` plus, only
    when no wake-up is already on its way, one ``call_soon_threadsafe``.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.items: deque = deque()
        self.closed = False
        self.sent = 0  # messages handed to the stream so far
        self._waiter: Optional[asyncio.Future] = None
        self._kick_due = False

    def put_owned(self, message: Any) -> None:
        self.items.append(message)
        self._wake()

    def put_threadsafe(self, message: Any) -> None:
        self.items.append(message)
        if not self._kick_due:
            self._kick_due = True
            try:
                self.loop.call_soon_threadsafe(self._kicked)
            except RuntimeError:  # the loop is closed: the client is gone, so is the stream
                pass

    def _kicked(self) -> None:
        self._kick_due = False  # cleared before the writer drains: a later append schedules another kick
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def close(self) -> None:
        self.closed = True
        self._wake()

    async def drain_to(self, call: Any) -> None:
        """The writer task: send in order until closed."""
        items = self.items
        while True:
            while items:
                await call.write(items.popleft())
                self.sent += 1
            if self.closed:
                return
            self._waiter = self.loop.create_future()
            await self._waiter
