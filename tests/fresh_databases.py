"""Fresh, empty databases on the session's PostgreSQL, made one step ahead of the tests that need them.

``CREATE DATABASE`` copies ``template1`` (a few tenths of a second on a loaded machine), and some fifty
tests each want a database of their own.  A thread keeps one database made in advance: a test takes
it (`take`) and the thread starts on the next one while the test runs, so the copy overlaps the test
instead of adding to it.  Each database is as new as one made on demand: nobody has connected to it.

The cluster may be away (a test stops and starts the session's server to check the fixture): when
the thread could not make its database, `take` makes one itself, so a test sees the same error it
would have seen without the thread.  Databases are dropped by the test's
fixture when it ends, as before; spare ones go with the cluster at the end of the session.
"""

from __future__ import annotations

import queue
import threading
import uuid

import psycopg

#: Databases made in advance.  One is enough: tests take them one at a time.
SPARE = 1


def new_name() -> str:
    return "test_" + uuid.uuid4().hex[:16]


def create(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=10) as admin:
        admin.execute(f"CREATE DATABASE {name}")


def drop(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=10) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class FreshDatabases:
    """Hands out names of new databases on the server at ``admin_url``, making the next one in a thread."""

    def __init__(self, admin_url: str, spare: int = SPARE) -> None:
        self.admin_url = admin_url
        self._ready: "queue.Queue[str | Exception]" = queue.Queue()
        self._wanted = threading.Semaphore(spare)  # one release per database the thread should make
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._make_ahead, name="fresh-databases", daemon=True)
        self._thread.start()

    def _make_ahead(self) -> None:
        while True:
            self._wanted.acquire()
            if self._closed.is_set():
                return
            name = new_name()
            try:
                create(self.admin_url, name)
            except Exception as error:  # the server is away (psycopg.Error), or anything else
                self._ready.put(error)  # `take` tries again itself, so the error is the test's own
            else:
                self._ready.put(name)

    def take(self) -> str:
        """The name of a database made for this caller alone.

        Waits for the one the thread is making (never two copies of ``template1`` at once); if the
        thread could not make it, makes one now, so a server that is away fails here with its own error.
        """
        made = self._ready.get(timeout=120)
        self._wanted.release()  # the thread makes the next one meanwhile
        if isinstance(made, Exception):
            made = new_name()
            create(self.admin_url, made)
        return made

    def close(self) -> None:
        self._closed.set()
        self._wanted.release()
        self._thread.join(30)
