"""A real PostgreSQL for the tests: a throwaway cluster in a temporary directory, on a free loopback port.

Started with the machine's own ``initdb`` and ``pg_ctl`` (Debian: ``apt-get install
postgresql``), never a mock.  PostgreSQL refuses to run as root, and CI runs as root,
so there the cluster is created and started as the unprivileged ``postgres`` user
(Debian's package creates it) with ``runuser``, in a directory that user owns.  The
server listens on 127.0.0.1 only, with trust authentication for the one test
database, and is stopped (``pg_ctl stop -m immediate``) and deleted afterwards.

A cluster never outlives the process that started it (its *owner*), even one
killed with ``kill -9``, which runs no clean-up of its own:

* the cluster's directory holds the owner's record (``owner.json``: its pid and
  the start time the kernel gives it, so a reused pid is not taken for it);
* a *watchdog* (this file run as a script, in a session of its own so that a
  signal to the owner's process group spares it) holds the read end of a pipe
  whose write end only the owner has.  When the owner ends, however it ends,
  the pipe closes; unless the owner said ``done`` first (a normal `remove`),
  the watchdog stops the cluster and deletes its directory;
* should the watchdog die too, the next `start_server` anywhere on the machine
  finds the cluster by its record, sees its owner is dead, and does the same
  (`sweep_orphans`).  Directories without a record are never touched.

``find_binaries()`` says why PostgreSQL cannot be had here, for a skip reason.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

INSTALL_HINT = "PostgreSQL's server programs (apt-get install postgresql)"
#: Every cluster's directory is ``AREA/arena-pg-*``; the sweep looks there and nowhere else.
PREFIX = "arena-pg-"
#: Where clusters live: the machine's temporary folder, which the suite's conftest names in MACHINE_TMPDIR before
#: it points TMPDIR at the session's own folder (a pytest started by a test inherits both), so the ``postgres``
#: user can reach them and every session, whoever runs it, sweeps the orphans of the others.
MACHINE_TMPDIR = "ARENA_TEST_MACHINE_TMPDIR"
AREA = Path(os.environ.get(MACHINE_TMPDIR) or tempfile.gettempdir())
#: The owner's record in a cluster's directory.
OWNER_FILE = "owner.json"


@dataclass
class PostgresServer:
    """One running cluster: ``url`` for psycopg, ``stop()``/``start()`` to take it away and bring it back."""

    bindir: Path
    datadir: Path
    port: int
    user: str | None  # the OS user the server runs as (None: the current one)
    log: Path
    fsync: bool = False  # off for the tests (speed); on for a benchmark of durable commits
    settings: tuple[str, ...] = ()  # more server settings, "name=value" (a benchmark's pg_stat_statements)
    #: The watchdog that removes the cluster if this process ends without `remove` (see the module's doc).
    watchdog: Optional[subprocess.Popen] = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"postgresql://arena@127.0.0.1:{self.port}/arena"

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return _run_as(self.user, self.bindir, *argv, check=check)

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.datadir), "-l", str(self.log), "-w", "-t", "60", "-o",
                  f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.datadir} -c fsync={'on' if self.fsync else 'off'}"
                  + "".join(f" -c {setting}" for setting in self.settings),
                  "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.datadir), "-m", mode, "-w", "stop", check=False)


def _run_as(user: str | None, bindir: Path, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
    """One of PostgreSQL's programs, as ``user`` (root cannot run them: ``runuser``) or as this process."""
    command = [str(bindir / argv[0]), *argv[1:]]
    if user is not None:
        command = ["runuser", "-u", user, "--", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=check)


def find_binaries() -> tuple[Path | None, str]:
    """The directory of initdb/pg_ctl/postgres, or None and why not."""
    candidates = []
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(os.path.realpath(initdb)).parent)
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for bindir in candidates:
        if all((bindir / name).exists() for name in ("initdb", "pg_ctl", "postgres")):
            return bindir, ""
    return None, f"no initdb/pg_ctl/postgres found: install {INSTALL_HINT}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


#: Ports tried before giving up: the port `_free_port` found may be taken before the server binds it (another test
#: worker's server on port 0 got it meanwhile).
PORT_TRIES = 3


def _start_on_a_free_port(server: PostgresServer) -> None:
    """`server.start()`, on another free port if its own was taken meanwhile (its log says so)."""
    for attempt in range(PORT_TRIES):
        try:
            server.start()
            return
        except subprocess.CalledProcessError:
            log = server.log.read_text(errors="replace") if server.log.exists() else ""
            if attempt + 1 == PORT_TRIES or "could not bind" not in log:
                raise
            server.port = _free_port()


def start_server(fsync: bool = False, settings: tuple[str, ...] = ()) -> PostgresServer:
    """Create and start a fresh cluster with a database ``arena`` owned by role ``arena``.

    Clusters left behind by dead processes are removed first (`sweep_orphans`); this one is
    removed by its watchdog if this process ends without `remove`.
    """
    bindir, why = find_binaries()
    if bindir is None:
        raise RuntimeError(why)
    sweep_orphans()
    user = None
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            raise RuntimeError("running as root needs runuser to start PostgreSQL as another user")
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            raise RuntimeError("running as root needs the 'postgres' user that Debian's postgresql package creates") from None
        user = "postgres"
    root = Path(tempfile.mkdtemp(prefix=PREFIX, dir=AREA))
    _write_owner(root, bindir, user)  # first: a directory with no record is never swept
    server = PostgresServer(bindir, root / "data", _free_port(), user, root / "server.log", fsync, settings)
    try:
        server.watchdog = _start_watchdog(root)
        if user is not None:
            shutil.chown(root, user=user, group=user)
        server._run("initdb", "-D", str(server.datadir), "-U", "arena", "-A", "trust", "-E", "UTF8", "--no-sync")
        _start_on_a_free_port(server)
        server._run("createdb", "-h", "127.0.0.1", "-p", str(server.port), "-U", "arena", "arena") if (
            bindir / "createdb").exists() else None
    except BaseException:
        remove(server)
        raise
    return server


def remove(server: PostgresServer) -> None:
    """Stop the cluster and delete its directory; then dismiss its watchdog."""
    server.stop("immediate")
    shutil.rmtree(server.datadir.parent, ignore_errors=True)
    watchdog, server.watchdog = server.watchdog, None
    if watchdog is not None:
        try:
            watchdog.communicate(b"done", timeout=30)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            watchdog.kill()  # it would only find nothing left to remove


# ---------------------------------------------------------------- owners, the watchdog and the sweep

def process_start(pid: int) -> Optional[str]:
    """When process ``pid`` started (clock ticks since boot, from /proc), or None if there is no such
    process.  A pid with another start time is another process that got the number later."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return fields[19].decode()  # the 22nd field; the command name, which may hold spaces, is cut off
    except (OSError, IndexError):
        pass
    if os.path.isdir("/proc"):
        return None
    try:  # no /proc: the pid alone
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return "?"


def owner_alive(record: dict) -> bool:
    """Is the process that started the cluster of this record still running?"""
    pid = record.get("pid")
    return isinstance(pid, int) and pid > 0 and process_start(pid) == record.get("start")


def _write_owner(root: Path, bindir: Path, user: Optional[str]) -> None:
    record = {"pid": os.getpid(), "start": process_start(os.getpid()), "bindir": str(bindir), "user": user}
    partial = root / (OWNER_FILE + ".new")
    partial.write_text(json.dumps(record))
    os.replace(partial, root / OWNER_FILE)  # whole or absent, for a sweep reading it meanwhile


def read_owner(root: Path) -> Optional[dict]:
    """The owner's record of a cluster directory, or None (none, unreadable, or not one of ours)."""
    try:
        record = json.loads((root / OWNER_FILE).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def clean_up(root: Path) -> None:
    """Stop the cluster in ``root`` (if it runs) and delete the directory, as its record says how."""
    record = read_owner(root) or {}
    datadir = root / "data"
    if record.get("bindir") and (datadir / "postmaster.pid").exists():
        try:
            _run_as(record.get("user"), Path(record["bindir"]), "pg_ctl", "-D", str(datadir), "-m", "immediate",
                    "-w", "stop", check=False)
        except (OSError, subprocess.SubprocessError):
            pass  # no such program any more, or it hung: the directory goes all the same
    shutil.rmtree(root, ignore_errors=True)


def sweep_orphans(area: Optional[Path] = None) -> list[Path]:
    """Remove every cluster in ``area`` (the temp directory) whose owner is dead; return their directories.

    Only directories with an owner's record count: one being created has its record from the
    start, and one from before records existed (or of another user, unreadable) is left alone.
    Two sweeps at once, or a sweep and a watchdog, may both try one cluster: both steps tolerate that.
    """
    removed = []
    for root in sorted(Path(area or AREA).glob(PREFIX + "*")):
        record = read_owner(root)
        if record is None or owner_alive(record):
            continue
        clean_up(root)
        removed.append(root)
    return removed


def _start_watchdog(root: Path) -> subprocess.Popen:
    """This file as a script, waiting for this process to end (see `_watch`)."""
    return subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--watch", str(root)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # a signal to the owner's process group (Ctrl-C, a CI timeout) spares it
    )


def _watch(root: Path) -> int:
    """The watchdog: read until the owner's end of the pipe closes; unless told ``done``, clean up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    said = sys.stdin.buffer.read()
    if said != b"done":
        clean_up(root)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--watch":
        sys.exit("usage: postgres_server.py --watch CLUSTER_DIR (started by start_server, not by hand)")
    sys.exit(_watch(Path(sys.argv[2])))
