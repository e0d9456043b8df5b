"""A Play stream's outgoing side: the queue of messages its writer hands to the transport.

Every message for a bot goes through one `Connection`'s `Outbox`, on the server's one thread: trio code
(the games) appends, the stream's gRPC handler drains it in order (`arena.server.service`), handing
each item to the transport through `to_write`.  A seat's TurnRequest goes in as a `Timed` message,
stamped when it is written, so a request that waited in the outbox is not charged to the bot.  A bot
that does not read its messages is cut off at `MAX_OUTBOX`; a stream that breaks the protocol more than
`MAX_VIOLATIONS` times is cut off by the handler.  The session a stream belongs to outlives it
(`arena.server.bot_session`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any, Callable, Optional

from mau_arena_sdk.wire import pb

log = logging.getLogger("arena.server")

#: Messages waiting for a bot that does not read them; beyond this its stream is cut off.
MAX_OUTBOX = 2000
#: Protocol violations (a second Hello, empty messages) a stream may commit before it is cut off.
MAX_VIOLATIONS = 100


class Outbox:
    """The messages waiting for one stream's writer: a deque and, while the writer waits, its future.

    What ``asyncio.Queue`` did here for one producer side and one consumer, without its
    bookkeeping per message (unfinished-task count, an Event cleared on every put, getters
    deque); measured with the rest of this change in the server README.
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque = deque()
        self._waiter: Optional[asyncio.Future] = None

    def qsize(self) -> int:
        return len(self._items)

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def get_nowait(self) -> Any:
        """The next item at once (IndexError when there is none): for a writer outside asyncio (tests)."""
        return self._items.popleft()

    async def get(self) -> Any:
        while not self._items:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return self._items.popleft()


class Timed:
    """An outgoing message whose writer records when it hands it to the transport (``written_at``).

    A seat's TurnRequest goes out as one: the bot's clock starts at ``written_at`` (the games' clock,
    `Hub.now`), so time the request spent in the outbox (a busy loop, a writer behind other messages)
    is not the bot's.  Only the first write counts: a copy sent again on a resume keeps the first stamp.
    """

    __slots__ = ("message", "written_at")

    def __init__(self, message: pb.ArenaMessage) -> None:
        self.message = message
        self.written_at: Optional[float] = None


def to_write(item: Any, now: Callable[[], float]) -> Any:
    """The message a stream's writer hands to the transport for an outbox item, stamping a `Timed` one
    (``now()``, the moment before the write) the first time it is written."""
    if item.__class__ is Timed:
        if item.written_at is None:
            item.written_at = now()
        return item.message
    return item


class Connection:
    """One Play stream's outgoing side: a queue the gRPC handler drains in order."""

    CLOSE = object()

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.outbox = Outbox()
        self.closed = False
        self.violations = 0
        self.undecodable = False   # ended by a message that could not be parsed
        self.aborted = False       # cut off by the server (abort)
        self.handler: Optional[asyncio.Task] = None   # the Play handler serving this stream
        #: (bot name, ticket) this stream holds the name by on a shared ladder (`ServerConfig.names`), until it ends
        self.name_held: Optional[tuple[str, Any]] = None

    def send(self, message: "pb.ArenaMessage | Timed") -> bool:
        if self.closed:
            return False
        if self.outbox.qsize() >= MAX_OUTBOX:
            log.info("%s does not read its messages (%d queued): cutting it off", self.peer, MAX_OUTBOX)
            self.abort()
            return False
        self.outbox.put_nowait(message)
        return True

    def abort(self) -> None:
        """End the stream now, without draining the outbox (the peer is not reading it).

        The handler is cancelled (it may be stuck in a write the peer never reads) and ends the
        call with a non-OK status (`aborted`): a handler that just died of the cancellation left
        the call open, and the bot never learnt that its stream was gone.
        """
        self.closed = True
        self.aborted = True
        if self.handler is not None:
            self.handler.cancel()

    def close(self, final: Optional[pb.ArenaMessage] = None) -> None:
        """End the stream after the messages already queued (and ``final``, if given)."""
        if self.closed:
            return
        if final is not None:
            self.outbox.put_nowait(final)
        self.closed = True
        self.outbox.put_nowait(self.CLOSE)
