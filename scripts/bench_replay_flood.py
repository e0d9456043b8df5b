"""A web replay flood from one address, with no login, against a running Mose ladder: games finished and the games'
loop lag, quiet / flooded / quiet.

    python scripts/bench_replay_flood.py [--seconds 20] [--warm 40] [--at-once 3] [--view omniscient]

Starts `arena serve --game mose --demo --web 0` (loopback, free ports, a fresh database in a temporary folder),
lets games finish, then measures three windows of the same length: quiet, flooded (``--at-once`` clients from one
address asking ``/api/v1/games/ID/replay?view=VIEW``, each for a finished game none has asked for yet, each waiting
for its answer and asking again at once), quiet.  For each window it prints the games finished (the database's
count) and the round trip of grpc.health.v1 Check calls (answered on the games' event loop: its lag), p50 and p99
in ms, and for the flood the answers by status.  Runs whatever tree it is started from: run it on two versions
for a before/after.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from flood_server import ROOT, percentile, probe, start


def finished(db: Path) -> list[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return [row[0] for row in con.execute("select id from games where status = 'finished'")]


def flood(web: str, games: list[str], view: str, stop: threading.Event, answers: Counter, lock: threading.Lock) -> None:
    host, port = web.rsplit(":", 1)
    while not stop.is_set():
        with lock:
            if not games:
                answers["no game left"] += 1
                return
            game = games.pop()
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        try:
            connection.request("GET", f"/api/v1/games/{game}/replay?view={view}")
            response = connection.getresponse()
            response.read()
            answers[response.status] += 1
        except Exception as error:
            answers[type(error).__name__] += 1
        finally:
            connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="each window")
    parser.add_argument("--warm", type=float, default=40.0, help="seconds of games before the first window")
    parser.add_argument("--at-once", type=int, default=3, help="flood requests at a time from the one address")
    parser.add_argument("--view", default="omniscient")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-replay-flood-") as folder:
        db = Path(folder) / "ladder.db"
        server, web, port = start(Path(folder), "--game", "mose", "--demo")
        try:
            time.sleep(args.warm)
            print(f"{args.at_once} replay requests at a time from one address (view {args.view}), "
                  f"windows of {args.seconds:g} s, tree {ROOT}", flush=True)
            results = {}
            for phase in ("quiet", "flooded", "quiet again"):
                stop, lags, answers, lock = threading.Event(), [], Counter(), threading.Lock()
                games = finished(db)  # each asked for once: nothing is answered from memory
                clients = [threading.Thread(target=flood, args=(web, games, args.view, stop, answers, lock))
                           for _ in range(args.at_once if phase == "flooded" else 0)]
                prober = threading.Thread(target=probe, args=(f"127.0.0.1:{port}", stop, lags))
                before = len(finished(db))
                prober.start()
                for client in clients:
                    client.start()
                time.sleep(args.seconds)
                done = len(finished(db)) - before
                stop.set()
                prober.join()
                for client in clients:
                    client.join()
                results[phase] = done
                print(f"{phase:12} {done:4d} games   loop lag p50 {percentile(lags, 0.5):7.1f} ms  "
                      f"p99 {percentile(lags, 0.99):7.1f} ms  max {max(lags, default=float('nan')):7.1f} ms"
                      + (f"   flood answers {json.dumps(dict(answers))}" if clients else ""), flush=True)
            quiet = statistics.mean([results["quiet"], results["quiet again"]])
            print(f"flooded / quiet games: {results['flooded'] / quiet if quiet else float('nan'):.2f}")
        finally:
            os.killpg(server.pid, 2)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, 9)
                server.wait()


if __name__ == "__main__":
    main()
