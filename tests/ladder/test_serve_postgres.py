"""`arena serve --db postgresql://...` as a real process on the real PostgreSQL fixture, then the readers.

The same ladder as tests/ladder/test_serve_e2e.py (the test-only ruleset, load
bots as processes), with its database on PostgreSQL: games are played and
committed, `arena leaderboard` and `arena bots list` read them back through
the URL, a second server under the same host name is refused, and a database
that cannot be reached is one line on stderr with exit status 1 (a runtime failure).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_serve_e2e import ROOT, Server, start_bots, stop_bots, stored_replay

from arena.cli import main
from arena.ladder.store import LadderStore

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")


def arena(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *argv], capture_output=True, text=True, cwd=str(ROOT),
                          timeout=60)


def test_a_ladder_on_postgresql_plays_and_the_readers_see_it(tmp_path, postgres_db, capsys):
    server = Server(tmp_path, "--max-games", "6", db=postgres_db)
    bots = None
    try:
        assert f"db {postgres_db}" in server.rest()
        # A second host on the same database is welcome (tests/ladder/test_cluster.py); the same host name is not.
        name = server.rest().split(", host ")[1].split(",")[0]
        second = arena("serve", "--port", "0", "--db", postgres_db, "--replays", str(tmp_path / "other"), "--plain",
                       "--host-name", name)
        assert second.returncode == 1 and f"host name {name!r} is in use by a live `arena serve`" in second.stderr
        assert "(mau-arena host" in second.stderr and "Traceback" not in second.stderr
        bots = start_bots(server.port, "north,south,east", "--max-games", "2")
        assert server.wait(timeout=60) == 0, server.rest()
        assert "stopped (--max-games 6 reached)" in server.rest(), server.rest()
    finally:
        server.kill()
        if bots is not None:
            stop_bots(bots)

    store = LadderStore.open(postgres_db, recover=False)
    games = store.games(status="finished")
    assert len(games) >= 6 and not store.games(status="running")
    for game in games:  # committed with its replay, which holds the same result
        assert game.replay_path is None
        replay = stored_replay(store, game.id)
        assert replay.status == "finished" and replay.header.game_id == game.id
        assert [s.placement for s in game.seats] == list(replay.result["placements"])
    store.close()

    capsys.readouterr()
    assert main(["leaderboard", "--db", postgres_db]) == 0
    board = capsys.readouterr().out
    assert "Bradley-Terry" in board and all(name in board for name in ("north", "south", "east")), board
    assert main(["bots", "list", "--db", postgres_db]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in ("north", "south", "east")), listing
    LadderStore.open(postgres_db).close()  # the server's claim ended with its process

    from arena.cli.find_replay import find_replay

    # `arena replay GAME_ID --db postgresql://...`: found through the database alone (no folder to search)
    found = find_replay(games[0].id, postgres_db, tmp_path / "no-folder")
    store = LadderStore.open(postgres_db, recover=False)
    try:
        assert found.read_bytes() == store.replay_text(games[0].id)
    finally:
        store.close()

    from arena.web import WebSource

    source = WebSource(postgres_db, tmp_path / "replays")  # `arena web --db postgresql://...` reads through this
    try:
        served = source.games(status="finished", limit=100)
        assert {g["game_id"] for g in served} == {g.id for g in games}
        assert source.game(games[0].id)["status"] == "finished"
        assert sum(r["finished"] for r in source.bot("north")["rulesets"].values()) >= 1
    finally:
        source.close()


def test_an_unreachable_database_is_one_line_and_exit_1(tmp_path, postgres, capsys):
    url = postgres.url.rsplit("/", 1)[0] + "/no_such_db"
    for argv in (["leaderboard", "--db", url], ["bots", "list", "--db", url], ["bots", "add", "x", "--db", url],
                 ["serve", "--port", "0", "--db", url, "--replays", str(tmp_path / "r"), "--plain"]):
        assert main(argv) == 1, argv  # a runtime failure (the command line was fine)
        stderr = capsys.readouterr().err
        assert stderr.count("\n") == 1 and stderr.startswith(f"arena: error: cannot connect to {url}: "), stderr
        assert 'database "no_such_db" does not exist' in stderr


def test_a_host_of_an_older_release_is_refused_by_a_newer_schema_and_touches_nothing(tmp_path, postgres_db):
    """docs/deploy.md, "Upgrading": a host whose release is older than the database's schema does not start (exit
    status 1, one line naming both versions), so a restarted old host stays down until it is upgraded; it registers
    no host, aborts no game and migrates nothing."""
    import psycopg

    from arena.ladder.store import SCHEMA_VERSION

    store = LadderStore.open(postgres_db, shared=True)
    store.game_started("g1", "moumou", {}, 1, "g1", 0, ["x", "y"])
    store.close()
    with psycopg.connect(postgres_db, autocommit=True) as db:  # as if a newer release had migrated it
        db.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 1,))
    old = arena("serve", "--port", "0", "--db", postgres_db, "--replays", str(tmp_path / "r"), "--plain",
                "--host-name", "old.example")
    assert old.returncode == 1, old.stderr
    assert (f"has schema version {SCHEMA_VERSION + 1}, newer than this arena understands ({SCHEMA_VERSION}); "
            "upgrade mau-arena") in old.stderr
    assert "Traceback" not in old.stderr
    with psycopg.connect(postgres_db, autocommit=True) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION + 1,)]
        assert db.execute("SELECT name FROM hosts").fetchall() == []
        assert db.execute("SELECT status FROM games").fetchall() == [("running",)]


def test_a_host_records_where_its_web_view_is_and_a_restart_without_one_clears_it(tmp_path, postgres_db, capsys):
    """`arena hosts` and /api/v1/hosts could not say where each host's web view is: the hosts table had no column for
    it.  A host that serves the web (`--web`) records its address at its join (schema step 16), or what
    `--web-advertise` says readers open (behind a proxy); restarted without a web view, its row says none again."""
    import json
    import signal

    def hosts_web() -> dict:
        listed = arena("hosts", "--db", postgres_db, "--json")
        assert listed.returncode == 0, listed.stderr
        return {host["name"]: host["web"] for host in json.loads(listed.stdout)["hosts"]}

    def start(*extra: str) -> tuple[Server, str]:
        folder = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        server = Server(folder, "--host-name", "webhost", *extra, db=postgres_db)
        shown = ""
        while "--web" in extra and not shown:
            line = server.read_line(timeout=60)
            assert line, server.rest()
            shown = line.split("web view on ", 1)[1].strip() if line.startswith("web view on ") else ""
        return server, shown

    for extra in (("--web", "0", "--web-advertise", "https://arena.example.org/a/"), ("--web", "0"), ()):
        server, shown = start(*extra)
        try:
            # joined before it says where its web view is: the row is there already
            expected = extra[-1] if "--web-advertise" in extra else shown or None
            assert hosts_web() == {"webhost": expected}, server.rest()
            if extra:
                assert shown.startswith("http://127.0.0.1:")  # its own address, --web-advertise or not
        finally:
            server.process.send_signal(signal.SIGTERM)
            assert server.wait(timeout=60) == 0, server.rest()
    base = ["serve", "--port", "0", "--db", postgres_db, "--replays", str(tmp_path / "refused"), "--plain"]
    for extra, words in ((["--web-advertise", "https://x.example/"], "--web-advertise needs --web"),
                         (["--web", "0", "--web-advertise", "javascript:alert(1)"],
                          "--web-advertise takes an http:// or https:// URL")):
        capsys.readouterr()
        assert main(base + extra) == 2
        assert words in capsys.readouterr().err
