"""A PostgreSQL restart under a running ladder: nothing finished is lost, nothing new starts meanwhile.

A private PostgreSQL (the `private_postgres` fixture: its own initdb on a free port, not the
session's shared one, since this test stops it), a real `arena serve` on it and real bot processes. The
database is stopped with `pg_ctl stop -m fast` while games run and started again: the games that
ended meanwhile wait for their commit (their result lines are already in their fsynced replays)
and are committed when it is back, the host schedules nothing while it is away, and afterwards
every replay that says finished is a finished, rated game in the database.
"""

from __future__ import annotations

import json
import signal

import pytest

from test_serve_e2e import Server, cleanup, poll, start_bots, stop_bots  # noqa: F401 (cleanup: a fixture)

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")


def _ended_but_unsealed(part) -> bool:
    lines = part.read_text().splitlines()
    return bool(lines) and '"type":"result"' in lines[-1].replace(" ", "")


def _statuses(url: str) -> dict[str, str]:
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as db:
            return dict(db.execute("SELECT id, status FROM games").fetchall())
    except psycopg.Error:
        return {}


def test_a_database_restart_loses_no_finished_game(tmp_path, cleanup, private_postgres):
    url = private_postgres.url
    server = Server(tmp_path, "--concurrency", "2", "--move-ms", "3000", db=url)
    cleanup.append(server)
    told = tmp_path / "told.jsonl"
    bots = start_bots(server.port, "a,b,c,d", "--style", "slow", "--slow-ms", "20", "--ended-log", str(told))
    cleanup.append(bots)
    poll(lambda: sum(s == "finished" for s in _statuses(url).values()) >= 2, 60, "games before the outage")

    private_postgres.stop("fast")
    # A game that ends now has its result line fsynced in its replay (still .part) and waits for its commit.
    poll(lambda: any(_ended_but_unsealed(part) for part in server.replays.rglob("*.jsonl.part")), 60,
         "a game to end while the database is away")
    private_postgres.start()
    before = sum(s == "finished" for s in _statuses(url).values())
    poll(lambda: sum(s == "finished" for s in _statuses(url).values()) >= before + 3, 90, "games after the restart")

    server.process.send_signal(signal.SIGTERM)
    assert server.wait(90) == 0, server.rest()
    stop_bots(bots)
    statuses = _statuses(url)
    assert "running" not in statuses.values()
    replays = list(server.replays.rglob("*.jsonl"))
    finished_in_files = set()
    for replay in replays:
        last = json.loads(replay.read_text().splitlines()[-1])
        if last.get("type") == "result" and last.get("status") == "finished":
            finished_in_files.add(json.loads(replay.read_text().splitlines()[0])["game_id"])
    assert finished_in_files and all(statuses.get(game) == "finished" for game in finished_in_files), (
        sorted(g for g in finished_in_files if statuses.get(g) != "finished"), server.rest())
    # and what the bots were told: every game they heard had finished is finished in the database
    heard = [json.loads(line) for line in told.read_text().splitlines()]
    assert heard and all(statuses.get(h["game_id"]) == "finished" for h in heard if h.get("status", "finished") == "finished")
