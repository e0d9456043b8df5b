"""`GroupCommit`: the ladder's calls on one store connection, its writes committed together.

The store's calls block (a commit waits for its fsync), so they run on a worker thread, one at a
time per connection, and the games on the server's loop never wait for them.  Each write joins a
queue; whoever gets the connection next runs the whole queue in one transaction
(`LadderStore.run_together`), and every caller returns once that committed: as durable as a commit
of its own, for one fsync instead of one each.  The director keeps one for the store's connection
and, where the database has room for a second writer (PostgreSQL: `LadderStore.sibling`), one for
game starts; its results, aborts, session notes and the rating fits' reads and writes go through
the first.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

import trio

from arena.ladder.game_gaps import GameGaps
from arena.ladder.store import LadderStore
from arena.ladder.store.ladder_store import Call


class GroupCommit:
    """A queue of writes for one store connection, run together by whoever gets it next."""

    def __init__(self, store: LadderStore, gaps: GameGaps) -> None:
        self.store = store
        self.gaps = gaps  # told the size of each group commit
        self.limiter = trio.CapacityLimiter(1)  # one call at a time on the store's connection
        self.writes: list[Call] = []

    async def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a store call on a worker thread, one at a time, so fsyncs never stall the games."""
        return await trio.to_thread.run_sync(lambda: fn(*args, **kwargs), limiter=self.limiter)

    async def write(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`call` for a write, committed together with the writes that queued meanwhile (group commit).

        Each write joins the queue; whoever gets the database next runs the whole queue in one
        transaction (`LadderStore.run_together`), and every caller returns once that committed:
        as durable as a commit of its own, for one fsync instead of one each.
        """
        call = await self.commit(Call(functools.partial(fn, *args, **kwargs)))
        if call.error is not None:
            raise call.error
        return call.result

    async def commit(self, call: Call) -> Call:
        """Run ``call`` (with its ``before`` and ``after``, on the commit's thread) in the next group commit
        on this connection; returns it done, with its result or error, and ``after``'s."""
        self.writes.append(call)
        try:
            async with self.limiter:
                if not call.done:
                    batch, self.writes = self.writes, []
                    self.gaps.batch(len(batch))
                    try:
                        await trio.to_thread.run_sync(self.store.run_together, batch)
                    finally:
                        for queued in batch:
                            queued.done = True
        except BaseException:
            if not call.done and call in self.writes:  # cancelled while waiting: not written
                self.writes.remove(call)
            raise
        return call


def note_time(times: list[float]) -> None:
    """A `Call.before` that notes when its group commit began (for `GameGaps`)."""
    times.append(time.monotonic())
