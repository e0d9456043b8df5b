"""A tiny card game for the server's tests: seats shed a private hand, first empty hand wins.

It keeps the server's tests independent of the real rulesets' progress
while still giving every seat hidden cards (drawn from the seed) that must
never reach another seat.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any, Mapping

from arena.games import Action, GameState, Observation, OptionSpec, Result, RulesetInfo, registry

NAME = "test-server-toy"
DECK = [rank + suit for rank in "789TJQKA" for suit in "shdc"]


class ToyState(GameState):
    VERBS = frozenset({"play"})

    def __init__(self, players: int, seed: int, options: Mapping[str, Any], position: Mapping[str, Any] | None = None):
        self.ruleset = NAME
        self.players = players
        self.options = dict(options)
        if position is None:
            deck = list(DECK)
            random.Random(seed).shuffle(deck)
            size = self.options["hand"]
            position = {"hands": [deck[i * size:(i + 1) * size] for i in range(players)], "discard": [], "turn": 0}
        self.hands = [list(h) for h in position["hands"]]
        self.discard = list(position["discard"])
        self.turn = int(position["turn"])

    @property
    def current(self) -> int | None:
        return None if self.is_over else self.turn

    @property
    def decision(self) -> str:
        return "turn"

    @property
    def is_over(self) -> bool:
        return any(not hand for hand in self.hands)

    def legal_actions(self) -> list[Action]:
        return [] if self.is_over else [Action("play", (card,)) for card in sorted(self.hands[self.turn])]

    def default_action(self) -> Action:
        return self.legal_actions()[0]

    def _apply_legal(self, action: Action) -> None:
        self.hands[self.turn].remove(action.args[0])
        self.discard.append(action.args[0])
        if not self.is_over:
            self.turn = (self.turn + 1) % self.players

    def observation(self, seat: int | None) -> Observation:
        return Observation({
            "ruleset": NAME, "seat": seat, "seat_count": self.players, "current": self.current,
            "decision": self.decision, "hand": None if seat is None else sorted(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands], "discard": self.discard[-3:], "stock_size": 0,
            "direction": 1, "scores": [0] * self.players, "round": 1,
        })

    def result(self) -> Result:
        return Result.from_points([len(h) for h in self.hands], "hand emptied")

    def to_position(self) -> dict[str, Any]:
        return {"hands": [list(h) for h in self.hands], "discard": list(self.discard), "turn": self.turn}

    def clone(self) -> "ToyState":
        return ToyState(self.players, 0, self.options, self.to_position())


INFO = RulesetInfo(
    name=NAME, title="Server test toy", seed_document="", min_players=2, max_players=4,
    summary="shed a private hand; for tests only",
    new_game=lambda players, seed, options: ToyState(players, seed, options),
    from_position=lambda position, options: ToyState(len(position["hands"]), 0, options, position),
    options={"hand": OptionSpec(4, "cards dealt to each seat")},
    bound=lambda players, options: players * options["hand"],  # a card a decision, until a hand is empty
)


@contextlib.contextmanager
def registered():
    registry.register(INFO)
    try:
        yield NAME
    finally:
        registry._REGISTRY.pop(NAME, None)
