"""The public history of a game: what every player at the table saw happen.

Each `TurnRequest` carries the public events since this seat's previous
request (``turn.events``); the SDK keeps them all, so ``turn.history`` is the
whole game's public log from its deal to this decision.  An event is public
to every seat: a draw is a count, a Blind play is its claim, a meld its
cards.  The kinds and their ``details`` per game family are listed in the
arena's arena/games/README.md; for the shedding games, e.g.::

    for event in turn.events:
        if event.kind == "play" and event.seat != turn.seat:
            seen[event.details["card"]] += 1     # cards out of play
        elif event.kind == "reshuffle":
            seen.clear()                          # the pile went back into the stock
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from mau_arena_sdk.observation import frozen_json


@dataclass(frozen=True, slots=True)
class Event:
    """One public event: who it concerns (None: the table), its kind, a readable text, its facts."""

    seat: "int | None"
    kind: str
    text: str
    details: Mapping[str, Any]

    @classmethod
    def from_pb(cls, message: Any) -> "Event":
        text = message.details_json
        details = frozen_json(json.loads(text)) if text else frozen_json({})
        return cls(None if message.seat < 0 else message.seat, message.kind, message.text, details)

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "text": self.text,
                "details": json.loads(json.dumps(dict(self.details), default=_plain))}


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON data")


class History:
    """One game's public events so far, oldest first; wire events are decoded on first use."""

    __slots__ = ("_raw", "_events")

    def __init__(self) -> None:
        self._raw: list[Any] = []  # wire events not decoded yet
        self._events: list[Event] = []

    def add(self, events: Iterable[Any]) -> None:
        """Append events: wire messages (``pb.PublicEvent``) or `Event`s."""
        self._raw.extend(events)

    def __len__(self) -> int:
        return len(self._events) + len(self._raw)

    def events(self, upto: "int | None" = None) -> tuple[Event, ...]:
        """The first ``upto`` events (all of them by default)."""
        if self._raw:
            self._events.extend(e if isinstance(e, Event) else Event.from_pb(e) for e in self._raw)
            self._raw.clear()
        return tuple(self._events if upto is None else self._events[:upto])
