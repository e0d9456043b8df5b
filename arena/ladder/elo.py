"""Match statistics: Elo <-> score, the Elo difference with a 95% interval, LOS, and the SPRT.

Used by `arena match` (head-to-head tests, like cutechess-cli and fastchess)
and by the ladder (`elo_to_score` / `score_to_elo`).  Everything is on the
logistic Elo scale: a difference ``d`` means an expected score of
``1 / (1 + 10**(-d/400))``.

Two ways to count results:

* **trinomial**: wins, draws, losses of single games;
* **pentanomial**: results of game *pairs* (the same deal with seats swapped,
  as `arena match` plays them), counted by the pair's total score 0, 0.5, 1,
  1.5, 2.  Pairs are the honest unit for duplicate deals: the two games of a
  pair are correlated, and treating them as independent games overstates the
  variance (the interval comes out too wide and the SPRT too slow).

The interval uses the normal approximation of the mean score with the
observed per-game (or per-pair) variance, mapped to Elo through the logistic
curve.  The SPRT is the generalised SPRT used by fishtest and fastchess for
the logistic Elo model: the log-likelihood ratio of the observed counts under
the two maximum-likelihood distributions whose mean scores are ``s0`` and
``s1`` (the expected scores of ``elo0`` and ``elo1``).  For large samples it
equals the normal approximation ``N (s1 - s0)(2x - s0 - s1) / (2v)``; unlike
that formula it stays sensible after a handful of one-sided games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution
_PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # per-game mean score of a pair scoring 0, 0.5, 1, 1.5, 2


def elo_to_score(elo_difference: float) -> float:
    """The expected score (0..1) of a player ``elo_difference`` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


def score_to_elo(score: float) -> float:
    """The Elo difference that gives this expected score; ``±inf`` at 0 and 1."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"a score is between 0 and 1, not {score!r}")
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def likelihood_of_superiority(wins: float, losses: float) -> float:
    """LOS: the probability that the first player is the stronger one (draws carry no information)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def _mean_and_variance(values: Sequence[float], counts: Sequence[float]) -> tuple[float, float, float]:
    total = float(sum(counts))
    mean = sum(v * c for v, c in zip(values, counts)) / total
    variance = sum(c * (v - mean) ** 2 for v, c in zip(values, counts)) / total
    return total, mean, variance


def _check_counts(counts: Sequence[float], size: int, what: str) -> None:
    if len(counts) != size or any(c < 0 for c in counts):
        raise ValueError(f"{what} needs {size} non-negative counts, not {list(counts)!r}")


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95% interval, as `arena match` prints it."""

    elo: float
    low: float
    high: float
    score: float          # mean score per game, 0..1
    games: int
    los: float            # likelihood of superiority, 0..1
    draw_ratio: float     # share of drawn games (trinomial) or of 1-1 pairs (pentanomial)

    @property
    def margin(self) -> float:
        """Half the interval's width: the ``+/-`` figure cutechess prints."""
        return (self.high - self.low) / 2.0

    def __str__(self) -> str:
        return f"{self.elo:+.1f} +/- {self.margin:.1f}"


def _estimate(mean: float, variance: float, samples: float, games: int, los: float, draw_ratio: float) -> EloEstimate:
    error = math.sqrt(variance / samples)
    low = min(1.0, max(0.0, mean - Z95 * error))
    high = min(1.0, max(0.0, mean + Z95 * error))
    return EloEstimate(score_to_elo(mean), score_to_elo(low), score_to_elo(high), mean, games, los, draw_ratio)


def elo_from_wdl(wins: int, draws: int, losses: int) -> EloEstimate:
    """The Elo difference from single-game results (trinomial model)."""
    counts = (losses, draws, wins)
    _check_counts(counts, 3, "wins/draws/losses")
    if sum(counts) == 0:
        raise ValueError("no games: the Elo difference is undefined")
    games, mean, variance = _mean_and_variance((0.0, 0.5, 1.0), counts)
    los = likelihood_of_superiority(wins, losses)
    return _estimate(mean, variance, games, int(games), los, draws / games)


def elo_from_pairs(pairs: Sequence[int]) -> EloEstimate:
    """The Elo difference from game pairs: ``pairs[k]`` = pairs that scored ``k/2`` points out of 2."""
    _check_counts(pairs, 5, "pentanomial counts (pairs scoring 0, 0.5, 1, 1.5, 2)")
    if sum(pairs) == 0:
        raise ValueError("no game pairs: the Elo difference is undefined")
    samples, mean, variance = _mean_and_variance(_PAIR_SCORES, pairs)
    # LOS from the pairs that were won or lost outright (a pair is a "game" of two halves).
    los = likelihood_of_superiority(pairs[3] + 2 * pairs[4], pairs[1] + 2 * pairs[0])
    return _estimate(mean, variance, samples, int(2 * samples), los, pairs[2] / samples)


def _regularised(counts: Sequence[float]) -> list[float]:
    """Replace zero counts by a tiny one, so early, one-sided samples still have a variance."""
    return [c if c > 0 else 1e-3 for c in counts]


def _constrained_mle(values: Sequence[float], observed: Sequence[float], score: float) -> list[float]:
    """The distribution closest to ``observed`` (maximum likelihood) whose mean score is ``score``.

    It is ``observed[i] / (1 + x * (values[i] - score))`` for the one ``x`` that
    makes the mean right; the mean condition is monotone in ``x``, so Newton's
    method, kept inside the range where every probability stays positive,
    finds it in a few steps.
    """
    shifts = [v - score for v in values]
    low = -1.0 / max(shifts) if max(shifts) > 0 else -1e9
    high = -1.0 / min(shifts) if min(shifts) < 0 else 1e9
    low, high = low + 1e-12 * abs(low), high - 1e-12 * abs(high)
    x = 0.0
    for _ in range(100):  # Newton's method, falling back to bisection when a step leaves the bracket
        terms = [d / (1.0 + x * d) for d in shifts]
        error = sum(p * t for p, t in zip(observed, terms))
        if abs(error) < 1e-13:
            break
        if error > 0:
            low = x
        else:
            high = x
        slope = -sum(p * t * t for p, t in zip(observed, terms))
        step = x - error / slope if slope else (low + high) / 2.0
        x = step if low < step < high else (low + high) / 2.0
    weights = [p / (1.0 + x * d) for p, d in zip(observed, shifts)]
    total = sum(weights)
    return [w / total for w in weights]


@dataclass(frozen=True)
class SPRT:
    """Sequential probability ratio test of H0: ``elo <= elo0`` against H1: ``elo >= elo1``.

    ``alpha`` is the chance of accepting H1 when H0 holds, ``beta`` of accepting
    H0 when H1 holds.  Feed it running totals and stop as soon as `verdict`
    is not None.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError(f"SPRT needs elo1 > elo0, got elo0={self.elo0} elo1={self.elo1}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise ValueError(f"SPRT {name} must be between 0 and 0.5, not {value}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): accept H0 at or below the lower bound, H1 at or above the upper one."""
        return math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha)

    def _llr(self, values: Sequence[float], counts: Sequence[float]) -> float:
        samples = float(sum(counts))
        if samples == 0:
            return 0.0
        regularised = _regularised(counts)
        total = sum(regularised)
        observed = [c / total for c in regularised]
        h0 = _constrained_mle(values, observed, elo_to_score(self.elo0))
        h1 = _constrained_mle(values, observed, elo_to_score(self.elo1))
        return samples * sum(p * math.log(q1 / q0) for p, q0, q1 in zip(observed, h0, h1))

    def llr(self, wins: int = 0, draws: int = 0, losses: int = 0, *, pairs: Sequence[int] | None = None) -> float:
        """The log-likelihood ratio of H1 over H0: from wins/draws/losses, or from pentanomial ``pairs``."""
        if pairs is not None:
            _check_counts(pairs, 5, "pentanomial counts")
            return self._llr(_PAIR_SCORES, pairs)
        counts = (losses, draws, wins)
        _check_counts(counts, 3, "wins/draws/losses")
        return self._llr((0.0, 0.5, 1.0), counts)

    def verdict(self, wins: int = 0, draws: int = 0, losses: int = 0, *,
                pairs: Sequence[int] | None = None) -> str | None:
        """``"H1"`` (elo1 accepted), ``"H0"`` (elo0 accepted) or None (keep playing)."""
        value = self.llr(wins, draws, losses, pairs=pairs)
        lower, upper = self.bounds
        if value >= upper:
            return "H1"
        if value <= lower:
            return "H0"
        return None


def pair_bucket(first_game_score: float, second_game_score: float) -> int:
    """The pentanomial bucket (0..4) of a pair from its two game scores (each 0, 0.5 or 1)."""
    total = first_game_score + second_game_score
    if not 0.0 <= total <= 2.0 or (total * 2) != int(total * 2):
        raise ValueError(f"game scores are 0, 0.5 or 1; got {first_game_score} and {second_game_score}")
    return int(total * 2)
