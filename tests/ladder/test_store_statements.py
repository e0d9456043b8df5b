"""No database write per decision: a real ladder writes per game and per rating update.

`arena serve` runs a short ladder (real bot processes) on SQLite and on PostgreSQL, once
with games of six decisions (the test ruleset) and once with moumou, whose games take about
fifteen times as many; the store's own count of statements (`StatementStats`, printed when
the server stops with --timings) must not grow with the decisions: the writes per game stay under a small
constant and the longer games add no writes.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from test_serve_e2e import ROOT, SERVE, start_bots, stop_bots

from arena.ladder.store import LadderStore

GAMES = 10
STOPPED = re.compile(r"(\d+) games finished, (\d+) aborted, (\d+) decisions in ")
STORE = re.compile(r"^store: (\{.*\})$", re.MULTILINE)  # the store's counts (`StatementStats`), printed with --timings
GAPS = re.compile(r"^between games: (\{.*\})$", re.MULTILINE)  # arena.ladder.game_gaps, bench_ladder reads it


def run_ladder(tmp_path, db: str, ruleset: str, tag: str) -> dict[str, int]:
    """A ladder of GAMES finished games with four bots; the store's counts from its last line."""
    server = subprocess.Popen(
        SERVE + ["--port", "0", "--db", db, "--replays", str(tmp_path / f"replays-{tag}"), "--game", ruleset,
                 "--plain", "--summary-every", "1000", "--concurrency", "2", "--max-games", str(GAMES),
                 "--drain", "20", "--timings"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(ROOT))
    bots = None
    try:
        line = server.stdout.readline()
        assert "listening on" in line, line + server.stdout.read()
        bots = start_bots(int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1]), "a,b,c,d")
        output = server.communicate(timeout=180)[0]
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        if bots is not None:
            stop_bots(bots)
    found, counted = STOPPED.search(output), STORE.search(output)
    assert found and counted, output
    finished, aborted, decisions = map(int, found.groups())
    store = json.loads(counted.group(1))
    statements, writes, transactions = store["statements"], store["writes"], store["transactions"]
    gaps = GAPS.search(output)
    assert gaps, output
    return {"games": finished + aborted, "finished": finished, "decisions": decisions, "statements": statements,
            "writes": writes, "transactions": transactions, "gaps": json.loads(gaps.group(1))}


def check_gaps(run: dict) -> None:
    """Where the time between games went, as `arena serve` prints it when it stops: every finished game's
    start and result timed, its seats planned again, the group commits counted."""
    gaps = run["gaps"]
    counts, means = gaps["counts"], gaps["mean_ms"]
    for step in ("start_queue", "start_commit", "result_queue", "result_commit", "told", "in_game"):
        assert counts[step] >= run["finished"], gaps
    assert counts["to_plan"] >= run["finished"], gaps  # 4 bots for 2 games at once: every game's seats came back
    assert all(means[step] >= 0 for step in means if counts[step]), gaps
    assert gaps["rounds"] >= 1 and gaps["group_commits"] >= 1 and gaps["writes_per_group_commit"] >= 1, gaps


def check_no_write_per_decision(tmp_path, db: str) -> None:
    short = run_ladder(tmp_path, db, "test-ladder-tricks", "short")
    long = run_ladder(tmp_path, db, "moumou", "long")
    for run in (short, long):
        assert run["finished"] >= GAMES, run
        check_gaps(run)
        # per game: its row and seats, its result and the fit's running totals; then a bot's
        # arrival and the rating snapshot at the end: a constant, whatever the game's length
        assert run["writes"] <= 12 * run["games"] + 40, run
        assert run["transactions"] <= 2 * run["games"] + 12, run
    # moumou's games take many times the decisions of the short game, and add no writes
    assert long["decisions"] / long["games"] >= 5 * short["decisions"] / short["games"], (short, long)
    assert long["decisions"] > 2 * long["writes"], long
    per_game = [run["writes"] / run["games"] for run in (short, long)]
    assert abs(per_game[0] - per_game[1]) <= 3, (short, long)


def test_sqlite_ladder_writes_per_game_not_per_decision(tmp_path):
    db = str(tmp_path / "ladder.db")
    LadderStore.open(db, recover=False).close()  # the schema first: its creation is not the ladder's
    check_no_write_per_decision(tmp_path, db)


def test_postgres_ladder_writes_per_game_not_per_decision(tmp_path, postgres_db):
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")
    LadderStore.open(postgres_db, shared=True).close()
    check_no_write_per_decision(tmp_path, postgres_db)
