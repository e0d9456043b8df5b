"""`CommitClosedRecorder`: a ladder game's replay, kept in memory and committed with the game's result.

The match runner closes a replay in steps around the store's commit (`arena.match.runner`,
``_conclude``): the result line asked for (``write_result`` / ``write_abort``), the commit
(``on_result``), ``seal``, and only then are the bots told.  A ladder game's replay is a
`ReplayBuffer` (no file): this recorder only notes the result line the runner asks for; the
director's commit, on its worker thread just before the transaction (`LadderStore.run_together`'s
``before``), writes that line into the buffer and packs the whole replay (`packed`), and the
transaction stores it with the result (`LadderStore.game_ended` with ``replay=``).  So the result
and its replay become durable in one commit, before any bot is told; ``seal`` has nothing to do.

What a crash leaves: nothing of a running game's replay (its row is aborted at the next start and
never rated; arena/ladder/README.md, "Replays").  A result whose commit failed is replaced by the
runner's abort, whose commit carries the replay with the abort's line instead.
"""

from __future__ import annotations

import logging
from typing import Any

from arena.replay.buffer import ReplayBuffer

log = logging.getLogger("arena.ladder")


class CommitClosedRecorder:
    """The runner's recorder for one ladder game: decision lines go straight to the `ReplayBuffer`
    (on the game's thread); the result line and the packing run with the result's commit."""

    path = None  #: the replay is in the database, not a file: the game's row names no path

    def __init__(self, buffer: ReplayBuffer) -> None:
        self.buffer = buffer
        self._pending: tuple[str, Any] | None = None  # the result ("result", result) or ("abort", reason) asked for
        self.failed = False  # the buffer failed: this game has no replay (logged)
        # Called after every decision: the buffer's own methods, without a call of this class in between.
        self.decision = buffer.decision
        self.hash_due = buffer.hash_due

    async def write_result(self, result: Any) -> None:
        """Note the ``finished`` result line; the commit writes it (`packed`).  The decision lines are written
        now, on the game's thread (`ReplayBuffer.write_decisions`): in one pass there, where on the commit's
        worker thread the pass would contend for the interpreter with every game."""
        self._pending = ("result", result)
        self._write_decisions()

    async def write_abort(self, reason: str) -> None:
        """Note an ``aborted`` result line (it replaces a result line the store refused)."""
        self._pending = ("abort", reason)
        self._write_decisions()

    def _write_decisions(self) -> None:
        try:
            self.buffer.write_decisions()
        except Exception:  # `packed` tries again, and says what failed
            pass

    async def seal(self) -> None:
        """The runner's last step before it tells the bots: the commit stored the replay already."""

    def abort_now(self, reason: str) -> None:
        """An ``aborted`` result line for a game that ends outside the runner's close (a seat gone before
        the game, a shutdown that cut the commit off): `packed` then carries it."""
        self._pending = ("abort", reason)

    def packed(self) -> Any:
        """The replay with the noted result line, packed for the database (`PackedReplay`); None if the
        buffer failed, or no result line was ever asked for (the runner drops a recorder that failed):
        the game is then committed without a replay, as the runner does when a writer fails.
        Runs on the commit's worker thread, before the transaction: zlib lets go of the GIL meanwhile."""
        from arena.ladder.store import PackedReplay

        if self.failed or self._pending is None:
            return None
        try:
            kind, value = self._pending
            if kind == "result":
                self.buffer.write_result(value)
            else:
                self.buffer.write_abort(value)
            return PackedReplay.of(self.buffer.text())
        except Exception:
            log.exception("game %s: the replay's result line could not be written; no replay for this game",
                          self.buffer.header.game_id)
            self.failed = True
            return None
