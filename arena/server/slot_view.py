"""The connected bots' game slots, kept up to date as sessions change.

A ladder plans again after every game, and a planning round used to ask the hub for every
connected bot's (capacity, games running, rulesets) afresh (`Handle.slots`): a walk over every
session, most of which had not changed since the round before.  A `SlotView` is told by the hub
(`Hub.slot_view`) whenever a bot arrives, resumes, leaves, or a game slot of it is taken or
given back, so it always holds what `Handle.slots` would return, and it remembers which names
changed since its reader last asked (`take_changed`): a round costs what changed, not every bot.
A view lives as long as its reader: the reader closes it when it stops (`SlotView.close`, or a
``with`` block), and the hub stops keeping it, so a second director on one hub keeps only its own.
``tests/server/test_slot_view.py`` checks it against a rebuild after random sequences of events.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional


class SlotView:
    """``slots``: name -> (capacity, games running, rulesets) of every connected bot; ``changed``: the
    names whose entry changed, appeared or went away since the last `take_changed`.

    on_close: what its keeper (`Hub.slot_view`) does when the reader is done with it (`close`): it
    stops keeping the view up to date.  A view made apart (`refresh`) needs none."""

    __slots__ = ("slots", "changed", "_on_close")

    def __init__(self, on_close: Optional[Callable[["SlotView"], None]] = None) -> None:
        self.slots: dict[str, tuple[int, int, tuple[str, ...]]] = {}
        self.changed: set[str] = set()
        self._on_close = on_close

    def close(self) -> None:
        """The reader is done with this view: its keeper no longer updates it (a second call does nothing)."""
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close(self)

    def __enter__(self) -> "SlotView":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def set(self, name: str, entry: Optional[tuple[int, int, tuple[str, ...]]]) -> None:
        """The bot's entry now (None: it is not connected)."""
        if entry is None:
            if self.slots.pop(name, None) is not None:
                self.changed.add(name)
        elif self.slots.get(name) != entry:
            self.slots[name] = entry
            self.changed.add(name)

    def take_changed(self) -> set[str]:
        """The names changed since the last call (and forgets them)."""
        changed, self.changed = self.changed, set()
        return changed

    def refresh(self, slots: Mapping[str, tuple[int, int, tuple[str, ...]]]) -> None:
        """Take a whole mapping as it is now (for a handle that keeps no view itself): the
        differences become the changed names."""
        for gone in [name for name in self.slots if name not in slots]:
            self.set(gone, None)
        for name, entry in slots.items():
            self.set(name, tuple(entry))  # type: ignore[arg-type]
