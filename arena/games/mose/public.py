"""The records of a Mose round that the state replaces rather than changes: the last pickup and a window.

Immutable, so a clone and an observation's snapshot share them as they are
(`MoseState.clone`, `arena/games/mose/observation.py`); every change makes a
new one.  The pile and the freed wilds waiting on the table are tuples for the
same reason.
"""

from __future__ import annotations

from typing import NamedTuple


class Pickup(NamedTuple):
    """The last pickup (D-14): who picked up, from where (``stock`` or ``pile``), which cards, and ``by``,
    the one seat that has played since (None: none yet).  ``cards`` is private to ``seat`` when the
    source is the stock: an observation shows only their count."""

    seat: int
    source: str
    cards: tuple[str, ...]
    by: int | None = None

    def claimed(self, seat: int) -> "Pickup":
        """The same pickup with ``seat`` as the one seat that has played since."""
        return Pickup(self.seat, self.source, self.cards, seat)

    def to_dict(self) -> dict:
        """The position form."""
        return {"seat": self.seat, "source": self.source, "cards": list(self.cards), "by": self.by}


class Window(NamedTuple):
    """An open reaction window: the seats still to be asked, in order, and whether the seat deciding
    has already played in it."""

    queue: tuple[int, ...]
    acted: bool = False

    def to_dict(self) -> dict:
        """The position and observation form."""
        return {"queue": list(self.queue), "acted": self.acted}
