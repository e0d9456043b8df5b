"""Determinized Monte-Carlo search (PIMC) over the arena's engines, with a fixed budget.

For one decision: sample `worlds` full game states consistent with the seat's observation
(`games.worlds.WorldSampler`), and in each world try every legal action, then let every seat
play on with a rollout policy (the tactician, by default) for at most `depth` decisions or to
the end of the current hand, and score the state reached from the seat's point of view
(`evaluate`).  The action with the best mean score wins.  Every action is tried in the same
worlds with the same future chance (common random numbers), so the comparison is fair with few
worlds.  The budget is a count (worlds × actions × depth), never wall time: a fixed seed and
budget give the same choice on every machine.

The module needs the arena package (`pip install -e .`) besides the SDK.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from arena import games
from arena.games.worlds import WorldSampler


@dataclass(frozen=True)
class Budget:
    """How much search one decision gets: sampled worlds, and the rollout length cap in decisions."""

    worlds: int = 16
    depth: int = 60


@dataclass(frozen=True)
class PolicyTurn:
    """The slice of `mau_arena_sdk.Turn` a rollout policy reads, built from an engine state."""

    game_id: str
    ruleset: str
    seat: int
    decision: str
    observation: Any
    legal: Sequence[Any]


#: A rollout policy: a turn view in, one of its legal actions out.
Policy = Callable[[PolicyTurn], Any]


def _pile_points(cards, points: Mapping[str, int]) -> int:
    return sum(points.get(c, 0) for c in cards or ())


def hand_value(state, seat: int, points: Mapping[str, int]) -> float:
    """How well `seat` stands in an unfinished hand, roughly in [-1, 1]: fewer cards and points than the others."""
    n = state.players
    obs = state.observation(seat)
    sizes = obs.get("hand_sizes") or [0] * n
    mine = sizes[seat]
    others = [sizes[i] for i in range(n) if i != seat]
    pts = _pile_points(obs.get("hand"), points)
    # The others' cards are unknown to a real seat, but in a sampled world the hands are there:
    # use the card counts (the engine's public part) plus our own points.
    if not others:
        return 0.0
    diff = (sum(others) / len(others) - mine) / 6.0 - pts / 200.0
    return max(-1.0, min(1.0, diff))


def evaluate(state, seat: int, start_scores: Sequence[int] | None, points: Mapping[str, int],
             lower_is_better: bool) -> float:
    """The value, for `seat`, of the state a rollout reached: 1 for the best place, 0 for the worst,
    in between by score gains (hand ended) or by the cards still held (cut short)."""
    n = state.players
    if state.is_over:
        result = state.result()
        place = result.placements[seat]
        value = (n - place) / (n - 1) if n > 1 else 1.0
        return value + 0.1 * _score_edge(result.points, start_scores, seat, lower_is_better)
    obs = state.observation(seat)
    scores = obs.get("scores")
    edge = _score_edge(scores, start_scores, seat, lower_is_better) if scores else 0.0
    return 0.5 + 0.35 * edge + 0.15 * hand_value(state, seat, points)


def _score_edge(scores, start_scores, seat: int, lower_is_better: bool) -> float:
    """What `seat` gained on the others' mean since the decision, squashed to [-1, 1]."""
    if not scores or start_scores is None or len(scores) != len(start_scores):
        return 0.0
    gains = [s - s0 for s, s0 in zip(scores, start_scores)]
    others = [g for i, g in enumerate(gains) if i != seat]
    if not others:
        return 0.0
    edge = sum(others) / len(others) - gains[seat]
    if not lower_is_better:
        edge = -edge
    return max(-1.0, min(1.0, edge / 60.0))


class Searcher:
    """PIMC for one ruleset and set of options; `choose` is a pure function of (observation, legal, rng)."""

    def __init__(self, ruleset: str, options: Mapping[str, Any], policy: Policy, budget: Budget,
                 points: Mapping[str, int] | None = None, lower_is_better: bool = True) -> None:
        self.ruleset = ruleset
        self.options = dict(options)
        self.policy = policy
        self.budget = budget
        self.points = dict(points or {})
        self.lower_is_better = lower_is_better

    def values(self, observation, legal: Sequence[Any], rng: random.Random) -> list[float]:
        """The mean rollout value of each legal action (in the order of `legal`)."""
        seat = observation["seat"]
        sampler = WorldSampler(self.ruleset, observation, **self.options)
        start_scores = observation.get("scores")
        start_scores = list(start_scores) if start_scores else None
        totals = [0.0] * len(legal)
        texts = [str(a) for a in legal]
        counted = 0
        for _ in range(self.budget.worlds):
            world = sampler.sample(rng)
            rollout_seed = rng.getrandbits(32)
            try:
                values = [self.trial(world, text, seat, start_scores, random.Random(rollout_seed)) for text in texts]
            except Exception:  # an engine error in a sampled world (a world-sampling gap): drop the world
                continue
            counted += 1
            totals = [t + v for t, v in zip(totals, values)]
        return [t / max(1, counted) for t in totals]

    def trial(self, world, text: str, seat: int, start_scores, rng: random.Random) -> float:
        """The value for `seat` of playing `text` in `world` and rolling out."""
        trial = world.clone()
        trial.apply(text)
        self.rollout(trial, rng)
        return evaluate(trial, seat, start_scores, self.points, self.lower_is_better)

    def rollout(self, state, rng: random.Random) -> None:
        """Play on with the policy until the hand ends, the game ends or `depth` decisions passed."""
        hand = _hand_number(state)
        for _ in range(self.budget.depth):
            if state.is_over or _hand_number(state) != hand:
                return
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply(legal[0])
                continue
            seat = state.current
            turn = PolicyTurn("rollout", self.ruleset, seat, state.decision, state.observation(seat), legal)
            try:
                action = self.policy(turn)
            except Exception:  # a policy that trips over an odd position: any legal move will do
                action = rng.choice(legal)
            state.apply(action)

    def choose(self, observation, legal: Sequence[Any], rng: random.Random):
        """The legal action with the best mean value (the first of equals)."""
        values = self.values(observation, legal, rng)
        best = max(range(len(legal)), key=lambda k: (values[k], -k))
        return legal[best]


def _hand_number(state):
    """Which hand (shedding, DD MAU) or round (Mose) of the match the state is in."""
    return getattr(state, "hand_number", None) or getattr(state, "round", None)
