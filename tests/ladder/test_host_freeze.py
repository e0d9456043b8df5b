"""`host_freeze.quiet`: a stopped host is quiet only once its backends have run everything it sent.

The cluster tests freeze a host and read which of its games the cut ends.  A game's end sent just
before the host stopped, but not yet read by its backend (no core for it, on a loaded machine), shows
the backend ``idle`` and the game running, then commits it finished, even after the host is killed.
Here that moment is made on purpose: the backend itself is stopped while its client sends a game's
end; `quiet` must say no until the backend has run it.
"""

from __future__ import annotations

import os
import signal

import pytest
from host_freeze import backends, quiet
from test_serve_e2e import poll

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")


def test_a_message_waiting_for_its_backend_is_not_quiet(postgres_db):
    if not os.path.exists("/proc/net/tcp"):
        pytest.skip("reads the kernel's socket queues in /proc/net/tcp (Linux)")
    with psycopg.connect(postgres_db, autocommit=True) as db:
        db.execute("CREATE TABLE games (id TEXT PRIMARY KEY, status TEXT)")
        db.execute("INSERT INTO games VALUES ('g1', 'running')")
        host = psycopg.connect(postgres_db, autocommit=True, application_name="mau-arena host H")
        backend = host.info.backend_pid
        try:
            assert quiet(postgres_db, "H", os.getpid())
            os.kill(backend, signal.SIGSTOP)  # no core for the backend
            try:
                host.pgconn.send_query(b"BEGIN; UPDATE games SET status = 'finished' WHERE id = 'g1'; COMMIT")
                assert host.pgconn.flush() == 0  # all of it sent: the host may stop now
                # what the old check saw: no backend active, the game running
                assert not backends(postgres_db, "H", os.getpid(), "active")
                assert db.execute("SELECT status FROM games").fetchone()[0] == "running"
                assert not quiet(postgres_db, "H", os.getpid())
            finally:
                os.kill(backend, signal.SIGCONT)
            poll(lambda: quiet(postgres_db, "H", os.getpid()), 30, "the backend to run the game's end")
            assert db.execute("SELECT status FROM games").fetchone()[0] == "finished"
        finally:
            host.close()
