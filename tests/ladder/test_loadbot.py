"""The multiplexed load bot: many sessions on one event loop play real ladder games, and say what the arena told them.

One `arena serve` process (the toy ruleset, port 0) and one `arena.ladder.loadbot`
process holding 50 sessions: they log in a few at a time, play until the process
was told 30 games had ended (after all 50 were welcomed), and report zero timeouts, both as the arena's notices
to the bots and in the database, which must agree with what the bots counted.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

from test_serve_e2e import ROOT, Server, cleanup  # noqa: F401 (cleanup: a fixture)

SESSIONS = 50
GAMES = 30


def test_fifty_sessions_in_one_process_finish_games_without_timeouts(tmp_path, cleanup):
    server = Server(tmp_path, "--concurrency", "16", "--max-connections", str(SESSIONS + 4))
    cleanup.append(server)
    bots = subprocess.run(
        [sys.executable, "-m", "arena.ladder.loadbot", "--arena", f"127.0.0.1:{server.port}", "--count", str(SESSIONS),
         "--prefix", "m", "--style", "first", "--until-games", str(GAMES), "--duration", "60"],
        capture_output=True, text=True, cwd=str(ROOT), timeout=90,
    )
    assert bots.returncode == 0, bots.stderr
    totals = json.loads(bots.stdout.strip().splitlines()[-1])
    assert totals["sessions"] == SESSIONS and totals["welcomed"] == SESSIONS  # every session got in, none twice
    assert totals["games"] >= GAMES and totals["turns"] > totals["games"]
    # Nothing the arena reports as late: no TIMEOUT notice, no stale answer, no seat timeout in any GameEnded.
    assert totals.get("error:TIMEOUT", 0) == 0 and totals.get("error:STALE_REQUEST", 0) == 0
    assert totals["seat_timeouts"] == 0 and totals["seat_strikes"] == 0
    assert not [key for key in totals if key.startswith("error:") and key != "error:rpc:CANCELLED"], totals
    # The process's own health figures are there for a reader to judge who was slow.
    assert totals["cpu_s"] > 0 and totals["wall_s"] > 0 and totals["loop_lag_ms_max"] >= 0
    assert 0 < totals["think_ms_p50"] <= totals["think_ms_max"]

    connection = sqlite3.connect(f"file:{server.db}?mode=ro", uri=True, timeout=5)
    try:
        finished, timeouts = connection.execute(
            "SELECT COUNT(DISTINCT g.id), COALESCE(SUM(s.timeouts), 0) FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.status = 'finished'").fetchone()
        assert timeouts == 0
        assert finished >= GAMES // 2  # two seats a game: the 30 endings the bots were told are at least 15 games
    finally:
        connection.close()
