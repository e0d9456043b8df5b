"""The records of a Mose round that the state replaces rather than changes: the last pickup and a window.

Never changed once made (a change makes a new one), so a clone and an
observation's snapshot share them as they are (`MoseState.clone`,
`arena/games/mose/observation.py`).  The pile and the freed wilds waiting on
the table are tuples for the same reason.  Slotted classes rather than
NamedTuples: their fields are read at nearly every decision, and CPython 3.11
specializes a slot's read, not a NamedTuple field's.
"""

from __future__ import annotations

from functools import lru_cache

_new = object.__new__


class Pickup:
    """The last pickup (D-14): who picked up, from where (``stock`` or ``pile``), which cards, and ``by``,
    the one seat that has played since (None: none yet).  ``cards`` is private to ``seat`` when the
    source is the stock: an observation shows only their count (``view``: seat, source, count, by, made
    with the record).  A stock draw's record is made once per seat and card (`stock_pickup`)."""

    __slots__ = ("seat", "source", "cards", "by", "view")

    def __init__(self, seat: int, source: str, cards: tuple[str, ...], by: int | None = None) -> None:
        self.seat = seat
        self.source = source
        self.cards = cards
        self.by = by
        self.view = (seat, source, len(cards), by)

    def claimed(self, seat: int) -> "Pickup":
        """The same pickup with ``seat`` as the one seat that has played since (its slots copied: a class
        called with a Python ``__init__`` costs some 900 instructions more)."""
        pickup = _new(Pickup)
        pickup.seat = self.seat
        pickup.source = self.source
        pickup.cards = self.cards
        pickup.by = seat
        pickup.view = (self.seat, self.source, len(self.cards), seat)
        return pickup

    def to_dict(self) -> dict:
        """The position form."""
        return {"seat": self.seat, "source": self.source, "cards": list(self.cards), "by": self.by}

    def __repr__(self) -> str:
        return f"Pickup({self.seat}, {self.source!r}, {self.cards!r}, by={self.by})"


def pile_pickup(seat: int, cards: tuple[str, ...]) -> Pickup:
    """The record of ``seat`` taking the pile ``cards`` (made by its slots, as `Pickup.claimed`)."""
    pickup = _new(Pickup)
    pickup.seat = seat
    pickup.source = "pile"
    pickup.cards = cards
    pickup.by = None
    pickup.view = (seat, "pile", len(cards), None)
    return pickup


def stock_pickup(seat: int, card: str) -> Pickup:
    """The record of ``seat`` drawing ``card`` from the stock, made once (a draw is every sixth decision)."""
    key = (seat, card)
    pickup = _STOCK_PICKUPS.get(key)
    if pickup is None:
        pickup = _STOCK_PICKUPS[key] = Pickup(seat, "stock", (card,))
    return pickup


_STOCK_PICKUPS: dict[tuple[int, str], Pickup] = {}


class Window:
    """An open reaction window: the seats still to be asked, in order, and whether the seat deciding
    has already played in it.

    Made once per queue and flag (`window`) and shared: the windows a step can lead to are kept on it,
    so that opening, passing down and playing in one makes none.  ``steps``: each seat still to be asked,
    with the window it would decide in (the seats after it); ``played``: this window once its seat has
    played (``acted``)."""

    __slots__ = ("queue", "acted", "steps", "played")

    def __init__(self, queue: tuple[int, ...], acted: bool, steps: tuple, played: "Window | None") -> None:
        self.queue = queue
        self.acted = acted
        self.steps = steps
        self.played = self if played is None else played

    def to_dict(self) -> dict:
        """The position and observation form."""
        return {"queue": list(self.queue), "acted": self.acted}

    def __repr__(self) -> str:
        return f"Window({self.queue!r}, acted={self.acted})"


@lru_cache(maxsize=4096)
def window(queue: tuple[int, ...], acted: bool) -> Window:
    """The window of this queue and flag, made once (a queue holds each seat at most once: there are few).
    Always called with both arguments: `lru_cache` keeps ``window(q)`` and ``window(q, False)`` apart."""
    for i in range(len(queue), 0, -1):  # the shorter queues first: each then finds the windows it leads to
        window(queue[i:], False)
    steps = tuple([(seat, window(queue[i + 1 :], False)) for i, seat in enumerate(queue)])
    return Window(queue, acted, steps, None if acted else window(queue, True))
