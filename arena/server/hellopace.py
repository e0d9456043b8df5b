"""How often one address may have its Hello refused before any token check.

A Play stream needs no login to be opened, and a Hello with a bad name, an
unsupported version, or a first message that is not a Hello is refused by
`arena.server.hello.check_hello` before the authenticator is asked, so the
limits on refused tokens (`arena.server.authgate`) never see it.  Each such
stream costs the games' loop its set-up, a read, a log line and a write:
16 clients from one address sending bad names back to back (527 a second)
took the loop's lag from 40 to 100 ms (p99).

`RefusedHellos` counts those refusals per address (`arena.server.peers`' key)
in a `ReadPace` bucket: ``burst`` of them, then ``per_second``.  Good Hellos
take nothing from it, so honest bots behind one address never use it up
however many start at once.  While an address has no refusal left, a new
Play stream from it is held, before its Hello is read, until one refusal's
worth has come back (at most ``1 / per_second``: 1 s by default), and then
read as usual.  Refusing those streams at once did not help: a client that
waits for its answer simply asked again, and a refusal costs the loop about
what reading the Hello does (measured, `scripts/bench_reader_floods.py`:
the games under the flood went from 0.32 to 0.43 of the quiet windows'; the
checks' pace found the same).  Held, 16 clients that wait for their answers
get 16 Hellos read a second instead of hundreds.  At most ``held_per_address``
streams of one address and ``held`` in all are held at once (a
`StreamBudget`); one beyond is refused at once (RESOURCE_EXHAUSTED, saying
when to try again), unread.

What a good bot behind a flooded address gets: it cannot be told from the
flood without reading its Hello, so it waits with the flood's streams (at
most ``1 / per_second``) and is then read and welcomed; only while the
flood fills its address's held streams is it refused, and the SDK retries a
refused connection within its connect timeout.  A bot author who fixes a
typo is back at once: the bucket refills within a second of the bad Hellos
stopping.
"""

from __future__ import annotations

import asyncio
import math

from arena.server.readpace import ReadPace
from arena.server.streambudget import Crowded, StreamBudget


class RefusedHellos:
    """Hellos refused before the token check, per address, in a token bucket; streams held while it is empty."""

    def __init__(self, per_second: float, burst: int, held: int = 256, held_per_address: int = 16) -> None:
        #: The bucket (its ``clock`` is ``time.monotonic``; a test may set its own).
        self.pace = ReadPace(per_second, burst, max_wait_s=0.0)
        #: Streams held at once (before their Hello is read), in all and per address.
        self.held = StreamBudget(held, held_per_address, "streams held for their address's refused Hellos")
        self.turned_away = 0  # streams refused at once, their Hello unread

    async def wait_turn(self, address: str) -> str:
        """Before a new Play stream's Hello is read: "" when it may be read (at once, or after a hold), or
        why the stream is refused unread."""
        wait_s = self.pace.free_in_s(address)
        if wait_s <= 0:
            return ""
        try:
            self.held.enter(address)
        except Crowded as crowded:
            self.turned_away += 1
            return (f"too many refused Hellos from this address (a bad name or version, or no Hello; at most "
                    f"{self.pace.burst}, then {self.pace.per_second:g} a second), and {crowded}: fix the Hello, "
                    f"and try again in {max(1, math.ceil(wait_s))} s")
        try:
            await asyncio.sleep(wait_s)
        finally:
            self.held.leave(address)
        return ""

    def record(self, address: str) -> None:
        """A Hello from ``address`` was refused before the token check (or its stream ended without one)."""
        self.pace.turn_s(address)
