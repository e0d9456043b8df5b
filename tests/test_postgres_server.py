"""The PostgreSQL test fixture never leaves a cluster running after its owner is gone (tests/postgres_server.py).

The fast test checks the sweep's rule on fake cluster directories (no PostgreSQL needed).  The
slow ones start a real cluster from a pytest run in a subprocess, `kill -9` that run, and check
that its watchdog, or failing that the next start, stops the cluster and deletes its directory.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import postgres_server
from tests.postgres_server import OWNER_FILE, PREFIX, process_start, sweep_orphans

ROOT = Path(__file__).resolve().parent.parent
#: Hang guards (real time) for a subprocess's output line or a process's exit: generous on purpose.
GUARD_S = 120.0


def fake_cluster(area: Path, name: str, record: object = None, text: str | None = None) -> Path:
    root = area / (PREFIX + name)
    (root / "data").mkdir(parents=True)
    if record is not None or text is not None:
        (root / OWNER_FILE).write_text(text if text is not None else json.dumps(record))
    return root


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_the_sweep_removes_only_clusters_whose_owner_is_dead(tmp_path):
    me = os.getpid()
    nowhere = str(tmp_path / "no-bin")  # pg_ctl is not run for a cluster without postmaster.pid anyway
    dead = fake_cluster(tmp_path, "dead", {"pid": dead_pid(), "start": "1", "bindir": nowhere, "user": None})
    reused = fake_cluster(tmp_path, "reused", {"pid": me, "start": "not-my-start", "bindir": nowhere, "user": None})
    live = fake_cluster(tmp_path, "live", {"pid": me, "start": process_start(me), "bindir": nowhere, "user": None})
    unrecorded = fake_cluster(tmp_path, "old")           # made before records, or being made: left alone
    garbled = fake_cluster(tmp_path, "garbled", text="{")  # half-written cannot happen (os.replace); left alone
    other = tmp_path / "not-a-cluster"
    other.mkdir()
    (other / OWNER_FILE).write_text(json.dumps({"pid": dead_pid(), "start": "1"}))

    assert sweep_orphans(tmp_path) == [dead, reused]
    assert not dead.exists() and not reused.exists()
    assert live.exists() and unrecorded.exists() and garbled.exists() and other.exists()
    assert sweep_orphans(tmp_path) == []


def test_process_start_tells_a_live_process_from_a_dead_one():
    assert process_start(os.getpid()) is not None
    assert process_start(os.getpid()) == process_start(os.getpid())
    assert process_start(dead_pid()) is None


# ---------------------------------------------------------------- a real cluster, a real kill -9

INNER = '''
import sys
from tests.conftest import postgres  # noqa: F401  the suite's own session fixture


def test_hold_the_cluster(postgres):
    postmaster = int((postgres.datadir / "postmaster.pid").read_text().split()[0])
    print("READY", postgres.datadir.parent, postgres.watchdog.pid, postmaster, flush=True)
    sys.stdin.readline()  # until killed
'''


def needs_postgres() -> None:
    bindir, why = postgres_server.find_binaries()
    if bindir is None:
        pytest.skip(why)
    if not hasattr(os, "pidfd_open"):
        pytest.skip("waiting for another process's exit needs os.pidfd_open (Linux, Python 3.9+)")


def start_holder(tmp_path: Path) -> tuple[subprocess.Popen, Path, int, int]:
    """A pytest run that starts the suite's PostgreSQL and holds it; (process, cluster dir, watchdog, postmaster)."""
    inner = tmp_path / "test_inner_holder.py"
    inner.write_text(INNER)
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
         "-c", str(ROOT / "pyproject.toml"), str(inner)],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    seen = []
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        end = time.monotonic() + GUARD_S
        while True:
            assert selector.select(max(0.0, end - time.monotonic())), f"no READY line: {''.join(seen)}"
            line = process.stdout.readline()
            assert line, f"the inner pytest ended: {''.join(seen)}"
            seen.append(line)
            if line.startswith("READY "):
                _, root, watchdog, postmaster = line.split()
                return process, Path(root), int(watchdog), int(postmaster)


def wait_exited(pid: int) -> None:
    """Wait (bounded) until process ``pid``, not a child of ours, has exited."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            assert selector.select(GUARD_S), f"process {pid} still runs after {GUARD_S:g} s"
    finally:
        os.close(fd)


def kill9(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(GUARD_S)
    process.stdout.close()
    process.stdin.close()


@pytest.mark.slow(reason="starts a pytest run and a real PostgreSQL cluster in it (initdb): 13.5 s at a load of 17")
def test_a_cluster_is_removed_by_its_watchdog_when_the_pytest_run_that_started_it_is_killed(tmp_path):
    needs_postgres()
    holder, root, watchdog, postmaster = start_holder(tmp_path)
    assert process_start(postmaster) is not None and (root / OWNER_FILE).exists()
    kill9(holder)
    wait_exited(watchdog)
    wait_exited(postmaster)
    assert not root.exists()


@pytest.mark.slow(reason="starts a pytest run and two real PostgreSQL clusters (initdb): 18.9 s at a load of 17")
def test_a_cluster_whose_owner_and_watchdog_were_killed_is_removed_by_the_next_start(tmp_path):
    needs_postgres()
    holder, root, watchdog, postmaster = start_holder(tmp_path)
    try:
        assert root not in sweep_orphans()  # its owner is alive: never touched
        assert root.exists() and process_start(postmaster) is not None
        os.kill(watchdog, signal.SIGKILL)
        wait_exited(watchdog)
    finally:
        kill9(holder)
    assert process_start(postmaster) is not None and root.exists()  # an orphan now: nobody is left to stop it
    server = postgres_server.start_server()  # the next start, as the next test run's fixture makes it
    postgres_server.remove(server)
    wait_exited(postmaster)
    assert not root.exists()


def test_a_cluster_whose_port_was_taken_before_it_bound_starts_on_another(monkeypatch):
    """Two test workers at once: the port `_free_port` found is bound by someone else before the cluster starts.
    The start notices (its log says it could not bind) and takes another free port instead of failing the test."""
    bindir, why = postgres_server.find_binaries()
    if bindir is None:
        pytest.skip(why)
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        ports = iter([taken])
        real_free_port = postgres_server._free_port
        monkeypatch.setattr(postgres_server, "_free_port", lambda: next(ports, None) or real_free_port())
        server = postgres_server.start_server()
        try:
            assert server.port != taken
            assert "could not bind" in server.log.read_text(errors="replace")
            import psycopg

            with psycopg.connect(server.url, connect_timeout=10) as db:
                assert db.execute("select 1").fetchone() == (1,)
        finally:
            postgres_server.remove(server)
