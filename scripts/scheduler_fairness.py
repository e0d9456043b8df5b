"""Do slow bots throttle honest ones?  The ladder scheduler on a simulated clock.

    python scripts/scheduler_fairness.py                 # a few seconds
    python scripts/scheduler_fairness.py --until 600 --seeds 5 --concurrency 1000,6

Ten honest bots (games of 0.8-1.2 time units, a third with two slots) play
alone, then with a bot whose games take 60 units (it hangs until the time
control forfeits it), one whose games take 6, and both.  Printed: the honest
bots' games per unit of the time their slots were not seated with the extra
bots (`arena.ladder.simulation.honest_throughput`), as a ratio to the same
population without them, for today's scheduler and for the earlier rules
(caps without time limits, which waited for the neediest bot), measured in
the same run.  ``--concurrency`` below the honest bots' demand shows the
cost that remains: the extra bots' long games hold shared slots.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ladder.simulation import honest_throughput  # noqa: E402

EXTRAS = {
    "hanging (60x)": {"hang": (1, None)},
    "slow (6x)": {"slow": (1, None)},
    "both (slow x2 slots)": {"hang": (1, None), "slow": (2, None)},
    "hanging, 8 slots": {"hang": (8, None)},
}


def counts(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of whole numbers") from None
    if not values or min(values) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: every value must be positive")
    return values


def positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not positive")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--until", type=positive, default=300.0, help="simulated time units per run")
    parser.add_argument("--seeds", type=int, choices=range(1, 101), default=3, metavar="N", help="runs per row")
    parser.add_argument("--concurrency", type=counts, default=[1000], help="games at once, comma-separated")
    args = parser.parse_args(argv)
    print(f"honest games per slot-time with an extra bot / without; median (min-max) of {args.seeds} seeds")
    print(f"{'concurrency':>11} {'extra bot':>22} {'scheduler':>18} {'earlier rules':>18}")
    for concurrency in args.concurrency:
        for label, extra in EXTRAS.items():
            cells = []
            for clock in (True, False):
                ratios = []
                for seed in range(1, args.seeds + 1):
                    common = dict(clock=clock, until=args.until, concurrency=concurrency, seed=seed)
                    ratios.append(honest_throughput(extra, **common).rate / honest_throughput({}, **common).rate)
                cells.append(f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")
            print(f"{concurrency:>11} {label:>22} {cells[0]:>18} {cells[1]:>18}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
