"""A real PostgreSQL for the tests: a throwaway cluster in a temporary directory, on a free loopback port.

Started with the machine's own ``initdb`` and ``pg_ctl`` (Debian: ``apt-get install
postgresql``), never a mock.  PostgreSQL refuses to run as root, and CI runs as root,
so there the cluster is created and started as the unprivileged ``postgres`` user
(Debian's package creates it) with ``runuser``, in a directory that user owns.  The
server listens on 127.0.0.1 only, with trust authentication for the one test
database, and is stopped (``pg_ctl stop -m immediate``) and deleted afterwards.

``find_binaries()`` says why PostgreSQL cannot be had here, for a skip reason.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "PostgreSQL's server programs (apt-get install postgresql)"


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

    @property
    def url(self) -> str:
        return f"postgresql://arena@127.0.0.1:{self.port}/arena"

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(self.bindir / argv[0]), *argv[1:]]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=check)

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.datadir), "-l", str(self.log), "-w", "-t", "60", "-o",
                  f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.datadir} -c fsync={'on' if self.fsync else 'off'}"
                  + "".join(f" -c {setting}" for setting in self.settings),
                  "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.datadir), "-m", mode, "-w", "stop", check=False)


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


def start_server(fsync: bool = False, settings: tuple[str, ...] = ()) -> PostgresServer:
    """Create and start a fresh cluster with a database ``arena`` owned by role ``arena``."""
    bindir, why = find_binaries()
    if bindir is None:
        raise RuntimeError(why)
    user = None
    root = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            raise RuntimeError("running as root needs runuser to start PostgreSQL as another user")
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            raise RuntimeError("running as root needs the 'postgres' user that Debian's postgresql package creates") from None
        user = "postgres"
        shutil.chown(root, user="postgres", group="postgres")
    datadir = root / "data"
    server = PostgresServer(bindir, datadir, _free_port(), user, root / "server.log", fsync, settings)
    server._run("initdb", "-D", str(datadir), "-U", "arena", "-A", "trust", "-E", "UTF8", "--no-sync")
    server.start()
    server._run("createdb", "-h", "127.0.0.1", "-p", str(server.port), "-U", "arena", "arena") if (
        bindir / "createdb").exists() else None
    return server


def remove(server: PostgresServer) -> None:
    server.stop("immediate")
    shutil.rmtree(server.datadir.parent, ignore_errors=True)
