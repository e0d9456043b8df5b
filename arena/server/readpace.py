"""How often one address may ask the read-only calls (GetStandings, ListGames).

They need no Hello and no token, and each is answered on the loop the games
run on (0.4 ms for GetStandings, 1.5 ms for a ListGames of 1,000 games, on
a demo ladder).  Unpaced, 16 clients asking GetStandings back to back from
one address took the loop and halved a ladder's games (22 and 28 in 15 s
quiet, 10 under the flood).  Refusing the calls beyond a pace at once did
not help (60 games quiet, 13 flooded): a refusal costs the loop about what an
answer does, and a client that waits for each answer simply asked again.
So, as for refused logins (`arena.server.authgate`), a call beyond the pace
is answered late instead: `ReadPace` is a token bucket per peer address,
``burst`` calls at once and then ``per_second``; a call beyond it waits for
its turn (a client that waits for its answers is held to the pace), and one
whose turn is more than ``max_wait_s`` away is refused at once
(RESOURCE_EXHAUSTED, saying when to try again).  A dashboard polling once a
second never waits.  Addresses are counted as for the logins (an IPv6
address by its /64, `arena.server.peers`); the last `MAX_REMEMBERED` are kept.

The web view paces its requests with the same class (`arena.web.pace`), where
a request may cost more than one turn (a list of many games).  A `ReadPace`
has no lock: each is used from one thread, the event loop that answers its
calls (the arena's, for both the gRPC service and `arena serve --web`; its
own, for `arena web`).  Its clock is ``time.monotonic`` unless one is given.

A replay (the web view's frames of an ended game, Spectate of a game this host
no longer holds) costs turns in proportion to its length (`replay_turns`: one
per `DECISIONS_PER_TURN` decisions, at most the pace's burst): its rebuild
costs the reader-work process about 1.4 ms of CPU a decision and its answer
is about 1 KB a decision (a long Mose game, 600 decisions: 700 KB, a second),
where a list of standings costs a millisecond.  The web view knows a game's
length before it starts the work (its database row) and holds or refuses the
request for all of it; Spectate learns it from the rebuilt events, takes one
turn before and the rest after (`ReadPace.charge`: a debt the address's next
calls wait for).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any, Callable, Optional

MAX_REMEMBERED = 4096
#: A replay costs one read turn per this many of its decisions (`replay_turns`).
DECISIONS_PER_TURN = 50
#: A list of games costs one read turn per this many games asked for (`list_turns`): the web's /api/v1/games and
#: gRPC ListGames alike (a list of 1,000 games took one turn on gRPC, as a list of 20 did).
GAMES_PER_TURN = 50


def list_turns(asked: int) -> float:
    """The turns a list of ``asked`` games costs: one per `GAMES_PER_TURN`, at least one."""
    return max(1.0, asked / GAMES_PER_TURN)


def replay_cost(decisions: int) -> float:
    """The turns a replay of ``decisions`` decisions costs: one per `DECISIONS_PER_TURN`, at least one."""
    return float(max(1, -(-max(0, int(decisions or 0)) // DECISIONS_PER_TURN)))


def replay_turns(decisions: int, burst: int) -> float:
    """The part of a replay's cost taken before its work (`replay_cost`, at most ``burst``: an address with its
    whole burst may always ask for one); the rest is charged after it, a debt its next calls wait for
    (`ReadPace.charge`), so a game longer than the burst costs what it costs."""
    return min(replay_cost(decisions), float(burst))


class ReadPace:
    def __init__(self, per_second: float, burst: int, max_wait_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if per_second <= 0 or burst < 1 or max_wait_s < 0:
            raise ValueError("per_second must be positive, burst at least 1 and max_wait_s 0 or more")
        self.per_second = per_second
        self.burst = burst
        self.max_wait_s = max_wait_s
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # address -> (tokens, at)
        self.held = 0      # calls answered after a wait
        self.refused = 0   # calls refused: their turn was too far away

    def turn_s(self, address: str, cost: float = 1.0) -> Optional[float]:
        """Take a turn for ``address`` (``cost`` calls' worth): the seconds until it comes (0: at once), or
        None when it is more than ``max_wait_s`` away (then nothing is taken)."""
        now = self.clock()
        tokens = self._tokens(address, now)
        wait = self._wait(tokens, cost)
        if wait > self.max_wait_s:
            self.refused += 1
        else:
            tokens -= cost  # below 0: turns promised to calls that wait
            self.held += wait > 0
        self._buckets.pop(address, None)
        self._buckets[address] = (tokens, now)
        while len(self._buckets) > MAX_REMEMBERED:
            self._buckets.popitem(last=False)
        return None if wait > self.max_wait_s else wait

    def charge(self, address: str, cost: float) -> float:
        """Take ``cost`` turns from ``address`` whatever its bucket holds (a cost learnt after the work was
        done: the address owes what it lacks, and its next calls wait for it): the seconds until this
        call's turn (0: it had them)."""
        now = self.clock()
        tokens = self._tokens(address, now)
        wait = self._wait(tokens, cost)
        self.held += wait > 0
        self._buckets.pop(address, None)
        self._buckets[address] = (tokens - cost, now)
        while len(self._buckets) > MAX_REMEMBERED:
            self._buckets.popitem(last=False)
        return wait

    def free_in_s(self, address: str, cost: float = 1.0) -> float:
        """The seconds until a call from ``address`` (of ``cost``) would be answered at once (0: now);
        nothing is taken.  What a refused call is told to wait before it asks again."""
        return self._wait(self._tokens(address, self.clock()), cost)

    def _tokens(self, address: str, now: float) -> float:
        tokens, at = self._buckets.get(address, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - at) * self.per_second)

    def _wait(self, tokens: float, cost: float) -> float:
        return 0.0 if tokens >= cost else (cost - tokens) / self.per_second


async def wait_turn(pace: ReadPace, context: Any, refusal: str, cost: float = 1.0) -> None:
    """A gRPC call (``context``, grpc.aio's) at its address's ``pace``: returns when its turn comes, or ends the
    call with RESOURCE_EXHAUSTED and ``refusal`` when that is more than the pace's wait away."""
    import asyncio

    import grpc

    from arena.server.peers import peer_address

    wait_s = pace.turn_s(peer_address(context.peer() or ""), cost)
    if wait_s is None:
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, refusal)
    elif wait_s > 0:
        await asyncio.sleep(wait_s)
