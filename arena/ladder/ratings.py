"""Ratings: a live Elo for the dashboard and a Bradley-Terry fit for the table.

The live Elo moves after every game so that the dashboard shows progress
at once; it depends on the order of games, so it is never the authority.
The authoritative table is the maximum-likelihood Bradley-Terry fit over
every rated result on the Elo scale (what Ordo and BayesElo compute), with
95% intervals from the inverse Fisher information.  The leaderboard ranks
the fit by the lower end of each interval, not by the rating
(`arena.ladder.ranking`).

The result unit is the set: the ladder plays every game on a fresh deal, as
a set of one (its set id is its game id), so every game is one observation
per pair.  Duplicate sets, as `arena match` and earlier ladders played them,
share one deal across seat rotations, so their games are not independent:
their pairwise results are summed per set and the set enters the fit as one
observation with a fractional score (e.g. 1.5 of 2 -> 0.75), which cancels
the luck of the deal.  A database with such sets keeps rating them that way.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Mapping, Sequence

import numpy as np

from arena.ladder.elo import elo_to_score  # the match statistics' Elo <-> score conversion

BASE_RATING = 1500.0
ELO_PER_NATURAL = 400.0 / math.log(10.0)  # Elo points per unit of natural log-odds
Z95 = 1.959963984540054


def single_threaded_linear_algebra() -> None:
    """Run numpy's BLAS on the calling thread only, for the rest of the process (`arena serve`).

    A fit solves a few bots x bots systems: at 200 bots OpenBLAS's own threads made one cost
    some 155 ms of CPU instead of 20 ms on two busy cores (its idle threads spin), none of it
    on the fitting thread, so the ladder's `refit_share` cap, which times that thread, did not
    see it.  threadpoolctl sets the limit in the loaded library, whatever imported numpy first
    (an environment variable only works before that).
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


@dataclass(frozen=True)
class RatedGame:
    """One finished game as the fit sees it: who sat there and where they placed."""

    set_id: str
    placements: Mapping[str, int]  # bot -> placement (1 is best; ties share a placement)


@dataclass(frozen=True)
class Rating:
    bot: str
    rating: float
    ci: float  # half-width of the 95% interval, Elo points (inf when undetermined)
    games: int
    score: float  # points scored in pairwise comparisons / comparisons, 0..1


def pair_scores(placements: Mapping[str, int]) -> Iterable[tuple[str, str, float]]:
    """Pairwise results of one game by placement: (a, b, score of a), ties are half points."""
    for a, b in combinations(sorted(placements), 2):
        pa, pb = placements[a], placements[b]
        yield a, b, 1.0 if pa < pb else 0.0 if pa > pb else 0.5


# ---------------------------------------------------------------- live Elo


class LiveElo:
    """Incremental Elo per ruleset, updated after every game.

    A game of n players counts as its n(n-1)/2 pairwise results; the K-factor
    is divided by n-1 so that one game moves a rating about as much as a
    two-player game does, whatever the table size.
    """

    def __init__(self, k: float = 24.0) -> None:
        self.k = k
        self._ratings: dict[str, dict[str, float]] = defaultdict(dict)

    def rating(self, ruleset: str, bot: str) -> float:
        return self._ratings[ruleset].get(bot, BASE_RATING)

    def ratings(self, ruleset: str) -> dict[str, float]:
        return dict(self._ratings[ruleset])

    def update(self, ruleset: str, placements: Mapping[str, int]) -> dict[str, float]:
        """Apply one game's result; returns each seat's rating change."""
        table = self._ratings[ruleset]
        before = {bot: table.get(bot, BASE_RATING) for bot in placements}
        delta = dict.fromkeys(placements, 0.0)
        k = self.k / max(1, len(placements) - 1)
        for a, b, score in pair_scores(placements):
            expected = elo_to_score(before[a] - before[b])
            delta[a] += k * (score - expected)
            delta[b] -= k * (score - expected)
        for bot, change in delta.items():
            table[bot] = before[bot] + change
        return delta


# ---------------------------------------------------------- Bradley-Terry


@dataclass
class PairTable:
    """Per-pair totals the fit needs: observations n[i,j] and the score of i against j."""

    bots: list[str]
    n: np.ndarray  # symmetric, observations (sets) between i and j
    s: np.ndarray  # s[i,j] + s[j,i] == n[i,j]
    games: np.ndarray  # games played per bot (not sets)
    comparisons: np.ndarray  # pairwise comparisons per bot (for the score %)
    points: np.ndarray  # pairwise points per bot


    @classmethod
    def from_totals(
        cls,
        set_pairs: Iterable[tuple[str, str, float, float]],
        per_bot: Mapping[str, tuple[int, int, float]],
    ) -> "PairTable":
        """Build from aggregated rows (so a database can do the summing).

        set_pairs: (a, b, observations, score of a) summed over sets, where each
            set contributes one observation and a's mean score in it;
        per_bot: bot -> (games, pairwise comparisons, pairwise points).
        """
        bots = sorted(per_bot)
        index = {bot: i for i, bot in enumerate(bots)}
        size = len(bots)
        n = np.zeros((size, size))
        s = np.zeros((size, size))
        for a, b, observations, score in set_pairs:
            i, j = index[a], index[b]
            n[i, j] += observations
            n[j, i] += observations
            s[i, j] += score
            s[j, i] += observations - score
        return cls(
            bots=bots,
            n=n,
            s=s,
            games=np.array([per_bot[b][0] for b in bots], dtype=int),
            comparisons=np.array([per_bot[b][1] for b in bots], dtype=int),
            points=np.array([per_bot[b][2] for b in bots], dtype=float),
        )


def aggregate(games: Iterable[RatedGame]) -> PairTable:
    """Sum pair scores per set, then count each (set, pair) as one observation."""
    per_set: dict[tuple[str, str, str], list[float]] = {}
    games_played: dict[str, int] = defaultdict(int)
    comparisons: dict[str, int] = defaultdict(int)
    points: dict[str, float] = defaultdict(float)
    for game in games:
        for bot in game.placements:
            games_played[bot] += 1
        for a, b, score in pair_scores(game.placements):
            cell = per_set.setdefault((game.set_id, a, b), [0.0, 0.0])
            cell[0] += score
            cell[1] += 1.0
            comparisons[a] += 1
            comparisons[b] += 1
            points[a] += score
            points[b] += 1.0 - score
    pairs: dict[tuple[str, str], list[float]] = {}
    for (_set, a, b), (score, count) in per_set.items():
        cell = pairs.setdefault((a, b), [0.0, 0.0])
        cell[0] += 1.0
        cell[1] += score / count
    return PairTable.from_totals(
        ((a, b, observations, score) for (a, b), (observations, score) in pairs.items()),
        {bot: (games_played[bot], comparisons[bot], points[bot]) for bot in games_played},
    )


@dataclass(frozen=True)
class _Pairs:
    """The pairs that met (i < j), with their observations and scores: the fit's work is over these only.

    A ladder's who-met-whom matrix is sparse (200 bots, a few thousand games: most pairs never
    met), and every term of the likelihood, its gradient and its information is zero for a pair
    that did not meet, so the fit sums over the met pairs instead of the whole bots x bots matrix.
    """

    i: np.ndarray
    j: np.ndarray
    n: np.ndarray  # observations, prior draws included
    s: np.ndarray  # i's score against j (s_ji = n - s_ij)

    @classmethod
    def of(cls, n: np.ndarray, s: np.ndarray) -> "_Pairs":
        i, j = np.nonzero(np.triu(n > 0, k=1))
        return cls(i, j, n[i, j], s[i, j])

    def log_likelihood(self, theta: np.ndarray) -> float:
        """The log-likelihood at ``theta``: the sum of s_ij log p_ij + s_ji log p_ji over the met pairs,
        with p_ij = 1 / (1 + exp(-(theta_i - theta_j)))."""
        diff = theta[self.i] - theta[self.j]
        return -float(self.s @ np.logaddexp(0.0, -diff) + (self.n - self.s) @ np.logaddexp(0.0, diff))

    def information_at(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The gradient of the log-likelihood and the Fisher information (bots x bots) at ``theta``."""
        size = theta.shape[0]
        p = 1.0 / (1.0 + np.exp(-(theta[self.i] - theta[self.j])))
        residual = self.s - self.n * p  # i's surplus against j; j's is its negative
        gradient = np.bincount(self.i, residual, size) - np.bincount(self.j, residual, size)
        weight = self.n * p * (1.0 - p)
        information = np.zeros((size, size))
        information[self.i, self.j] = -weight
        information[self.j, self.i] = -weight
        information[np.diag_indices(size)] = np.bincount(self.i, weight, size) + np.bincount(self.j, weight, size)
        return gradient, information


def fit_bradley_terry(
    games: "Iterable[RatedGame] | PairTable",
    prior_draws: float = 2.0,
    anchor: str | None = None,
    anchor_rating: float = BASE_RATING,
    tolerance: float = 1e-9,
    max_iterations: int = 100,
) -> list[Rating]:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale, highest rating first (the leaderboard
    orders them by the interval's lower end instead: `arena.ladder.ranking`, `standings_from`).

    prior_draws: virtual draws added to every pair that met (as BayesElo's
        prior), so that an undefeated bot gets a finite rating; 0 gives the
        plain MLE.
    anchor: the bot held at anchor_rating; by default the mean is held there.
    Intervals come from the inverse Fisher information under the anchoring
    constraint (the pseudo-inverse for the mean, the reduced matrix for a bot).
    """
    table = games if isinstance(games, PairTable) else aggregate(games)
    size = len(table.bots)
    if size == 0:
        return []
    if anchor is not None and anchor not in table.bots:
        raise ValueError(f"anchor {anchor!r} has no rated games")
    met = table.n > 0
    n = table.n + np.where(met, prior_draws, 0.0)
    s = table.s + np.where(met, prior_draws / 2.0, 0.0)
    # The ratings are defined up to a common shift: fix the gauge with the
    # rank-one term ones/size (the step is then mean-free) and add a whisper
    # of ridge so that separate components (bots that never met anyone of
    # another group) keep the system solvable without moving any rating.
    gauge = np.full((size, size), 1.0 / size)
    ridge = 1e-9 * np.eye(size)

    pairs = _Pairs.of(n, s)
    information_at = pairs.information_at

    theta = np.zeros(size)
    current = pairs.log_likelihood(theta)
    for _ in range(max_iterations):
        gradient, information = information_at(theta)
        step = np.linalg.solve(information + gauge + ridge, gradient)
        step -= step.mean()
        # Damped Newton: the log-likelihood is concave; halve the step until it does not fall.
        scale = 1.0
        while True:
            candidate = theta + scale * step
            value = pairs.log_likelihood(candidate)
            if value >= current - 1e-9 * max(1.0, abs(current)) or scale < 1e-4:
                break
            scale /= 2.0
        theta, current = candidate, value
        if np.max(np.abs(scale * step)) < tolerance:
            break

    _gradient, information = information_at(theta)
    component = _components(table.n, pairs)
    if anchor is None:
        theta = theta - theta.mean()
        # For a connected comparison graph this is exactly the pseudo-inverse of the information.
        # With several components, only the pinned one's intervals mean anything; computed over
        # all bots, the whisper of ridge made them millions of Elo wide (±5383471 on the dashboard).
        pinned = _anchor_component(component, table.bots, None)
        inside = [i for i in range(size) if component[i] == pinned]
        covariance = np.zeros((size, size))
        sub_gauge = np.full((len(inside), len(inside)), 1.0 / len(inside))
        covariance[np.ix_(inside, inside)] = (
            np.linalg.inv(information[np.ix_(inside, inside)] + sub_gauge + ridge[: len(inside), : len(inside)])
            - sub_gauge
        )
        origin = anchor_rating
    else:
        a = table.bots.index(anchor)
        theta = theta - theta[a]
        keep = [i for i in range(size) if i != a]
        covariance = np.zeros((size, size))
        if keep:
            reduced = information[np.ix_(keep, keep)] + ridge[: len(keep), : len(keep)]
            covariance[np.ix_(keep, keep)] = np.linalg.inv(reduced)
        origin = anchor_rating
    variances = np.clip(np.diag(covariance), 0.0, None)
    pinned = _anchor_component(component, table.bots, anchor)  # once: it counts every bot's component
    ratings = []
    for i, bot in enumerate(table.bots):
        undetermined = size > 1 and component[i] != pinned
        ci = math.inf if undetermined else Z95 * math.sqrt(variances[i]) * ELO_PER_NATURAL
        comparisons = int(table.comparisons[i])
        ratings.append(
            Rating(
                bot=bot,
                rating=origin + float(theta[i]) * ELO_PER_NATURAL,
                ci=ci,
                games=int(table.games[i]),
                score=float(table.points[i]) / comparisons if comparisons else 0.5,
            )
        )
    ratings.sort(key=lambda r: (-r.rating, r.bot))
    return ratings


def _components(n: np.ndarray, pairs: "_Pairs | None" = None) -> list[int]:
    """Connected components of the who-met-whom graph: each bot's label is the lowest index in its component.

    Labels spread along the met pairs (each pair takes the lower of its two labels) until none
    changes: as many rounds as the graph is wide, each a few array operations over the pairs.
    """
    size = n.shape[0]
    if pairs is None:
        pairs = _Pairs.of(n, n)
    label = np.arange(size)
    while True:
        lower = np.minimum(label[pairs.i], label[pairs.j])
        spread = label.copy()
        np.minimum.at(spread, pairs.i, lower)
        np.minimum.at(spread, pairs.j, lower)
        if np.array_equal(spread, label):
            return [int(x) for x in label]
        label = spread


def _anchor_component(component: list[int], bots: Sequence[str], anchor: str | None) -> int:
    """The component whose ratings are pinned: the anchor's, or the largest one."""
    if anchor is not None:
        return component[list(bots).index(anchor)]
    counts: dict[int, int] = defaultdict(int)
    for label in component:
        counts[label] += 1
    return max(counts, key=lambda label: (counts[label], -label))
