"""Checking tokens without letting a stranger spend the server's CPU and memory.

An authenticator may hash a token slowly on purpose (the ladder's scrypt:
about 40 ms of CPU and 16 MiB per check).  Unbounded, every Hello with a
wrong token cost the server that much, on as many threads as the default
executor had: 60 wrong-token Hellos at once cut an undisturbed match from
219 to 23 games and added 100 MB of memory.  `AuthGate` bounds that:

* checks run on `ServerConfig.auth_workers` dedicated threads (1 by default:
  at most one core and one hash's memory), never on the event loop;
* at most `auth_queue` more Hellos wait for a thread; beyond that a Hello
  is refused at once (CAPACITY, "try again in a few seconds");
* each refused token counts against its peer address and its bot name (and
  so does each check still running, so a burst at once is bounded too: a
  Hello over the limit only by checks still running waits for one to be
  judged and looks again, among at most `auth_refusals_held` waiting, so
  many honest bots behind one address, a lab behind NAT or a restart, all
  get in, while a flood's refusals are recorded before its next hash); once
  either has `auth_failures_per_address` / `_per_name` within
  `auth_failure_window_s`, further Hellos from that address or for that name
  are refused without calling the authenticator (AUTH_FAILED, with how long
  to wait), so a flood costs a dictionary look-up per stream, not a hash;
  those refusals are answered after `auth_refusal_delay_s` (while at most
  `auth_refusals_held` wait), so a client that waits for its answer cannot
  make the server set up hundreds of refused streams a second;
* a token the authenticator accepted before for that name (remembered as a
  SHA-256 digest, never the token, for the last 4,096 names) skips the
  failure limits and the queue bound; the authenticator is still asked (a
  revoked token fails); beyond `auth_logins_per_name` such logins of one
  name within `auth_failure_window_s`, each is held `auth_refusal_delay_s`
  before its check (among the `auth_refusals_held`), so the holder of a
  token cannot make the server set up a login a round trip: 200 streams
  repeating Hellos with one registered bot's own token (each answered at
  once, DUPLICATE_SESSION) cut a ladder's games in 20 s from 111 to 21;
* a name over its limit is still checked once per `auth_name_trickle_s` for
  a Hello from an address with no refused token in the window: an attacker
  hammering a name from its own addresses (which soon are over their own
  limit) cannot lock the owner out, even right after a restart, when no
  token of it is remembered yet; many fresh addresses buy the attacker one
  hash per trickle interval per name.

What it does not bound: an attacker with many addresses and many names can
keep the one hashing thread busy (one core, one hash's memory); the games
run on the event loop, so they slow by that core's share only.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import time
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional

from arena.server.config import ServerConfig
from arena.server.hello import HelloRefused
from arena.server.peers import peer_address

log = logging.getLogger("arena.server")

#: Names and addresses remembered (accepted tokens, recent refusals); the oldest are forgotten first.
MAX_REMEMBERED = 4096


class FailureWindow:
    """Refusals per key within a sliding window, in bounded memory.

    Kept here (a dict of deques) rather than taken from a rate-limit library: the
    libraries' in-memory stores expire keys on a timer thread, which a server that
    must leave no thread behind at shutdown cannot have.
    """

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._seen: OrderedDict[str, deque] = OrderedDict()

    def wait_s(self, key: str, pending: int = 0) -> float:
        """Seconds until ``key`` may try again (with ``pending`` tries not yet judged); 0 when under its limit."""
        stamps = self._seen.get(key)
        if stamps is None:
            return 0.0 if pending < self.limit else self.window_s
        cutoff = self.clock() - self.window_s
        while stamps and stamps[0] <= cutoff:
            stamps.popleft()
        over = len(stamps) + pending - self.limit
        if over < 0:
            return 0.0
        return stamps[over] - cutoff if over < len(stamps) else self.window_s

    def record(self, key: str) -> None:
        stamps = self._seen.get(key)
        if stamps is None:
            stamps = self._seen[key] = deque(maxlen=self.limit)
            while len(self._seen) > MAX_REMEMBERED:
                self._seen.popitem(last=False)
        else:
            self._seen.move_to_end(key)
        stamps.append(self.clock())


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class AuthGate:
    """Asks the authenticator about a Hello within the bounds described above."""

    def __init__(self, config: ServerConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.authenticator = config.authenticator
        self.workers = config.auth_workers
        self.queue = config.auth_queue
        self.by_address = FailureWindow(config.auth_failures_per_address, config.auth_failure_window_s, clock)
        self.by_name = FailureWindow(config.auth_failures_per_name, config.auth_failure_window_s, clock)
        #: Logins with a token accepted before, per name (they skip the limits above, not this pace).
        self.logins = FailureWindow(config.auth_logins_per_name, config.auth_failure_window_s, clock)
        self.paced = 0         # logins held because their name logged in that often
        self.clock = clock
        self.trickle_s = config.auth_name_trickle_s
        self._trickled: OrderedDict[str, float] = OrderedDict()  # name -> when a clean address last got a check
        self._accepted: OrderedDict[str, bytes] = OrderedDict()  # name -> sha256 of a token accepted before
        self._unverified: dict[str, int] = {}   # address or name -> checks of unknown tokens running now
        self._executor: Optional[ThreadPoolExecutor] = None
        self.refusal_delay_s = config.auth_refusal_delay_s
        self.max_held = config.auth_refusals_held
        self.held = 0          # refused Hellos being held before their answer
        self.waiting = 0       # Hellos waiting for a running check of their address or name to be judged
        self._judged = asyncio.Event()  # set (and replaced) whenever a check of an unknown token ends
        self.checking = 0      # Hellos running or waiting for a check
        self.checks = 0        # authenticator calls made
        self.turned_away = 0   # Hellos refused without a call

    async def check(self, name: str, token: str, peer: str) -> None:
        """Return if the bot is admitted; raise `HelloRefused` (AUTH_FAILED or CAPACITY) otherwise."""
        authenticator = self.authenticator
        if authenticator is None:
            return
        digest = _digest(token)
        known = hmac.compare_digest(self._accepted.get(name, b""), digest)
        address = peer_address(peer)
        if known:
            if self.logins.wait_s(name) > 0:
                self.paced += 1
                await self._hold()
            self.logins.record(name)
        else:
            while True:
                # Checks still running count as failures-to-be: a burst of Hellos at once is bounded too.
                address_wait_s = self.by_address.wait_s(address, self._unverified.get(address, 0))
                wait_s = max(address_wait_s, self.by_name.wait_s(name, self._unverified.get(name, 0)))
                if wait_s > 0 and address_wait_s == 0 and self._trickle(name, address):
                    wait_s = 0.0  # the name is under attack, this address is clean: one check now and then
                if wait_s > 0 and self.waiting < self.max_held and self._only_running_checks(address, name):
                    # Over the limit only by checks not yet judged (many honest bots behind one address
                    # starting at once): wait for one to be judged and look again, instead of refusing
                    # the lot; a flood's refusals are recorded by then, so it still gets its few hashes.
                    self.waiting += 1
                    try:
                        await self._judged.wait()
                    finally:
                        self.waiting -= 1
                    continue
                break
            if wait_s > 0:
                self.turned_away += 1
                await self._hold()
                raise HelloRefused(
                    "AUTH_FAILED",
                    f"too many unverified tokens from this address or for bot {name!r}: "
                    f"not checked; try again in {math.ceil(wait_s)} s",
                )
            if self.checking >= self.workers + self.queue:
                self.turned_away += 1
                raise HelloRefused("CAPACITY", "too many logins are being checked right now; try again in a few seconds")
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="arena-auth")
        keys = () if known else (address, name)
        for key in keys:
            self._unverified[key] = self._unverified.get(key, 0) + 1
        self.checking += 1
        self.checks += 1
        try:
            verdict = await asyncio.get_running_loop().run_in_executor(self._executor, authenticator, name, token, peer)
        except Exception:
            log.exception("authenticator failed for %r", name)
            raise HelloRefused("AUTH_FAILED", "the arena could not check this bot's token; try again later")
        finally:
            self.checking -= 1
            for key in keys:
                left = self._unverified[key] - 1
                if left:
                    self._unverified[key] = left
                else:
                    del self._unverified[key]
            if keys:
                self._judged.set()  # wakes the Hellos waiting for a check to be judged
                self._judged = asyncio.Event()
        if verdict is None or verdict is True:
            self._accepted[name] = digest
            self._accepted.move_to_end(name)
            while len(self._accepted) > MAX_REMEMBERED:
                self._accepted.popitem(last=False)
            return
        self.by_address.record(address)
        self.by_name.record(name)
        text = verdict if isinstance(verdict, str) and verdict else f"bot {name!r} is not admitted"
        raise HelloRefused("AUTH_FAILED", text)

    def _only_running_checks(self, address: str, name: str) -> bool:
        """Whether the address and the name are within their limits by refused tokens alone (so only checks
        still running put them over)."""
        return self.by_address.wait_s(address) == 0 and self.by_name.wait_s(name) == 0

    def _trickle(self, name: str, address: str) -> bool:
        """Whether a Hello for a name over its limit, from an address without refusals, gets a check now."""
        if self.by_address.wait_s(address, self.by_address.limit - 1 + self._unverified.get(address, 0)) > 0:
            return False  # the address has a refusal (or a check running) in the window: not clean
        now = self.clock()
        last = self._trickled.get(name)
        if last is not None and now - last < self.trickle_s:
            return False
        self._trickled[name] = now
        self._trickled.move_to_end(name)
        while len(self._trickled) > MAX_REMEMBERED:
            self._trickled.popitem(last=False)
        return True

    async def _hold(self) -> None:
        """Answer a refusal that cost no check only after `auth_refusal_delay_s`, while few are held.

        A client that waits for its answer before trying again (as a bot does) then gets one
        try per delay instead of one per round trip: each refused stream still costs the loop
        a stream's set-up and a write (~hundreds of µs), which at hundreds per second slowed the
        games.  Beyond `auth_refusals_held` held streams, refusals go out at once (holding costs
        a little memory per stream, and a client that does not wait gains nothing from it).
        """
        if self.refusal_delay_s <= 0 or self.held >= self.max_held:
            return
        self.held += 1
        try:
            await asyncio.sleep(self.refusal_delay_s)
        finally:
            self.held -= 1

    def close(self) -> None:
        """Stop the checking threads (queued checks are dropped; a running one finishes on its own)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
