"""The records of a Mose round that the state replaces rather than changes: the last pickup and a window.

Never changed once made (a change makes a new one), so a clone and an
observation's snapshot share them as they are (`MoseState.clone`,
`arena/games/mose/observation.py`).  The pile and the freed wilds waiting on
the table are tuples for the same reason.  Slotted classes rather than
NamedTuples: their fields are read at nearly every decision, and CPython 3.11
specializes a slot's read, not a NamedTuple field's.
"""

from __future__ import annotations


class Pickup:
    """The last pickup (D-14): who picked up, from where (``stock`` or ``pile``), which cards, and ``by``,
    the one seat that has played since (None: none yet).  ``cards`` is private to ``seat`` when the
    source is the stock: an observation shows only their count."""

    __slots__ = ("seat", "source", "cards", "by")

    def __init__(self, seat: int, source: str, cards: tuple[str, ...], by: int | None = None) -> None:
        self.seat = seat
        self.source = source
        self.cards = cards
        self.by = by

    def claimed(self, seat: int) -> "Pickup":
        """The same pickup with ``seat`` as the one seat that has played since."""
        return Pickup(self.seat, self.source, self.cards, seat)

    def to_dict(self) -> dict:
        """The position form."""
        return {"seat": self.seat, "source": self.source, "cards": list(self.cards), "by": self.by}

    def __repr__(self) -> str:
        return f"Pickup({self.seat}, {self.source!r}, {self.cards!r}, by={self.by})"


class Window:
    """An open reaction window: the seats still to be asked, in order, and whether the seat deciding
    has already played in it."""

    __slots__ = ("queue", "acted")

    def __init__(self, queue: tuple[int, ...], acted: bool = False) -> None:
        self.queue = queue
        self.acted = acted

    def to_dict(self) -> dict:
        """The position and observation form."""
        return {"queue": list(self.queue), "acted": self.acted}

    def __repr__(self) -> str:
        return f"Window({self.queue!r}, acted={self.acted})"
