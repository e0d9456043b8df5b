"""The PostgreSQL fixture itself: a real server that tests can stop and start again."""

from __future__ import annotations

import pytest

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")


def test_a_real_server_answers_and_comes_back_after_a_restart(postgres):
    with psycopg.connect(postgres.url, connect_timeout=10) as connection:
        assert connection.execute("SELECT current_user, current_database()").fetchone() == ("arena", "arena")
        connection.execute("CREATE TABLE IF NOT EXISTS probe (n integer)")
        connection.execute("INSERT INTO probe VALUES (7)")
    postgres.stop()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(postgres.url, connect_timeout=2)
    postgres.start()
    with psycopg.connect(postgres.url, connect_timeout=10) as connection:
        assert connection.execute("SELECT n FROM probe").fetchone() == (7,)
        connection.execute("DROP TABLE probe")
