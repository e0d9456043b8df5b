#!/usr/bin/env python3
"""One bot's Elo against the field of a multi-seat `arena match`, with a 95% interval over deals.

    arena match searcher.py tactician.py tactician.py tactician.py --game maumau-online \\
        --games 400 --local -v 2> match.log
    python scripts/field_elo.py match.log --bot searcher
    python scripts/field_elo.py part1.log part2.log part3.log --bot searcher   # runs on disjoint seeds

`arena match` prints an Elo difference only for two bots.  With one bot among copies of
another (the searcher and three tacticians) it counts, as the ladder does, every game as
pairwise results by placement: against each other seat a win (placed better), a draw (same
place) or a loss.  This script reads the `-v` lines (`Finished game N (deal K, seed S): ...`)
of one or more runs, takes the bot's mean pairwise score over each complete duplicate deal (every
seat rotation of one seed: a deal is known by its seed, never by the line's deal number, which
each run counts from 0, so runs on disjoint seed ranges combine as one match; a seed with more
games than seats means overlapping runs, and is an error), and prints the mean score, its Elo on the logistic scale (57.1% is +50) and the
95% interval from the spread between deals (the games of a deal are correlated, so the deal is
the honest unit, as pairs are for two bots).  Aborted games and incomplete deals are left out
and counted.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.cli.match_result import parse_game_lines  # noqa: E402
from arena.ladder.elo import Z95, score_to_elo  # noqa: E402

@dataclass(frozen=True)
class FieldElo:
    """The bot's mean pairwise score per deal, as Elo with a 95% interval."""

    deals: int
    games: int
    score: float
    low: float
    high: float
    dropped_games: int

    @property
    def elo(self) -> float:
        return score_to_elo(self.score)

    def __str__(self) -> str:
        low, high = score_to_elo(self.low), score_to_elo(self.high)
        return (f"{self.games} games in {self.deals} deals: pairwise score {100 * self.score:.1f}%, "
                f"Elo {self.elo:+.1f} ({low:+.1f} .. {high:+.1f}, 95%)"
                + (f"; {self.dropped_games} games of incomplete deals left out" if self.dropped_games else ""))


def parse_games(lines) -> list[tuple[int, dict[str, int]]]:
    """(seed, {bot: placement}) of every finished game in a `-v` log: the seed names the deal across runs."""
    return parse_game_lines(lines)[0]


def pairwise_score(bot: str, places: dict[str, int]) -> float:
    """The bot's mean score against every other seat of one game: 1 placed better, 0.5 level, 0 worse."""
    mine = places[bot]
    others = [p for name, p in places.items() if name != bot]
    return sum(1.0 if mine < p else 0.5 if mine == p else 0.0 for p in others) / len(others)


def field_elo(games: list[tuple[int, dict[str, int]]], bot: str, per_deal: int) -> FieldElo:
    """The estimate over the deals (seeds) with all `per_deal` games (one per seat rotation) finished."""
    by_deal: dict[int, list[float]] = defaultdict(list)
    for seed, places in games:
        if bot not in places:
            raise ValueError(f"no bot named {bot!r} at seed {seed} (bots: {', '.join(sorted(places))})")
        by_deal[seed].append(pairwise_score(bot, places))
    for seed, scores in by_deal.items():
        if len(scores) > per_deal:
            raise ValueError(f"seed {seed} has {len(scores)} finished games for {per_deal} seats: "
                             "do the runs' seed ranges overlap?")
    complete = [statistics.fmean(scores) for scores in by_deal.values() if len(scores) == per_deal]
    dropped = sum(len(scores) for scores in by_deal.values() if len(scores) != per_deal)
    if not complete:
        raise ValueError("no complete deal in the log")
    mean = statistics.fmean(complete)
    error = statistics.stdev(complete) / math.sqrt(len(complete)) if len(complete) > 1 else math.inf
    low = max(0.0, mean - Z95 * error) if math.isfinite(error) else 0.0
    high = min(1.0, mean + Z95 * error) if math.isfinite(error) else 1.0
    return FieldElo(len(complete), len(complete) * per_deal, mean, low, high, dropped)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", type=Path,
                        help="the output of each `arena match -v` run (runs on disjoint seed ranges combine)")
    parser.add_argument("--bot", required=True, help="the bot whose Elo against the others is wanted")
    parser.add_argument("--seats", type=int, default=None,
                        help="games per deal (the seat count; default: the seats of the first game)")
    args = parser.parse_args(argv)
    try:
        games = [game for log in args.logs for game in parse_games(log.read_text(errors="replace").splitlines())]
        if not games:
            raise ValueError(f"no 'Finished game' lines in {', '.join(map(str, args.logs))} (was the match run with -v?)")
        print(field_elo(games, args.bot, args.seats or len(games[0][1])))
    except (OSError, ValueError) as error:
        print(f"field_elo: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
