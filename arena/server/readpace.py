"""How often one address may ask the read-only calls (GetStandings, ListGames).

They need no Hello and no token, and each is answered on the loop the games
run on (0.4 ms for GetStandings, 1.5 ms for a ListGames of 1,000 games, on
a demo ladder).  Unpaced, 16 clients asking GetStandings back to back from
one address took the loop and halved a ladder's games (22 and 28 in 15 s
quiet, 10 under the flood).  `ReadPace` is a token bucket per peer address:
``burst`` calls at once, then ``per_second``; a call beyond it is refused at
once (RESOURCE_EXHAUSTED, saying when to try again).  A dashboard polling
once a second never meets it.  Addresses are counted whole, as for the logins
(`arena.server.authgate`); the last `MAX_REMEMBERED` addresses are kept.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Callable

MAX_REMEMBERED = 4096


class ReadPace:
    def __init__(self, per_second: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        if per_second <= 0 or burst < 1:
            raise ValueError("per_second must be positive and burst at least 1")
        self.per_second = per_second
        self.burst = burst
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # address -> (tokens, at)
        self.refused = 0

    def wait_s(self, address: str) -> float:
        """Take one call for ``address``: 0 when it may be answered now, else the seconds until it may."""
        now = self.clock()
        tokens, at = self._buckets.pop(address, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.per_second)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.per_second
            self.refused += 1
        self._buckets[address] = (tokens, now)
        while len(self._buckets) > MAX_REMEMBERED:
            self._buckets.popitem(last=False)
        return wait
