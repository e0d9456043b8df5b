"""What giving up duplicate deals costs the ladder's ratings: rotations of one deal vs fresh deals.

    python scripts/deal_variance.py                      # 8 bots, 1200 games, 40 runs, luck 0.5/1/2
    python scripts/deal_variance.py --bots 12 --games 3000 --runs 20 --luck 1.5
    python scripts/deal_variance.py --calibrate maumau      # the luck of a real ruleset's deals

A calibrated model, not an engine: bot i has a true strength (Elo, evenly
spaced ``--spread`` apart); in a two-player game on deal d, seat 0 beats seat 1
with probability logistic(strength gap + luck * z_d), z_d ~ N(0, 1): ``luck``
is how much the cards decide, in natural log-odds (0.5: skill dominates; 2: a
card-heavy game, where one deal often decides the winner), plus the first
seat's average advantage (``--seat``, log-odds).

``--calibrate RULESET`` measures both on the real engine instead: random players
play every deal ``--plays`` times (two seats); the first seat's win rate gives the
seat advantage, and the covariance of its results between plays of one deal is
the variance of the deal's own win chance, which fixes ``luck``.  Random players
are not strong bots, so this calibrates the cards' share of the outcome, not the
bots' skill.

Both schemes play the same number of games on the same population, in the same run:

* ``rotations``: what the ladder did until now: each deal is played twice with the
  seats swapped, the two games are one set and enter the Bradley-Terry fit as one
  observation with a fractional score (the deal's luck cancels);
* ``fresh``: what the ladder does now: every game on its own deal, one observation.

Printed per scheme: the fit's mean 95% half-width (Elo); the actual 95% spread
of a bot's rating over ``--runs`` repeated ladders (1.96 x its standard
deviation, averaged over bots), which is what the interval should describe; the
ratio of that spread to the rotations' (below 1: fresh deals rate more
precisely for the same number of games); and the RMS error against the true
strengths (centred; it includes the shrinking of every gap that luck causes).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ladder.ratings import ELO_PER_NATURAL, Z95, RatedGame, fit_bradley_terry  # noqa: E402


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive count")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative number")
    return value


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def seat0_wins(rng: random.Random, gap_elo: float, luck: float, z: float, seat: float = 0.0) -> bool:
    return rng.random() < logistic(gap_elo / ELO_PER_NATURAL + seat + luck * z)


def calibrate(ruleset: str, deals: int, plays: int) -> tuple[float, float]:
    """(seat advantage, luck) in log-odds, from random play of ``deals`` deals on the engine."""
    from arena.games.selfplay import play_random_game

    chances = []
    for deal in range(deals):
        wins = [
            play_random_game(ruleset, 2, deal, rng=random.Random(f"{deal}/{play}"), observe=False).result.placements[0] == 1
            for play in range(plays)
        ]
        chances.append(wins)
    mean = statistics.fmean(w for wins in chances for w in wins)
    # Between two plays of one deal, E[w1 w2] = E[p_d^2], so the covariance is Var(p_d).
    products = [wins[i] * wins[j] for wins in chances for i in range(plays) for j in range(i + 1, plays)]
    variance = max(0.0, statistics.fmean(products) - mean * mean)
    seat = math.log(mean / (1.0 - mean))
    # Var(logistic(seat + luck z)) grows with luck: bisect on a fixed normal sample.
    zs = [statistics.NormalDist().inv_cdf((k + 0.5) / 2000) for k in range(2000)]
    low, high = 0.0, 20.0
    for _ in range(60):
        luck = (low + high) / 2
        if statistics.pvariance([logistic(seat + luck * z) for z in zs]) < variance:
            low = luck
        else:
            high = luck
    return seat, (low + high) / 2


def ladder(
    scheme: str, strengths: dict[str, float], games: int, luck: float, rng: random.Random, seat: float = 0.0
) -> list[RatedGame]:
    names = sorted(strengths)
    played: list[RatedGame] = []
    index = 0
    while len(played) < games:
        a, b = rng.sample(names, 2)
        z = rng.gauss(0.0, 1.0)
        seatings = [(a, b), (b, a)] if scheme == "rotations" else [(a, b)]
        set_id = f"s{index}"
        index += 1
        for first, second in seatings:
            if len(played) >= games:
                break
            # A rotation replays the deal: seat 0's cards (and their luck z) are now b's.
            win = seat0_wins(rng, strengths[first] - strengths[second], luck, z, seat)
            played.append(RatedGame(set_id, {first: 1 if win else 2, second: 2 if win else 1}))
    return played


def measure(scheme: str, args: argparse.Namespace, luck: float, seat: float) -> tuple[float, float, float]:
    """(mean 95% half-width the fit reports, 1.96 x the run-to-run sd of a bot's rating, RMS error)."""
    names = [f"bot{i:02d}" for i in range(args.bots)]
    strengths = {name: i * args.spread for i, name in enumerate(names)}
    mean_true = statistics.fmean(strengths.values())
    widths, errors = [], []
    fitted: dict[str, list[float]] = {name: [] for name in names}
    for run in range(args.runs):
        rng = random.Random(args.seed * 1000 + run)  # the same stream for both schemes' run n
        ratings = fit_bradley_terry(ladder(scheme, strengths, args.games, luck, rng, seat))
        mean_fit = statistics.fmean(r.rating for r in ratings)
        widths.append(statistics.fmean(r.ci for r in ratings))
        for r in ratings:
            fitted[r.bot].append(r.rating - mean_fit)
            errors.append(((r.rating - mean_fit) - (strengths[r.bot] - mean_true)) ** 2)
    spread = math.sqrt(statistics.fmean(statistics.variance(values) for values in fitted.values()))
    return statistics.fmean(widths), Z95 * spread, math.sqrt(statistics.fmean(errors))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=positive_int, default=8)
    parser.add_argument("--games", type=positive_int, default=1200, help="games per ladder (both schemes)")
    parser.add_argument("--runs", type=positive_int, default=40, help="ladders per scheme, for the actual error")
    parser.add_argument("--spread", type=positive_float, default=50.0, help="Elo between neighbouring bots")
    parser.add_argument("--luck", type=positive_float, action="append", help="deal luck in log-odds (repeatable)")
    parser.add_argument("--seat", type=float, default=0.0, help="first seat's advantage in log-odds")
    parser.add_argument("--calibrate", metavar="RULESET", help="measure seat advantage and luck on this ruleset")
    parser.add_argument("--deals", type=positive_int, default=1500, help="deals for --calibrate")
    parser.add_argument("--plays", type=positive_int, default=4, help="random plays per deal for --calibrate")
    parser.add_argument("--seed", type=positive_int, default=1)
    args = parser.parse_args(argv)
    lucks = args.luck or [0.5, 1.0, 2.0]
    seat = args.seat
    if args.calibrate:
        from arena import games

        if args.calibrate not in games.registry.names():
            parser.error(f"unknown ruleset {args.calibrate!r} (see `arena rules`)")
        if args.plays < 2:
            parser.error("--plays must be at least 2 to see a deal's own chance")
        seat, luck = calibrate(args.calibrate, args.deals, args.plays)
        print(f"{args.calibrate}: random play of {args.deals} deals x {args.plays}: first seat advantage "
              f"{seat:+.2f} log-odds, deal luck {luck:.2f} log-odds")
        lucks = [luck]
    print(f"{args.bots} bots {args.spread:g} Elo apart, {args.games} games per ladder, {args.runs} ladders per row")
    print(f"{'luck':>5} {'scheme':>10} {'fit 95% half-width':>19} {'actual 95% spread':>18} {'vs rotations':>13}"
          f" {'RMS error':>10}")
    for luck in lucks:
        reference = None
        for scheme in ("rotations", "fresh"):
            width, spread, error = measure(scheme, args, luck, seat)
            reference = reference or spread
            print(f"{luck:>5.2f} {scheme:>10} {width:>17.1f} E {spread:>16.1f} E {spread / reference:>12.2f}x"
                  f" {error:>8.1f} E")
    return 0


if __name__ == "__main__":
    sys.exit(main())
