"""Facts of Mose: two packs above seven players, points by rank, and the round's wild rank."""

from __future__ import annotations

from typing import Any, Mapping

from arena.games.cards import RANKS
from arena.games.cards import deck as french_deck
from arena.games.mose.melds import card_points, wild_rank
from arena.games.mose.state import HAND_SIZE, RULESET, decks_for

FAMILY = "mose"
WILD_POINTS = 20


def deck(ruleset: str, players: int, options: Mapping[str, Any]) -> list[str]:
    """One pack up to seven players, two above (option ``decks``, D-1)."""
    return french_deck(RANKS, copies=decks_for(players, options["decks"]))


def facts(ruleset: str, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    cards = deck(ruleset, players, options)
    return {
        "deck": cards,
        "hand_size": HAND_SIZE,
        "wild_by_round": [wild_rank(r) for r in range(1, options["rounds"] + 1)],
        "wild_points": WILD_POINTS,
        # Points outside the round's wild rank (a wild costs `wild_points`); every card is wild in its round.
        "cards": {card: {"points": card_points(card, ""), "roles": []} for card in dict.fromkeys(cards)},
    }


__all__ = ["FAMILY", "RULESET", "deck", "facts"]
