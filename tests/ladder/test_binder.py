"""The PostgreSQL backend binds its statements' values on the client (`postgres.Binder`): every kind of
value the store writes must reach the server exactly as a bound parameter would, and none may
change the statement around it."""

from __future__ import annotations

import math

import pytest

from arena.ladder.store.postgres import Binder, literal

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")

TEXTS = ["", "plain", "it's", "''", "back\\slash", "\\", "tab\there\nnewline", "Mau-Mau ♣♦ ☃ 🂡", "$$", "%s", "%",
         "--", "/* c */", ";", "E'x'", '"quoted"', "{braces}", "a,b", "NULL", "null", " spaced ", "\\x00"]


def values_and_types() -> list[tuple[object, str]]:
    found: list[tuple[object, str]] = [(text, "text") for text in TEXTS]
    found += [(n, "bigint") for n in (0, 1, -1, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63))]
    found += [(2**70, "numeric"), (-(2**70), "numeric")]
    found += [(x, "double precision") for x in (0.0, -0.0, 1.5, -2.25, 1e16, 5e-324, -1e-300, 1 / 3,
                                                 float("inf"), float("-inf"), float("nan"))]
    found += [(True, "boolean"), (False, "boolean"), (None, "text")]
    found += [(bytes(range(256)), "bytea"), (b"", "bytea"), (b"'\\", "bytea")]
    found += [(TEXTS, "text[]"), (["one"], "text[]")]
    found += [([1, -2, 2**40], "bigint[]"), ([0], "integer[]")]
    found += [([1, None, -3], "bigint[]"), ([None, 2], "integer[]")]  # a game's placements: None for no place
    return found


def test_every_value_the_store_writes_reaches_the_server_unchanged(postgres_db):
    import psycopg

    for value, _sql_type in values_and_types():
        if not (isinstance(value, str) and "\0" in value):
            literal(value)  # written here, not left to psycopg
    with psycopg.connect(postgres_db, autocommit=True) as db:
        bind = Binder()
        for value, sql_type in values_and_types():
            # the server compares the client-side literal with the same value sent as a parameter
            literal_sql = bind(db, f"SELECT CAST(%s AS {sql_type})", (value,))
            got = db.execute(literal_sql).fetchone()[0]
            sent = db.execute(f"SELECT CAST(%s AS {sql_type})", (value,)).fetchone()[0]
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(got), literal_sql
            else:
                assert got == sent and type(got) is type(sent), (value, literal_sql, got, sent)
        # a negative number after a minus never starts a comment, and '%%' is one '%'
        assert db.execute(bind(db, "SELECT 5 -%s, '100%%'", (-3,))).fetchone() == (8, "100%")
        assert db.execute(bind(db, "SELECT 5 -%s", (-0.0,))).fetchone() == (5,)
        # a list of text works where the store uses one: = ANY(...) and unnest(CAST(... AS TEXT[]))
        assert db.execute(bind(db, "SELECT 'it''s' = ANY(%s), (SELECT array_agg(x) FROM unnest(CAST(%s AS TEXT[])) x)",
                               (["a", "it's"], TEXTS))).fetchone() == (True, TEXTS)


def test_a_value_the_binder_does_not_know_goes_through_psycopg(postgres_db):
    import datetime
    import decimal

    import psycopg

    with pytest.raises(Exception):
        literal(decimal.Decimal("1.5"))
    with psycopg.connect(postgres_db, autocommit=True) as db:
        bind = Binder()
        day = datetime.date(2026, 11, 27)
        row = db.execute(bind(db, "SELECT %s, %s, CAST(%s AS TEXT[]), CAST(%s AS TEXT[])", (decimal.Decimal("1.5"), day, [None, "x"], []))).fetchone()
        assert row == (decimal.Decimal("1.5"), day, [None, "x"], [])
        with pytest.raises(psycopg.DataError):  # a NUL in text is refused, as psycopg refuses it
            bind(db, "SELECT %s", ("nul\0here",))
