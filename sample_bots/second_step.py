"""A second step of policy improvement for the searcher: its own next decision, searched across the worlds.

The flat search (`pimc.Searcher`) tries every legal action in every sampled world and lets every seat play
on as the tactician: one step of policy improvement over the tactician, whose value assumes that the
searcher's own later play is the tactician's.  This search improves that later play once, without looking
at any world's hidden cards (no strategy fusion):

1. **Pass 1** is the flat search's: every action `a` in every world `w`, rolled out by the tactician; each
   rollout stops at the searcher's own next decision with a choice (a `call` is not one: the tactician always
   calls) and notes it as a *node* keyed by what the searcher would know there: the root action, the public
   texts of every action since it (a draw's card is not in its text) and its own hand.  The tactician's choice
   there is played and the rollout finishes as before.
2. **Pass 2** gathers the rollouts by node: a node reached in `min_group` or more worlds is an information
   set of the searcher's that those worlds share.  In each of them every other legal action is tried from the
   noted state and rolled out by the tactician (up to `extra` rollouts a decision, the largest nodes first).
3. **The value** of `a` in `w` is then the value of the action the searcher would pick at `w`'s node, picked by
   the node's *other* worlds' mean values (leave one out: the world's own rollout never chooses its own
   continuation, so the value is not biased up by the pick); the tactician's choice unless another action's
   mean gain over it in those worlds exceeds `margin` standard errors, and in a node with too few worlds.

The rows of values feed `pimc.Searcher.choose` as the flat search's do.  The budget is a count (worlds, the
extra rollouts), never wall time.  Worlds come from the parent class (`posterior.PosteriorSearcher` in 2-seat
`maumau`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from pimc import PolicyTurn, evaluate, hand_number, move_of
from posterior import PosteriorSearcher


@dataclass(frozen=True)
class SecondStep:
    """How the second step is spent: nodes need `min_group` worlds; at most `extra` pass-2 rollouts a decision."""

    min_group: int = 3
    extra: int = 120
    margin: float = 0.5


@dataclass
class Node:
    """One information set of the searcher's own next decision, and the worlds that reach it."""

    legal: tuple[str, ...]
    prior: int  # the tactician's choice there
    members: list = field(default_factory=list)  # [(world index, state before the choice, depth left, {action: value})]


class SecondStepSearcher(PosteriorSearcher):
    """`PosteriorSearcher` whose values let the searcher's own next decision be searched (module docstring)."""

    step: SecondStep = SecondStep()

    def table(self, observation, legal, rng, tracker=None, history=None):
        posterior = self.posterior
        hands = posterior.hands(rng, self.budget.worlds) if posterior is not None else None
        self._queue = hands
        try:
            return self._two_step_table(observation, legal, rng, tracker, history)
        finally:
            self._queue = None

    def _two_step_table(self, observation, legal, rng, tracker, history):
        seat, sampler, start_scores, visible = self.opening(observation, history)
        texts = [str(a) for a in legal]
        rows: list[list[float]] = []
        # cells[w][k]: (value, node or None) of action k in world w
        nodes: dict[tuple, Node] = {}
        cells: list[list[tuple[float, Node | None]]] = []
        for _ in range(self.budget.worlds):
            if cells and self.out_of_time():
                break
            try:
                world = self.world(sampler, rng, tracker, seat, visible)
                seed = rng.getrandbits(32)
                row = []
                for k, text in enumerate(texts):
                    row.append(self._first_pass(world, k, text, seat, start_scores, random.Random(seed), nodes, len(cells)))
                cells.append(row)
            except Exception:  # an engine error in a sampled world (a world-sampling gap): drop the world
                continue
        self._second_pass(nodes, seat, start_scores, rng)
        for w, row in enumerate(cells):
            rows.append([self._value(w, value, node) for value, node in row])
        return rows

    def _first_pass(self, world, k, text, seat, start_scores, rng, nodes, w):
        state = world.clone()
        state.apply(text)
        path = [text]
        depth = self.budget.depth
        hand = hand_number(state)
        node = None
        while depth > 0 and not state.is_over and hand_number(state) == hand:
            legal = state.legal_actions()
            if len(legal) > 1 and state.current == seat and state.decision != "call":
                moves = [move_of(a) for a in legal]
                prior = self._pick(state, moves, rng)
                key = (k, tuple(path), tuple(sorted(state.observation(seat).get("hand") or ())))
                node = nodes.get(key)
                if node is None:
                    node = nodes[key] = Node(tuple(m.text for m in moves), prior)
                node.members.append([w, state.clone(), depth - 1, {}])
                state.apply(moves[prior].action)
                depth -= 1
                self._finish(state, depth, hand, rng)
                value = evaluate(state, seat, start_scores, self.points, self.lower_is_better, self.budget.edge)
                node.members[-1][3][prior] = value
                return value, node
            action = legal[0] if len(legal) == 1 else legal[self._pick(state, [move_of(a) for a in legal], rng)]
            path.append(str(action))
            state.apply(action)
            depth -= 1
        return evaluate(state, seat, start_scores, self.points, self.lower_is_better, self.budget.edge), None

    def _pick(self, state, moves, rng) -> int:
        """The index in `moves` of the rollout policy's choice in `state`."""
        seat = state.current
        turn = PolicyTurn("rollout", self.ruleset, seat, state.decision, state.observation(seat), moves)
        try:
            choice = self.policy(turn)
        except Exception:  # a policy that trips over an odd position: any legal move will do
            return rng.randrange(len(moves))
        for i, m in enumerate(moves):
            if m is choice or m.action is choice:
                return i
        return 0

    def _finish(self, state, depth, hand, rng) -> None:
        for _ in range(depth):
            if state.is_over or hand_number(state) != hand:
                return
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply(legal[0])
                continue
            moves = [move_of(a) for a in legal]
            state.apply(moves[self._pick(state, moves, rng)].action)

    def _second_pass(self, nodes, seat, start_scores, rng) -> None:
        step = self.step
        spent = 0
        # the largest nodes first, then the order they were met in (deterministic)
        order = sorted((n for n in nodes.values() if len(n.members) >= step.min_group), key=lambda n: -len(n.members))
        for node in order:
            need = len(node.members) * (len(node.legal) - 1)
            if spent + need > step.extra:
                continue
            spent += need
            for member in node.members:
                _, state, depth, values = member
                hand = hand_number(state)
                for b, text in enumerate(node.legal):
                    if b in values:
                        continue
                    trial = state.clone()
                    legal = trial.legal_actions()
                    trial.apply(next(a for a in legal if str(a) == text))
                    self._finish(trial, depth, hand, random.Random(b))
                    values[b] = evaluate(trial, seat, start_scores, self.points, self.lower_is_better, self.budget.edge)

    def _value(self, w, value, node) -> float:
        if node is None or len(node.members) < self.step.min_group:
            return value
        mine = next(m for m in node.members if m[0] == w)
        if len(mine[3]) < len(node.legal):  # pass 2 had no budget for this node
            return value
        others = [m[3] for m in node.members if m[0] != w]
        n = len(others)
        prior = node.prior
        best, best_gain = prior, 0.0
        for b in range(len(node.legal)):
            if b == prior:
                continue
            gains = [o[b] - o[prior] for o in others]
            mean = sum(gains) / n
            spread = (sum((g - mean) ** 2 for g in gains) / max(1, n - 1)) ** 0.5
            if mean > best_gain and mean > self.step.margin * spread / n ** 0.5:
                best, best_gain = b, mean
        return mine[3][best]
