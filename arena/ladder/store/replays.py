"""Every ladder game's replay, kept in the ladder database with its result.

Both backends store each finished and aborted game's replay in the ``replays``
table (schema version 5, on SQLite as on PostgreSQL): the replay's text, exactly
the bytes a ``.jsonl`` file of it would hold, compressed with zlib, with its
length and SHA-256 so a reader can tell it got back what the host wrote.  So any
host and any `arena replay GAME_ID --db FILE|URL` can serve any game.

When it is written (arena/ladder/README.md, "Replays"): in the transaction that
commits the game's result or abort (`LadderStore.game_ended` with ``replay=``).
The replay is kept in memory while the game runs (`arena.replay.buffer`), so no
file is created, flushed or renamed per game, and a game is never final in the
database without its replay.  Games recorded by an older version name a file
in ``games.replay_path`` instead (`legacy_file`); their ``.part`` files closed
at the next start (`arena.ladder.recovery`) and files stored by
``arena replays DIR --db X --import`` go in with `put(..., replace=False)`.

The functions here take a `Backend` (the caller holds the store's lock and,
for writes, its transaction), as ``fit_totals.py`` does.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from arena.ladder.store.backend import Backend

#: How ``data`` is encoded; a reader refuses an encoding it does not know.
ZLIB = "zlib"
#: zlib's level.  1 packs a moumou replay of 12 KB to about a ninth (1.33 KB) in half the CPU of zlib's
#: default, 6 (a tenth, 1.14 KB): 35 against 70 µs a game, quiet.  Every ladder game is packed on the
#: server, just before its result's commit, and the replay stays a page of the database either way.
#: Any level unpacks the same way, so replays stored at 6 read as before.
LEVEL = 1

#: Version 5 of the schema (migrations.py).  BYTEA is PostgreSQL's bytes type; SQLite accepts the
#: name (NUMERIC affinity, which stores a bytes value unchanged) so one schema serves both.
SCHEMA = """
    CREATE TABLE replays (
        game_id TEXT PRIMARY KEY REFERENCES games (id),
        encoding TEXT NOT NULL,       -- how data is packed: 'zlib'
        size INTEGER NOT NULL,        -- bytes of the replay text (the .jsonl file)
        sha256 TEXT NOT NULL,         -- of the replay text, hex
        data BYTEA NOT NULL,
        stored_at TEXT NOT NULL
    );
"""


class StoredReplayError(ValueError):
    """A stored replay that does not unpack to what was stored (damaged, or an unknown encoding)."""


@dataclass(frozen=True)
class PackedReplay:
    """One replay's text, packed for the ``replays`` table."""

    encoding: str
    size: int
    sha256: str
    data: bytes

    @classmethod
    def of(cls, text: bytes) -> "PackedReplay":
        return cls(ZLIB, len(text), hashlib.sha256(text).hexdigest(), zlib.compress(text, LEVEL))

    @classmethod
    def read(cls, *paths: "str | os.PathLike[str]") -> "PackedReplay | None":
        """The first of these files that exists, packed (None: none exists; OSError: one cannot be read)."""
        for path in paths:
            try:
                with open(path, "rb") as handle:
                    return cls.of(handle.read())
            except FileNotFoundError:
                continue
        return None

    def unpack(self, game_id: str = "") -> bytes:
        """The replay's text, checked against its length and hash."""
        if self.encoding != ZLIB:
            raise StoredReplayError(f"stored replay {game_id}: unknown encoding {self.encoding!r}")
        try:
            text = zlib.decompress(self.data)
        except zlib.error as error:
            raise StoredReplayError(f"stored replay {game_id} is damaged: {error}") from None
        if len(text) != self.size or hashlib.sha256(text).hexdigest() != self.sha256:
            raise StoredReplayError(f"stored replay {game_id} is damaged: it does not match its SHA-256")
        return text


def put(backend: Backend, game_id: str, packed: PackedReplay, *, replace: bool = True) -> int:
    """Store a game's replay (replace=False: keep one already stored), dated by the database's clock; returns the
    rows written."""
    return backend.run(*put_statement(game_id, packed, backend.clock(), replace=replace))


def put_statement(game_id: str, packed: PackedReplay, now: str, *, replace: bool = True) -> tuple[str, tuple]:
    """`put`'s statement, for a caller that sends it without reading its count (`Backend.send`); ``now``: the SQL of
    its ``stored_at``, the database's clock (`Backend.clock`), so a host whose own clock is off dates nothing."""
    conflict = (
        "DO UPDATE SET encoding = excluded.encoding, size = excluded.size, sha256 = excluded.sha256, "
        "data = excluded.data, stored_at = excluded.stored_at" if replace else "DO NOTHING"
    )
    return (
        f"INSERT INTO replays (game_id, encoding, size, sha256, data, stored_at) VALUES (?, ?, ?, ?, ?, {now}) "
        f"ON CONFLICT (game_id) {conflict}",
        (game_id, packed.encoding, packed.size, packed.sha256, packed.data),
    )


def get(backend: Backend, game_id: str) -> PackedReplay | None:
    rows = backend.rows("SELECT encoding, size, sha256, data FROM replays WHERE game_id = ?", (game_id,))
    if not rows:
        return None
    encoding, size, sha256, data = rows[0]
    return PackedReplay(encoding, int(size), sha256, bytes(data))


def stored(backend: Backend, game_ids: Sequence[str]) -> set[str]:
    """Which of these games have a stored replay."""
    found: set[str] = set()
    ids = list(game_ids)
    for chunk in range(0, len(ids), 500):
        part = ids[chunk : chunk + 500]
        found.update(r[0] for r in backend.rows(
            f"SELECT game_id FROM replays WHERE game_id IN ({','.join('?' * len(part))})", part))
    return found


def legacy_file(path: "str | os.PathLike[str] | None", replays: "str | os.PathLike[str] | None" = None) -> Path | None:
    """The replay file a game's row names (``games.replay_path``), if it is on this machine: the games of
    a ladder from before its replays went into the database (and ``arena match``-style files an older
    version sealed).  A relative path is relative to where `arena serve` ran: tried as it is, then beside
    the replay folder ``replays``.  A ``.jsonl.part`` row whose file was sealed since gives the ``.jsonl``."""
    from arena.replay.format import PART_SUFFIX, SUFFIX

    if not path:
        return None
    given = Path(path)
    tries = [given]
    if not given.is_absolute() and replays is not None:
        tries.append(Path(replays).parent / given)
    for candidate in list(tries):
        if candidate.name.endswith(PART_SUFFIX):
            tries.insert(tries.index(candidate), candidate.with_name(candidate.name[: -len(PART_SUFFIX)] + SUFFIX))
    return next((candidate for candidate in tries if candidate.is_file()), None)
