"""The rating fit at ladder scale: a standings request with 100,000 finished games in the store.

    python scripts/bench_ratings.py [--games 100000] [--bots 40] [--repeat 5]

Fills a fresh SQLite ladder with synthetic two-seat results (bots of spread strengths, through
the store's own `game_started`/`game_ended`, so the fit's running totals are kept as the ladder
keeps them), then times a full standings computation (`compute_standings`: the fit's input, the
per-bot totals, the Bradley-Terry fit) and, as the reference in the same run, the same with the
input summed from every game by the database (`pair_table_recomputed`, what every fit did before
the running totals).  Prints medians and the ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from arena.ladder.standings import compute_standings, standings_from
    from arena.ladder.store import LadderStore, SeatRecord

    rng = random.Random(1)
    bots = [f"bot{i:02d}" for i in range(args.bots)]
    strength = {bot: rng.gauss(0, 0.5) for bot in bots}
    with tempfile.TemporaryDirectory() as folder:
        store = LadderStore.open(Path(folder) / "ladder.db")
        began = time.perf_counter()
        step = max(1, args.games // 10)
        for n in range(args.games):
            a, b = rng.sample(bots, 2)
            a_wins = rng.random() < 1 / (1 + 10 ** (strength[b] - strength[a]))
            game_id = f"g{n:07d}"
            store.game_started(game_id, "maumau", {}, n, game_id, 0, [a, b])
            store.game_ended(game_id, "finished", [SeatRecord(0, a, placement=1 if a_wins else 2, points=0),
                                                   SeatRecord(1, b, placement=2 if a_wins else 1, points=0)])
            if (n + 1) % step == 0:
                print(f"  filled {n + 1:,} games ({time.perf_counter() - began:.0f} s)", file=sys.stderr, flush=True)

        def timed(fit) -> float:
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                fit()
                times.append(time.perf_counter() - start)
            return statistics.median(times) * 1000

        kept = timed(lambda: compute_standings(store, "maumau"))
        summed = timed(lambda: standings_from(store.pair_table_recomputed("maumau"),
                                              store.totals_recomputed("maumau")))
        fit_only = timed(lambda: standings_from(store.pair_table("maumau"), {}))
        store.close()
    print(f"{args.games:,} finished games, {args.bots} bots, median of {args.repeat}:")
    print(f"  standings from the running totals      {kept:8.1f} ms")
    print(f"  standings summing every game (before)  {summed:8.1f} ms")
    print(f"    of which reading the pairs and fitting {fit_only:6.1f} ms")
    print(f"  ratio before / now                     {summed / kept:8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
