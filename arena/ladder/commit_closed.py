"""`CommitClosedRecorder`: a ladder game's replay, closed on the thread that commits the game's result.

The match runner closes a replay in three steps around the store's commit (`arena.match.runner`,
``_conclude``): the result line written and fsynced, the commit (``on_result``), the seal (a rename
and a directory fsync), and only then are the bots told.  Each step of a plain `ReplayWriter` is a
hand-off to a worker thread and back, three per game end, each a wake-up of the loop every game's
deadlines run on.  This recorder keeps the order and does the work in one hand-off: its
``write_result`` / ``write_abort`` only note the line the runner asked for, and the director's
commit writes it (`write_pending`, fsynced) just before the transaction and seals (`seal_now`) just
after it commits, on the commit's worker thread (`LadderStore.run_together`'s ``before`` and
``after``).  The runner's ``seal`` then has nothing left to do.

What a crash leaves is what the runner's order leaves: a ``.part`` without a result line (the
commit never began: the next start aborts the game), one with a result line and no commit (the
next start drops that line and aborts it), or one with a committed result line (renamed at the next
start).  A commit that failed falls back to the runner's own steps: ``seal`` then writes whatever
line is still pending and seals in a worker thread, as a plain writer would.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import trio

from arena.replay.writer import ReplayWriter

log = logging.getLogger("arena.ladder")


class CommitClosedRecorder:
    """The runner's recorder for one ladder game: decision lines go straight to the `ReplayWriter`
    (buffered, on the game's thread); the closing steps run with the result's commit."""

    def __init__(self, writer: ReplayWriter) -> None:
        self.writer = writer
        self._pending: tuple[str, Any] | None = None  # the result ("result", result) or ("abort", reason) asked for
        self._written: tuple[str, Any] | None = None  # the one of those already in the file, fsynced
        self.failed = False  # the writer failed: this game has no replay (logged)
        # Called after every decision: the writer's own methods, without a call of this class in between.
        self.decision = writer.decision
        self.hash_due = writer.hash_due

    @property
    def path(self) -> Path:
        """Where the sealed replay will be (what the result's row points at)."""
        return self.writer.path

    def finish(self, result: Any) -> Path:
        """Close at once (a runner without a commit to wait for calls this, in a worker thread)."""
        return self.writer.finish(result)

    def abort(self, reason: str) -> Path:
        return self.writer.abort(reason)

    async def write_result(self, result: Any) -> Path:
        """Note the ``finished`` result line; the commit writes it (`write_pending`)."""
        self._pending = ("result", result)
        return self.writer.part_path

    async def write_abort(self, reason: str) -> Path:
        """Note an ``aborted`` result line (it replaces a result line the store refused)."""
        self._pending = ("abort", reason)
        return self.writer.part_path

    def write_pending(self) -> bool:
        """Write the noted result line and fsync it (in the commit's worker thread, before the
        transaction); a line already written is not written again.  False if the writer failed:
        the game is committed without a replay, as the runner does when a writer fails."""
        if self.failed:
            return False
        pending = self._pending
        if pending is None or pending is self._written:
            return pending is not None
        kind, value = pending
        try:
            if kind == "result":
                self.writer.write_result(value)
            else:
                self.writer.write_abort(value)
        except Exception:
            log.exception("game %s: the replay's result line could not be written; no replay for this game",
                          self.writer.header.game_id)
            self.failed = True
            return False
        self._written = pending
        return True

    def seal_now(self) -> None:
        """Seal the replay (in the commit's worker thread, once the result is committed).  A seal that
        fails is logged: the committed ``.part`` is renamed at the next start (`arena.ladder.recovery`).

        The rename is not followed by an fsync of the day's folder (a journal commit of its own,
        some 0.1-0.2 ms of CPU a game): the file system's next journal commit makes it durable (on
        ext4 any fsync, such as the next game's, commits it), a crash of the process alone never
        undoes it, and if the machine loses power before that, the file is still a committed
        ``.part`` with its result line fsynced, which the next start renames (`arena.ladder.recovery`).
        """
        if self.failed or self.writer.sealed or self._written is None:
            return
        try:
            self.writer.seal(sync_directory=False)
        except Exception:
            log.exception("game %s: the committed replay could not be sealed; the next start renames it",
                          self.writer.header.game_id)
            self.failed = True

    async def seal(self) -> Path:
        """The runner's last step before it tells the bots: done by the commit, unless the commit failed
        (then the pending line is written and the replay sealed here, as a plain writer's steps would)."""
        if not (self.failed or self.writer.sealed):
            await trio.to_thread.run_sync(self._close)
        return self.writer.path

    def _close(self) -> None:
        if self.write_pending():
            self.seal_now()
