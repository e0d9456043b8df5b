"""A PostgreSQL session that holds a session advisory lock the way the backend of a process killed a
moment ago does: until it is gone.  The tests take the lock in a process's place, start the process's
successor, wait until the database shows the successor waiting for the lock, and only then end the
session, so the race the successor must survive happens every time, not once in a while."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable


def successor_outcome(url: str, classid: int, objid: int, successor: Callable[[], Any]) -> dict[str, Any]:
    """Hold the lock, run `successor` on a thread, end the session once the successor waits for the lock.

    Returns ``{"result": ...}`` or ``{"error": exception}``; fails if the successor never waited."""
    import psycopg

    dying = psycopg.connect(url, autocommit=True)
    dying.execute("SELECT pg_advisory_lock(%s, %s)", (classid, objid))
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = successor()
        except Exception as error:  # reported to the test
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    waiting = ("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
               "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
               "AND CAST(classid AS BIGINT) = %s AND CAST(objid AS BIGINT) = %s")
    with psycopg.connect(url, autocommit=True) as watch:
        deadline = time.monotonic() + 30
        while watch.execute(waiting, (classid, objid)).fetchone()[0] == 0:
            if not thread.is_alive() or time.monotonic() > deadline:
                dying.close()
                thread.join(30)
                raise AssertionError(f"the successor never waited for the lock: {outcome}")
    dying.close()
    thread.join(30)
    return outcome
