#!/usr/bin/env python3
"""A shared ladder's refit read of the changed rows (`fit_totals.changes`) at scale, with and without its indexes.

    python scripts/bench_fit_changes.py [--bots 1000] [--games 100000] [--results 30] [--rounds 40]

Starts a private PostgreSQL (tests/postgres_server.py, fsync off), opens a ladder there and fills it with
``--games`` finished two-seat games among ``--bots`` bots through the ladder's own server-side functions
(``mau_start_game`` and ``mau_end_game`` in one ``DO`` loop: the fit's totals as the ladder writes them).
Then, ``--rounds`` times: ``--results`` results committed in one group commit through the store (as the
ladder's are), then one read of the rows changed since the last read (`LadderStore.fit_changes`, what each
host does every ``refit_s``).  Prints the medians of the read and of the commit, first with the schema's
indexes on (ruleset, changed) (`fit_totals.CHANGED_INDEXES`, schema step 11), then without them (dropped),
then with them again (rebuilt), so that a drift of the machine shows as a difference between the first
and the last; and the query plan of the pairs' read both ways.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

RULESET = "moumou"
PAIRS_READ = ("EXPLAIN SELECT a, b FROM fit_pairs WHERE ruleset = 'moumou' AND changed >= "
              "pg_snapshot_xmin(pg_current_snapshot()) AND NOT pg_visible_in_snapshot(changed, pg_current_snapshot())")


def fill(store, bots: int, games: int) -> None:
    with store.backend.transaction():
        store.backend.run(f"""
DO $fill$
DECLARE a TEXT; b TEXT; n INTEGER;
BEGIN
  PERFORM setseed(0.5);
  FOR n IN 1..{int(games)} LOOP
    a := 'bot' || floor(random() * {int(bots)})::int; b := 'bot' || floor(random() * {int(bots)})::int;
    CONTINUE WHEN a = b;
    PERFORM mau_start_game('f' || n, '{RULESET}', '{{}}', n, 'f' || n, 0, '2026-11-29T00:00:00', NULL,
                           ARRAY[a, b], ARRAY['', ''], NULL, NULL);
    PERFORM mau_end_game('f' || n, 'finished', '2026-11-29T00:00:01', NULL, '', 10, ARRAY[0, 1], ARRAY[a, b],
                         ARRAY[1, 2], ARRAY[0, 0], ARRAY[0, 0], ARRAY[0, 0], ARRAY[0, 0], ARRAY[5, 5], ARRAY[0, 0],
                         ARRAY[0, 0], NULL, NULL, NULL, NULL, NULL);
  END LOOP;
END $fill$""")


def measure(store, rng: random.Random, bots: int, results: int, rounds: int, label: str, first: list[int]) -> None:
    from arena.ladder.store import SeatRecord
    from arena.ladder.store.ladder_store import Call

    at, _pairs, _bots = store.fit_changes(RULESET, None)
    reads, commits, rows = [], [], []
    for _ in range(rounds):
        calls = []
        for _r in range(results):
            first[0] += 1
            game_id = f"m{first[0]}"
            a, b = (f"bot{i}" for i in rng.sample(range(bots), 2))
            store.game_started(game_id, RULESET, {}, 1, game_id, 0, [a, b])
            seats = [SeatRecord(0, a, placement=1, points=0), SeatRecord(1, b, placement=2, points=0)]
            calls.append(Call(lambda g=game_id, s=seats: store.game_ended_steps(g, "finished", s)))
        began = time.perf_counter()
        store.run_together(calls)
        commits.append(time.perf_counter() - began)
        began = time.perf_counter()
        at, pairs, changed_bots = store.fit_changes(RULESET, at)
        reads.append(time.perf_counter() - began)
        rows.append(len(pairs) + len(changed_bots))
    commit = statistics.median(commits)
    print(f"{label}: read of the changed rows median {statistics.median(reads) * 1e3:.2f} ms "
          f"(min {min(reads) * 1e3:.2f}; {statistics.median(rows):.0f} rows); group commit of {results} results "
          f"median {commit * 1e3:.1f} ms ({commit / results * 1e3:.2f} ms a result)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--results", type=int, default=30, help="results between two reads (default 30)")
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()

    from postgres_server import remove, start_server

    from arena.ladder.store import LadderStore
    from arena.ladder.store.fit_totals import CHANGED_INDEXES

    server = start_server(fsync=False)
    try:
        store = LadderStore.open(server.url, shared=True)
        began = time.perf_counter()
        fill(store, args.bots, args.games)
        counts = store.backend.rows("SELECT (SELECT COUNT(*) FROM games), (SELECT COUNT(*) FROM fit_pairs), "
                                    "(SELECT COUNT(*) FROM fit_bots)")[0]
        print(f"filled in {time.perf_counter() - began:.0f} s: {counts[0]} games, {counts[1]} pair rows, "
              f"{counts[2]} bot rows", flush=True)
        rng, number = random.Random(1), [0]
        names = [index.split()[2] for index in CHANGED_INDEXES]
        measure(store, rng, args.bots, args.results, args.rounds, "indexes (schema step 11)", number)
        print("  plan:", " / ".join(row[0].strip() for row in store.backend.rows(PAIRS_READ)))
        with store.backend.transaction():
            for name in names:
                store.backend.run(f"DROP INDEX {name}")
        measure(store, rng, args.bots, args.results, args.rounds, "no indexes", number)
        print("  plan:", " / ".join(row[0].strip() for row in store.backend.rows(PAIRS_READ)))
        with store.backend.transaction():
            for index in CHANGED_INDEXES:
                store.backend.run(index)
        measure(store, rng, args.bots, args.results, args.rounds, "indexes again", number)
        store.close()
    finally:
        remove(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
