"""The crash-safe replay writer: the recorder the match runner calls during a game.

A game is written to ``<game_id>.jsonl.part``, one flushed line per
decision, so a crash loses at most the line being written and the reader
can still open what was played.  A writer created with ``flush_s`` hands
its decision lines to the operating system at least that often instead (the
ladder's, where a write call per decision was the largest cost its replays
added to a decision): a crash of the process then loses at most the lines of
the last ``flush_s`` seconds before the game's last decision, in a game the
next start aborts anyway.  Only after the result line is written and
fsynced is the file renamed to ``<game_id>.jsonl`` (an atomic rename), so
a ``.jsonl`` file is never half-written.

Closing is two steps so that a store can commit in between (the ladder's
order, see `arena.match.runner`): `write_result` / `write_abort` write the
result line and fsync it, still as ``.part``; `seal` renames.  A result
line written but not yet sealed can be replaced once (`write_abort` after
`write_result`: the store refused the result).  `finish` and `abort` do
both steps at once.  After a crash, `seal_complete` renames a ``.part``
whose result was committed and `seal_partial` closes any other ``.part``
as aborted.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import msgspec

from arena.replay.format import (
    ABORTED,
    FINISHED,
    PART_SUFFIX,
    SUFFIX,
    ReplayFormatError,
    parse_time,
    ReplayHeader,
    decision_dict,
    engine_version,
    result_line,
)

DEFAULT_DIRECTORY = Path("replays")

#: One encoder for every line (``json.dumps`` with options builds a new one per call).
_standard_line = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

_fast_line = msgspec.json.Encoder().encode


def encode_line(line: Mapping[str, Any]) -> str:
    """A line's compact JSON: exactly the standard encoder's text (keys in order, UTF-8 kept, no NaN).

    msgspec writes the same text about ten times faster for what lines hold (strings, whole
    numbers, booleans, None, lists and dicts; ``tests/replay/test_writer.py`` checks that the two
    agree on control characters, quotes and non-ASCII text); anything it refuses (a float NaN, a
    lone surrogate, an object) goes the standard way, which raises as before.
    """
    try:
        return _fast_line(line).decode()
    except (TypeError, ValueError, OverflowError, UnicodeError):
        return _standard_line(line)


#: Action texts as JSON strings (a ruleset has a few hundred action texts; cleared if it ever grows past this).
_ACTION_JSON: dict[str, str] = {}
_ACTION_JSON_KEPT = 4096


def decision_line(i: int, seat: int, action: str, think_ms: int, timeout: bool, strike: bool,
                  state_hash: str | None) -> str:
    """A decision line without a bot error, newline included: exactly ``encode_line(decision_dict(...)) + "\\n"``,
    put together from its parts (each decision writes one; the dict and its encoding cost more than the rest
    of the line).  ``i``, ``seat`` and ``think_ms`` are ints, ``state_hash`` a str or None."""
    text = _ACTION_JSON.get(action)
    if text is None:
        if len(_ACTION_JSON) >= _ACTION_JSON_KEPT:
            _ACTION_JSON.clear()
        text = _ACTION_JSON[action] = encode_line(action)
    return (f'{{"type":"decision","i":{i},"seat":{seat},"action":{text},"think_ms":{think_ms},'
            f'"timeout":{"true" if timeout else "false"},"strike":{"true" if strike else "false"},'
            f'"hash":{"null" if state_hash is None else encode_line(state_hash)}}}\n')


def usual_decision(state_hash: Any, bot_error: Any) -> bool:
    """Whether a decision with this hash and bot error has the usual line (`decision_line`), which can be
    written from its parts at any later time; any other goes through its `decision_dict` (`decision_text`)."""
    return not bot_error and (state_hash is None or type(state_hash) is str)


class _UsualLine(msgspec.Struct):
    """A usual decision line's fields in `decision_line`'s order, for msgspec to write (`decision_lines`)."""

    type: str
    i: int
    seat: int
    action: str
    think_ms: int
    timeout: bool
    strike: bool
    hash: "str | None"


_encode_lines = msgspec.json.Encoder().encode_lines


def decision_lines(first: int, parts: "Sequence[Any]") -> bytes:
    """The lines of consecutive decisions ``first``, ``first + 1``, ..., as bytes: exactly the concatenation of
    what `decision_text` gives for each.  ``parts`` holds six values a decision, one after the other (a flat
    list: a container a decision kept until the game's end made the garbage collector's young generation
    fill up twice as fast): ``seat, action, think_ms, timeout, strike, state_hash`` as a recorder's
    ``decision`` was given them with `usual_decision` true, or, for a line written at once (one that is
    not usual), ``None`` and that line, then four values not read.  `ReplayBuffer` keeps decisions so while
    its game runs and has them written here at its end: msgspec writes the whole game in one call (the same
    encoder as `encode_line`, so the same text; ``tests/replay/test_buffer.py``).  Anything msgspec refuses
    (a lone surrogate) is written line by line the standard way, which fails as a file's text of it does."""
    raw = msgspec.Raw
    each = iter(parts)
    decisions = list(zip(each, each, each, each, each, each))
    try:
        return _encode_lines([
            raw(a[:-1]) if s is None
            else _UsualLine("decision", i, int(s), str(a), int(round(t or 0)), bool(to), bool(st), h)
            for i, (s, a, t, to, st, h) in enumerate(decisions, first)
        ])
    except (TypeError, ValueError, OverflowError, UnicodeError):
        return "".join(
            a if s is None else decision_line(i, int(s), str(a), int(round(t or 0)), bool(to), bool(st), h)
            for i, (s, a, t, to, st, h) in enumerate(decisions, first)
        ).encode()


def decision_text(i: int, seat: Any, action: Any, think_ms: float = 0, timeout: bool = False, strike: bool = False,
                  state_hash: str | None = None, bot_error: str = "") -> str:
    """Decision line ``i`` as written (newline included), from what a recorder's ``decision`` is given:
    the usual line put together from its parts (`decision_line`), any other (a bot error, a hash that
    is not a str) through its `decision_dict`.  One text for every writer (`ReplayWriter`, `ReplayBuffer`)."""
    if not bot_error and (state_hash is None or type(state_hash) is str):  # `usual_decision`, inline
        return decision_line(i, int(seat), str(action), int(round(think_ms or 0)), bool(timeout), bool(strike),
                             state_hash)
    # The fields of a `DecisionRecord`, without building one: this runs after every decision.
    line = decision_dict(i, int(seat), str(action), int(round(think_ms or 0)), bool(timeout), bool(strike),
                         state_hash, str(bot_error or ""))
    try:
        return encode_line(line) + "\n"
    except (TypeError, ValueError) as error:
        raise ReplayFormatError(f"replay line is not plain JSON: {error}") from None


def prepared_header(header: "ReplayHeader | Mapping[str, Any]") -> ReplayHeader:
    """The header a new replay is written with: stamped with the code writing it (``engine``), and every
    ruleset option recorded with its value, defaults included (so a later default cannot change how the
    replay re-simulates)."""
    if not isinstance(header, ReplayHeader):
        header = ReplayHeader.from_dict(header)
    if not header.engine:
        header.engine = engine_version()
    header.options = _resolved_options(header.ruleset, header.options)
    return header


class ReplayWriterError(RuntimeError):
    """The writer was used out of order (a decision after the result, say)."""


def replay_path(directory: "str | os.PathLike[str] | None", header: ReplayHeader) -> Path:
    """Where a game's finished replay lives: ``DIR/YYYY-MM-DD/<game_id>.jsonl`` (date of its start, UTC)."""
    base = Path(directory) if directory is not None else DEFAULT_DIRECTORY
    started = parse_time(header.started_at)
    day = started.strftime("%Y-%m-%d") if started else "undated"
    return base / day / f"{header.game_id}{SUFFIX}"


class ReplayWriter:
    """Writes one game.  Create it with `ReplayWriter.create`; it is also a context manager
    that aborts the replay if the block raises before `finish`."""

    def __init__(self, path: Path, header: ReplayHeader, handle: Any, flush_s: float = 0.0, hash_every: int = 1) -> None:
        self.header = header
        self.final_path = path
        self.part_path = path.with_name(path.name[: -len(SUFFIX)] + PART_SUFFIX)
        self._handle = handle
        self._count = 0
        self._flush_s = flush_s
        self._hash_every = max(1, int(hash_every))
        self._flushed_at = time.monotonic()
        self._closed = False
        self._result_at: int | None = None  # file offset of the result line, once written

    @classmethod
    def create(
        cls, directory: "str | os.PathLike[str] | None", header: "ReplayHeader | Mapping[str, Any]",
        flush_s: float = 0.0,
        hash_every: int = 1,
    ) -> "ReplayWriter":
        """Open ``<game_id>.jsonl.part`` under ``directory/YYYY-MM-DD/`` and write the header line.

        ``flush_s``: decision lines reach the operating system at least this often (seconds);
        0 (the default) flushes every line.  The header and the result line are flushed at once.
        ``hash_every``: the state hash is wanted on every that many decision lines (`hash_due`),
        and on the game's last; 1 (the default) on every line.

        ``header`` is a `ReplayHeader` or a mapping with at least ``game_id``,
        ``ruleset``, ``players``, ``seed`` (and usually ``seats``,
        ``options``, ``time_control``).  ``directory=None`` means ``replays/``.
        An existing replay of the same game id is never overwritten.
        """
        header = prepared_header(header)  # a new replay is always stamped with the code writing it
        path = replay_path(directory, header)
        if path.exists():
            raise FileExistsError(f"a replay of game {header.game_id} already exists: {path}")
        part = path.with_name(path.name[: -len(SUFFIX)] + PART_SUFFIX)
        try:
            try:
                handle = open(part, "x", encoding="utf-8", newline="\n")
            except FileNotFoundError:  # the day's folder is new (its mkdir only then: a ladder creates many)
                path.parent.mkdir(parents=True, exist_ok=True)
                handle = open(part, "x", encoding="utf-8", newline="\n")
        except FileExistsError:
            raise FileExistsError(f"game {header.game_id} is already being recorded (or crashed): {part}") from None
        writer = cls(path, header, handle, flush_s, hash_every)
        writer._write(header.to_dict())
        return writer

    @property
    def path(self) -> Path:
        """Where the replay will be once finished (``.jsonl``); what a database row should point at.

        While the game runs the lines go to `part_path`; a crash leaves them there.
        """
        return self.final_path

    @property
    def current_path(self) -> Path:
        """The file on disk right now: `part_path` until `finish`/`abort`, then `path`."""
        return self.final_path if self._closed else self.part_path

    @property
    def sealed(self) -> bool:
        """Whether the replay is closed: its result line written and the file renamed to ``.jsonl``."""
        return self._closed

    @property
    def decisions(self) -> int:
        return self._count

    def hash_due(self) -> bool:
        """Whether the next decision line should carry the state hash (`arena.match.runner` asks before
        it computes one; the game's last decision always carries it)."""
        return self._hash_every == 1 or (self._count + 1) % self._hash_every == 0

    def decision(
        self,
        seat: int,
        action: Any,
        think_ms: float = 0,
        timeout: bool = False,
        strike: bool = False,
        state_hash: str | None = None,
        bot_error: str = "",
    ) -> None:
        """Record one applied decision and the state hash after it (`GameState.state_hash()`)."""
        if self._closed:
            self._check_open()
        if self._result_at is not None:
            raise ReplayWriterError(f"replay {self.part_path} already has its result line")
        self._count += 1
        self._handle.write(decision_text(self._count, seat, action, think_ms, timeout, strike, state_hash, bot_error))
        if self._flush_s <= 0:
            self._handle.flush()
        else:
            now = time.monotonic()
            if now - self._flushed_at >= self._flush_s:
                self._handle.flush()
                self._flushed_at = now

    def flush(self) -> None:
        """Hand every line written so far to the operating system."""
        self._check_open()
        self._handle.flush()
        self._flushed_at = time.monotonic()

    def finish(self, result: Any) -> Path:
        """Write the result line, fsync, and atomically rename to ``.jsonl``; returns the final path."""
        self.write_result(result)
        return self.seal()

    def abort(self, reason: str) -> Path:
        """End an unfinished game (server shutdown, runner error): the file is whole, status ``aborted``."""
        self.write_abort(reason)
        return self.seal()

    def write_result(self, result: Any) -> Path:
        """Write the ``finished`` result line and fsync it; the file stays ``.part`` until `seal`."""
        return self._write_result(result_line(result, self.header.players, FINISHED))

    def write_abort(self, reason: str) -> Path:
        """Write an ``aborted`` result line and fsync it (replacing an unsealed result line); `seal` next."""
        return self._write_result(result_line({}, self.header.players, ABORTED, reason=reason or "aborted"))

    def seal(self, sync_directory: bool = True) -> Path:
        """Rename the fsynced ``.part`` to ``.jsonl`` and make the rename durable; returns the final path.

        ``sync_directory=False`` leaves the rename to the file system's next journal commit (on ext4
        the next fsync anywhere on it), for a caller whose recovery renames a committed ``.part`` anyway (the
        ladder's: `arena.ladder.recovery`); the file is whole either way, and a crash of the process
        alone never undoes a rename.
        """
        self._check_open()
        if self._result_at is None:
            raise ReplayWriterError(f"replay {self.part_path} has no result line to seal")
        self._handle.close()
        self._closed = True
        os.replace(self.part_path, self.final_path)
        if sync_directory:
            _fsync_directory(self.final_path.parent)
        return self.final_path

    def _write_result(self, line: dict[str, Any]) -> Path:
        self._check_open()
        if self._result_at is None:
            self._handle.flush()
            self._result_at = self._handle.tell()
        else:  # the earlier result was never committed: it is replaced, not followed
            self._handle.flush()
            self._handle.seek(self._result_at)
            self._handle.truncate()
        self._write(line)
        os.fsync(self._handle.fileno())
        return self.part_path

    def _write(self, line: Mapping[str, Any], flush: bool = True) -> None:
        try:
            text = encode_line(line)
        except (TypeError, ValueError) as error:
            raise ReplayFormatError(f"replay line is not plain JSON: {error}") from None
        self._handle.write(text + "\n")
        if flush:
            self._handle.flush()

    def _check_open(self) -> None:
        if self._closed:
            raise ReplayWriterError(f"replay {self.final_path} is already finished")

    def __enter__(self) -> "ReplayWriter":
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if not self._closed:
            self.abort(f"recording interrupted: {kind.__name__ if kind else 'not finished'}")


class ThreadedCloseRecorder:
    """A `ReplayWriter` for a trio game loop: lines are written inline (one buffered write each),
    but the closing fsync and rename run in a worker thread so a slow disk never stalls other games.

    `arena.match.runner.play_game` awaits ``finish``/``abort`` when they are coroutines.
    """

    def __init__(self, writer: ReplayWriter) -> None:
        self.writer = writer

    @property
    def path(self) -> Path:
        return self.writer.path

    def decision(self, *args: Any, **kwargs: Any) -> None:
        self.writer.decision(*args, **kwargs)

    async def finish(self, result: Any) -> Path:
        import trio

        return await trio.to_thread.run_sync(self.writer.finish, result)

    async def abort(self, reason: str) -> Path:
        import trio

        return await trio.to_thread.run_sync(self.writer.abort, reason)

    async def write_result(self, result: Any) -> Path:
        import trio

        return await trio.to_thread.run_sync(self.writer.write_result, result)

    async def write_abort(self, reason: str) -> Path:
        import trio

        return await trio.to_thread.run_sync(self.writer.write_abort, reason)

    async def seal(self) -> Path:
        import trio

        return await trio.to_thread.run_sync(self.writer.seal)


def seal_partial(part_path: "str | os.PathLike[str]", reason: str = "cut off by a restart") -> Path:
    """Close a replay a crash left as ``.part`` as ``aborted``: keep every whole decision line, rename.

    For a server that restarts and marks the games it lost as aborted; the
    sealed file lists and verifies like any other.  A result line already in
    the file is dropped: it was written before the store committed the
    result, and the commit never happened (no bot was told that result).
    Raises `ReplayFormatError` if the file is not a readable replay at all.
    """
    from arena.replay.reader import load

    part = _part(part_path)
    replay = load(part)
    final = _final_of(part)
    lines = [replay.header.to_dict(), *(d.to_dict() for d in replay.decisions),
             result_line({}, replay.header.players, ABORTED, reason=reason)]
    temporary = part.with_name(part.name + ".sealing")
    with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, final)
    part.unlink()
    _fsync_directory(final.parent)
    return final


def seal_complete(part_path: "str | os.PathLike[str]") -> Path:
    """Rename a ``.part`` whose result line is in the file and was committed (a crash came before `seal`).

    Raises `ReplayFormatError` if the file has no result line.
    """
    from arena.replay.reader import load

    part = _part(part_path)
    replay = load(part)
    if not replay.complete:
        raise ReplayFormatError(f"{part} has no result line: close it with seal_partial")
    final = _final_of(part)
    os.replace(part, final)
    _fsync_directory(final.parent)
    return final


def _part(part_path: "str | os.PathLike[str]") -> Path:
    part = Path(part_path)
    if not part.name.endswith(PART_SUFFIX):
        raise ReplayFormatError(f"{part} is not an unfinished replay (*{PART_SUFFIX})")
    return part


def _final_of(part: Path) -> Path:
    final = part.with_name(part.name[: -len(PART_SUFFIX)] + SUFFIX)
    if final.exists():
        raise FileExistsError(f"{final} already exists")
    return final


def _resolved_options(ruleset: str, options: dict[str, Any]) -> dict[str, Any]:
    """Record every option with its value, defaults included, so a later change of a default
    cannot change how an old replay re-simulates.  Unknown rulesets are recorded as given."""
    from arena.games import GameError, ruleset_info

    try:
        return ruleset_info(ruleset).resolve_options(options)
    except GameError:
        return dict(options)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (POSIX); not possible or needed on Windows."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
