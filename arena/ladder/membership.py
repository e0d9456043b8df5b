"""One host's part in a ladder that several `arena serve` processes share through PostgreSQL.

The director (`arena.ladder.director`) plans games over the bots connected to *this*
host, as a single server does; this module adds what makes that sound with several hosts
(the design and why: "Several hosts" in arena/ladder/README.md):

* at start, `Membership.join` registers the host (`arena.ladder.store.hosts`) and aborts
  only the games this host left running;
* in the background, `Membership.run` renews the host's lease, publishes the live hosts'
  addresses for `Welcome.hosts` and, when they change, to the connected bots (a `Hosts`
  message: so a bot given one address finds them all, also those that join later), and closes
  the games of hosts found dead; while the database is away it says so and the host
  starts nothing new (every game needs its seats claimed first); when its heartbeat finds
  that another host swept this one meanwhile (fenced), it has the director abort every
  game still playing here; when another process has joined under this host's name meanwhile
  (the operator's replacement: `HostReplaced`), this process is no longer the host: it has the
  director abort its games and stop, and `arena serve` exits 1;
* before planning, `Membership.adjust` turns each connected bot's free slots into the
  cluster's: its open claims on the other hosts count, its share is of every live host's
  slots, and the scheduler's fairness counts become those of every host.  It takes the
  cluster's view read last (`Membership.watch`, in the background, asked for by every
  round), so a planning round never waits on the database: a game's seats are planned
  again as soon as its end wakes the director.  This host's own games are counted from
  its own books (the director's running sets), which are never behind the database;
  the other hosts' claims may be one read behind, which the claim itself makes safe (a
  bot over its cap is refused in the start's transaction, and planned again).  A game whose
  bots a newer view shows taken is not claimed (`Membership.taken`), and a host alone reads
  the view at most once a second;
* before a planned game claims its seats, `Membership.hold_off` leaves it a moment to a live host
  far below its share of the games (`arena.ladder.host_balance`): the host where a game ends
  plans its seats again at once, the others only once they hear of them, so without this a
  host that joined late could sit idle beside busy ones;
* a bot name is played by one program at a time across the hosts: the server asks `arena.ladder.name_holds`
  about every Hello, which this module attaches to the ladder at `join`, retries at each heartbeat, and has
  write its names again when this host learns it was taken for dead;
* every game's seats are claimed in the transaction that records its start (`start_claim`,
  one commit for both) and freed in the one that records its end (`release_statements`),
  in the store's group commits (the starts on a connection of their own on PostgreSQL,
  `LadderStore.sibling`); a game whose end could not be
  recorded has them freed apart (`release`, retried until the database takes it).

Every database call runs on a worker thread, one at a time per connection: the registry's
own (lease, live hosts, sweeps) and its work connection (the cluster's counts for planning,
and the releases apart), both apart from the store's, so a slow commit never delays a
heartbeat.  Releases that queue while one runs go together in the next.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

import trio

from arena.ladder.candidates import CandidatePool
from arena.ladder.host_balance import HostBalance
from arena.ladder.scheduler import Scheduler, slot_share
from arena.ladder.store.bot_hosts import BotHosts
from arena.ladder.store.claims import ClusterLoad, SeatClaims
from arena.ladder.store.game_start import SeatClaim
from arena.ladder.store.hosts import HostRegistry, HostReplaced, default_host_name

log = logging.getLogger("arena.ladder")

#: A host alone on its ladder (the last view showed no other live host, nor any claim of one) reads the cluster's
#: view at most this often, unless a bot waits for its row or another host is live (`Membership.watch`).
_ALONE_READ_S = 1.0



@dataclass
class ClusterSettings:
    url: str                       # the shared PostgreSQL database
    host_name: str | None = None   # default HOSTNAME:PORT
    advertise: str | None = None   # default the address the server listens on
    lease_s: float = 10.0          # a host whose lease is this old and whose lock is free is dead
    heartbeat_s: float = 2.0
    hold_s: float = 2.0            # the longest a game waits for a starved host to take it (0: never)
    host_settings: Any = None      # `HostSettings` to record and compare with the live hosts' (None: neither)
    allow_mixed: bool = False      # a rating-relevant mismatch with a live host is logged, not refused
    web: str | None = None         # where this host's web view is (recorded in its row), None: it serves none
    #: The server's check of one program per bot name across the hosts (`arena.ladder.name_holds.NameHolds`, the
    #: server config's ``names``), attached to the ladder once this host has joined; None: not checked.
    names: Any = None


class Membership:
    def __init__(self, settings: ClusterSettings, concurrency: int) -> None:
        self.settings = settings
        self.concurrency = concurrency
        self.registry: HostRegistry | None = None
        self.claims: SeatClaims | None = None
        self.since = 0.0
        self.hosts: list[str] = []            # live hosts' addresses, this one first
        self.problem = ""                     # what is wrong with the database, "" when all is well
        self._db = trio.CapacityLimiter(1)    # the registry's connection
        self._work = trio.CapacityLimiter(1)  # its work connection (claims)
        self._unreleased: set[str] = set()
        self._freed: set[str] = set()         # games whose end's commit freed their seats
        self._cap = 1                          # the per-bot cap of the last planning round (a bot's: at most its capacity)
        self._slots: Mapping[str, tuple[int, int, Sequence[str]]] = {}  # the connected bots at the last round
        self.load: ClusterLoad | None = None  # the cluster's view read last (`watch`)
        self._synced: ClusterLoad | None = None  # the view the scheduler's fairness counts were taken from
        self._unsynced: list[ClusterLoad] = []   # the views read since, whose new counts it has not had yet
        self._wanted: trio.Event | None = None   # a planning round asked for a fresh view
        self._names: Collection[str] = ()     # the connected bots at the last round (their bot_slots rows)
        self._left_out = False                # the last round left out bots without their bot_slots row
        self.balance: HostBalance | None = None  # whether a planned game waits for a starved host (`hold_off`)
        self._viewed = trio.Event()           # set (and made anew) at each view read, for `hold_off`
        self._hurry = trio.Event()            # a host alone: read the next view without waiting (`watch`)

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """A call on the registry's connection (lease, live hosts, sweeps)."""
        return await trio.to_thread.run_sync(lambda: fn(*args), limiter=self._db)

    async def _claims_call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """A call on the work connection (`SeatClaims`)."""
        return await trio.to_thread.run_sync(lambda: fn(*args), limiter=self._work)

    # ---- start and stop

    async def join(self, port: int, address: str) -> list[tuple[str, str | None]]:
        """Become a live host of the ladder; returns the games this host had left running (now aborted)."""
        name = self.settings.host_name or default_host_name(port)
        advertised = self.settings.advertise or address
        self.registry = await trio.to_thread.run_sync(
            lambda: HostRegistry(self.settings.url, name, advertised, self.concurrency, self.settings.lease_s,
                                 settings=self.settings.host_settings, allow_mixed=self.settings.allow_mixed,
                                 web=self.settings.web)
        )
        self.claims = SeatClaims(self.registry)
        # a host is new (may seat any bot) until the bots have heard of it (a heartbeat or two) and had a hold
        self.balance = HostBalance(name, self.concurrency, self.settings.hold_s,
                                   new_s=self.settings.hold_s + 2 * self.settings.heartbeat_s)
        recovered = await self._call(self.registry.join)
        if self.settings.names is not None:  # the join cleared this host's rows of where bots are connected
            self.settings.names.attach(BotHosts(self.registry))
        self.since = await self._claims_call(self.claims.now)
        live = await self._call(self.registry.live_hosts)
        self.hosts = [address for _name, address, _slots in live] or [advertised]
        return recovered

    async def leave(self) -> None:
        if self.registry is not None:
            with trio.CancelScope(shield=True):
                await self._release_quietly()
                await self._call(self.registry.leave)

    @property
    def name(self) -> str:
        return self.registry.name if self.registry is not None else ""

    # ---- in the background

    async def run(self, handle: Any, kick: Callable[[], None], fenced: Callable[[str], None] | None = None,
                  replaced: Callable[[str], None] | None = None) -> None:
        """Heartbeats, the live hosts for Welcome, dead hosts' games closed, releases retried.

        fenced(reason): another host took this one for dead and aborted its games (its
        connection was lost for longer than a lease while the others' was not): abort every
        game still playing here; the host is live again from this heartbeat on.

        replaced(reason): another process joined under this host's name while this one was cut off (the
        operator replaced it; `HostReplaced`): this process renews and claims nothing any more (the
        database refuses both) and must abort its games and stop.  Returns then: it is no host now.
        """
        assert self.registry is not None
        while True:
            try:
                if await self._call(self.registry.heartbeat) == "dead":
                    reason = (f"host {self.name} was taken for dead by another host while it was cut off from "
                              "the database; its games were aborted there (not rated)")
                    log.warning("%s: aborting the games still playing here, then scheduling again", reason)
                    if fenced is not None:
                        fenced(reason)
                    if self.settings.names is not None:  # the bots still connected here, recorded again
                        await trio.to_thread.run_sync(self.settings.names.rewrite)
                live = await self._call(self.registry.live_hosts)
                self.hosts = [address for _name, address, _slots in live] or self.hosts
                if any(name != self.name for name, _address, _slots in live):
                    self._hurry.set()  # a host alone until now reads the cluster's view at once (`watch`)
                handle.set_hosts(self.hosts)
                if await self._call(self.registry.sweep_dead):
                    kick()  # their bots are free again
                await self._release_quietly()
                if self.settings.names is not None:  # where bots are connected: what a failed write left to do
                    await trio.to_thread.run_sync(self.settings.names.sync)
                if self.problem:
                    log.warning("the database is back: scheduling again")
                    self.problem = ""
                    kick()
            except HostReplaced as error:
                reason = f"{error}; its games were aborted (not rated)"
                log.error("%s: aborting the games still playing here and stopping", reason)
                self.problem = f"{error}: stopping"
                if replaced is not None:
                    replaced(reason)
                return
            except Exception as error:  # the database is away: nothing new starts (claims fail too)
                text = " ".join(str(error).split())[:200] or type(error).__name__
                if not self.problem:
                    log.warning("the database is unreachable (%s): no new games until it is back", text)
                self.problem = f"database unreachable: {text}; no new games until it is back"
            await trio.sleep(self.settings.heartbeat_s)

    async def listen(self, kick: Callable[[], None]) -> None:
        """Plan again as soon as another host frees seats (its NOTIFY), not at the next one-second round."""
        assert self.registry is not None
        token = trio.lowlevel.current_trio_token()
        stopped = threading.Event()

        def wake() -> None:
            try:
                token.run_sync_soon(kick)
            except trio.RunFinishedError:
                stopped.set()

        try:
            await trio.to_thread.run_sync(self.registry.listen, wake, stopped, abandon_on_cancel=True)
        finally:
            stopped.set()

    # ---- planning

    async def watch(self, kick: Callable[[], None]) -> None:
        """Read the cluster's view whenever a planning round asks (`adjust`), one read at a time, in the
        background; wake the director when a read lets it seat more than the last one did (the first
        view, new bots' rows made, another host's seats freed)."""
        assert self.claims is not None
        self._wanted = trio.Event()
        self._wanted.set()
        while True:
            await self._wanted.wait()
            self._wanted = trio.Event()
            names = list(self._names)
            known = set(self.claims.known)
            try:
                load: ClusterLoad = await self._claims_call(self.claims.load, self.since, names)
            except Exception as error:
                self.problem = (f"database unreachable: {' '.join(str(error).split())[:200]}; "
                                "no new games until it is back")
                self.load = None
                await trio.sleep(self.settings.heartbeat_s / 2)  # asked again by the next round
                continue
            before = self.load
            self.take_view(load)
            if (before is None or not known.issuperset(names)
                    or any(load.busy.get(bot, 0) < n for bot, n in before.busy.items())):
                kick()
            if not load.busy and all(name == self.name for name in load.hosts):
                # This host alone: the view holds nothing it does not count itself (its own games, from the
                # director's books) but new bots' rows, so it is read at most every `_ALONE_READ_S`, and at once
                # when a bot waits for its row (`adjust`) or another host is live (`run`).  It was read every
                # planning round: the most round trips of a PostgreSQL ladder alone (0.4-0.8 a game).
                with trio.move_on_after(_ALONE_READ_S):
                    await self._hurry.wait()
                self._hurry = trio.Event()

    def take_view(self, load: ClusterLoad) -> None:
        """A read of the cluster's view (`SeatClaims.load`): the next planning round plans from it, and hands
        the scheduler the counts it and the reads before it since the last round counted first."""
        self.load = load
        self._unsynced.append(load)
        if self.balance is not None:
            self.balance.seen(load.hosts, load.hosts_of, trio.current_time(), self._names)
        self._viewed.set()
        self._viewed = trio.Event()

    async def hold_off(self, bots: Sequence[str], running: Callable[[], int], stopping: trio.Event) -> None:
        """Before a planned game of these bots claims its seats: wait while a starved live host may take them
        instead (`arena.ladder.host_balance`), for at most the hold's time.  running(): the games this host
        plays now.

        Re-checked at each view read that the planning rounds ask for anyway (each game's end here, each
        other host's release, at least every second): a waiting game asks for none of its own, except one
        when its hold's time is up, so that a hold runs out only on a view read after its time (the starved
        host may have taken the bots meanwhile).  (Every waiting game used to ask for a read every 50 ms:
        some 10% more reads of the cluster's view with three hosts and every bot on each.)"""
        balance = self.balance
        while balance is not None and not stopping.is_set():
            load = self.load
            if load is None:
                return  # the database cannot say: the claim decides (and fails while it is away)
            now = trio.current_time()
            until = balance.hold_until(running(), load.hosts, now, bots)
            if until is None:
                return
            viewed = self._viewed
            with trio.move_on_at(min(until, now + 0.5)):  # (a stop is seen within that)
                await viewed.wait()
            if viewed is self._viewed and trio.current_time() >= until:
                # Its time is up on a view read before it: judge it on the next one (none comes while the
                # database is away: then it runs out, and the claim decides).
                self._ask()
                with trio.move_on_after(max(0.5, self.settings.heartbeat_s)):
                    await self._viewed.wait()

    def taken(self, bots: Sequence[str], reserved: Mapping[str, int]) -> bool:
        """Whether the view read last shows one of these bots at its cap already, counting its claims on the other
        hosts and ``reserved`` (the games the director runs or starts for each bot here, this one included): its
        claim would be refused (typically a game held for a starved host that took its bots meanwhile), so it is
        not sent.  The planning round that seated them read the same or an older view."""
        load = self.load
        if load is None:
            return False
        busy = load.busy
        return any(busy.get(bot, 0) + reserved.get(bot, 0) > self._cap_of(bot) for bot in bots)

    def _cap_of(self, bot: str) -> int:
        """The most open claims ``bot`` may hold in all, as the last planning round set it (what its claim is
        checked against): its capacity, at most the round's per-bot cap; 1 for a bot without its row."""
        slots = self._slots.get(bot)
        return min(slots[0], self._cap) if slots is not None else 1

    def _ask(self) -> None:
        """Ask `watch` for a read of the cluster's view."""
        if self._wanted is not None:
            self._wanted.set()

    def adjust(self, scheduler: Scheduler, slots: Mapping[str, tuple[int, int, Sequence[str]]],
               changed: Iterable[str] | None, reserved: Mapping[str, int], smallest_table: int,
               max_games_per_bot: int, pool: CandidatePool) -> CandidatePool | None:
        """The pool brought up to date with the candidates as the whole ladder sees them, from the view read
        last, or None when there is none (not read yet, or the database cannot say: plan nothing; the pool
        then missed ``changed``, so the next call must look at every bot).  Asks `watch` for a fresh view.

        slots: the connected bots' (capacity, games running here, rulesets) by name (`Handle.slot_view`).
        changed: the bots whose slots or ``reserved`` count changed since the last call (None: every bot).
        reserved: the games the director runs or starts for each bot here, which its claims on this
        host never exceed; the view's claims are the other hosts'.  A bot's cap is the least of its
        capacity, ``max_games_per_bot`` and its share of the cluster's slots.  A bot without its
        ``bot_slots`` row yet (`SeatClaims.ensure_bots`, made by the next read) is not a candidate.
        The pool (`CandidatePool`) builds a candidate again only for a bot whose inputs changed.
        """
        assert self.claims is not None
        self._names = slots
        if self.balance is not None:  # what the claims said of bots that left goes with them
            if changed is None:
                self.balance.keep_only(slots)
            else:
                self.balance.forget([name for name in changed if name not in slots])
        self._ask()
        load = self.load
        if load is None:
            return None
        if load is not self._synced:  # the fairness counts change only with a new view
            self._synced = load
            self._sync_counts(scheduler)
        self._cap = min(max_games_per_bot, slot_share(max(load.slots, self.concurrency), len(slots), smallest_table))
        self._slots = slots
        known = self.claims.known
        if not known.issuperset(slots):  # some bots are left out: look at every bot, now and next time
            self._hurry.set()  # their rows are made by the next read (a host alone waits for none)
            slots = {name: slot for name, slot in slots.items() if name in known}
            changed, self._left_out = None, True
        elif self._left_out:
            changed, self._left_out = None, False
        return pool.refresh(slots, changed, reserved, self._cap, load.busy)

    def _sync_counts(self, scheduler: Scheduler) -> None:
        """Give the scheduler the games and pairings of every host that the views read since the last
        round counted first (each view hands on only those, `SeatClaims.load`): a round's cost is what
        is new, not every pairing of the ladder's history."""
        views, self._unsynced = self._unsynced, []
        fresh = max((i for i, view in enumerate(views) if view.fresh), default=None)
        if fresh is not None:  # the first view, with all the counts: the others add to it
            first, views = views[fresh], views[fresh + 1 :]
            for ruleset in scheduler.players:
                scheduler.sync_counts(ruleset, first.games.get(ruleset, {}), first.pairs.get(ruleset, {}))
        for ruleset in scheduler.players:
            games: dict[str, int] = {}
            pairs: dict[frozenset[str], int] = {}
            for view in views:
                for bot, n in view.games.get(ruleset, {}).items():
                    games[bot] = games.get(bot, 0) + n
                for pair, n in view.pairs.get(ruleset, {}).items():
                    pairs[pair] = pairs.get(pair, 0) + n
            scheduler.add_counts(ruleset, games, pairs)

    # ---- one game

    def start_claim(self, bots: Sequence[str]) -> SeatClaim:
        """The seat claim for `LadderStore.game_started(claim=...)`: in the start's transaction (one commit,
        one worker-thread call for both), with the caps of the last planning round."""
        assert self.claims is not None
        return self.claims.claim_in(bots, {bot: self._cap_of(bot) for bot in bots})

    def release_statements(self, game_id: str) -> list[tuple[str, tuple]]:
        """For `LadderStore.game_ended(then=...)`: the game's seats freed in its end's commit; say `ended`
        once that committed."""
        assert self.claims is not None
        return self.claims.release_statements(game_id)

    def ended(self, game_id: str) -> None:
        """The game's end committed with its `release_statements`: `release` has nothing left to do."""
        self._freed.add(game_id)

    async def release(self, game_id: str) -> None:
        """The game has ended: free its seats (with every other release waiting meanwhile), unless its end's
        commit did (`ended`)."""
        if game_id in self._freed:
            self._freed.discard(game_id)
            return
        self._unreleased.add(game_id)
        with trio.CancelScope(shield=True):
            await self._release_quietly(game_id)

    async def _release_quietly(self, game_id: str | None = None) -> None:
        """Release every game waiting for it in one statement, unless one that ran meanwhile took ``game_id``."""
        assert self.claims is not None
        async with self._work:
            if game_id is not None and game_id not in self._unreleased:
                return  # released together with others while this one waited
            batch = sorted(self._unreleased)
            if not batch:
                return
            try:
                await trio.to_thread.run_sync(lambda: self.claims.release(*batch))
            except Exception as error:  # retried by `run` until the database takes it
                games = ", ".join(batch[:3]) + (f" and {len(batch) - 3} more" if len(batch) > 3 else "")
                log.warning("cannot release the seats of %s yet: %s", games, " ".join(str(error).split())[:200])
                return
            self._unreleased.difference_update(batch)
