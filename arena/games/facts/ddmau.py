"""Facts of DD MAU: the 80-card deck (option ``deck`` sets the power counts), printed points, power roles."""

from __future__ import annotations

from typing import Any, Mapping

from arena.games.ddmau.cards import DEFAULT_COUNTS, parse_counts, points, printed
from arena.games.ddmau.cards import deck as ddmau_deck
from arena.games.ddmau.state import hand_size

FAMILY = "ddmau"
RULESET = "ddmau"

#: What each power does (RULES.md 7.3), in the roles' shared vocabulary.
ROLES = {
    "N": [],
    "PT": ["draw"],
    "JTT": ["draw", "transparent"],
    "SK": ["skip"],
    "OWM": ["reverse", "again"],
    "SM": ["wild", "color"],
    "LM": ["link", "transparent"],
    "DM": ["transparent"],
    "MM": ["wild", "block"],
}


def deck(ruleset: str, players: int, options: Mapping[str, Any]) -> list[str]:
    """52 numbered cards and the powers; option ``deck`` (``PT=4,SK=4,...``) sets the power counts."""
    text = options["deck"]
    return ddmau_deck(parse_counts(text) if text else dict(DEFAULT_COUNTS))


def facts(ruleset: str, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    cards = deck(ruleset, players, options)
    return {
        "deck": cards,
        "hand_size": hand_size(players),
        "cards": {card: {"points": points(card), "roles": list(ROLES[printed(card).kind])}
                  for card in dict.fromkeys(cards)},
    }


__all__ = ["FAMILY", "RULESET", "deck", "facts"]
