"""How often one address may ask the web view: its requests held to a pace, as the gRPC read-only calls are.

A request to the web view is answered on the arena's own loop (uvicorn
parses it and writes the answer there) and in a worker thread of the same
process (the database read, the rows turned into JSON), which takes
Python's GIL from that loop while it runs: a list of 500 games is 50-60 ms
of it.  Unpaced, 16 clients of one address asking for that list back to
back cut a ladder's games in 15 s from 129 to 53, and asking for the
standings (375 answers a second) from 108 to 25
(``scripts/bench_web_flood.py``).

So every request (the API, the live event streams, the page and its files)
takes a turn of its client's address in a `arena.server.readpace.ReadPace`:
`BURST` at once, then `PER_SECOND` (by default; `web_pace` makes one of other
numbers, for `arena serve --web-reads-per-second/--web-reads-burst` and `arena
web --reads-per-second/--reads-burst`: many readers behind one address, a
school's NAT, need more); the address is the one the app sees,
``X-Forwarded-For``'s under ``--web-proxy-hops``, an IPv6 address counted
by its /64 (`arena.server.peers`).  A request beyond the pace is held
(an ``asyncio.sleep`` on the loop, which costs it nothing) and answered
when its turn comes, with ``Server-Timing: pace;dur=MS`` saying how long
it waited; one whose turn is more than `MAX_WAIT_S` away is refused,
with ``429 Too Many Requests`` and ``Retry-After`` (the seconds until
it would be answered without waiting).  A request may cost more than one
turn (``cost``: a list of many games, `arena.web.api.request_cost`); a
replay takes one turn here and the rest of its cost, in proportion to the
game's decisions (`arena.server.readpace.replay_turns`), once its endpoint has
read the game's row (`WebPace.turn`, the same hold or refusal).

The refusal too is answered late (`REFUSAL_DELAY_S`, while at most
`REFUSALS_HELD` wait; beyond that at once), as the arena answers refused
logins (`arena.server.authgate`): a 429 costs the loop less than an answer,
but a client that waits for each answer asks again at once, and refused at
once the same 16 clients asked 650 times a second and cut the games from
137 to 25, as many as unpaced.

The page's own script asks about 1.6 times a second on the leaderboard
(three answers every 2 s, the hosts every 10 s) and at most about 20 at
once (a bot's page: one rating history per ruleset it has played), so a
page, or two or three open behind one address, is never held.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any, Callable

from arena.server.peers import address_key
from arena.server.readpace import ReadPace

#: Requests per address: this many at once, then this many a second; held at most `MAX_WAIT_S`, then refused.
PER_SECOND = 5.0
BURST = 30
MAX_WAIT_S = 5.0
#: A refused request is answered this late, while at most `REFUSALS_HELD` wait (each an idle coroutine).
REFUSAL_DELAY_S = 2.0
REFUSALS_HELD = 1024


class PaceSettingError(ValueError):
    """A pace that cannot work: ``setting`` ("per_second" or "burst") and ``rule``, what it must be."""

    def __init__(self, setting: str, rule: str) -> None:
        super().__init__(f"{setting} {rule}")
        self.setting = setting
        self.rule = rule


def web_pace(per_second: float = PER_SECOND, burst: int = BURST) -> "WebPace":
    """The web view's pace with ``per_second`` requests a second and ``burst`` at once per address (`arena serve
    --web-reads-per-second/--web-reads-burst`, `arena web --reads-per-second/--reads-burst`: a page read by many
    people behind one address, a school's or an office's NAT, asks more than the defaults allow one reader);
    `PaceSettingError` for values that cannot work (NaN too; inf is no pace at all: valid, if unwise)."""
    if not per_second > 0:
        raise PaceSettingError("per_second", f"must be more than 0, not {per_second}")
    if burst < 1:
        raise PaceSettingError("burst", f"must be at least 1, not {burst}")
    return WebPace(ReadPace(per_second, burst, MAX_WAIT_S))


class WebPace:
    """The web view's pace: ``reads`` (its turns per address, and its ``held`` and ``refused`` counts) and how
    its refusals are held (``late``: how many were answered after ``refusal_delay_s``)."""

    def __init__(self, reads: ReadPace | None = None, refusal_delay_s: float = REFUSAL_DELAY_S,
                 refusals_held: int = REFUSALS_HELD) -> None:
        self.reads = reads if reads is not None else ReadPace(PER_SECOND, BURST, MAX_WAIT_S)
        self.refusal_delay_s = refusal_delay_s
        self.refusals_held = refusals_held
        self.holding = 0  # refusals waiting now
        self.late = 0

    async def turn(self, address: str, cost: float) -> float:
        """Wait for ``address``'s turn of ``cost`` (an ``asyncio.sleep``): the seconds it waited.  Raises
        `TooMany` (once the refusal has been held, `refusal_delay_s`) when the turn is too far away."""
        wait = self.reads.turn_s(address, cost)
        if wait is None:
            raise await self._refusal(address, cost)
        if wait > 0:
            await asyncio.sleep(wait)
        return wait

    async def _refusal(self, address: str, cost: float) -> "TooMany":
        if self.holding < self.refusals_held and self.refusal_delay_s > 0:
            self.holding += 1
            try:
                await asyncio.sleep(self.refusal_delay_s)
            finally:
                self.holding -= 1
            self.late += 1
        pace = self.reads
        retry = max(1, math.ceil(pace.free_in_s(address, cost)))
        return TooMany(retry, f"too many requests from this address (at most {pace.per_second:g} a second, "
                              f"{pace.burst} at once); try again in {retry} s")


class TooMany(Exception):
    """A request beyond its address's pace: answered 429 with ``Retry-After: retry_s``."""

    def __init__(self, retry_s: int, message: str) -> None:
        super().__init__(message)
        self.retry_s = retry_s


def client_key(scope: dict[str, Any]) -> str:
    """The budget key of a request's client (`arena.server.peers.address_key`); "" when the server names none."""
    client = scope.get("client")
    return address_key(client[0]) if client else ""


class Paced:
    """ASGI middleware: each HTTP request waits for its address's turn in ``pace`` (``cost(scope)`` turns)."""

    def __init__(self, app: Any, pace: WebPace, cost: Callable[[dict[str, Any]], float] = lambda scope: 1.0) -> None:
        self.app = app
        self.pace = pace
        self.cost = cost

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        address, cost = client_key(scope), self.cost(scope)
        try:
            wait = await self.pace.turn(address, cost)
        except TooMany as refused:
            body = json.dumps({"error": str(refused)}).encode()
            await send({"type": "http.response.start", "status": 429, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(refused.retry_s).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        if wait > 0:
            send = _timed(send, wait)
        await self.app(scope, receive, send)


def _timed(send: Any, wait: float) -> Any:
    """``send`` with a ``Server-Timing`` header on the answer: how long the request was held for its pace."""
    header = (b"server-timing", f"pace;dur={wait * 1000:.0f}".encode())

    async def timed(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), header]}
        await send(message)

    return timed
