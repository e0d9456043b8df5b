"""Readers never create nor migrate a ladder's schema, on PostgreSQL as on SQLite; writers say when they do.

An operator pointed `arena leaderboard --db postgresql://.../old` at a ladder of schema version 4: it upgraded
it to the current version and said nothing (with SQLite the same command refused a file that was not there),
and on an empty database it created every table.  Now:

* the readers (`arena leaderboard`, `arena replays --db`, `arena bots list`, `arena web --db`) refuse a database
  that holds no ladder in one line (exit 2, as for a SQLite file that is not there) and leave it empty;
* they refuse an older schema in one line that says to back it up and run `arena serve` (exit 1), and leave it
  at its version;
* a writer that creates or upgrades the schema (`arena serve`, `arena bots add`) says so in one line:
  "upgraded the ladder schema of DB from version X to Y".
"""

from __future__ import annotations

import sqlite3

import pytest

from arena.cli import main
from arena.ladder.store import SCHEMA_VERSION, LadderStore, open_backend
from arena.ladder.store.migrations import migrate

OLD = 4  # the operator's ladder

READERS = (
    ["leaderboard"],
    ["replays"],
    ["bots", "list"],
    ["web", "--listen", "127.0.0.1:0"],
)


@pytest.fixture(autouse=True)
def web_never_serves(monkeypatch):
    """`arena web` that opened the database would serve until stopped: a failure here, not a hung test."""
    def served(*_args, **_kwargs):
        raise AssertionError("arena web opened the database and served it")

    monkeypatch.setattr("arena.web.embed.run_alone", served)


def tables(db: str) -> list[str]:
    """The tables in the database, read behind the store's back."""
    if db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db, autocommit=True) as connection:
            return sorted(r[0] for r in connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))
    with sqlite3.connect(db) as connection:
        return sorted(r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))


def version(db: str) -> int:
    backend = open_backend(db)
    try:
        return int(backend.rows("SELECT version FROM schema_version")[0][0])
    finally:
        backend.close()


def at_version(db: str, target: int) -> None:
    """A ladder as an older release left it: the schema up to step ``target``."""
    backend = open_backend(db)
    try:
        migrate(backend, target)
    finally:
        backend.close()


@pytest.mark.parametrize("reader", READERS, ids=lambda r: " ".join(r[:2]))
def test_a_reader_refuses_a_database_without_a_ladder_and_creates_nothing(db, reader, capsys):
    if db.startswith("postgresql://"):
        assert tables(db) == []  # the fixture's database: empty
    assert main([*reader, "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"arena: error: no ladder database at {db}") and len(err.strip().splitlines()) == 1, err
    if db.startswith("postgresql://"):
        assert tables(db) == []
    else:
        import os

        assert not os.path.exists(db)


@pytest.mark.parametrize("reader", READERS, ids=lambda r: " ".join(r[:2]))
def test_a_reader_refuses_an_older_schema_in_one_line_and_migrates_nothing(db, reader, capsys):
    at_version(db, OLD)
    before = tables(db)
    assert main([*reader, "--db", db]) == 1
    err = capsys.readouterr().err.strip()
    backup = "pg_dump" if db.startswith("postgresql://") else "a copy of the file"
    assert len(err.splitlines()) == 1 and f"has schema version {OLD}, older than this arena's ({SCHEMA_VERSION})" in err
    assert backup in err and "`arena serve`" in err
    assert version(db) == OLD and tables(db) == before
    # The library's readers too (`arena web`'s source, `arena replay`'s search): recover=False, upgrade=False.
    from arena.ladder.store import OldSchema

    with pytest.raises(OldSchema):
        LadderStore.open(db, recover=False, upgrade=False)
    assert version(db) == OLD


def test_a_writer_says_it_created_or_upgraded_the_schema(db, capsys):
    at_version(db, OLD)
    assert main(["bots", "add", "alice", "--db", db]) == 0
    err = capsys.readouterr().err.strip()
    assert err == f"upgraded the ladder schema of {LadderStore.open(db).path} from version {OLD} to {SCHEMA_VERSION}"
    assert version(db) == SCHEMA_VERSION
    assert main(["bots", "add", "bob", "--db", db]) == 0
    assert capsys.readouterr().err == ""  # nothing to upgrade: nothing said
    assert main(["leaderboard", "--db", db]) == 0  # and the readers read it


def test_serve_s_open_says_it_upgraded(db, capsys):
    """`arena serve` opens its store through `open_db` with recover (and shared on PostgreSQL): the same line."""
    from arena.cli.db import open_db

    at_version(db, OLD)
    store = open_db(db, recover=True, shared=db.startswith("postgresql://"))
    try:
        assert capsys.readouterr().err.strip() == (
            f"upgraded the ladder schema of {store.path} from version {OLD} to {SCHEMA_VERSION}")
    finally:
        store.close()
