"""The ladder's store: bots, games, seats and rating snapshots, in SQLite or PostgreSQL.

``--db FILE`` is an embedded SQLite file (the default, nothing to install);
``--db postgresql://user@host/dbname`` a PostgreSQL database (``pip install
'mau-arena[postgres]'``).  `LadderStore.open` takes either and returns the
same store; the modules split along the concepts:

* ``records.py``: what the store takes and returns (`SeatRecord`, `GameRecord`,
  `BotTotals`) and `StoreError` (with `GameClosed` and `UnknownGame`, a result that cannot be stored);
* ``ladder_store.py``: `LadderStore`, every query written once;
* ``backend.py``: the interface a database sits behind, and the SQL rules the
  shared queries follow;
* ``sqlite.py``, ``postgres.py``: the two backends;
* ``migrations.py``: the schema, its forward steps (shared, or with SQL of one database's own) and the
  version check;
* ``game_end.py``: a game's result commit on PostgreSQL as one server-side function (schema step 9), the
  same steps the shared statements take on SQLite;
* ``fit_totals.py``: the rating fit's running totals, kept with each finished game (and, on a shared
  ladder, read back by each host as the rows that changed since its last read);
* ``tokens.py``: bot tokens, stored hashed;
* ``replays.py``: each game's replay kept in the database, zlib-packed (written on PostgreSQL, so any
  host can serve any replay; a SQLite ladder keeps files only);
* ``hosts.py``, ``claims.py``: several `arena serve` hosts on one PostgreSQL database (the
  host registry and its liveness; seat claims that keep every bot within its games at
  once over all hosts).  See arena/ladder/README.md, "Several hosts";
* ``host_list.py``: those hosts as an operator reads them (`arena hosts`, the web view's hosts): live or not,
  and the games each runs now; read-only.
"""

from arena.ladder.store.ladder_store import LadderStore, open_backend
from arena.ladder.store.migrations import SCHEMA_VERSION
from arena.ladder.store.postgres import is_postgres_url
from arena.ladder.store.records import (BotTotals, GameClosed, GameRecord, NoLadder, OldSchema, SeatRecord, StoreError,
                                        UnknownGame, utc_now)
from arena.ladder.store.replays import PackedReplay, StoredReplayError
from arena.ladder.store.tokens import hash_token, verify_token

open_store = LadderStore.open


def driver_errors() -> tuple[type[BaseException], ...]:
    """The database drivers' own exceptions (sqlite3's, and psycopg's where it is installed), for a command
    that reports a failed read or write in one line."""
    import sqlite3

    try:
        import psycopg
    except ImportError:
        return (sqlite3.Error,)
    return (sqlite3.Error, psycopg.Error)


def outage_errors() -> tuple[type[BaseException], ...]:
    """What a store call raises when the database is away (the drivers' errors) or refuses (`StoreError`):
    what a running ladder logs and carries on after."""
    return (*driver_errors(), StoreError)


def error_line(error: BaseException) -> str:
    """A database error as one short line for a log (drivers' messages span lines)."""
    return " ".join(str(error).split())[:200] or type(error).__name__

__all__ = [
    "SCHEMA_VERSION",
    "BotTotals",
    "GameClosed",
    "GameRecord",
    "LadderStore",
    "NoLadder",
    "OldSchema",
    "PackedReplay",
    "SeatRecord",
    "StoreError",
    "StoredReplayError",
    "UnknownGame",
    "driver_errors",
    "error_line",
    "hash_token",
    "is_postgres_url",
    "open_backend",
    "open_store",
    "outage_errors",
    "utc_now",
    "verify_token",
]
