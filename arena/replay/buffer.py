"""`ReplayBuffer`: a replay kept in memory while its game runs, for a store that keeps it whole.

The ladder's recorder (`arena.ladder.commit_closed`).  A ladder game's replay is tens of KB; creating
a file for it, flushing its lines every half second, fsyncing its result line and renaming it cost
more of the server's CPU per game than anything else the ladder adds to a game, and the ladder
stores the replay in its database anyway.  So its lines are kept here, and the whole replay is
written once, at the end, in the same transaction that commits the game's result
(`LadderStore.game_ended` with ``replay=``): one commit makes both durable.  A usual decision line
is kept as its parts until then (appended to one flat list after every decision, on the thread all
games' deadlines run on) and written with the game's other lines in one pass when its result is asked for
(`write_decisions`, `decision_lines`).

The text is exactly what `ReplayWriter` writes for the same calls, byte for byte (the same line
encoders; ``tests/replay/test_buffer.py``), so everything that reads a replay file reads it.  What a
crash costs: the lines of the games running at that moment (their rows are aborted at the next
start, never rated), as with a ladder that stores a replay when its game ends.

A result line can be replaced until the text is taken (``write_abort`` after ``write_result``: the
store refused the result), as in `ReplayWriter`'s two-step close.
"""

from __future__ import annotations

from typing import Any, Mapping

from arena.replay.format import ABORTED, FINISHED, ReplayHeader, result_line
from arena.replay.writer import ReplayWriterError, decision_lines, decision_text, encode_line, prepared_header


class ReplayBuffer:
    """One game's replay in memory: the header line, a line per decision, and a result line."""

    path = None  #: a buffer has no file (the runner records no replay path for the game)

    def __init__(self, header: "ReplayHeader | Mapping[str, Any]", hash_every: int = 1) -> None:
        self.header = prepared_header(header)
        self._header = encode_line(self.header.to_dict()) + "\n"
        #: Six values a decision, in order, flat (`decision_lines`): its usual line's parts, or None and its line
        #: written at once.  No object is kept per decision: the young generation's count does not grow.
        self._parts: list[Any] = []
        self._written: tuple[int, bytes] = (0, b"")  # the decision lines as last written, and of how many parts
        self._result: str | None = None
        self._count = 0
        self._hash_every = max(1, int(hash_every))
        # Called after every decision: a bound method, as `ReplayWriter.decision` is.
        self._extend = self._parts.extend

    @property
    def decisions(self) -> int:
        return self._count

    @property
    def complete(self) -> bool:
        """Whether the result line is written."""
        return self._result is not None

    def hash_due(self) -> bool:
        """As `ReplayWriter.hash_due`: whether the next decision line should carry the state hash."""
        return self._hash_every == 1 or (self._count + 1) % self._hash_every == 0

    def decision(
        self, seat: int, action: Any, think_ms: float = 0, timeout: bool = False, strike: bool = False,
        state_hash: str | None = None, bot_error: str = "",
    ) -> None:
        """Record one applied decision and the state hash after it (None between checkpoints).

        The usual line (no bot error; `usual_decision`) is kept as its parts and written with the others
        at the game's end (`decision_lines`): this runs after every decision, on the thread every game's
        deadlines run on, and six values appended to a list are all it needs to keep."""
        if self._result is not None:
            raise ReplayWriterError(f"replay of game {self.header.game_id} already has its result line")
        self._count += 1
        if bot_error or seat is None or not (state_hash is None or type(state_hash) is str):  # written now
            # (not `usual_decision`; a seat of None fails there, as it always did, and marks a line written)
            line = decision_text(self._count, seat, action, think_ms, timeout, strike, state_hash, bot_error)
            self._extend((None, line, 0, False, False, None))
        else:
            self._extend((seat, action, think_ms, timeout, strike, state_hash))

    def write_result(self, result: Any) -> None:
        """The ``finished`` result line (a `Result`, `GameOutcome`, or their ``to_dict()``)."""
        self._result = encode_line(result_line(result, self.header.players, FINISHED)) + "\n"

    def write_abort(self, reason: str) -> None:
        """An ``aborted`` result line (replacing a result line written before: the store refused it)."""
        self._result = encode_line(result_line({}, self.header.players, ABORTED, reason=reason or "aborted")) + "\n"

    def text(self) -> bytes:
        """The replay as a ``.jsonl`` file would hold it (partial, without a result line, if none is written).
        The decision lines kept as their parts are written now, if `write_decisions` has not written them."""
        return b"".join((self._header.encode(), self.write_decisions(), (self._result or "").encode()))

    def write_decisions(self) -> bytes:
        """The decision lines so far, written from their parts once (`decision_lines`; kept until another
        decision comes).  The ladder's recorder calls it when the game's result is asked for, on the game's
        own thread: in one pass, with no other thread wanting the interpreter meanwhile."""
        count, lines = self._written
        if count != len(self._parts):
            lines = decision_lines(1, self._parts)
            self._written = (len(self._parts), lines)
        return lines
