"""The PostgreSQL fixture itself: a real server that tests can stop and start again, and the databases
made ahead for the tests (tests/fresh_databases.py), checked across the same restart."""

from __future__ import annotations

import pytest

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")


def test_a_real_server_answers_and_comes_back_after_a_restart(postgres):
    """Also: each database made ahead is new and handed out once, and while the server is away `take`
    fails with the server's own error (the thread could not make one either) instead of handing out a name."""
    from tests.fresh_databases import FreshDatabases, drop

    pool = FreshDatabases(postgres.url)
    try:
        first, second = pool.take(), pool.take()
        assert first != second
        for name in (first, second):
            url = postgres.url.rsplit("/", 1)[0] + "/" + name
            with psycopg.connect(url, connect_timeout=10) as connection:
                assert connection.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)
            drop(postgres.url, name)
        with psycopg.connect(postgres.url, connect_timeout=10) as connection:
            assert connection.execute("SELECT current_user, current_database()").fetchone() == ("arena", "arena")
            connection.execute("CREATE TABLE IF NOT EXISTS probe (n integer)")
            connection.execute("INSERT INTO probe VALUES (7)")
        postgres.stop()
        taken: list = []
        try:
            with pytest.raises(psycopg.OperationalError):
                psycopg.connect(postgres.url, connect_timeout=2)
            # The thread may have made the next database before the stop: it is handed out; the one after
            # it the thread cannot make, and neither can take.
            for _ in range(2):
                try:
                    taken.append(pool.take())
                except psycopg.OperationalError as error:
                    taken.append(error)
                    break
        finally:
            postgres.start()
        assert isinstance(taken[-1], psycopg.OperationalError), taken
        for name in taken[:-1]:
            drop(postgres.url, name)
        with psycopg.connect(postgres.url, connect_timeout=10) as connection:
            assert connection.execute("SELECT n FROM probe").fetchone() == (7,)
            connection.execute("DROP TABLE probe")
        third = pool.take()  # the server is back: a database again
        with psycopg.connect(postgres.url, autocommit=True, connect_timeout=10) as admin:
            assert admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (third,)).fetchone() == (1,)
        drop(postgres.url, third)
    finally:
        pool.close()
