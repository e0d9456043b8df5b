"""A budget of long-lived streams held at once, in all and per client address.

A stream that anyone may open without a Hello and that stays open costs the
server something for as long as it lasts: a watching stream (Spectate, the
web view's live events; `arena.server.live.Spectators`) a write per event on
the games' loop, a health ``Watch`` (`arena.server.health`) its call's
memory and a connection that never counts as idle.  `StreamBudget` bounds
them: at most ``per_address`` from one address (`arena.server.peers`' key)
and ``total`` in all; one beyond either is refused at once (`Crowded`, whose
text says which bound and what to do) instead of queued, and a place comes
back when its stream ends (`leave`).  Everything runs on the server's one
thread, so the counts need no lock.
"""

from __future__ import annotations


class Crowded(Exception):
    """No room for another stream (in all, or for this address); the text says which."""


class StreamBudget:
    """Streams held at once, in all and per address.  ``streams`` names them in the refusals
    ("watching streams", "health Watch streams")."""

    def __init__(self, total: int, per_address: int, streams: str = "streams") -> None:
        if total < 1 or per_address < 1:
            raise ValueError(f"{streams} limits must be at least 1")
        self.total = total
        self.per_address = per_address
        self.streams = streams
        self.held = 0
        self._by_address: dict[str, int] = {}

    def held_by(self, address: str) -> int:
        return self._by_address.get(address, 0)

    def refusal(self, address: str) -> str:
        """Why ``address`` may not open one more stream now; "" when it may."""
        held_here = self._by_address.get(address, 0)
        if held_here >= self.per_address:
            return self.address_full(held_here)
        if self.held >= self.total:
            return self.all_full()
        return ""

    def address_full(self, held_here: int) -> str:
        return (f"this address already holds {held_here} {self.streams} (at most {self.per_address} at once); "
                "end one first")

    def all_full(self) -> str:
        return f"{self.held} {self.streams} are open (at most {self.total} at once); try again later"

    def enter(self, address: str) -> None:
        """Take a place for ``address``; `Crowded` (with the reason) when there is none."""
        refusal = self.refusal(address)
        if refusal:
            raise Crowded(refusal)
        self._by_address[address] = self._by_address.get(address, 0) + 1
        self.held += 1

    def leave(self, address: str) -> None:
        """Give back a place ``address`` took with `enter`."""
        left = self._by_address.get(address, 0) - 1
        if left > 0:
            self._by_address[address] = left
        else:
            self._by_address.pop(address, None)
        self.held = max(0, self.held - 1)
