#!/usr/bin/env python3
"""One bot's Elo against the field of a multi-seat `arena match`, with a 95% interval over deals.

    arena match searcher.py tactician.py tactician.py tactician.py --game maumau-online \\
        --games 400 --local -v 2> match.log
    python scripts/field_elo.py match.log --bot searcher
    python scripts/field_elo.py part1.log part2.log part3.log --bot searcher   # runs on disjoint seeds
    python scripts/field_elo.py new1.log new2.log --bot searcher --against old1.log old2.log   # same seeds

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
and counted.  With `--against` (runs of another version of the bot on the same seeds) it also prints the
difference of the two versions' scores deal by deal, with its 95% interval: the deals' luck, which moves
one version's estimate by tens of Elo from one seed range to another, cancels.
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


def deal_scores(games: list[tuple[int, dict[str, int]]], bot: str, per_deal: int) -> tuple[dict[int, float], int]:
    """The bot's mean pairwise score in each deal (seed) with all `per_deal` games finished, and the games
    of the incomplete deals."""
    by_deal: dict[int, list[float]] = defaultdict(list)
    for seed, places in games:
        if bot not in places:
            raise ValueError(f"no bot named {bot!r} at seed {seed} (bots: {', '.join(sorted(places))})")
        by_deal[seed].append(pairwise_score(bot, places))
    for seed, scores in by_deal.items():
        if len(scores) > per_deal:
            raise ValueError(f"seed {seed} has {len(scores)} finished games for {per_deal} seats: "
                             "do the runs' seed ranges overlap?")
    complete = {seed: statistics.fmean(scores) for seed, scores in by_deal.items() if len(scores) == per_deal}
    dropped = sum(len(scores) for scores in by_deal.values() if len(scores) != per_deal)
    return complete, dropped


def _interval(values: list[float]) -> tuple[float, float]:
    """The mean of `values` and its standard error (infinite for fewer than two)."""
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf


def field_elo(games: list[tuple[int, dict[str, int]]], bot: str, per_deal: int) -> FieldElo:
    """The estimate over the deals (seeds) with all `per_deal` games (one per seat rotation) finished."""
    complete, dropped = deal_scores(games, bot, per_deal)
    if not complete:
        raise ValueError("no complete deal in the log")
    mean, error = _interval(list(complete.values()))
    low = max(0.0, mean - Z95 * error) if math.isfinite(error) else 0.0
    high = min(1.0, mean + Z95 * error) if math.isfinite(error) else 1.0
    return FieldElo(len(complete), len(complete) * per_deal, mean, low, high, dropped)


@dataclass(frozen=True)
class PairedElo:
    """The bot's score in one set of runs against another on the same deals, deal by deal."""

    deals: int
    score: float  # the runs' mean pairwise score over the common deals
    other: float  # the other runs' over the same deals
    error: float  # the standard error of the mean difference

    def __str__(self) -> str:
        diff = self.score - self.other
        low, high = (score_to_elo(min(0.999, max(0.001, self.other + d))) - score_to_elo(self.other)
                     for d in (diff - Z95 * self.error, diff + Z95 * self.error))
        return (f"{self.deals} deals in both: pairwise score {100 * self.score:.1f}% ({score_to_elo(self.score):+.1f}) "
                f"against {100 * self.other:.1f}% ({score_to_elo(self.other):+.1f}): {100 * diff:+.2f} ± "
                f"{100 * Z95 * self.error:.2f} points, {score_to_elo(self.score) - score_to_elo(self.other):+.1f} Elo "
                f"({low:+.1f} .. {high:+.1f}, 95%)")


def paired_elo(games, against, bot: str, per_deal: int) -> PairedElo:
    """`games` against `against` (two sets of runs of the same bot on the same seeds), over their common
    complete deals: the difference of the bot's score deal by deal, so the deals' own luck cancels."""
    mine, _ = deal_scores(games, bot, per_deal)
    theirs, _ = deal_scores(against, bot, per_deal)
    common = sorted(set(mine) & set(theirs))
    if len(common) < 2:
        raise ValueError(f"{len(common)} complete deal(s) in both sets of runs: at least 2 are needed")
    _, error = _interval([mine[seed] - theirs[seed] for seed in common])
    return PairedElo(len(common), statistics.fmean(mine[s] for s in common),
                     statistics.fmean(theirs[s] for s in common), error)


def read_games(logs: list[Path]) -> list[tuple[int, dict[str, int]]]:
    games = [game for log in logs for game in parse_games(log.read_text(errors="replace").splitlines())]
    if not games:
        raise ValueError(f"no 'Finished game' lines in {', '.join(map(str, logs))} (was the match run with -v?)")
    return games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", type=Path,
                        help="the output of each `arena match -v` run (runs on disjoint seed ranges combine)")
    parser.add_argument("--bot", required=True, help="the bot whose Elo against the others is wanted")
    parser.add_argument("--seats", type=int, default=None,
                        help="games per deal (the seat count; default: the seats of the first game)")
    parser.add_argument("--against", nargs="+", type=Path, default=None,
                        help="other runs on the same seeds (another version of the bot): also print the "
                             "difference deal by deal")
    args = parser.parse_args(argv)
    try:
        games = read_games(args.logs)
        seats = args.seats or len(games[0][1])
        print(field_elo(games, args.bot, seats))
        if args.against:
            print(paired_elo(games, read_games(args.against), args.bot, seats))
    except (OSError, ValueError) as error:
        print(f"field_elo: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
