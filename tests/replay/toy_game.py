"""A tiny engine that honours the contract, so the replay tests never depend on one ruleset.

Match suit or rank; a Jack is wild and its player then names a suit (a
second, atomic decision); a 7 makes the next seat draw 2 (``pending``);
draw when you like.  It carries an extra observation key (``toy_round``)
to check that unknown keys render.  Registered only inside tests, via
`monkeypatch`, so other suites that loop over `rulesets()` never see it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from arena.games import Action, GameError, GameState, Observation, OptionSpec, Result, RulesetInfo
from arena.games.cards import deck, rank, suit
from arena.games.chance import shuffled

NAME = "toy-replay"
RANKS = ("7", "8", "9", "T", "J", "Q", "K", "A")
MAX_DECISIONS = 400


class ToyState(GameState):
    VERBS: ClassVar[frozenset[str]] = frozenset({"play", "draw", "suit"})

    def __init__(self, position: Mapping[str, Any], options: Mapping[str, Any]) -> None:
        self.ruleset = NAME
        self.options = dict(options)
        self.players = len(position["hands"])
        self.hands = [list(h) for h in position["hands"]]
        self.stock = list(position["stock"])
        self.discard = list(position["discard"])
        self.turn = position["turn"]
        self.naming = position["naming"]
        self.active = position["active"]
        self.pending = position["pending"]
        self.count = position["count"]
        self.seed = position["seed"]
        self.chance = position["chance"]

    @classmethod
    def deal(cls, players: int, seed: int, options: Mapping[str, Any]) -> "ToyState":
        cards = shuffled(deck(RANKS, jokers=1), seed, 0)
        size = options["hand"]
        hands = [cards[i * size:(i + 1) * size] for i in range(players)]
        rest = cards[players * size:]
        position = dict(hands=hands, stock=rest[1:], discard=rest[:1], turn=0, naming=False, active=None,
                        pending=0, count=0, seed=seed, chance=1)
        return cls(position, options)

    @property
    def current(self) -> int | None:
        return None if self.is_over else self.turn

    @property
    def decision(self) -> str:
        return "suit" if self.naming else "turn"

    @property
    def is_over(self) -> bool:
        return any(not h for h in self.hands) or self.count >= MAX_DECISIONS

    def legal_actions(self) -> list[Action]:
        if self.is_over:
            return []
        if self.naming:
            return [Action("suit", (s,)) for s in "shdc"]
        top = self.discard[-1]
        want = self.active or suit(top)
        plays = []
        for card in dict.fromkeys(self.hands[self.turn]):
            if self.pending and rank(card) != "7":
                continue
            if rank(card) in ("J", "X") or suit(card) == want or rank(card) == rank(top):
                plays.append(Action("play", (card,)))
        return plays + [Action("draw")]

    def _apply_legal(self, action: Action) -> None:
        self.count += 1
        if action.verb == "suit":
            self.active = action.args[0]
            self.naming = False
            self._next()
        elif action.verb == "draw":
            for _ in range(max(1, self.pending)):
                self._draw_one()
            self.pending = 0
            self._next()
        else:
            card = action.args[0]
            self.hands[self.turn].remove(card)
            self.discard.append(card)
            self.active = None
            if rank(card) == "7":
                self.pending += 2
            if rank(card) in ("J", "X") and self.hands[self.turn]:
                self.naming = True
            else:
                self._next()

    def _draw_one(self) -> None:
        if not self.stock and len(self.discard) > 1:
            self.stock = shuffled(self.discard[:-1], self.seed, self.chance)
            self.chance += 1
            self.discard = self.discard[-1:]
        if self.stock:
            self.hands[self.turn].append(self.stock.pop())

    def _next(self) -> None:
        self.turn = (self.turn + 1) % self.players

    def default_action(self) -> Action:
        return Action("suit", ("h",)) if self.naming else Action("draw")

    def observation(self, seat: int | None) -> Observation:
        return Observation({
            "ruleset": NAME, "seat": seat, "seat_count": self.players, "current": self.current,
            "decision": self.decision, "hand": None if seat is None else list(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands], "discard": self.discard[-3:],
            "stock_size": len(self.stock), "direction": 1, "scores": [0] * self.players,
            "active_suit": self.active, "pending": {"draw": self.pending} if self.pending else None,
            "toy_round": self.count,
        })

    def result(self) -> Result:
        if not self.is_over:
            raise GameError("the game is still running")
        return Result.from_points([len(h) for h in self.hands], reason="out" if self.count < MAX_DECISIONS else "limit")

    def to_position(self) -> dict[str, Any]:
        return dict(hands=[list(h) for h in self.hands], stock=list(self.stock), discard=list(self.discard),
                    turn=self.turn, naming=self.naming, active=self.active, pending=self.pending,
                    count=self.count, seed=self.seed, chance=self.chance)

    def clone(self) -> "ToyState":
        return ToyState(self.to_position(), self.options)


INFO = RulesetInfo(
    name=NAME, title="Toy (replay tests)", seed_document="none", min_players=2, max_players=4,
    summary="test-only", new_game=lambda players, seed, options: ToyState.deal(players, seed, options),
    from_position=lambda position, options: ToyState(position, options),
    options={"hand": OptionSpec(5, "cards dealt to each seat")},
)
