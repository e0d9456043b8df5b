#!/usr/bin/env python3
"""Scale check of the ladder: many connected bots, many concurrent games, on loopback.

    python scripts/bench_ladder.py                        # 200 bots (10 processes x 20), 100 games at once, 60 s
    python scripts/bench_ladder.py --processes 4 --sessions 10 --seconds 20

It starts `arena serve` as a subprocess (fresh temp database and replay
folder), then light bot processes (`arena.ladder.loadbot`, raw grpcio, a
random legal answer at once, several sessions per process, run at nice 19
so that the server is not starved on a small machine), and reports:

* games per minute and decisions per second (from the ladder database);
* timeouts the arena caused: the bots answer at once, so every timeout or
  strike recorded is the arena's fault (target 0);
* the server's peak memory (VmHWM) and CPU time per decision (/proc).
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def proc_stats(pid: int) -> tuple[float, int]:
    """(CPU seconds, peak resident KiB) of a live process, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    peak = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1])
    return cpu, peak


def db_totals(db: Path) -> dict[str, int]:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        games = dict(connection.execute("SELECT status, COUNT(*) FROM games GROUP BY status").fetchall())
        decisions = connection.execute("SELECT COALESCE(SUM(decisions), 0) FROM games WHERE status = 'finished'").fetchone()[0]
        timeouts, strikes, forfeits = connection.execute(
            "SELECT COALESCE(SUM(timeouts), 0), COALESCE(SUM(strikes), 0), COALESCE(SUM(forfeited), 0) FROM seats"
        ).fetchone()
    except sqlite3.OperationalError:
        return {}
    finally:
        connection.close()
    return {
        "finished": games.get("finished", 0), "aborted": games.get("aborted", 0), "running": games.get("running", 0),
        "decisions": decisions, "timeouts": timeouts, "strikes": strikes, "forfeits": forfeits,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=10, help="bot processes (default 10)")
    parser.add_argument("--sessions", type=int, default=20, help="bot sessions per process (default 20)")
    parser.add_argument("--concurrency", type=int, default=100, help="games at once (default 100)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured run length (default 60)")
    parser.add_argument("--game", default="moumou", help="ruleset (default moumou)")
    parser.add_argument("--move-ms", type=int, default=1000, help="per-decision limit (default 1000)")
    parser.add_argument("--no-nice", action="store_true", help="run the bots at normal priority")
    parser.add_argument("--keep", action="store_true", help="keep the temp database and replays")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-ladder-"))
    db, replays = work / "ladder.db", work / "replays"
    bots_total = args.processes * args.sessions
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--db", str(db), "--replays", str(replays),
         "--game", args.game, "--concurrency", str(args.concurrency), "--max-connections", str(bots_total + 16),
         "--move-ms", str(args.move_ms), "--plain", "--summary-every", "10", "--drain", "5"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(ROOT),
    )
    bots: list[subprocess.Popen] = []
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(server.stdout, selectors.EVENT_READ)
            if not selector.select(60):
                raise SystemExit("the server did not start within 60 s")
        line = server.stdout.readline()
        if "listening on" not in line:
            raise SystemExit(f"the server did not start: {line}{server.stdout.read()}")
        port = int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])
        nice = [] if args.no_nice or not shutil.which("nice") else ["nice", "-n", "19"]
        for p in range(args.processes):
            names = ",".join(f"b{p:02d}x{s:02d}" for s in range(args.sessions))
            bots.append(subprocess.Popen(
                nice + [sys.executable, "-m", "arena.ladder.loadbot", "--arena", f"127.0.0.1:{port}",
                        "--names", names, "--style", "random", "--max-games", "1"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=str(ROOT),
            ))
        print(f"server pid {server.pid} on port {port}; {bots_total} bot sessions in {args.processes} processes "
              f"({'nice 19' if nice else 'normal priority'}); {args.concurrency} games at once; {args.game}", flush=True)
        # Warm-up: wait until the games are flowing, then measure a fixed window.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and db_totals(db).get("finished", 0) < args.concurrency // 2:
            time.sleep(0.2)
        before, cpu0 = db_totals(db), proc_stats(server.pid)[0]
        t0 = time.monotonic()
        peak = 0
        while time.monotonic() - t0 < args.seconds:
            time.sleep(1.0)
            peak = max(peak, proc_stats(server.pid)[1])
            print(f"  {time.monotonic() - t0:5.0f} s: {db_totals(db)}", flush=True)
        after, (cpu1, peak_now) = db_totals(db), proc_stats(server.pid)
        elapsed = time.monotonic() - t0
        peak = max(peak, peak_now)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        try:
            tail = server.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            server.kill()
            tail = server.communicate()[0]
        for bot in bots:
            if bot.poll() is None:
                bot.terminate()
        bot_totals: dict[str, int] = {}
        for bot in bots:
            try:
                out = bot.communicate(timeout=20)[0]
            except subprocess.TimeoutExpired:
                bot.kill()
                out = bot.communicate()[0]
            for line in out.splitlines():
                if line.startswith("{"):
                    for key, value in json.loads(line).items():
                        bot_totals[key] = bot_totals.get(key, 0) + value
    games = after["finished"] - before["finished"]
    decisions = after["decisions"] - before["decisions"]
    report = {
        "bots": bots_total,
        "concurrency": args.concurrency,
        "ruleset": args.game,
        "seconds": round(elapsed, 1),
        "games_per_minute": round(games / elapsed * 60, 1),
        "decisions_per_second": round(decisions / elapsed, 1),
        "arena_caused_timeouts": after["timeouts"],
        "strikes": after["strikes"],
        "aborted_games": after["aborted"],
        "server_peak_rss_mib": round(peak / 1024, 1),
        "server_cpu_us_per_decision": round((cpu1 - cpu0) / max(1, decisions) * 1e6, 1),
        "bot_errors": {k: v for k, v in bot_totals.items() if k.startswith("error:")},
    }
    print(tail.strip().splitlines()[-1] if tail.strip() else "")
    print(json.dumps(report, indent=2))
    if args.keep:
        print(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
