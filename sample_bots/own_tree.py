"""The searcher's own later decisions chosen by a tree over its information sets, shared by the worlds (2-seat `maumau`).

The flat search (`pimc.Searcher`) tries every legal action in every sampled world and lets both seats play on as
the tactician, so an action's value assumes that the searcher's own later play is the tactician's.  `own_plan.py`
chose that later play inside each world (the world's best: strategy fusion, measured no better), `second_step.py`
across the worlds that share an information set once, after the fact (few worlds share one).  This is the online
form, single-observer information-set search (POMCP) below the root:

* the root stays the flat search's: every legal action in every world with one rollout seed, so the actions are
  compared on the same worlds (`pimc.Searcher.choose` picks among them as it does for the flat search);
* below a root action, the searcher's own next `own` decisions with a choice (a `call` is none) are **nodes** keyed
  by what the searcher knows there (`key`): the root action, the text of every action since it (a draw's card is not
  in its text, a play's is, as at the table) and its own hand.  The worlds that reach a node share its statistics,
  whatever else they hold, so a node's choice is the same for every world in it: no fusion;
* at a node the action is picked by a PUCT rule with the tactician's choice as its prior (`select`): a node plays
  the tactician's choice until `widen` worlds have reached it, so the first trials are the flat search's, and then
  another action is tried as the node's visits grow and kept if it does better in the worlds that reached it;
* the rest of the trial is the tactician's for both seats, and its value (`pimc.evaluate`) is backed up into every
  node it passed.

Measured (README, Session 12): `--tree 2 --worlds 120` (about 90 ms a decision) scored +75.9 in-process on 400 fresh
games, -0.025 ± 0.089 pair points deal by deal against the flat default on the same deals (+0.068 ± 0.064 over 800
games with the screen's), so it is off by default (`searcher.TREE`): most nodes are reached by a few worlds.  A trial
cut before the hand's end is valued by the searcher's `cut_value`, so with `--leaf D` (`leaf_value.LeafValued`) a node
learns from the fitted win chance instead of one bit; `--tree 2 --leaf 16 --worlds 150` was +10 Elo over the flat
default on 800 fresh games, inside the noise (Session 15).

Against the tactician a world (the opponent's hand, the stock's order, every later reshuffle's seed) makes the hand
a one-player problem, so the trials of one world differ only by the searcher's own choices.  Reads nothing but the
sampled worlds, as the rollouts do; the worlds come from the parent class (`posterior.PosteriorSearcher`).  The
budget is a count (worlds, `own` decisions), never time, and the search is a pure function of its rng: the nodes
are visited in the order the trials run.
"""

from __future__ import annotations

import math

from pimc import Move, PolicyTurn, hand_number, move_of


class Node:
    """One information set of the searcher's below a root action: visits and summed values per action text."""

    __slots__ = ("visits", "total", "stats")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.stats: dict[str, list] = {}  # action text -> [visits, summed value]

    def mean(self, text: str) -> float | None:
        entry = self.stats.get(text)
        return entry[1] / entry[0] if entry else None

    def back(self, text: str, value: float) -> None:
        self.visits += 1
        self.total += value
        entry = self.stats.get(text)
        if entry is None:
            self.stats[text] = [1, value]
        else:
            entry[0] += 1
            entry[1] += value


class OwnTree:
    """A mixin for a `pimc.Searcher`: each trial's own next `own` decisions are chosen by nodes the worlds share
    (module docstring); set `own`, `explore` and `prior` on the instance or the class."""

    own: int = 2
    #: PUCT's exploration weight (values lie in [0, 1]).
    explore: float = 0.5
    #: The prior weight of the tactician's choice at a node; the other actions share the rest.
    prior: float = 0.5
    #: Visits a node needs before it tries anything but the tactician's choice: most nodes are reached by a few
    #: worlds (the opponent's reply and the searcher's draws split them), and exploring there is noise in the root's
    #: values with nothing learned (with 120 worlds and `own` 2, 97% of the nodes had fewer than 5 visits).
    widen: int = 8
    #: Key the nodes by what the choice depends on rather than by the whole history since the root (`key`).
    merge: bool = False
    _nodes: dict | None = None

    def table(self, observation, legal, rng, tracker=None, history=None):
        self._nodes = {}
        try:
            return super().table(observation, legal, rng, tracker, history)
        finally:
            self._nodes = None

    def race(self, observation, legal, rng, prior=None, tracker=None, history=None):
        self._nodes = {}
        try:
            return super().race(observation, legal, rng, prior, tracker, history)
        finally:
            self._nodes = None

    def trial(self, world, text: str, seat: int, start_scores, rng) -> float:
        nodes = self._nodes if self._nodes is not None else {}
        state = world.clone()
        state.apply(text)
        hand = hand_number(state)
        policy, ruleset = self.policy, self.ruleset
        own = self.own
        texts = [text]  # every action since the root: the public part of the node's key
        path: list[tuple[Node, str]] = []
        steps = self.budget.depth  # decisions left to play
        while own > 0 and steps > 0:  # until the own decisions are chosen; then the tactician's rollout
            steps -= 1
            if state.is_over or hand_number(state) != hand:
                break
            legal = state.legal_actions()
            if len(legal) == 1:
                texts.append(move_of(legal[0]).text)
                state.apply(legal[0])
                continue
            mover = state.current
            moves = [move_of(a) for a in legal]
            observation = state.observation(mover)
            turn = PolicyTurn("rollout", ruleset, mover, state.decision, observation, moves)
            try:
                choice = policy(turn)
            except Exception:  # a policy that trips over an odd position: any legal move will do
                choice = rng.choice(moves)
            pick = next((i for i, m in enumerate(moves) if m is choice or m.action is choice), 0)
            if mover == seat and state.decision != "call":
                key = self.key(texts, observation)
                node = nodes.get(key)
                if node is None:
                    node = nodes[key] = Node()
                pick = self.select(node, moves, pick)
                path.append((node, moves[pick].text))
                own -= 1
            if own > 0:
                texts.append(moves[pick].text)
            state.apply(moves[pick].action)
        if own == 0 and steps > 0 and not state.is_over and hand_number(state) == hand:
            self.rollout(state, rng, steps)  # the rest is the flat search's rollout (the same hand, the steps left)
        value = self.end_value(state, seat, start_scores)  # a cut trial by the searcher's `cut_value` (`leaf_value`)
        for node, chosen in path:
            node.back(chosen, value)
        return value

    def key(self, texts, observation) -> tuple:
        """What the searcher knows at a node: the actions since the root (their public texts) and its own hand; with
        `merge`, what its choice there depends on instead (the root action, its hand, the pile's top, the suit named,
        the hand sizes, the decision and whether it drew), so that worlds whose histories differ share the node."""
        hand = tuple(sorted(observation.get("hand") or ()))
        if not self.merge:
            return tuple(texts), hand
        discard = observation.get("discard") or ()
        return (texts[0], hand, discard[-1] if discard else None, observation.get("active_suit"),
                tuple(observation.get("hand_sizes") or ()), observation.get("decision"), observation.get("drawn"))

    def select(self, node: Node, moves: list[Move], prior: int) -> int:
        """The index of the action to play at `node` (PUCT, the tactician's choice `prior` first among equals)."""
        visits = node.visits
        if visits < self.widen:
            return prior
        fresh = node.total / visits if visits else 0.5  # an untried action's value: the node's mean
        root = math.sqrt(visits + 1)
        others = (1.0 - self.prior) / max(1, len(moves) - 1)
        best, best_score = prior, None
        for i, move in enumerate(moves):
            entry = node.stats.get(move.text)
            n, mean = (entry[0], entry[1] / entry[0]) if entry else (0, fresh)
            weight = self.prior if i == prior else others
            score = mean + self.explore * weight * root / (1 + n)
            if best_score is None or score > best_score or (score == best_score and i == prior):
                best, best_score = i, score
        return best
