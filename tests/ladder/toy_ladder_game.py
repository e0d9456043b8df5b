"""A three-trick card game for the ladder's tests, so they do not wait on the real rulesets.

Every seat is dealt three cards from the seed; in each trick every seat
plays one card in turn and the highest rank takes the trick; most tricks
places first.  Small, fast, hidden hands, and the choice of card matters a
little, which is all a ladder test needs.  Call `register()` in the process
that should know it.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any, Mapping

from arena.games import Action, GameState, Observation, Result, RulesetInfo, registry

NAME = "test-ladder-tricks"
RANKS = "789TJQKA"
DECK = [rank + suit for rank in RANKS for suit in "shdc"]


class TrickState(GameState):
    VERBS = frozenset({"play"})

    def __init__(self, players: int, options: Mapping[str, Any], position: Mapping[str, Any]) -> None:
        self.ruleset = NAME
        self.players = players
        self.options = dict(options)
        self.hands = [list(h) for h in position["hands"]]
        self.trick = list(position["trick"])  # cards played in this trick, by seat order from seat 0
        self.tricks = list(position["tricks"])

    @classmethod
    def deal(cls, players: int, seed: int, options: Mapping[str, Any]) -> "TrickState":
        deck = list(DECK)
        random.Random(seed).shuffle(deck)
        hands = [sorted(deck[3 * i : 3 * i + 3]) for i in range(players)]
        return cls(players, options, {"hands": hands, "trick": [], "tricks": [0] * players})

    @property
    def current(self) -> int | None:
        return None if self.is_over else len(self.trick)

    @property
    def decision(self) -> str:
        return "turn"

    @property
    def is_over(self) -> bool:
        return not any(self.hands)

    def legal_actions(self) -> list[Action]:
        if self.is_over:
            return []
        return [Action("play", (card,)) for card in sorted(self.hands[len(self.trick)])]

    def default_action(self) -> Action:
        return self.legal_actions()[0]

    def _apply_legal(self, action: Action) -> None:
        card = action.args[0]
        self.hands[len(self.trick)].remove(card)
        self.trick.append(card)
        if len(self.trick) == self.players:
            best = max(RANKS.index(c[0]) for c in self.trick)
            winners = [seat for seat, c in enumerate(self.trick) if RANKS.index(c[0]) == best]
            if len(winners) == 1:
                self.tricks[winners[0]] += 1
            self.trick = []

    def observation(self, seat: int | None) -> Observation:
        return Observation({
            "ruleset": NAME, "seat": seat, "seat_count": self.players, "current": self.current,
            "decision": self.decision, "hand": None if seat is None else sorted(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands], "discard": list(self.trick), "stock_size": 0,
            "direction": 1, "scores": list(self.tricks), "round": 1,
        })

    def result(self) -> Result:
        return Result.from_points(self.tricks, "most tricks", lower_is_better=False)

    def to_position(self) -> dict[str, Any]:
        return {"hands": [list(h) for h in self.hands], "trick": list(self.trick), "tricks": list(self.tricks)}

    def clone(self) -> "TrickState":
        return TrickState(self.players, self.options, self.to_position())


INFO = RulesetInfo(
    name=NAME, title="Ladder test tricks", seed_document="", min_players=2, max_players=4,
    summary="three tricks, highest rank wins; for tests only",
    new_game=lambda players, seed, options: TrickState.deal(players, seed, options),
    from_position=lambda position, options: TrickState(len(position["hands"]), options, position),
    bound=lambda players, options: 3 * players,  # three tricks, a card from each seat
)



def register() -> str:
    """Register the ruleset in this process (the ladder tests do it only inside server processes,
    so that suites iterating over every registered ruleset never see it)."""
    if NAME not in registry.names():
        registry.register(INFO)
    return NAME


@contextlib.contextmanager
def registered():
    """Registered for the length of a block (tests that read or verify its replays in-process),
    then removed again, as `tests/server/toy_ruleset.registered` does."""
    added = NAME not in registry.names()
    register()
    try:
        yield NAME
    finally:
        if added:
            registry._REGISTRY.pop(NAME, None)
