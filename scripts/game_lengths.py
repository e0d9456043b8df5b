#!/usr/bin/env python3
"""How many decisions random self-play games take: median, p90, max, and how many hit a bound.

    .venv/bin/python scripts/game_lengths.py --ruleset ddmau --players 2 --games 300

Every game is `selfplay.play_random_game` (uniformly random legal actions,
seed = first seed + game number), cut at ``--bound`` decisions (the match
runner's abort is 50,000); a cut game counts at the bound.  Used to check
that a ruleset's hands end (DD MAU's hand bound, issue 14 item 3).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import games  # noqa: E402
from arena.games.selfplay import StalledGameError, play_random_game  # noqa: E402


def percentile(values: list[int], fraction: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", default="ddmau")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    parser.add_argument("--bound", type=int, default=50_000, help="decisions after which a game is cut")
    args = parser.parse_args(argv)
    if args.games < 1 or args.bound < 1:
        parser.error("--games and --bound must be positive")
    if args.ruleset not in games.rulesets():
        parser.error(f"unknown ruleset {args.ruleset!r}; known: {', '.join(games.rulesets())}")
    lengths = []
    cut = 0
    for number in range(args.games):
        try:
            lengths.append(play_random_game(args.ruleset, args.players, args.seed + number, observe=False,
                                            max_decisions=args.bound).decisions)
        except StalledGameError:
            lengths.append(args.bound)
            cut += 1
    over = sum(1 for n in lengths if n > 20_000)
    print(f"{args.ruleset}, {args.players} players, {args.games} games (seeds {args.seed}..{args.seed + args.games - 1}):"
          f" median {statistics.median(lengths):.0f}, p90 {percentile(lengths, 0.9)}, max {max(lengths)},"
          f" over 20,000: {over} ({100 * over / args.games:.1f}%), cut at {args.bound}: {cut}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
