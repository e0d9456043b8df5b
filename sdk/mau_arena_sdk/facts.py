"""The ruleset's facts, as the arena sends them when a game starts (``GameStarted.facts_json``).

The arena's engine computes them (`games.ruleset_facts`), so a bot needs no
table of its own: the deck for this table and options, each card's points
and roles, and the options with their types.

    def on_game_start(self, game):
        facts = game.facts                     # None if the arena sent none
        facts.deck                             # ('7s', '8s', ...), copies repeated
        facts.points("Js")                     # 20 in Moumou
        facts.has_role("Js", "wild")           # True
        facts.is_wild(card, obs.get("wild_rank"))  # the same, and right in Mose too (wild rank by round)
        facts.options["limit"]                 # 101, an int (game.options holds the same values)
        facts.unseen(hand + pile)              # the deck less the cards you have seen

Roles (short names): ``wild``, ``suit`` (``color`` in DD MAU), ``draw``,
``skip``, ``reverse``, ``counter``, ``cover``, ``follow``, ``no-finish``,
``finish-bonus``, ``finish-multiplier``, ``cancel``, ``open``, ``again``,
``transparent``, ``link``, ``block``.  `data` is the whole JSON object
(family keys included: Mose's ``wild_by_round`` and ``wild_points``, the
shedding rulesets' ``call`` and each card's engine ``rule``).

Mose has no card with a fixed role: its wild rank changes every round
(``wild_by_round``; the running round's is ``observation["wild_rank"]``), so
``has_role(card, "wild")`` and ``cards_with("wild")`` find nothing there.  Pass
the wild rank: ``is_wild(card, wild_rank)``, ``points(card, wild_rank)``.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Iterable, Mapping


class Facts:
    """Read-only view of the facts' JSON object (`data`), with helpers for the common questions."""

    __slots__ = ("data", "_cards", "_deck", "_roles")

    def __init__(self, data: Mapping[str, Any]) -> None:
        setter = object.__setattr__
        setter(self, "data", dict(data))
        cards = data.get("cards") or {}
        setter(self, "_cards", cards)
        setter(self, "_deck", tuple(data.get("deck") or ()))
        setter(self, "_roles", {card: frozenset(info.get("roles") or ()) for card, info in cards.items()})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Facts are read-only")

    @classmethod
    def from_json(cls, text: str) -> "Facts | None":
        """The facts from their JSON text; None for an empty text (an arena that sends none)."""
        if not text:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            raise ValueError("facts_json is not JSON") from None
        if not isinstance(data, dict):
            raise ValueError("facts_json is not a JSON object")
        return cls(data)

    def __repr__(self) -> str:
        return f"Facts({self.ruleset!r}, players={self.players}, {len(self._deck)} cards)"

    @property
    def ruleset(self) -> str:
        return self.data.get("ruleset", "")

    @property
    def players(self) -> int:
        return int(self.data.get("players", 0))

    @property
    def family(self) -> str:
        return self.data.get("family", "")

    @property
    def options(self) -> dict[str, Any]:
        """Every option's value as its type (defaults filled in)."""
        return dict(self.data.get("options") or {})

    @property
    def option_schema(self) -> dict[str, Any]:
        """Each option's ``type``, ``default``, ``choices`` and ``help``."""
        return dict(self.data.get("option_schema") or {})

    @property
    def deck(self) -> tuple[str, ...]:
        return self._deck

    @property
    def hand_size(self) -> int:
        return int(self.data.get("hand_size", 0))

    def points(self, card: str, wild_rank: str | None = None) -> int:
        """What the card costs left in a hand (0 for a card this deck does not have).

        Mose: pass the round's wild rank (``observation.get("wild_rank")``); a wild costs more.
        """
        if wild_rank is not None and card[:1] == wild_rank and "wild_points" in self.data:
            return int(self.data["wild_points"])
        info = self._cards.get(card)
        return int(info.get("points", 0)) if info else 0

    def wild_rank(self, round_number: int) -> str | None:
        """Mose: the wild rank of round ``round_number`` (1-based; ``wild_by_round``); None for other rulesets
        and for a round beyond the list.  The running round's is also ``observation["wild_rank"]``."""
        ranks = self.data.get("wild_by_round") or ()
        return ranks[round_number - 1] if 1 <= round_number <= len(ranks) else None

    def is_wild(self, card: str, wild_rank: str | None = None) -> bool:
        """Whether ``card`` is wild here: a card with the ``wild`` role (shedding rulesets), or in Mose,
        whose wild rank changes every round, a card of ``wild_rank`` (pass ``observation.get("wild_rank")``;
        no card has the ``wild`` role there, so ``has_role(card, "wild")`` is always False)."""
        if "wild" in self._roles.get(card, ()):
            return True
        return wild_rank is not None and "wild_by_round" in self.data and card[:1] == wild_rank and card in self._cards

    def roles(self, card: str) -> frozenset[str]:
        return self._roles.get(card, frozenset())

    def has_role(self, card: str, role: str) -> bool:
        return role in self._roles.get(card, ())

    def cards_with(self, role: str) -> tuple[str, ...]:
        """The distinct cards that have this role, in deck order."""
        return tuple(card for card, roles in self._roles.items() if role in roles)

    def unseen(self, seen: Iterable[str]) -> list[str]:
        """The deck less the cards in `seen` (each copy once): where the hidden cards come from."""
        left = Counter(self._deck)
        left.subtract(card for card in seen if card in left)
        return sorted((+left).elements())
