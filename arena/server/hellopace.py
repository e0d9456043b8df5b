"""How often one address may have its Hello refused before any token check.

A Play stream needs no login to be opened, and a Hello with a bad name, an
unsupported version, or a first message that is not a Hello is refused by
`arena.server.hello.check_hello` before the authenticator is asked, so the
limits on refused tokens (`arena.server.authgate`) never see it.  Each such
stream costs the games' loop its set-up, a read, a log line and a write:
16 clients from one address sending bad names back to back (527 a second)
took the loop's lag from 40 to 100 ms (p99).

`RefusedHellos` counts those refusals per address (`arena.server.peers`' key)
in a `ReadPace` bucket: ``burst`` of them, then ``per_second``.  While an
address has no refusal left in its bucket, every new Play stream from it is
refused at once (RESOURCE_EXHAUSTED, saying when to try again), before its
Hello is read: that is the work saved.  Good Hellos take nothing from the
bucket, so honest bots behind one address never use it up however many
start at once.

What a good bot behind a flooded address gets: it cannot be told from the
flood without reading its Hello, which is the work refused, so it is refused
too while the bucket is empty; the bucket refills one refusal's worth in
``1 / per_second`` seconds (1 s by default) after the bad Hellos stop.  A bot
author who fixes a typo is therefore back at once (the SDK retries a refused
connection within its connect timeout, with waits of at most 1 s), and what
stays locked out is an address that keeps sending bad Hellos: the same fate
every per-address budget gives a client that shares its address with a
flood.
"""

from __future__ import annotations

import math

from arena.server.readpace import ReadPace


class RefusedHellos:
    """Hellos refused before the token check, per address, in a token bucket."""

    def __init__(self, per_second: float, burst: int) -> None:
        #: The bucket (its ``clock`` is ``time.monotonic``; a test may set its own).
        self.pace = ReadPace(per_second, burst, max_wait_s=0.0)
        self.turned_away = 0  # streams refused at once, their Hello unread

    def refusal(self, address: str) -> str:
        """Why a new Play stream from ``address`` is refused before its Hello is read; "" when it is not."""
        wait_s = self.pace.free_in_s(address)
        if wait_s <= 0:
            return ""
        self.turned_away += 1
        return (f"too many refused Hellos from this address (a bad name or version, or no Hello; at most "
                f"{self.pace.burst}, then {self.pace.per_second:g} a second): fix the Hello, and try again "
                f"in {max(1, math.ceil(wait_s))} s")

    def record(self, address: str) -> None:
        """A Hello from ``address`` was refused before the token check (or its stream ended without one)."""
        self.pace.turn_s(address)
