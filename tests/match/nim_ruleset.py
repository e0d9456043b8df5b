"""A tiny deterministic game for the match runner's tests: take 1 or 2 tokens, the last taker wins.

It follows the engine contract (`arena.games.base.GameState`) so the runner
is tested against the same interface as the real rulesets, without waiting
for them and with games short and predictable enough to script seat by seat.
Each seat also holds a private "hand" (drawn from the seed) so tests can check
that nothing but a seat's own observation reaches it.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any, Mapping

from arena.games import Action, GameError, GameState, Observation, OptionSpec, Result, RulesetInfo
from arena.games import registry

NAME = "test-nim"


class NimState(GameState):
    VERBS = frozenset({"take"})

    def __init__(self, players: int, seed: int, options: Mapping[str, Any], position: Mapping[str, Any] | None = None):
        self.ruleset = NAME
        self.players = players
        self.options = dict(options)
        if position is None:
            rng = random.Random(seed)
            deck = [rank + suit for rank in "789TJQKA" for suit in "shdc"]
            rng.shuffle(deck)
            position = {
                "counter": self.options["start"] or 5 + seed % 7,
                "turn": 0,
                "taken": [0] * players,
                "winner": None,
                "moves": 0,
                "hands": [sorted(deck[i * 3:(i + 1) * 3]) for i in range(players)],
            }
        self.counter = int(position["counter"])
        self.turn = int(position["turn"])
        self.taken = list(position["taken"])
        self.winner = position["winner"]
        self.moves = int(position["moves"])
        self.hands = [list(h) for h in position["hands"]]

    @property
    def current(self) -> int | None:
        return None if self.is_over else self.turn

    @property
    def decision(self) -> str:
        return "turn"

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def legal_actions(self) -> list[Action]:
        crash_after = self.options["crash_after"]
        if crash_after and self.moves >= crash_after:
            raise RuntimeError("test engine crashed on purpose")
        if self.is_over:
            return []
        return [Action("take", (str(n),)) for n in (1, 2) if n <= self.counter]

    def default_action(self) -> Action:
        return Action("take", ("1",))

    def _apply_legal(self, action: Action) -> None:
        amount = int(action.args[0])
        self.taken[self.turn] += amount
        self.moves += 1
        if not self.options["endless"]:
            self.counter -= amount
        if self.counter == 0:
            self.winner = self.turn
        else:
            self.turn = (self.turn + 1) % self.players

    def observation(self, seat: int | None) -> Observation:
        return Observation({
            "ruleset": NAME,
            "seat": seat,
            "seat_count": self.players,
            "current": self.current,
            "decision": self.decision,
            "hand": None if seat is None else list(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "discard": [],
            "stock_size": self.counter,
            "direction": 1,
            "scores": list(self.taken),
            "counter": self.counter,
        })

    def result(self) -> Result:
        if not self.is_over:
            raise GameError("the game is not over")
        return Result.from_points([0 if s == self.winner else 1 for s in range(self.players)], reason="last token taken")

    def to_position(self) -> dict[str, Any]:
        return {"counter": self.counter, "turn": self.turn, "taken": list(self.taken), "winner": self.winner,
                "moves": self.moves, "hands": [list(h) for h in self.hands]}

    def clone(self) -> "NimState":
        return NimState(self.players, 0, self.options, self.to_position())


INFO = RulesetInfo(
    name=NAME,
    title="Test nim",
    seed_document="",
    min_players=2,
    max_players=6,
    summary="Take 1 or 2 tokens; whoever takes the last one wins.  For the runner's tests only.",
    new_game=lambda players, seed, options: NimState(players, seed, options),
    from_position=lambda position, options: NimState(len(position["taken"]), 0, options, position),
    options={
        "start": OptionSpec(0, "tokens at the start (0: 5 + seed % 7)"),
        "endless": OptionSpec(False, "taking never empties the pile (a game that never ends)"),
        "crash_after": OptionSpec(0, "the engine raises after this many moves (0: never)"),
    },
)


@contextlib.contextmanager
def registered():
    """The test ruleset is in the registry only while a test runs, so other suites never see it."""
    registry.register(INFO)
    try:
        yield NAME
    finally:
        registry._REGISTRY.pop(NAME, None)
