#!/usr/bin/env python3
"""The ladder store on SQLite and on PostgreSQL, side by side: durable game commits and the rating fit's input.

    python scripts/bench_store.py                    # 1,000 games; a throwaway PostgreSQL cluster (fsync on)
    python scripts/bench_store.py --games 20000 --postgres postgresql://me@db.example/bench_scratch

Per backend, from one thread as `arena serve`'s store worker does:

* games per second: `game_started` (a ``running`` row and its seats) then
  `game_ended` (the result), each its own durable transaction (two commits a game);
* the time of `pair_table` + `totals` (what a refit reads) over those games.

SQLite (a file in a temporary folder, ``synchronous=FULL``) is the reference,
measured in the same run; the PostgreSQL ratio is PostgreSQL / SQLite.
Without --postgres the script starts its own cluster the way the tests do
(tests/postgres_server.py, needs `apt-get install postgresql`) but with fsync
on, so its commits are as durable as SQLite's.  With --postgres it creates
and drops a scratch database beside the one the URL names.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.ladder.store import LadderStore, SeatRecord  # noqa: E402

BOTS = [f"bot{i:02d}" for i in range(16)]


def measure(db: str, games: int) -> dict[str, float]:
    store = LadderStore.open(db)
    rng = random.Random(7)
    try:
        began = time.perf_counter()
        for n in range(games):
            seats = rng.sample(BOTS, 2)
            game_id = f"g{n}"
            store.game_started(game_id, "maumau", {"max_hands": 1}, rng.getrandbits(63), game_id, 0, seats)
            order = rng.sample([1, 2], 2)
            store.game_ended(game_id, "finished", [SeatRecord(i, b, placement=p, points=0, decisions=20, think_ms=40)
                                                   for i, (b, p) in enumerate(zip(seats, order))], decisions=40)
        per_second = games / (time.perf_counter() - began)
        began = time.perf_counter()
        table = store.pair_table("maumau")
        store.totals("maumau")
        fit_input = time.perf_counter() - began
        assert len(table.bots) == len(BOTS)
        return {"games_per_s": per_second, "fit_input_s": fit_input}
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--postgres", metavar="URL", help="an existing server (default: start a throwaway cluster)")
    args = parser.parse_args()

    import psycopg

    server = None
    if args.postgres:
        admin_url = args.postgres
    else:
        from tests.postgres_server import find_binaries, remove, start_server

        if find_binaries()[0] is None:
            print(find_binaries()[1], file=sys.stderr)
            return 2
        server = start_server(fsync=True)
        admin_url = server.url
    scratch = "bench_" + uuid.uuid4().hex[:12]
    try:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {scratch}")
        with tempfile.TemporaryDirectory() as folder:
            sqlite = measure(str(Path(folder) / "bench.db"), args.games)
        postgres = measure(admin_url.rsplit("/", 1)[0] + "/" + scratch, args.games)
    finally:
        try:
            with psycopg.connect(admin_url, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {scratch} WITH (FORCE)")
        finally:
            if server is not None:
                remove(server)
    print(f"{args.games} two-seat games, {len(BOTS)} bots, one thread")
    print(f"{'':12} {'games/s':>10} {'fit input s':>12}")
    for name, row in (("sqlite", sqlite), ("postgresql", postgres)):
        print(f"{name:12} {row['games_per_s']:10.0f} {row['fit_input_s']:12.3f}")
    print(f"{'pg / sqlite':12} {postgres['games_per_s'] / sqlite['games_per_s']:10.2f} "
          f"{postgres['fit_input_s'] / sqlite['fit_input_s']:12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
