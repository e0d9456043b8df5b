"""The searcher's own next decisions planned inside each world (2-seat `maumau`): PIMC with a stronger own continuation.

The flat search (`pimc.Searcher`) tries every legal action in every sampled world and lets both seats play on as
the tactician, so an action's value assumes the searcher's own later play is the tactician's.  Against the
tactician, a sampled world is a one-player problem for the searcher: the opponent plays a fixed, deterministic
policy and the world fixes the stock's order and the seed of every later reshuffle, so every line of the
searcher's own play has one outcome.  `OwnPlan` searches that problem a little: after the root action the rollout
plays on as the tactician until the searcher's own next decision with a choice (a `call` is none: the tactician
always calls), tries every legal action there, and so on for `own` decisions, then the tactician plays every seat
to the end; the value of a node of the searcher's is the best of its children (one world's maximum: a perfect-
information choice, so *strategy fusion*: each world's later choice is made knowing that world's hidden cards and
draws, which biases the later decisions' values up; the root action, chosen over all the worlds' means, is not).

Measured (README, Session 11): with 46 worlds `--plan 1` scored -0.065 ± 0.097 pair points deal by deal against the
flat search over 400 in-process games, so it is off by default (`searcher.PLAN`).

Reads nothing but the sampled world (as the rollouts do): the worlds come from the parent class
(`posterior.PosteriorSearcher` in 2-seat `maumau`).  The budget is a count (worlds, `own` decisions), never time.
"""

from __future__ import annotations

from pimc import Move, PolicyTurn, evaluate, hand_number, move_of


class OwnPlan:
    """A mixin for a `pimc.Searcher`: each trial searches the searcher's own next `own` decisions in its world (the
    maximum over each one's legal actions), the tactician playing everything else (module docstring)."""

    own: int = 1
    #: How much of the search's gain over the tactician's choice a node of the searcher's keeps: its value is the
    #: tactician's child's plus `mix` times (the best child's minus it); 1 the world's best, 0 the flat search's value.
    mix: float = 1.0

    def trial(self, world, text: str, seat: int, start_scores, rng) -> float:
        state = world.clone()
        state.apply(text)
        return self.plan(state, seat, start_scores, rng, self.own, self.budget.depth, hand_number(state))

    def plan(self, state, seat: int, start_scores, rng, own: int, depth: int, hand) -> float:
        """The value for `seat` of `state` with its next `own` decisions with a choice searched, the rest the policy's."""
        policy, ruleset = self.policy, self.ruleset
        while depth > 0 and not state.is_over and hand_number(state) == hand:
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply(legal[0])
                depth -= 1
                continue
            mover = state.current
            moves = [move_of(a) for a in legal]
            turn = PolicyTurn("rollout", ruleset, mover, state.decision, state.observation(mover), moves)
            try:
                choice = policy(turn)
            except Exception:  # a policy that trips over an odd position: any legal move will do
                choice = rng.choice(moves)
            chosen = choice.action if isinstance(choice, Move) else choice
            if own > 0 and mover == seat and state.decision != "call":
                best = kept = None
                for action in legal:
                    child = state.clone()
                    child.apply(action)
                    value = self.plan(child, seat, start_scores, rng, own - 1, depth - 1, hand)
                    if best is None or value > best:
                        best = value
                    if action is chosen:
                        kept = value
                return best if kept is None or self.mix >= 1 else kept + self.mix * (best - kept)
            state.apply(chosen)
            depth -= 1
        return evaluate(state, seat, start_scores, self.points, self.lower_is_better, self.budget.edge)
