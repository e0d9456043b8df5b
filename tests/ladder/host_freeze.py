"""A host of a shared PostgreSQL ladder frozen (SIGSTOP) while it runs games, for the tests that cut one off.

A stopped host sends nothing more, but what it sent just before may not have reached its database
sessions yet: PostgreSQL shows a backend ``idle`` until it reads its next message, and a message still
waiting in the backend's socket (a game's end with its ``COMMIT``, one message: `store.postgres`) runs
when the backend gets a core, even after the host's process was killed (the backend reads what is in
the socket before it sees the connection close).  On a loaded machine a backend can wait that long
(tests/ladder/test_host_freeze.py makes it wait): a game read as running while its host was stopped
then ends finished, not aborted, and a test that waits for its abort times out although the dead host
was swept at once.

So a stopped host counts as `quiet` only once each of its backends is idle with nothing unread on
its connection (the kernel's socket queues, ``/proc/net/tcp``; what is left is the instant between a
backend's read and its turning active), and the games a cut ends are read again once the host's
sessions are over (`cut_off`, after `backends` is empty): then
nothing the host sent can commit any more, and only a sweep ends them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from test_serve_e2e import poll


def _rows(url: str, sql: str, *parameters) -> list[tuple]:
    import psycopg  # the test modules skip, saying what to install, where it is missing

    with psycopg.connect(url, autocommit=True) as db:
        return db.execute(sql, parameters).fetchall()


def running_on(url: str, host: str) -> set[str]:
    """The running games this host holds seats for (the ones a sweep of it aborts)."""
    return {game for (game,) in _rows(url, "SELECT DISTINCT c.game_id FROM seat_claims c JOIN games g "
                                           "ON g.id = c.game_id WHERE c.host = %s AND c.released_at IS NULL "
                                           "AND g.status = 'running'", host)}


def cut_off(url: str, host: str, seen: set[str]) -> set[str]:
    """Once the host's sessions are over: the games its cut ended, which only a sweep of it ends now.

    Those of ``seen`` (running when it was stopped) that its own statements did not finish, running
    still or aborted already by a sweep, and any other still running.  A game of ``seen`` that finished
    had its end in flight when the host stopped: it was not cut."""
    return {game for (game,) in _rows(url, "SELECT DISTINCT c.game_id FROM seat_claims c JOIN games g "
                                           "ON g.id = c.game_id WHERE c.host = %s AND g.status <> 'finished' "
                                           "AND (g.status = 'running' OR g.id = ANY(%s))", host, sorted(seen))}


def backends(url: str, host: str, pid: int, states: str = "%") -> list[tuple]:
    """The database backends of one host's process (its store's and its registry's connections, by the
    `application_name` each sets), with a state LIKE ``states``: (pid, state, application_name, client_port)."""
    return _rows(url, "SELECT pid, state, application_name, client_port FROM pg_stat_activity "
                      "WHERE (application_name = %s OR application_name LIKE %s) AND state LIKE %s",
                 f"mau-arena pid {pid}", f"mau-arena host {host}%", states)


def _unread_bytes(server_port: int, client_ports: set[int]) -> int:
    """Bytes these loopback connections' clients sent to the database that their backends have not read: in
    the kernel's queues, the backend's end's receive queue and the client's end's send queue.  (What the
    backends sent back, which a stopped host does not read, is not counted.)"""
    unread = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = (int(address.rsplit(":", 1)[1], 16) for address in fields[1:3])
            send, receive = (int(n, 16) for n in fields[4].split(":"))
            if local == server_port and remote in client_ports:
                unread += receive
            elif remote == server_port and local in client_ports:
                unread += send
    return unread


def quiet(url: str, host: str, pid: int) -> bool:
    """The stopped host's backends have run everything it sent: none is active, and none has bytes unread."""
    found = backends(url, host, pid)
    if any(state == "active" for _pid, state, _name, _port in found):
        return False
    (server_port,) = _rows(url, "SELECT inet_server_port()")[0]
    return _unread_bytes(server_port, {port for *_, port in found if port is not None}) == 0


def stop_while_running_games(url: str, host: str, process: subprocess.Popen, timeout: float) -> set[str]:
    """SIGSTOP the host at a moment it has games running, and return them (the host stays stopped).

    A game seen running may end before a signal lands (these games last a fraction of a second, and
    on a loaded machine the gap between a read and a kill is long), so the games are read once the host
    is stopped and `quiet`; if there are none, it runs on and the next running game is waited for.  A
    test that cuts the host off reads the games again once its sessions are over (`cut_off`): that,
    not this, is what the cut ended."""
    if not Path("/proc/net/tcp").exists():
        import pytest

        pytest.skip("reading whether a stopped host's statements reached the database needs Linux's /proc/net/tcp")
    deadline = time.monotonic() + timeout
    while True:
        poll(lambda: running_on(url, host), max(0.0, deadline - time.monotonic()), f"games running on {host}")
        os.kill(process.pid, signal.SIGSTOP)
        poll(lambda: quiet(url, host, process.pid), max(1.0, deadline - time.monotonic()),
             f"the stopped host {host}'s statements to be read and run by the database")
        seen = running_on(url, host)
        if seen:
            return seen
        os.kill(process.pid, signal.SIGCONT)
