"""The shared backend: a PostgreSQL database named by a ``postgresql://`` URL, through psycopg 3.

The connection runs in autocommit mode, so every read is its own short
statement (no snapshot held open between a dashboard's requests), and a write
is an explicit transaction.  Inside it the statements whose result is not read
(`Backend.send`) are not sent at once: they wait, bound to their parameters on
the client (`Binder`), and go with the next statement whose result is read,
or with the ``COMMIT``, as one message of several statements (`run_script`).
So a transaction costs one network write and one round trip per result it
reads, not one per statement; and reads that several writes ask for at once
(`Backend.defer`, `Backend.flush`: a group commit's claims and fenced updates)
share one round trip: on a small machine that shares its cores with
PostgreSQL, every message is a wake-up of another process, and their number,
more than the statements' own work, is what the ladder pays.  When those reads
are the transaction's last (`Read.last`: a group commit of game starts, each
start with its claim one call of a server-side function, `game_start.py`), the ``COMMIT``
goes in the same message (`flush(commit=True)`), so such a transaction is one
round trip; a group commit of results reads nothing at all (each result is one
call of a server-side function that checks its fence there, `game_end.py`) and
is one round trip too.  (psycopg's
pipeline mode saves the waits but still writes each statement on its own.)
The session sets ``synchronous_commit = on`` whatever the server's default: a
commit has reached PostgreSQL's write-ahead log on disk when it returns, which
is what the match runner relies on before it tells the bots a result.

Locks are advisory locks under one key class, so they cost no table and vanish
with the session that holds them (a ``kill -9`` of the process, a lost
connection): the schema lock for the length of a migration transaction, and
the server claim (one `arena serve` per database, as SQLite's lock file) for
the whole session.  `arena serve` itself does not take the server claim on
PostgreSQL: any number of hosts share the database, each claiming its own
name (``hosts.py``) and its games' seats (``claims.py``).
"""

from __future__ import annotations

import functools
import math
import os
import re
from contextlib import contextmanager
from typing import Any, Iterator, Sequence
from urllib.parse import urlsplit, urlunsplit

from arena.ladder.store.backend import Backend, Read
from arena.ladder.store.records import StoreError

URL_SCHEMES = ("postgresql://", "postgres://")

# Advisory lock keys (two int4): a class for Mau Arena ("MAU" in ASCII), then one key per lock.
LOCK_CLASS = 0x4D4155
SCHEMA_LOCK = 1
SERVER_LOCK = 2

#: A condition on ``pg_locks l``: the lock is one of this database's.  An advisory lock belongs to the database it
#: was taken in, and ``pg_locks`` shows every database's: two ladders on one server hold the same numbers.
THIS_DATABASE = "l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"


def clock_text(back: bool = False) -> str:
    """SQL for the server's clock now (``clock_timestamp()``: now, not the transaction's start) as the store's time
    text (`Backend.clock`): ISO 8601 in UTC to the millisecond; ``back``: minus the seconds of one ``?`` parameter.
    No ``%`` and, without ``back``, no ``?`` in it, so it goes into any statement of the store or the registry."""
    at = "clock_timestamp() - CAST(? AS DOUBLE PRECISION) * INTERVAL '1 second'" if back else "clock_timestamp()"
    return f"""to_char(({at}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"')"""


def is_postgres_url(db: str | os.PathLike) -> bool:
    return isinstance(db, str) and db.startswith(URL_SCHEMES)


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return url.split("@")[-1] if "@" in url else url


def one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


class Binder:
    """Binds a statement with ``%s`` placeholders to its parameters as one SQL text, on the client, for
    `run_script`.

    The store's own values (None, booleans, integers, floats, text, bytes, lists of text or of integers with
    None among them)
    are written as literals here (`literal`), in the forms psycopg's `ClientCursor.mogrify` gives them:
    the ladder binds some fifteen statements and a hundred values a game, and psycopg's general
    adaptation (a dumper looked up per value, the query parsed per call) cost 5-20 µs a statement.  A
    statement with any other value, or a connection without ``standard_conforming_strings`` (where a
    backslash in a quoted string would be an escape), goes through `mogrify` as before.  The tests
    check that every kind of value comes back from the server unchanged (tests/ladder/test_binder.py).

    One per connection, keeping its client cursor for `mogrify`.  Used by one thread at a time, as its
    connection is."""

    def __init__(self) -> None:
        self._db: Any = None
        self._cursor: Any = None
        self._literal_ok = False

    def __call__(self, db: Any, sql: str, parameters: Sequence[Any] = ()) -> str:
        if db is not self._db:  # the first statement, or a new connection
            import psycopg

            self._db, self._cursor = db, psycopg.ClientCursor(db)
            self._literal_ok = db.info.parameter_status("standard_conforming_strings") in ("on", b"on")
        if self._literal_ok:
            parts = _placeholders(sql)
            if parts is not None and len(parts) == len(parameters) + 1:
                try:
                    values = [literal(value) for value in parameters]
                except _NotMine:
                    pass
                else:
                    bound = [parts[0]]
                    for value, part in zip(values, parts[1:]):
                        bound.append(value)
                        bound.append(part)
                    return "".join(bound)
        return self._cursor.mogrify(sql, tuple(parameters))


class _NotMine(Exception):
    """A value `literal` leaves to psycopg."""


@functools.lru_cache(maxsize=512)
def _placeholders(sql: str) -> tuple[str, ...] | None:
    """The text between a statement's ``%s`` placeholders (``%%`` read as ``%``); None for any other ``%``."""
    parts, text = [], []
    for piece in _PERCENT.split(sql):
        if piece == "%s":
            parts.append("".join(text))
            text = []
        elif piece == "%%":
            text.append("%")
        elif "%" in piece:
            return None
        else:
            text.append(piece)
    parts.append("".join(text))
    return tuple(parts)


_PERCENT = re.compile(r"(%%|%s)")


def literal(value: Any) -> str:
    """A value of the store's as a PostgreSQL literal (``standard_conforming_strings`` on: a backslash in a
    quoted string is itself); `_NotMine` for a value left to psycopg (which also refuses a NUL in text)."""
    kind = type(value)
    if kind is str:
        if "\0" in value:
            raise _NotMine
        return "'" + value.replace("'", "''") + "'"
    if kind is int:
        return str(value) if value >= 0 else f" {value}"  # a space: ``x -%s`` must not become a comment
    if value is None:
        return "NULL"
    if kind is float:
        if math.isfinite(value):
            text = repr(value)
            return f" {text}" if text.startswith("-") else text  # -0.0 too
        return "'NaN'::float8" if value != value else "'Infinity'::float8" if value > 0 else "'-Infinity'::float8"
    if kind is bool:
        return "true" if value else "false"
    if kind is bytes:
        return "'\\x" + value.hex() + "'::bytea"
    if kind is list:  # (psycopg reads a tuple as a record, not an array: left to it)
        if value and all(type(item) is str and "\0" not in item for item in value):
            items = ",".join('"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"' for item in value)
            return "'{" + items.replace("'", "''") + "}'"
        if value and all(type(item) is int or item is None for item in value) and value.count(None) < len(value):
            return "'{" + ",".join("NULL" if item is None else str(item) for item in value) + "}'::int8[]"
    raise _NotMine


def run_script(db: Any, statements: Sequence[str]) -> Any:
    """Run SQL texts (bound: `Binder`) as one message, one round trip; returns the cursor on the last one's result.

    PostgreSQL runs them in order and stops at the first error, which psycopg raises here.  Outside
    an explicit transaction they form one implicit transaction; each statement takes its own snapshot.
    """
    cursor = _sent(db, statements)
    while cursor.nextset():
        pass
    return cursor


def results(db: Any, statements: Sequence[str]) -> list[list[tuple] | None]:
    """`run_script`, keeping every statement's rows (None for a statement that returns none)."""
    return [rows for rows, _count in counted_results(db, statements)]


def counted_results(db: Any, statements: Sequence[str]) -> list[tuple[list[tuple] | None, int]]:
    """`run_script`, keeping every statement's rows (None for a statement that returns none) and row count."""
    cursor = _sent(db, statements)
    found: list[tuple[list[tuple] | None, int]] = []
    while True:
        found.append((cursor.fetchall() if cursor.description is not None else None, cursor.rowcount))
        if not cursor.nextset():
            return found


def _sent(db: Any, statements: Sequence[str]) -> Any:
    """The statements sent as one message; the cursor on the first one's result."""
    cursor = db.cursor()
    cursor.execute("; ".join(statements))
    return cursor


#: How long taking a session lock (the server's claim, a host's name) waits before refusing: a process
#: killed a moment ago still holds its locks until its backend notices the closed connection and exits,
#: and a restart right after must not be refused as "in use" for that.
LOCK_WAIT_S = 1.0


def take_session_lock(db: Any, classid: int, objid: int, wait_s: float = LOCK_WAIT_S) -> bool:
    """Take a session advisory lock on an autocommit connection, waiting up to `wait_s`; False if still held.

    The lock is taken inside a transaction only so that ``lock_timeout`` can bound the wait: a session
    lock outlives the transaction it was taken in."""
    import psycopg

    if wait_s <= 0:
        return bool(db.execute("SELECT pg_try_advisory_lock(%s, %s)", (classid, objid)).fetchone()[0])
    try:
        with db.transaction():
            db.execute("SELECT set_config('lock_timeout', %s, true)", (f"{max(1, round(wait_s * 1000))}ms",))
            db.execute("SELECT pg_advisory_lock(%s, %s)", (classid, objid))
        return True
    except psycopg.errors.LockNotAvailable:
        return False


def roll_back(db: Any) -> None:
    """End a transaction that failed half-way (a statement of a script failed, or its caller raised), if any:
    quietly, since a connection that is gone has ended it already."""
    import psycopg

    try:
        if not db.closed and db.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            db.execute("ROLLBACK")
    except psycopg.Error:
        pass


class PostgresBackend(Backend):
    dialect = "postgresql"
    paramstyle = "format"
    merges_commit = True
    ends_games_on_the_server = True
    starts_games_on_the_server = True

    def __init__(self, url: str, *, connect_timeout: int = 10) -> None:
        super().__init__()
        self.name = redact(url)
        try:
            import psycopg
        except ImportError:
            raise StoreError(
                f"{self.name}: the PostgreSQL backend needs psycopg 3: pip install 'mau-arena[postgres]'"
            ) from None
        self.errors = (psycopg.Error,)
        options: dict[str, Any] = {"autocommit": True}
        if "connect_timeout" not in url:
            options["connect_timeout"] = connect_timeout
        if "application_name" not in url:
            options["application_name"] = f"mau-arena pid {os.getpid()}"
        self._url, self._options = url, options
        self._in_transaction = False
        self._committed = False  # the open transaction's COMMIT went with its last reads (`flush(commit=True)`)
        self._queued: list[str] = []  # inside a transaction: statements to send with the next one read
        self._deferred: list[tuple[Read, int]] = []  # `defer`red reads, with their first statement's place in _queued
        self._literal = Binder()
        try:
            self._db = self._open()
        except psycopg.Error as error:
            raise StoreError(f"cannot connect to {self.name}: {one_line(error)}") from None
        self._claimed = False

    def clock(self, back: bool = False) -> str:
        return clock_text(back)

    def _open(self) -> Any:
        import psycopg

        db = psycopg.connect(self._url, **self._options)
        db.execute("SET synchronous_commit = on")
        # Its statements carry their values as literals (`Binder`), so no two texts repeat: psycopg's
        # bookkeeping of which to prepare (a count per text, every call) would only cost.
        db.prepare_threshold = None
        return db

    def _connection(self) -> Any:
        """The connection, opened again if the server dropped it (a restart, a failover).

        Only between transactions: a statement that fails with the connection raises as before
        (the caller retries, e.g. the director's result commit), and the next call reconnects.
        """
        if self._db.closed and not self._in_transaction:
            self._db = self._open()
            if self._claimed:  # a session lock died with the old session: take it again
                self._claimed = bool(self._db.execute(
                    self.sql("SELECT pg_try_advisory_lock(?, ?)"), (LOCK_CLASS, SERVER_LOCK)).fetchone()[0])
        return self._db

    def _with_queued(self, sql: str, parameters: Sequence[Any]) -> Any:
        """Inside a transaction: run what waits, then this statement, in one round trip; its cursor."""
        self._not_committed()
        self.flush()  # deferred reads get their results
        db = self._connection()
        statements, self._queued = self._queued + [self._literal(db, self.sql(sql), parameters)], []
        self.stats.round_trip()
        return run_script(db, statements)

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        """Inside a transaction with what waits (`_with_queued`), else alone: one round trip either way."""
        self.stats.statement(sql)
        if self._in_transaction:
            return self._with_queued(sql, parameters)
        self.stats.round_trip()
        return self._connection().execute(self.sql(sql), parameters)

    def defer(self, read: Read) -> None:
        """Inside a transaction: queue the read's statements after what waits already; `flush` sends them
        all as one message and hands each read its results (each statement takes its own snapshot, in order)."""
        if not self._in_transaction:
            super().defer(read)
            return
        self._not_committed()
        db = self._connection()
        self._deferred.append((read, len(self._queued)))
        for sql, parameters in read.statements:
            self.stats.statement(sql)
            self._queued.append(self._literal(db, self.sql(sql), parameters))

    def flush(self, commit: bool = False) -> None:
        if not self._deferred:
            return
        deferred, self._deferred = self._deferred, []
        statements, self._queued = self._queued, []
        if commit and self._in_transaction:  # the COMMIT rides with the reads: one round trip for the transaction
            statements.append("COMMIT")
            self._committed = True
        self.stats.round_trip()
        found = counted_results(self._connection(), statements)
        for read, first in deferred:
            for rows, count in found[first : first + len(read.statements)]:
                read.rows.append(rows)
                read.counts.append(count)

    def send(self, sql: str, parameters: Sequence[Any] = ()) -> None:
        if not self._in_transaction:
            self.run(sql, parameters)
            return
        self._not_committed()
        self.stats.statement(sql)
        self._queued.append(self._literal(self._connection(), self.sql(sql), parameters))

    @contextmanager
    def transaction(self, durable: bool = True) -> Iterator[None]:
        """Always durable (``durable`` is a hint, not taken: a game's start here carries its seat claims,
        which other hosts act on)."""
        self.stats.transaction()
        db = self._connection()
        self._in_transaction = True
        self._committed = False
        self._queued = ["BEGIN"]  # sent with the first statement: an empty transaction sends nothing
        try:
            try:
                yield
                if not self._committed:  # (else its last reads carried the COMMIT: `flush(commit=True)`)
                    self.flush()
                    if self._queued != ["BEGIN"]:
                        self._queued.append("COMMIT")
                        self.stats.round_trip()
                        run_script(db, self._queued)
            except BaseException:
                roll_back(db)
                raise
        finally:
            self._queued = []
            self._deferred = []
            self._in_transaction = False
            self._committed = False

    def _not_committed(self) -> None:
        """Refuse a statement after the COMMIT went with the last reads (`flush(commit=True)`): a write that
        marked its read `Read.last` and then sent more is a bug, and the statement would run outside the
        transaction."""
        if self._committed:
            raise RuntimeError("a statement after the transaction's COMMIT (a Read marked last was not the last)")

    def twin(self) -> "PostgresBackend":
        """Another connection to this database (the ladder's game starts: they need not wait behind results)."""
        return PostgresBackend(self._url, connect_timeout=int(self._options.get("connect_timeout", 10)))

    def lock_schema(self) -> None:
        self.rows("SELECT pg_advisory_xact_lock(?, ?)", (LOCK_CLASS, SCHEMA_LOCK))

    def claim_server(self) -> None:
        """Hold a session advisory lock for as long as this store is open, or raise StoreError."""
        if take_session_lock(self._connection(), LOCK_CLASS, SERVER_LOCK):
            self._claimed = True
            return
        holders = self.rows(
            "SELECT a.application_name, COALESCE(host(a.client_addr), 'local socket') "
            "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            f"WHERE l.locktype = 'advisory' AND l.granted AND {THIS_DATABASE} AND CAST(l.classid AS BIGINT) = ? "
            "AND CAST(l.objid AS BIGINT) = ?",
            (LOCK_CLASS, SERVER_LOCK),
        )
        who = f" ({holders[0][0]} from {holders[0][1]})" if holders else ""
        raise StoreError(f"{self.name} is in use by another `arena serve`{who}: stop it first, or give another --db")

    def close(self) -> None:
        self._db.close()  # ends the session, and with it the server claim
        self._claimed = False
