"""A flood of the web view's JSON API from one address, against a running ladder: games finished while it lasts.

    python scripts/bench_web_flood.py [--threads 16] [--seconds 15] [--path '/api/v1/games?limit=500']

Starts `arena serve --web 0` (loopback, free ports, a fresh database in a temporary folder) with four
random sample bots on moumou, lets games pile up, then counts the games finished in three windows of the
same length: quiet, flooded (``--threads`` clients asking ``--path`` back to back, each waiting for its
answer, as a browser or a script would), quiet.  Prints games per window, the flood's answers by status
and how many it got per second.  The web view paces each address's API calls (arena/web/pace.py); run
against an older version it shows the flood that pacing answers.
"""

from __future__ import annotations

import argparse
import http.client
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from flood_server import ROOT, start


def finished(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return con.execute("select count(*) from games where status = 'finished'").fetchone()[0]


def flood(web: str, path: str, stop: threading.Event, answers: Counter) -> None:
    host, port = web.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    while not stop.is_set():
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            answers[response.status] += 1
        except Exception as error:
            answers[type(error).__name__] += 1
            connection.close()
            connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=15.0, help="each window")
    parser.add_argument("--path", default="/api/v1/games?limit=500")
    parser.add_argument("--warm", type=float, default=25.0, help="seconds of games before the first window")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-web-flood-") as folder:
        server, web, port = start(Path(folder), "--game", "moumou", "--move-ms", "300", "--bank-ms", "2000")
        bots = [subprocess.Popen([sys.executable, str(ROOT / "sample_bots" / "random_bot.py"), "--arena",
                                  f"127.0.0.1:{port}", "--name", f"honest{i}"], cwd=ROOT,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(4)]
        try:
            time.sleep(args.warm)
            print(f"{args.threads} clients on {args.path}, windows of {args.seconds:g} s")
            for phase in ("quiet", "flooded", "quiet"):
                stop, answers = threading.Event(), Counter()
                clients = [threading.Thread(target=flood, args=(web, args.path, stop, answers))
                           for _ in range(args.threads if phase == "flooded" else 0)]
                for client in clients:
                    client.start()
                before = finished(Path(folder) / "ladder.db")
                time.sleep(args.seconds)
                games = finished(Path(folder) / "ladder.db") - before
                stop.set()
                for client in clients:
                    client.join()
                asked = sum(answers.values())
                print(f"{phase:8} {games:4d} games   {asked / args.seconds:6.1f} requests/s  {dict(answers)}",
                      flush=True)
        finally:
            for bot in bots:
                bot.terminate()
            server.send_signal(2)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
            for bot in bots:
                bot.wait()


if __name__ == "__main__":
    main()
