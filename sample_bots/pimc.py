"""Determinized Monte-Carlo search (PIMC) over the arena's engines, with a fixed budget.

For one decision: sample `worlds` full game states consistent with the seat's observation
(`games.worlds.WorldSampler`), and in each world try every legal action, then let every seat
play on with a rollout policy (the tactician, by default) for at most `depth` decisions or to
the end of the current hand, and score the state reached from the seat's point of view
(`evaluate`).  The action with the best mean score wins, the rollout policy's own choice (the
prior) among equals; with `Budget.confidence` > 0 the prior is kept unless the best action's
gain over it, world by world, exceeds that many standard errors.  A `inference.CardTracker` may move each sampled world's
cards to agree with the public history first.  Every action is tried in the same worlds with
the same future chance (common random numbers), so the comparison is fair with few worlds.
Rollout actions reach the policy as `Move`s (the engine action with its cards parsed once).
The budget is a count (worlds × actions × depth), never wall time: a fixed seed and
budget give the same choice on every machine.  One guard aside, which is no budget: with
`Searcher.stop_at` set (the sample searcher sets it from the turn's time limit), a search still
drawing worlds at that moment decides on the worlds it has, so a slow or busy machine never answers
late; where the limit leaves room, as in `arena match` runs with `--move-ms 60000`, it never acts.
With `Budget.prune` > 0 the worlds are raced (`Searcher.race`): an action far behind the leader
stops getting rollouts and the rest meet more worlds, for the same count of rollouts at most (on in
Online Mau-Mau: README, Session 8).

The module needs the arena package (`pip install -e .`) besides the SDK.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from arena.games.worlds import WorldError, WorldSampler


@dataclass(frozen=True)
class Budget:
    """How much search one decision gets: sampled worlds, and the rollout length cap in decisions."""

    worlds: int = 16
    depth: int = 60
    confidence: float = 0.0  # standard errors of gain needed to play against the rollout policy's choice
    tries: int = 1  # worlds drawn, at most, per world kept: the first the card tracker allows (else the least wrong)
    edge: float = 0.1  # weight of the score gained on the others in the value of a finished game (placement: 1)
    prune: float = 0.0  # racing (`Searcher.race`): standard errors behind the leader that end an action's rollouts; 0: off
    warmup: int = 8  # racing: worlds every action meets before any is pruned
    most: int = 0  # racing: the most worlds a decision (0: 3 times `worlds`)


class PolicyTurn:
    """The slice of `mau_arena_sdk.Turn` a rollout policy reads, built from an engine state (read-only by
    agreement: a plain slotted class, because a rollout builds one at every decision)."""

    __slots__ = ("game_id", "ruleset", "seat", "decision", "observation", "legal")

    def __init__(self, game_id: str, ruleset: str, seat: int, decision: str, observation: Any,
                 legal: Sequence[Any]) -> None:
        self.game_id = game_id
        self.ruleset = ruleset
        self.seat = seat
        self.decision = decision
        self.observation = observation
        self.legal = legal

    def __repr__(self) -> str:
        return f"PolicyTurn({self.game_id!r}, {self.ruleset!r}, seat {self.seat}, {self.decision!r}, {self.legal!r})"


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
             lower_is_better: bool, edge_weight: float = 0.1) -> float:
    """The value, for `seat`, of the state a rollout reached: 1 for the best place, 0 for the worst,
    in between by score gains (hand ended) or by the cards still held (cut short); a finished game
    adds `edge_weight` times the score gained on the others (squashed to [-1, 1])."""
    n = state.players
    if state.is_over:
        result = state.result()
        place = result.placements[seat]
        value = (n - place) / (n - 1) if n > 1 else 1.0
        if not edge_weight:
            return value
        return value + edge_weight * _score_edge(result.points, start_scores, seat, lower_is_better)
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

    #: The moment (`time.monotonic()`) after which `table` and `race` draw no more worlds and decide on those searched
    #: (at least one); None: the whole budget, whatever the time (the pure function above).
    stop_at: float | None = None

    def __init__(self, ruleset: str, options: Mapping[str, Any], policy: Policy, budget: Budget,
                 points: Mapping[str, int] | None = None, lower_is_better: bool = True) -> None:
        self.ruleset = ruleset
        self.options = dict(options)
        self.policy = policy
        self.budget = budget
        self.points = dict(points or {})
        self.lower_is_better = lower_is_better

    def values(self, observation, legal: Sequence[Any], rng: random.Random, tracker=None,
               history=None) -> list[float]:
        """The mean rollout value of each legal action (in the order of `legal`)."""
        table = self.table(observation, legal, rng, tracker, history)
        return [sum(column) / max(1, len(column)) for column in zip(*table)] if table else [0.0] * len(legal)

    def sampler(self, observation, history=None) -> WorldSampler:
        """The worlds of this observation: with `history` (an `arena.games.worlds.Tracker` fed with the
        game's public events) every card the history places is where it is; without (or if the history
        does not fit), from the observation alone."""
        if history is not None:
            try:
                return WorldSampler(self.ruleset, observation, history, **self.options)
            except WorldError:
                pass
        return WorldSampler(self.ruleset, observation, **self.options)

    def opening(self, observation, history=None) -> tuple[int, WorldSampler, list | None, int]:
        """What every search of one decision starts from: the seat, its worlds (`sampler`), the scores at
        the root (a copy, or None) and how many discards the seat sees."""
        scores = observation.get("scores")
        return (observation["seat"], self.sampler(observation, history), list(scores) if scores else None,
                len(observation.get("discard") or ()))

    def world(self, sampler: WorldSampler, rng: random.Random, tracker, seat: int, visible: int):
        """One sampled world, made to agree with `tracker` (an `inference.CardTracker`, optional).

        With the engine's history in `sampler` the pile and the pools are already right, and the
        tracker's voids (and, with its `play_model`, its tells) judge the deals: up to `Budget.tries` are drawn and the first that breaks no
        void is built (else the one that breaks the fewest), which is rejection sampling of the deals
        where every seat that drew held nothing to play; a deal is judged by its hands, before a state
        is built from it (`WorldSampler.sample(judge=...)`), so a rejection costs a shuffle.  Without it the tracker moves cards (`agree`)."""
        if tracker is None:
            return sampler.sample(rng)
        if sampler.tracker is None or sampler.history is None:
            return tracker.agree(sampler.sample(rng), seat, rng, visible)
        if not tracker.judging():
            return sampler.sample(rng)
        return sampler.sample(rng, judge=lambda hands: tracker.broken(hands, seat), tries=self.budget.tries)

    def table(self, observation, legal: Sequence[Any], rng: random.Random, tracker=None,
              history=None) -> list[list[float]]:
        """The rollout value of each legal action in each sampled world: one row per world.

        `history` (an `arena.games.worlds.Tracker`, optional) places the cards the public history
        tells; `tracker` (an `inference.CardTracker`, optional) makes each sampled world agree with
        what it infers besides (`world`)."""
        seat, sampler, start_scores, visible = self.opening(observation, history)
        texts = [str(a) for a in legal]
        rows = []
        for _ in range(self.budget.worlds):
            if rows and self.out_of_time():
                break
            try:
                world = self.world(sampler, rng, tracker, seat, visible)
                rollout_seed = rng.getrandbits(32)
                rows.append([self.trial(world, text, seat, start_scores, random.Random(rollout_seed))
                             for text in texts])
            except Exception:  # an engine error in a sampled world (a world-sampling gap): drop the world
                continue
        return rows

    def out_of_time(self) -> bool:
        """Whether `stop_at` has passed (checked once a world)."""
        return self.stop_at is not None and time.monotonic() >= self.stop_at

    def trial(self, world, text: str, seat: int, start_scores, rng: random.Random) -> float:
        """The value for `seat` of playing `text` in `world` and rolling out."""
        trial = world.clone()
        trial.apply(text)
        self.rollout(trial, rng)
        return self.end_value(trial, seat, start_scores)

    def end_value(self, state, seat: int, start_scores) -> float:
        """The value for `seat` of the state a trial ended in: a finished game by `evaluate`, one cut short by
        `cut_value` (every kind of trial ends here, so a searcher's own `cut_value` applies to all of them)."""
        if state.is_over:
            return evaluate(state, seat, start_scores, self.points, self.lower_is_better, self.budget.edge)
        return self.cut_value(state, seat, start_scores)

    def cut_value(self, state, seat: int, start_scores) -> float:
        """The value for `seat` of a rollout that stopped before the game's end (at the budget's depth, or at the end
        of a hand): `evaluate`'s rough count here; a fitted model in `leaf_value` and `field_leaf`."""
        return evaluate(state, seat, start_scores, self.points, self.lower_is_better, self.budget.edge)

    def rollout(self, state, rng: random.Random, steps: int | None = None) -> None:
        """Play on with the policy until the hand ends, the game ends or `steps` decisions (default: the budget's
        `depth`) passed."""
        hand = hand_number(state)
        policy, ruleset, legal_actions, apply = self.policy, self.ruleset, state.legal_actions, state.apply
        moves_of = _MOVES.get
        for _ in range(self.budget.depth if steps is None else steps):
            if state.is_over or hand_number(state) != hand:
                return
            legal = legal_actions()
            if len(legal) == 1:
                apply(legal[0])
                continue
            seat = state.current
            moves = []
            for a in legal:  # `move_of`, inline: the Move made once per engine action (they are the engine's own)
                move = moves_of(id(a))
                moves.append(move if move is not None and move.action is a else move_of(a))
            turn = PolicyTurn("rollout", ruleset, seat, state.decision, state.observation(seat), moves)
            try:
                action = policy(turn)
            except Exception:  # a policy that trips over an odd position: any legal move will do
                action = rng.choice(moves)
            apply(action.action if isinstance(action, Move) else action)

    def choose(self, observation, legal: Sequence[Any], rng: random.Random, prior: int | None = None,
               tracker=None, history=None):
        """The legal action with the best mean value.

        `prior` is the index of the rollout policy's own choice: the search leaves it only for an
        action whose mean gain over it, world by world, exceeds `Budget.confidence` standard errors
        (the worlds are few, and a noisy difference is no reason to play against the policy).
        Among equals the prior, then the first, wins.  With `Budget.prune` > 0 the worlds are raced instead
        (`race`)."""
        if self.budget.prune > 0:
            return legal[self.race(observation, legal, rng, prior, tracker, history)]
        rows = self.table(observation, legal, rng, tracker, history)
        if not rows:
            return legal[prior if prior is not None else 0]
        n = len(rows)
        values = [sum(column) / n for column in zip(*rows)]
        best = max(range(len(legal)), key=lambda k: (values[k], k == prior, -k))
        if prior is None or best == prior:
            return legal[best]
        gains = [row[best] - row[prior] for row in rows]
        mean = sum(gains) / n
        spread = (sum((g - mean) ** 2 for g in gains) / max(1, n - 1)) ** 0.5
        if mean > self.budget.confidence * spread / n ** 0.5:
            return legal[best]
        return legal[prior]


    def race(self, observation, legal: Sequence[Any], rng: random.Random, prior: int | None = None,
             tracker=None, history=None) -> int:
        """The index of the chosen action, the worlds raced: the rollouts an action stops getting go to more worlds.

        The flat search spends `worlds` × `len(legal)` rollouts; so does this, but world by world, and after
        `Budget.warmup` worlds an action whose mean, world by world, trails the leader's by more than
        `Budget.prune` standard errors of their difference gets no more rollouts (never the prior).  The actions still in the
        race meet every world drawn so far, so they stay compared on the same worlds; the race ends when the
        rollouts are spent, one action is left or `Budget.most` worlds were drawn.  The choice among those
        left is `choose`'s (the prior unless another gains `Budget.confidence` standard errors over it).  A count of rollouts, never time: the same on every machine."""
        budget = self.budget
        seat, sampler, start_scores, visible = self.opening(observation, history)
        texts = [str(a) for a in legal]
        alive = list(range(len(legal)))
        columns: dict[int, list[float]] = {k: [] for k in alive}
        spend = budget.worlds * len(legal)
        most = budget.most or 3 * budget.worlds
        drawn = n = 0
        while len(alive) > 1 and spend >= len(alive) and drawn < most:
            if n and self.out_of_time():
                break
            drawn += 1
            try:
                world = self.world(sampler, rng, tracker, seat, visible)
                rollout_seed = rng.getrandbits(32)
                values = [self.trial(world, texts[k], seat, start_scores, random.Random(rollout_seed)) for k in alive]
            except Exception:  # an engine error in a sampled world (a world-sampling gap): drop the world
                continue
            spend -= len(alive)
            n += 1
            for k, value in zip(alive, values):
                columns[k].append(value)
            if n >= max(2, budget.warmup):
                alive = survivors(alive, columns, budget.prune, prior)
        if n == 0:
            return prior if prior is not None else 0
        means = {k: sum(columns[k]) / n for k in alive}
        best = max(alive, key=lambda k: (means[k], k == prior, -k))
        if prior is None or best == prior:
            return best
        gains = [a - b for a, b in zip(columns[best], columns[prior])]
        mean = sum(gains) / n
        spread = (sum((g - mean) ** 2 for g in gains) / max(1, n - 1)) ** 0.5
        return best if mean > budget.confidence * spread / n ** 0.5 else prior


def survivors(alive: list[int], columns: Mapping[int, list[float]], prune: float, keep: int | None = None) -> list[int]:
    """The actions of `alive` whose mean, world by world, trails the leader's by at most `prune` standard errors
    of the difference (`columns[k]`: action k's values in the same worlds; the leader and `keep`, the prior,
    always survive: the race looks again after every world, so a threshold is crossed by chance far more often
    than once in a single test, and only the final `Budget.confidence` test may leave the prior)."""
    n = len(columns[alive[0]])
    means = {k: sum(columns[k]) / n for k in alive}
    leader = max(alive, key=lambda k: means[k])
    kept = []
    for k in alive:
        if k == leader or k == keep:
            kept.append(k)
            continue
        gaps = [a - b for a, b in zip(columns[leader], columns[k])]
        mean = means[leader] - means[k]
        spread = (sum((g - mean) ** 2 for g in gaps) / (n - 1)) ** 0.5
        if mean <= prune * spread / n ** 0.5:
            kept.append(k)
    return kept


class Move:
    """An engine action as a rollout policy sees it, with its card codes parsed once (rollouts are hot)."""

    __slots__ = ("action", "verb", "args", "cards", "text")

    def __init__(self, action) -> None:
        self.action = action
        self.verb = action.verb
        self.args = action.args
        self.cards = action.cards
        self.text = str(action)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Move({self.text!r})"


#: id of an engine action -> its `Move` (which holds the action: an entry is the action's only while
#: `move.action is action`).  The shedding engines hand out the same action objects at every decision
#: (one per card), so a lookup by identity skips the dataclass's hash.
_MOVES: dict[int, Move] = {}


def move_of(action) -> Move:
    """The `Move` of an engine action, made once per action object the engine keeps (a deck's worth of them)."""
    move = _MOVES.get(id(action))
    if move is None or move.action is not action:
        move = Move(action)
        if len(_MOVES) < 50_000:
            _MOVES[id(action)] = move
    return move


def hand_number(state):
    """Which hand (shedding, DD MAU) or round (Mose) of the match the state is in."""
    return getattr(state, "hand_number", None) or getattr(state, "round", None)
