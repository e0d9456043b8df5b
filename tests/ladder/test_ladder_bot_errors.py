"""The ladder counts errors in a bot's own code per seat, stores them (with the version the bot declared),
and shows them everywhere.

A real `arena serve` with a bot whose `act` always raises (tests/bots/raising_bot.py) and a
well-behaved one; afterwards the database, `arena leaderboard --json`, GetStandings and the web
API all show the same count, and the failing bot has no strike.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

from test_serve_e2e import ROOT, RULESET, Server, cleanup, get_standings, poll  # noqa: F401 (cleanup: a fixture)

from arena.ladder.store import LadderStore


def test_the_ladder_stores_and_shows_each_bots_errors(tmp_path, cleanup):
    server = Server(tmp_path, "--drain", "30")
    cleanup.append(server)
    bots = [
        subprocess.Popen([sys.executable, str(ROOT / "tests" / "bots" / script), "--arena", f"127.0.0.1:{server.port}",
                          "--name", name, "--bot-version", f"{name}-1.2"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
        for script, name in (("raising_bot.py", "raiser"), ("random_bot.py", "steady"))
    ]
    cleanup.extend(bots)
    standings = poll(lambda: [s for s in get_standings(server.port) if s.games >= 4 and s.name == "raiser"]
                     and get_standings(server.port), 60, "four rated games")
    server.process.send_signal(signal.SIGTERM)  # drain: running games finish and are stored
    assert server.wait(60) == 0, server.rest()

    store = LadderStore.open(server.db)
    games = store.games(status="finished")
    assert len(games) >= 4
    per_bot = {name: [s for g in games for s in g.seats if s.bot == name] for name in ("raiser", "steady")}
    assert all(s.errors == s.decisions > 0 and s.strikes == 0 for s in per_bot["raiser"])
    assert all(s.errors == 0 for s in per_bot["steady"])
    total = sum(s.errors for s in per_bot["raiser"])
    # Each seat keeps the version its bot declared for that game (the bot page's version history).
    [raiser_version] = store.bot_versions("raiser")
    assert raiser_version["version"] == "raiser-1.2" and raiser_version["games"] == len(per_bot["raiser"])
    assert store.totals(RULESET)["raiser"].errors == total
    store.close()
    assert {s.name: s.errors for s in standings}["steady"] == 0 and {s.name: s.errors for s in standings}["raiser"] > 0

    shown = subprocess.run(
        [sys.executable, "-m", "arena", "leaderboard", "--db", str(server.db), "--game", RULESET, "--json"],
        capture_output=True, text=True, timeout=60, cwd=str(ROOT),
    )
    assert shown.returncode == 0, shown.stderr
    rows = {row["bot"]: row for row in json.loads(shown.stdout)[RULESET]}
    assert rows["raiser"]["errors"] == total and rows["steady"]["errors"] == 0 and rows["raiser"]["strikes"] == 0
