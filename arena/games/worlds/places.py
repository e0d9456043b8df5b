"""The hidden places of a view: where the cards a seat has not seen may lie, and how many each holds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from arena.games.base import GameError


class WorldError(GameError):
    """No world fits the observation: it is not one this ruleset can produce, or it is inconsistent."""

#: Place kinds: another seat's hand, the stock, the buried part of the discard pile (below what the
#: observation shows), one face-down card in the shown part of the pile (Blind).
HAND = "hand"
STOCK = "stock"
PILE = "pile"
FACE_DOWN = "face-down"


@dataclass(frozen=True)
class Place:
    """One hidden place: its kind, the seat (a hand) or pile index (a face-down card), its size."""

    kind: str
    key: int | None
    size: int

    def __str__(self) -> str:
        return self.kind if self.key is None else f"{self.kind} {self.key}"


@dataclass(frozen=True)
class Unseen:
    """The hidden places in dealing order and the cards the seat has not seen (sorted)."""

    places: tuple[Place, ...]
    cards: tuple[str, ...]


def other_hands(view: Mapping[str, Any], seat: int | None, seen: list[str]) -> list[Place]:
    """The other seats' hands as hidden places (the empty ones left out); the seat's own hand joins ``seen``."""
    out = []
    for other, size in enumerate(view["hand_sizes"]):
        if other == seat:
            seen.extend(view["hand"])
        elif size:
            out.append(Place(HAND, other, size))
    return out
