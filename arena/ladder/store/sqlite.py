"""The embedded backend: one SQLite file in WAL mode, the default for a newcomer.

WAL lets a dashboard or `arena leaderboard` read while the server writes;
``synchronous=FULL`` makes each commit durable when it returns.  A write
transaction starts with ``BEGIN IMMEDIATE`` (the write lock up front, so it
never fails half-way on a busy database), which also serialises migrations.
The server's claim is an ``flock`` on ``FILE.lock``.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from arena.ladder.store.backend import Backend
from arena.ladder.store.records import StoreError


class SqliteBackend(Backend):
    dialect = "sqlite"
    paramstyle = "qmark"
    errors = (sqlite3.DatabaseError,)

    def __init__(self, path: str | os.PathLike) -> None:
        super().__init__()
        self.name = str(path)
        self._lock_file = None
        if self.name != ":memory:":
            if Path(self.name).is_dir():
                raise StoreError(f"{self.name} is a directory, not a ladder database file")
            # No folder is made, as `arena serve --db` makes none (`arena.cli.db.refuse_unusable`): a mistyped
            # path leaves nothing behind; a caller that wants a fresh folder makes it first.
            folder = Path(self.name).parent
            if not folder.exists():
                raise StoreError(f"{self.name}: the folder {folder} does not exist (it is not created: make it first)")
            if not folder.is_dir():
                raise StoreError(f"{self.name}: {folder} is a file, not a folder")
        try:
            self._db = sqlite3.connect(self.name, timeout=30, check_same_thread=False, isolation_level=None)
            _set_wal(self._db)
            self._db.execute("PRAGMA synchronous=FULL")
            self._full_sync = True  # what `transaction` last set: FULL unless a transaction asked for less
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.name}: cannot open as a ladder database: {error}") from None

    def clock(self, back: bool = False) -> str:
        # the one process's own clock (SQLite has no other), to the millisecond (%f: SS.SSS)
        shift = ", '-' || CAST(? AS REAL) || ' seconds'" if back else ""
        return f"(strftime('%Y-%m-%dT%H:%M:%f', 'now'{shift}) || '+00:00')"

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
        self.stats.statement(sql)
        return self._db.execute(sql, parameters)

    @contextmanager
    def transaction(self, durable: bool = True) -> Iterator[None]:
        """``durable=False``: committed with ``synchronous=NORMAL``, so the commit writes its frames to the
        WAL without an fsync: in the file as soon as it returns (a killed process loses nothing, the next
        open reads the WAL), and durable on disk with the next durable commit, whose fsync of the WAL takes
        every frame before its own (as does a checkpoint, which syncs the WAL first).  Only a crash of the
        machine before then can lose it.  Every durable transaction sets ``synchronous=FULL`` again before
        it begins (an error there fails it: it never commits less durably than asked).  The ladder's game
        starts use it (`Call.durable`): the fsync was most of a lone start's commit (some 170 of 230 µs of
        CPU), and a lost start costs only the row of a game that was running when the machine died, a game
        never rated, whose bots were told no result."""
        self.stats.transaction()
        if durable != self._full_sync:
            self._db.execute("PRAGMA synchronous=FULL" if durable else "PRAGMA synchronous=NORMAL")
            self._full_sync = durable
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise
        self._db.execute("COMMIT")

    def lock_schema(self) -> None:
        pass  # BEGIN IMMEDIATE already holds the database's one write lock

    def claim_server(self) -> None:
        """Hold ``FILE.lock`` for as long as this store is open, or raise StoreError.

        The OS releases the lock when the process dies, so a ``kill -9`` never
        leaves a stale lock behind.
        """
        if self.name == ":memory:":
            return
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock, one server per database is up to the operator
            return
        lock_file = open(self.name + ".lock", "a+")
        try:
            fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock_file.seek(0)
            holder = lock_file.read().strip()
            lock_file.close()
            who = f" (pid {holder})" if holder else ""
            raise StoreError(
                f"{self.name} is in use by another `arena serve`{who}: stop it first, or give another --db"
            ) from None
        lock_file.seek(0)
        lock_file.truncate()
        lock_file.write(str(os.getpid()))
        lock_file.flush()
        self._lock_file = lock_file

    def close(self) -> None:
        self._db.close()
        if self._lock_file is not None:
            self._lock_file.close()  # closing the file releases the lock
            self._lock_file = None


def _set_wal(db: sqlite3.Connection, attempts: int = 50) -> None:
    """Switch to WAL, retrying while another process holds the lock.

    Changing the journal mode of a database that another connection is
    creating at the same moment can fail with "database is locked" at once,
    without SQLite's busy timeout: several processes opening a new database
    together (a server and its readers) must not fail on that.
    """
    import time

    for attempt in range(attempts):
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == attempts - 1:
                raise
            time.sleep(0.02 * (attempt + 1))  # back off: the other process finishes its set-up in milliseconds
