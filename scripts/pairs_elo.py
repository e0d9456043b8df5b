#!/usr/bin/env python3
"""Two bots' Elo from the `-v` output (stdout) of one or more head-to-head `arena match` runs, pairs kept by seed.

    arena match a.py b.py --game ddmau --games 100 --seed 5000 -v > part1.log &
    arena match a.py b.py --game ddmau --games 100 --seed 5050 -v > part2.log &
    python scripts/pairs_elo.py part1.log part2.log --bot a

A long match can run as several processes on disjoint seed ranges (a 2-core machine runs two at
once); each prints its own Elo, and this script gives the Elo of them all together, as one
`arena match` would: the two games of a seed (the seats swapped) form a pair, scored 0, 0.5, 1,
1.5 or 2 for `--bot`, and the pentanomial counts give the Elo and its 95% interval
(`arena.ladder.elo.elo_from_pairs`).  A pair is recognised by its seed, never by the line's deal
number (each run counts its deals from 0), so the logs may come in any order; a seed found in
more than two finished games means overlapping runs, and is an error.  Aborted games and seeds
with one finished game (a run stopped midway) are left out and counted.

`--against OTHER.log ...` compares, deal by deal, `--bot` in the logs with the bot of the same name in the
other logs (another code's runs on the same seeds): the mean difference of the pair scores (0..2) over the
seeds both finished, with its 95% interval, and the Elo of each side on those seeds alone.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.cli.match_result import parse_game_lines  # noqa: E402
from arena.ladder.elo import elo_from_pairs, pair_bucket  # noqa: E402

def parse(lines) -> tuple[dict[int, list[dict[str, int]]], int]:
    """{seed: [{bot: placement} per finished game]} of `-v` lines, and the number of aborted games."""
    games: dict[int, list[dict[str, int]]] = defaultdict(list)
    found, aborted = parse_game_lines(lines)
    for seed, places in found:
        if len(places) != 2:
            raise ValueError(f"not a two-seat game at seed {seed}: {', '.join(sorted(places))}")
        games[seed].append(places)
    return games, aborted


def game_score(bot: str, places: dict[str, int]) -> float:
    mine = places[bot]
    other = next(p for name, p in places.items() if name != bot)
    return 1.0 if mine < other else 0.5 if mine == other else 0.0


def pairs_of(games: dict[int, list[dict[str, int]]], bot: str) -> tuple[list[int], int]:
    """The pentanomial counts over the seeds with both games finished, and the games left out."""
    pairs, dropped = [0] * 5, 0
    for seed, played in sorted(games.items()):
        if len(played) > 2:
            raise ValueError(f"seed {seed} has {len(played)} finished games: do the runs' seed ranges overlap?")
        if len(played) < 2:
            dropped += len(played)
            continue
        for places in played:
            if bot not in places:
                raise ValueError(f"no bot named {bot!r} at seed {seed} (bots: {', '.join(sorted(places))})")
        pairs[pair_bucket(*(game_score(bot, places) for places in played))] += 1
    return pairs, dropped


def pair_scores(games: dict[int, list[dict[str, int]]], bot: str) -> dict[int, float]:
    """{seed: `bot`'s pair score (0..2)} over the seeds with both games finished."""
    return {seed: sum(game_score(bot, places) for places in played)
            for seed, played in games.items() if len(played) == 2}


def paired(mine: dict[int, float], theirs: dict[int, float]) -> tuple[int, float, float]:
    """Over the seeds of both: how many, the mean of mine - theirs and its 95% half-width."""
    seeds = sorted(mine.keys() & theirs.keys())
    if len(seeds) < 2:
        raise ValueError("fewer than two deals finished in both sets of logs")
    diffs = [mine[s] - theirs[s] for s in seeds]
    mean = sum(diffs) / len(diffs)
    spread = (sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)) ** 0.5
    return len(seeds), mean, 1.96 * spread / len(seeds) ** 0.5


def read_logs(paths) -> tuple[dict[int, list[dict[str, int]]], int]:
    games: dict[int, list[dict[str, int]]] = defaultdict(list)
    aborted = 0
    for log in paths:
        found, lost = parse(log.read_text(errors="replace").splitlines())
        aborted += lost
        for seed, played in found.items():
            games[seed].extend(played)
    return games, aborted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", type=Path, help="the output of each `arena match -v` run (its stdout: the per-game lines)")
    parser.add_argument("--bot", required=True, help="the bot whose Elo over the other is wanted")
    parser.add_argument("--against", nargs="+", type=Path, default=None,
                        help="another code's logs on the same seeds: compare --bot with its namesake there, deal by deal")
    args = parser.parse_args(argv)
    try:
        games, aborted = read_logs(args.logs)
        if not games:
            raise ValueError("no 'Finished game' lines in the logs (were the matches run with -v?)")
        pairs, dropped = pairs_of(games, args.bot)
        if not sum(pairs):
            raise ValueError("no complete pair (both games of a seed) in the logs")
        estimate = elo_from_pairs(pairs)
        wins = sum(game_score(args.bot, p) == 1.0 for played in games.values() if len(played) == 2 for p in played)
        losses = sum(game_score(args.bot, p) == 0.0 for played in games.values() if len(played) == 2 for p in played)
        print(f"{2 * sum(pairs)} games in {sum(pairs)} pairs (seeds {min(games)}..{max(games)}): {args.bot} "
              f"{wins}-{losses}-{2 * sum(pairs) - wins - losses}, pairs {pairs}, "
              f"Elo {estimate} ({estimate.low:+.1f} .. {estimate.high:+.1f}, 95%)"
              + (f"; {dropped} games of incomplete pairs and {aborted} aborted left out" if dropped or aborted else ""))
        if args.against:
            other, _ = read_logs(args.against)
            mine, theirs = pair_scores(games, args.bot), pair_scores(other, args.bot)
            n, mean, half = paired(mine, theirs)
            both = sorted(mine.keys() & theirs.keys())
            ours = elo_from_pairs(pairs_of({s: games[s] for s in both}, args.bot)[0])
            against = elo_from_pairs(pairs_of({s: other[s] for s in both}, args.bot)[0])
            print(f"deal by deal over the {n} seeds of both: {mean:+.3f} ± {half:.3f} pair points (95%); "
                  f"on those seeds Elo {ours} against {against}")
    except (OSError, ValueError) as error:
        print(f"pairs_elo: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
