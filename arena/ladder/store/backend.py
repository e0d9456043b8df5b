"""The one interface both databases sit behind: a connection that runs the store's shared SQL.

`LadderStore` (``ladder_store.py``) writes every query once, in the SQL both
SQLite and PostgreSQL accept, with ``?`` placeholders.  A `Backend` owns the
connection and everything that differs between the two:

* the driver's placeholder style (``?`` for sqlite3, ``%s`` for psycopg),
  translated here in `Backend.sql`, the one place;
* how a write transaction begins and how its commit is made durable;
* how the schema is locked while it is migrated, and how one `arena serve`
  claims the database (a lock file beside SQLite's, a session advisory lock on
  PostgreSQL), both released by the operating system or the server when the
  process dies;
* which driver exceptions mean "this database cannot be used" (`StoreError`).

The rest of the SQL differences are kept out of the queries by writing them
portably: counts of a condition as ``SUM(CASE WHEN ... THEN 1 ELSE 0 END)``
(PostgreSQL cannot sum booleans), averages cast to ``DOUBLE PRECISION``,
``INSERT ... ON CONFLICT`` (both), no ``AUTOINCREMENT``, booleans stored as
integers 0/1.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections import Counter
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Generator, Sequence


@dataclass(eq=False)
class Read:
    """Statements (shared SQL) whose results a store step needs before it goes on: what a step of a
    write yields (`drive`, `LadderStore.run_together`), and, once run, each one's rows (None for a
    statement that returns none) and the number of rows it changed."""

    statements: list[tuple[str, Sequence[Any]]]
    rows: list[list[tuple] | None] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    #: The write's last read: once it is answered the write sends nothing more and raises nothing, so
    #: the transaction's ``COMMIT`` may go in the same message (`LadderStore.run_together`,
    #: `Backend.flush`): the write is then committed when its answer comes.
    last: bool = False


#: A write in steps: a generator that yields a `Read` when it needs results, gets it back run, and
#: returns its result.  Between two reads it may `Backend.send` statements (and read at once with
#: `Backend.rows`/`run`, at the cost of a round trip of its own).
Steps = Generator[Read, Read, Any]


def drive(backend: "Backend", steps: Steps) -> Any:
    """Run a write's steps alone, each read as soon as it is asked for; its result."""
    try:
        read = next(steps)
        while True:
            backend.defer(read)
            backend.flush()
            read = steps.send(read)
    except StopIteration as done:
        return done.value


class Backend(ABC):
    #: Where the data lives, for messages (a path, or a URL without its password).
    name: str
    #: Which database this is ("sqlite" or "postgresql"): what a schema step of one database's own
    #: (`migrations.Step`) is chosen by.  Nothing else in the store asks.
    dialect: str = ""
    #: The driver's parameter style: "qmark" (``?``) or "format" (``%s``).
    paramstyle: str = "qmark"
    #: The driver's exceptions for a database that cannot be used.
    errors: tuple[type[BaseException], ...] = ()

    def __init__(self) -> None:
        self.stats = StatementStats()

    @abstractmethod
    def clock(self, back: bool = False) -> str:
        """SQL (shared, for any statement) for the database's own clock now, as the store's time text (ISO 8601 in
        UTC to the millisecond, `records.utc_now`'s form, so it orders with the times written before); ``back``:
        minus the seconds of one ``?`` parameter.  Every host of a shared ladder reads the same clock, so a host
        whose own clock is fast cannot date a row in the future (`LadderStore.note_seen`)."""

    def sql(self, text: str) -> str:
        """The shared SQL (``?`` placeholders) in this driver's style."""
        return _to_format(text) if self.paramstyle == "format" else text

    @abstractmethod
    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        """Run one statement (shared SQL) now, counted in `stats`; the driver's cursor (DB-API: ``fetchall``,
        ``description``, ``rowcount``).  `rows`, `run` and `result` read it."""

    def rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple]:
        """Run a query (shared SQL) and return all its rows."""
        return self.execute(sql, parameters).fetchall()

    def run(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        """Run a statement (shared SQL); returns how many rows it changed."""
        return self.execute(sql, parameters).rowcount

    def send(self, sql: str, parameters: Sequence[Any] = ()) -> None:
        """Run a statement whose result the caller does not need (shared SQL).

        Inside a transaction PostgreSQL only queues it: it goes, in order, with the next statement
        whose result is read or with the commit, as one message, and an error in it is raised
        there, so the transaction fails as it would have.  A write transaction of many statements
        so costs a round trip (and a network write) per result read instead of one per statement.
        """
        self.run(sql, parameters)

    def defer(self, read: Read) -> None:
        """Run a `Read`'s statements in order, or, inside a PostgreSQL transaction, queue them to go with
        the next `flush` (with the statements sent before them, in order, in one message); either way its
        results are there after `flush`.  The reads of several writes deferred together cost one round trip."""
        for sql, parameters in read.statements:
            rows, count = self.result(sql, parameters)
            read.rows.append(rows)
            read.counts.append(count)

    #: True where a game's result is committed by one server-side function, `game_end.END_FUNCTION`
    #: (PostgreSQL, schema step 9), instead of the shared statements `LadderStore.game_ended_steps` sends.
    ends_games_on_the_server: bool = False
    #: True where a game's start (its seat claim, row and seats) is recorded by one server-side function,
    #: `game_start.START_FUNCTION` (PostgreSQL, schema step 10), instead of the shared statements.
    starts_games_on_the_server: bool = False

    #: True where `flush` can send the transaction's ``COMMIT`` with the reads (PostgreSQL: a write
    #: transaction whose reads come last costs one round trip, not two).
    merges_commit: bool = False

    def flush(self, commit: bool = False) -> None:
        """Run the reads `defer` queued (nothing to do where `defer` runs them at once).

        commit: the reads are the transaction's last statements: commit it with them, in the same
        message (where `merges_commit`); the transaction's end then sends nothing more, and a
        statement sent after this raises.  Elsewhere the end commits, as always."""

    def result(self, sql: str, parameters: Sequence[Any] = ()) -> tuple[list[tuple] | None, int]:
        """Run one statement: (its rows, or None if it returns none; how many rows it changed)."""
        cursor = self.execute(sql, parameters)
        return (cursor.fetchall() if cursor.description is not None else None), cursor.rowcount

    @abstractmethod
    def transaction(self, durable: bool = True) -> AbstractContextManager[None]:
        """A write transaction: committed durably when the block ends, rolled back if it raises.

        ``durable=False`` allows a commit that a crash of the process cannot lose, and a crash of the
        machine can, until the next durable commit on this connection makes it durable with its own
        (SQLite: the WAL's frames written without their fsync, `SqliteBackend`); a backend may commit
        durably all the same (PostgreSQL does)."""

    def twin(self) -> "Backend | None":
        """A second connection to the same database, for writes that need not wait behind this one's;
        None where a second writer would only wait for the first (SQLite: one writer at a time)."""
        return None

    @abstractmethod
    def lock_schema(self) -> None:
        """Inside a transaction: keep other processes from migrating the schema at the same time."""

    @abstractmethod
    def claim_server(self) -> None:
        """Claim the database for this process's `arena serve` until `close`, or raise StoreError."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection and release the server claim."""


class StatementStats:
    """How many statements and write transactions a backend ran, by the statement's first word
    (SELECT, INSERT, UPDATE, DELETE...): what shows that the ladder writes per game and per
    rating update, never per decision (`arena serve` prints the totals when it stops)."""

    def __init__(self) -> None:
        self.by_kind: Counter[str] = Counter()
        self.transactions = 0
        #: Messages sent to a database server that waited for its answer (PostgreSQL; SQLite has none).
        self.round_trips = 0

    def statement(self, sql: str) -> None:
        self.by_kind[_kind(sql)] += 1

    def transaction(self) -> None:
        self.transactions += 1

    def round_trip(self) -> None:
        self.round_trips += 1

    @property
    def statements(self) -> int:
        return sum(self.by_kind.values())

    @property
    def writes(self) -> int:
        """Statements other than reads (SELECT, and WITH ... SELECT)."""
        return sum(count for kind, count in self.by_kind.items() if kind not in ("SELECT", "WITH"))

    @classmethod
    def summed(cls, parts: Sequence["StatementStats"]) -> "StatementStats":
        """The counts of several connections together."""
        total = cls()
        for part in parts:
            total.by_kind.update(part.by_kind)
            total.transactions += part.transactions
            total.round_trips += part.round_trips
        return total

    def snapshot(self) -> dict[str, Any]:
        return {"statements": self.statements, "writes": self.writes, "transactions": self.transactions,
                "round_trips": self.round_trips, "by_kind": dict(self.by_kind)}


@functools.lru_cache(maxsize=512)
def _kind(sql: str) -> str:
    words = sql.split(None, 1)
    return words[0].upper() if words else ""


@functools.lru_cache(maxsize=256)
def _to_format(text: str) -> str:
    # The shared SQL has no '?' or '%' inside string literals; a literal '%' would need doubling for psycopg.
    return text.replace("%", "%%").replace("?", "%s")
