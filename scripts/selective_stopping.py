"""Selective stopping against the ladder's order: how often an average bot that leaves while ranked 1st ends
1st, per ranking rule (rating - k standard errors), and what each k costs a truly better newcomer.

The field: 7 bots of true Elo +100, +50, 0, 0, 0, -50, -100 (x is one of the 0s), two-player games between
random pairs of the bots present, fitted as the ladder fits them (`RunningTotals`, `standings_from`).
Attackers (x watches the order in use, as a bot polling GetStandings would, from its 5th game on):

* ``stop``:   leaves for good the first time it is ranked 1st;
* ``return``: every 7 games, leaves if it is 1st, comes back if it is not;
* ``honest``: plays on.

``--newcomer`` instead measures the price: a bot of true +150 joins after 1,200 games of the others;
the games it needs to be ranked 1st (checked every 5 of its games), per k.  arena/ladder/ranking.py
quotes a run of this (100 seasons, k 0,1,1.5,1.96,2.5,3; newcomer 30 trials, k 0,1.96,3).

    python scripts/selective_stopping.py --sigmas 0,1.96 --seasons 100
    python scripts/selective_stopping.py --newcomer --sigmas 0,1.96,3 --seasons 30
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ladder.ratings import Z95, PairTable  # noqa: E402
from arena.ladder.standings import standings_from  # noqa: E402
from arena.ladder.store.fit_totals import RunningTotals  # noqa: E402
from arena.ladder.store.records import SeatRecord  # noqa: E402

FIELD = {"s100": 100, "s50": 50, "a0": 0, "b0": 0, "w50": -50, "w100": -100}


class Season:
    """Games among the bots present, in the ladder's running totals; the order by rating - k SE."""

    def __init__(self, strengths: dict[str, float], sigmas: float, rng: random.Random) -> None:
        self.strengths, self.sigmas, self.rng = strengths, sigmas, rng
        self.running = RunningTotals(PairTable.from_totals([], {}), {})

    def play(self, present: set[str]) -> tuple[str, str]:
        a, b = self.rng.sample(sorted(present), 2)
        a_wins = self.rng.random() < 1 / (1 + 10 ** ((self.strengths[b] - self.strengths[a]) / 400))
        self.running.add_game([SeatRecord(0, a, 1 if a_wins else 2), SeatRecord(1, b, 2 if a_wins else 1)])
        return a, b

    def order(self) -> list[str]:
        rows = standings_from(self.running.table(), self.running.totals())
        def score(r):
            return r.rating - self.sigmas * r.ci / Z95 if math.isfinite(r.ci) else -math.inf
        return [r.bot for r in sorted(rows, key=lambda r: (-score(r), -r.rating, r.bot))]


def attack(mode: str, sigmas: float, rng: random.Random, games: int, first_after: int = 5) -> list[str]:
    season = Season({**FIELD, "x": 0}, sigmas, rng)
    present, played = set(season.strengths), 0
    for g in range(games):
        a, b = season.play(present)
        played += "x" in (a, b)
        if played < first_after:
            continue
        if mode == "stop" and "x" in present and "x" in (a, b) and season.order()[0] == "x":
            present.discard("x")
        elif mode == "return" and g % 7 == 6:
            if season.order()[0] == "x":
                present.discard("x")
            else:
                present.add("x")
    return season.order()


def newcomer(sigmas: float, rng: random.Random, before: int = 1200, cap: int = 800) -> int:
    season = Season({**FIELD, "x": 150}, sigmas, rng)
    field = set(FIELD)
    for _ in range(before):
        season.play(field)
    played = 0
    while played < cap:
        if "x" in season.play(field | {"x"}):
            played += 1
            if played % 5 == 0 and season.order()[0] == "x":
                return played
    return cap


#: The attackers' strategies (module docstring).
MODES = ("honest", "stop", "return")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sigmas", default="0,1,1.5,1.96,2.5,3", help="the k values, comma-separated")
    parser.add_argument("--seasons", type=int, default=100)
    parser.add_argument("--games", type=int, default=1400)
    parser.add_argument("--modes", default="honest,stop,return")
    parser.add_argument("--newcomer", action="store_true", help="measure a better newcomer's games to 1st instead")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    try:
        ks = [float(k) for k in args.sigmas.split(",")]
    except ValueError:
        parser.error(f"--sigmas takes numbers separated by commas (0,1.96), not {args.sigmas!r}")
    if not all(math.isfinite(k) and k >= 0 for k in ks):
        parser.error(f"--sigmas must be 0 or more, not {args.sigmas}")
    if args.seasons < 1 or args.games < 1:
        parser.error("--seasons and --games must be at least 1")
    modes = args.modes.split(",")
    if unknown := [m for m in modes if m not in MODES]:
        parser.error(f"--modes: unknown {', '.join(unknown)} (choose from {', '.join(MODES)})")
    if args.newcomer and args.seasons < 2:
        parser.error("--newcomer needs at least 2 seasons (it prints quartiles)")
    for sigmas in ks:
        if args.newcomer:
            rng = random.Random(args.seed)
            needed = [newcomer(sigmas, rng) for _ in range(args.seasons)]
            print(f"k={sigmas:<5g} newcomer (+150) ranked 1st after a median {statistics.median(needed):g} of its "
                  f"games (quartiles {', '.join(f'{q:g}' for q in statistics.quantiles(needed, n=4))})", flush=True)
            continue
        for mode in modes:
            rng = random.Random(args.seed)
            orders = [attack(mode, sigmas, rng, args.games) for _ in range(args.seasons)]
            print(f"k={sigmas:<5g} {mode:<7} x 1st in {sum(o[0] == 'x' for o in orders)}/{args.seasons}, "
                  f"true best 1st in {sum(o[0] == 's100' for o in orders)}/{args.seasons}, "
                  f"x's mean rank {sum(o.index('x') + 1 for o in orders) / args.seasons:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
