"""Suite-wide settings.

Under CI (the ``CI`` environment variable, as .ci/run's host sets it)
hypothesis runs derandomized: the same examples every run, so a red build
always reproduces.  Locally it explores new random examples each run.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


import pytest  # noqa: E402

from tests import postgres_server  # noqa: E402  (before TMPDIR changes: its clusters stay in the machine's temp folder)


@pytest.fixture(scope="session", autouse=True)
def temporary_files_in_the_sessions_folder(tmp_path_factory):
    """What the code under test, and every process it starts, puts in the temporary folder lands in this session's
    pytest folder, which pytest prunes (it keeps the last three sessions'), not in /tmp for good: `arena match`
    keeps its bots' logs in a temporary folder when a bot failed, as a user would want, and the suite makes bots
    fail on purpose (some 50 folders a run were left behind)."""
    import tempfile

    folder = tmp_path_factory.mktemp("tmp")
    before = {name: os.environ.get(name) for name in ("TMPDIR", postgres_server.MACHINE_TMPDIR)}
    os.environ.setdefault(postgres_server.MACHINE_TMPDIR, str(postgres_server.AREA))  # kept by a nested pytest
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = None  # read TMPDIR again
    try:
        yield folder
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        tempfile.tempdir = None


def _own_postgres():
    from tests.postgres_server import find_binaries, remove, start_server

    bindir, why = find_binaries()
    if bindir is None:
        pytest.skip(why)
    server = start_server()
    try:
        yield server
    finally:
        remove(server)


@pytest.fixture(scope="session")
def postgres():
    """A real PostgreSQL started for this test session (see tests/postgres_server.py); skips where none is installed."""
    yield from _own_postgres()


@pytest.fixture
def private_postgres():
    """A PostgreSQL of one test's own, which it may stop and start (`pg_ctl`) without touching the others'."""
    yield from _own_postgres()


@pytest.fixture(scope="session")
def fresh_databases(postgres):
    """Makes each test's database one step ahead, while the test before it runs (tests/fresh_databases.py)."""
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")
    from tests.fresh_databases import FreshDatabases

    pool = FreshDatabases(postgres.url)
    yield pool
    pool.close()


@pytest.fixture
def postgres_db(postgres, fresh_databases):
    """The URL of a fresh, empty database on the session's PostgreSQL, for one test (dropped afterwards)."""
    from tests.fresh_databases import drop

    name = fresh_databases.take()
    yield postgres.url.rsplit("/", 1)[0] + "/" + name
    drop(postgres.url, name)


@pytest.fixture
def refused_address():
    """HOST:PORT on loopback where nothing accepts: a socket bound to a free port and never listening, held for the
    test, so a connection is refused at once (a fixed port such as 1 could be anything's on another machine)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{holder.getsockname()[1]}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path) -> str:
    """A ladder database no store has opened yet, once of each backend: a SQLite path, or the URL of a fresh
    PostgreSQL database (skipped, saying what to install, where PostgreSQL or psycopg is missing)."""
    if request.param == "sqlite":
        return str(tmp_path / "ladder.db")
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")
    return request.getfixturevalue("postgres_db")


@pytest.fixture(scope="session")
def node_kit():
    """The JavaScript starter kit, its locked packages installed with `npm ci`: (node, kit folder).

    Skips where Node.js or npm is missing (the README says how to get them)."""
    import shutil
    import subprocess
    from pathlib import Path

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("the JavaScript starter kit needs Node.js 18+ and npm (apt-get install nodejs npm)")
    kit = Path(__file__).resolve().parents[1] / "starter_kits" / "node"
    # Once for the whole run: each test worker (pytest-xdist) has its own session, and `npm ci` empties
    # node_modules first, so a second worker's install pulled the packages from under the first one's bot
    # ("Cannot find module '@grpc/grpc-js'").  The first worker installs under an exclusive lock and notes the
    # lock file's digest in node_modules; the others, in turn, find it there and use that install.
    import fcntl
    import hashlib

    wanted = hashlib.sha256((kit / "package-lock.json").read_bytes()).hexdigest()
    marker = kit / "node_modules" / ".arena-tests-installed"
    with open(kit / "node_modules.lock", "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released when the file closes
        if not (marker.is_file() and marker.read_text() == wanted):
            installed = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--silent"], cwd=kit,
                                       capture_output=True, text=True, timeout=300)
            assert installed.returncode == 0, installed.stderr
            marker.write_text(wanted)
    return node, kit
