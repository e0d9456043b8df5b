"""The ladder director: the trio task `arena serve` hands to `arena.server.run`.

It keeps the server busy: whenever a bot connects or a game slot frees, it
asks the `Scheduler` for tables and plays each as one game on a fresh seed
(no two ladder games share a deal: a bot must not see one deal from two seats).  Every game is written to the store
as ``running`` before it starts and committed with its result and its whole replay, kept in memory
while the game ran (`arena.ladder.commit_closed`, `arena.ladder.store.replays`), in one transaction
when it ends (the runner's ``on_result``, before the bots are told), so a crash loses
nothing a bot was told had finished; the games running at a crash are aborted, unrated, at the
next start, and their partial replays are lost with the process (`arena.ladder.recovery`).  Ratings are refitted
when read and in the background (`arena.ladder.fits.LadderFits`, told of every committed result) and feed the
dashboard, the GetStandings RPC and the scheduler's uncertainty tie-break.

Stopping (``--duration``, ``--max-games``, Ctrl-C, SIGTERM): no new game
starts; running games may finish for ``drain_s`` seconds, then the
rest are cancelled and recorded as aborted.  A Ctrl-C or SIGTERM while they drain cancels them at once
(`LadderSummary.stopped_because` then says so, and `interrupted` tells `arena serve` to exit 130 when
Ctrl-C played a part).
"""

from __future__ import annotations

import functools
import logging
import secrets
import signal
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping

import trio

from arena.games import rulesets
from arena.ladder.candidates import CandidatePool
from arena.ladder.commit_closed import CommitClosedRecorder
from arena.ladder.dashboard import DashboardView, FinishedGame, RunningGame
from arena.ladder.game_gaps import GameGaps
from arena.ladder.fits import LadderFits
from arena.ladder.scheduler import Scheduler, Table, slot_share
from arena.ladder.typical_game import ladder_typical_game
from arena.ladder.store import LadderStore, SeatRecord, driver_errors, error_line, outage_errors, utc_now
from arena.match.bound import require_bound
from arena.match.runner import GameStop
from arena.ladder.store.ladder_store import Call
from arena.match.timecontrol import TimeControl
from arena.server.slot_view import SlotView

log = logging.getLogger("arena.ladder")

_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}

#: The longest a host alone goes between two planning rounds when nothing wakes it (`LadderDirector._schedule`).
_IDLE_ROUND_S = 10.0


@dataclass
class LadderSettings:
    players: dict[str, int]  # ruleset -> table size, for every ruleset the ladder schedules
    time_control: TimeControl = field(default_factory=TimeControl)
    #: Replay files of ladder games written before replays went into the database, and `.part` files an
    #: older version left: closed by `arena.ladder.recovery`, still read by `arena replay` and the web view.
    #: New games' replays are in the database only (committed with the result).
    replays: Path = Path("replays")
    concurrency: int = 8  # games at once
    max_games_per_bot: int = 64
    max_games: int | None = None  # stop after this many finished games
    duration_s: float | None = None  # stop scheduling after this long
    drain_s: float = 10.0
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # ruleset -> options
    max_lead: int = 2
    refit_s: float = 1.0  # the least time between two rating fits
    #: While nobody reads the standings (the dashboard, the web view, GetStandings: each read fits what is
    #: new, `StandingsBook`), the background fit runs only this often, for the scheduler's tie-break and
    #: the snapshots; a read brings them up to date at once.  A host of a shared PostgreSQL ladder does the
    #: same from the rows of the fit's totals it reads every `refit_s` (`LadderFits.take_changes`, arena/ladder/fits.py); a
    #: ladder whose input is read whole from the store (after a commit that raised) fits every `refit_s`.
    unread_refit_s: float = 10.0
    #: A read fits on the reading thread (the server's loop) only when the ruleset's last fit cost at most
    #: this much CPU; a costlier one is left to the background fit, at its usual pace (`refit_share`).
    read_fit_budget_s: float = 0.05
    #: The share of one core the rating fits may take: a fit that cost C CPU seconds waits C / refit_share
    #: before the next (at 200 bots a fit is some 50 ms; fitted every second it cost the games a tenth).
    refit_share: float = 0.02
    #: Replay lines carry the state hash on every this many decisions and on the last one
    #: (`ReplayBuffer`'s hash_every): hashing every position was the largest cost left in a
    #: ladder replay; a divergence is still found, within that many decisions (arena/replay/README.md).
    replay_hash_every: int = 16
    #: How long a finished game's result is retried while the database is away before the game is aborted.
    result_retry_s: float = 300.0
    #: After a wake-up (a game ended, a bot came or went) the scheduler waits this long before planning,
    #: so the wake-ups of one burst cost one round over every connected bot (a game's end alone wakes it
    #: two or three times); a freed seat waits that much longer for its next game.
    plan_batch_s: float = 0.01
    snapshot_s: float = 60.0
    #: How often the bots connected here are noted as seen (`LadderStore.note_seen`): a bot's "last seen" is
    #: its arrival, then at most this old while it stays (its games' ends included), then its departure.  One
    #: statement a period for all of them, instead of a write per game (arena/ladder/README.md, "Store").
    seen_s: float = 60.0
    handle_signals: bool = True
    #: Several hosts on one PostgreSQL database (arena.ladder.membership); None: this process alone.
    cluster: Any = None


#: How the notes of a database that is away begin (`Membership.problem` too), and what is said when it is back.
DATABASE_AWAY = "database unreachable"
DATABASE_BACK = "the database is back: results are committed and new games scheduled again"


@dataclass
class LadderSummary:
    finished: int
    aborted: int
    decisions: int
    seconds: float
    stopped_because: str
    #: Whether a Ctrl-C (SIGINT) reached the ladder, to stop it or to abort its draining games: `arena serve`
    #: then exits 130, as an interrupted command does, whatever stopped the ladder first.
    interrupted: bool = False
    #: Where the time between games went (`GameGaps.summary`).
    gaps: dict[str, Any] = field(default_factory=dict)


class _GroupCommit:
    """A queue of writes for one store connection, run together by whoever gets it next (`LadderDirector._db_commit`)."""

    def __init__(self, store: LadderStore) -> None:
        self.store = store
        self.limiter = trio.CapacityLimiter(1)
        self.writes: list[Call] = []

    async def commit(self, call: Call, gaps: GameGaps) -> Call:
        """Run ``call`` in the next group commit on this connection; returns it done (its result or error)."""
        self.writes.append(call)
        try:
            async with self.limiter:
                if not call.done:
                    batch, self.writes = self.writes, []
                    gaps.batch(len(batch))
                    try:
                        await trio.to_thread.run_sync(self.store.run_together, batch)
                    finally:
                        for queued in batch:
                            queued.done = True
        except BaseException:
            if not call.done and call in self.writes:  # cancelled while waiting: not written
                self.writes.remove(call)
            raise
        return call


def _note_time(times: list[float]) -> None:
    """A `Call.before` that notes when its group commit began (for `GameGaps`)."""
    times.append(time.monotonic())


def _ordinal(place: int | None) -> str:
    if place is None:
        return "-"
    return _ORDINALS.get(place, f"{place}th")


class _ResultCommit:
    """One game's ``on_result`` for the runner: commits through the director (``commit``, its `_commit_and_count`),
    remembers what it committed and when."""

    def __init__(self, commit: Callable[[Any, CommitClosedRecorder], Awaitable[None]],
                 recorder: CommitClosedRecorder) -> None:
        self.commit = commit
        self.recorder = recorder
        self.status: str | None = None
        self.committed_at = 0.0  # time.monotonic() when the commit returned

    async def __call__(self, outcome: Any) -> None:
        await self.commit(outcome, self.recorder)
        self.committed_at = time.monotonic()
        self.status = outcome.status


class LadderDirector:
    def __init__(self, store: LadderStore, settings: LadderSettings, view: DashboardView | None = None,
                 owners: Mapping[str, str] | None = None) -> None:
        """owners: bot -> owner of the registered bots that have one: no table seats two bots of one owner.
        An `arena.ladder.owners.Owners` (`LadderAuthenticator.owners`, kept up to date as bots log in) is
        read as it changes; a plain mapping is copied once."""
        known = rulesets()
        for ruleset, players in settings.players.items():  # every rated game ends by its own bound (`require_bound`)
            if ruleset in known:  # (an unknown one never starts a game: `games.new_game` refuses it)
                require_bound(ruleset, players, settings.options.get(ruleset))
        self.store = store
        self.settings = settings
        self.view = view or DashboardView(address="")
        self.scheduler = Scheduler(settings.players, max_lead=settings.max_lead, owners=owners)
        self._pool = CandidatePool()
        self.gaps = GameGaps()
        self.stopping: trio.Event | None = None  # created inside trio
        self.stop_reason = ""  # what stopped the ladder, as the final line says it ("Ctrl-C", "--max-games 4 reached")
        #: What the stopping message adds while games drain: how to abort them ("again to abort running games"
        #: after a signal); not part of `stop_reason`, which is said once it can no longer be followed.
        self.stop_hint = ""
        self.interrupted = False  # a Ctrl-C reached the ladder (`LadderSummary.interrupted`)
        self._aborted_by = ""  # the signal that aborted the draining games, once one has
        self._stop_at_start = False  # `stop` was called before the ladder ran: it stops as soon as it does
        self._reserved: dict[str, int] = {}
        self._waiting_results: set[str] = set()  # finished games whose commit waits for the database
        self._running_sets = 0
        self._started_games = 0
        self._unstarted_sets = 0  # sets planned whose game has not started yet (nor will: see `_play_set`)
        self._reserved_changed: set[str] = set()  # bots whose `_reserved` count changed since the last round
        self._group = _GroupCommit(store)  # the store's writes waiting for the next group commit (`_db_write`)
        self._db = self._group.limiter  # one call at a time on the store's connection
        #: Game starts commit on a connection of their own where the database has room for two writers
        #: (PostgreSQL: `LadderStore.sibling`), so a start never waits behind results and their replays'
        #: fsyncs; on SQLite they join the one group commit.
        self._starts: _GroupCommit | None = None
        #: The standings, live Elo and rating snapshots (fitted when read and in the background).
        self.fits = LadderFits(store, settings, self.view, self.scheduler, self._db_call, self._db_write)
        self.standings = self.fits.standings  # what `arena serve` hands the web view
        self._wake: trio.Event | None = None
        self._all_done: trio.Event | None = None
        self._sets_scope: trio.CancelScope | None = None
        self._stops: dict[str, Any] = {}  # game id -> its GameStop, to abort the games playing here
        self._noted: dict[str, str] | None = None  # the sessions the store has been told about, once idle
        self.membership = None
        #: Called once joined with (games this host had left running, now aborted; the recovery done).
        self.on_joined: Callable[[list, Any], None] | None = None

    # ------------------------------------------------------------ the director

    async def __call__(self, handle: Any) -> LadderSummary:
        started = time.monotonic()
        self.stopping = trio.Event()
        if self._stop_at_start:  # told to stop while the process was still starting (`arena serve`'s signals)
            self.stopping.set()
        self._wake = trio.Event()
        self._all_done = trio.Event()
        if self.settings.cluster is not None and self.membership is None:
            await self.join(handle)
        self.view.address = getattr(handle, "address", f"127.0.0.1:{handle.port}")
        if self.membership is not None:  # which host of a shared ladder this is, in the live view and summaries
            self.view.address += f" (host {self.membership.name})"
        self.view.started = started
        handle.standings_provider = self.fits.standings_rows
        handle.replay_provider = self.replay_text  # Spectate of an ended game this host no longer holds
        handle.host_provider = self.running_elsewhere  # Spectate of a game another host runs: where it is
        try:
            return await self._direct(handle, started)
        finally:
            if self.membership is not None:
                await self.membership.leave()

    async def join(self, handle: Any) -> None:
        """Become one host of a shared ladder; close the replays of the games this host had left running."""
        from arena.ladder.membership import Membership
        from arena.ladder.recovery import recover_replays

        self.membership = Membership(self.settings.cluster, self.settings.concurrency)
        recovered = await self.membership.join(handle.port, handle.address)
        self.store.recovered = recovered
        recovery = await trio.to_thread.run_sync(recover_replays, self.store, self.settings.replays)
        handle.set_hosts(self.membership.hosts)
        if self.on_joined is not None:
            self.on_joined(recovered, recovery)

    async def _direct(self, handle: Any, started: float) -> LadderSummary:
        await self._db_call(self.load_history)
        starts = await self._db_call(self.store.sibling)
        if starts is not self.store:
            self._starts = _GroupCommit(starts)
        async with trio.open_nursery() as background:
            if self.membership is not None:
                background.start_soon(self.membership.run, handle, self._kick, self.abort_games)
                background.start_soon(self.membership.listen, self._kick)
                background.start_soon(self.membership.watch, self._kick)
            if self.settings.handle_signals:
                await background.start(self._watch_signals)  # SIGTERM drains from here on: now say SERVING
            handle.set_serving(self.membership is None or not self.membership.problem)
            if self.settings.duration_s is not None:
                background.start_soon(self._stop_after, self.settings.duration_s)
            background.start_soon(self._watch_sessions, handle)
            background.start_soon(self._note_connected, handle)
            background.start_soon(self.fits.run)
            async with trio.open_nursery() as sets:
                self._sets_scope = sets.cancel_scope
                await self._schedule(handle, sets)
                handle.set_serving(False)  # draining: new bots belong elsewhere
                if self._running_sets:
                    hint = f"; {self.stop_hint}" if self.stop_hint else ""
                    self._say_stopping(f"stopping ({self.stop_reason}{hint}): letting {self._running_sets} running "
                                       "games finish")
                    with trio.move_on_after(self.settings.drain_s):
                        await self._all_done.wait()
                    if self._running_sets:
                        self._say_stopping(f"stopping: aborting {self._running_sets} games still running")
                sets.cancel_scope.cancel()
            with trio.CancelScope(shield=True):
                await self.fits.final()
                with trio.move_on_after(5):  # the bots leave with this host: seen until now (a bounded wait)
                    await self._note_seen(handle)
            background.cancel_scope.cancel()
        return LadderSummary(
            finished=self.view.finished,
            aborted=self.view.aborted,
            decisions=self.view.decisions,
            seconds=time.monotonic() - started,
            stopped_because=self.stop_reason,
            interrupted=self.interrupted,
            gaps=self.gaps.summary(),
        )

    def _say_stopping(self, message: str) -> None:
        self.view.tell(message)

    def stop(self, reason: str, hint: str = "") -> None:
        """Stop scheduling; running games drain (call from trio).  Called before the ladder runs, it makes the
        ladder stop as soon as it starts, without a game.  `hint` is what the stopping message adds while games
        drain (`stop_hint`)."""
        if self.stopping is None:
            if not self._stop_at_start:
                self.stop_reason, self._stop_at_start = reason, True
        elif not self.stopping.is_set():
            self.stop_reason, self.stop_hint = reason, hint
            self.stopping.set()
            self._kick()

    def on_signal(self, signum: int) -> None:
        """SIGINT (Ctrl-C) or SIGTERM: the first stops scheduling and lets the running games finish (`drain_s`),
        the second aborts them; before the ladder runs, the first makes it stop as soon as it does.  The ladder's
        own receiver calls this (`LadderSettings.handle_signals`), or the program that owns the process's signals
        does (`arena serve`, whose receiver is open from its start)."""
        name = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        self.interrupted = self.interrupted or signum == signal.SIGINT
        if self.stopping is None:
            self.stop(f"{name} during start-up, before any game")
        elif self.stopping.is_set():
            self._abort_draining(name)
        else:
            self.stop(name, hint="again to abort running games")

    def _abort_draining(self, name: str) -> None:
        """A signal while the ladder drains (after any stop: a signal, ``--duration``, ``--max-games``): the running
        games are aborted at once, which the stopping message says now and the final reason says after what
        stopped the ladder ("Ctrl-C, aborted by a second Ctrl-C", "--duration 60 s reached, aborted by Ctrl-C")."""
        if not self._aborted_by and self._running_sets:
            self._aborted_by = name
            self.stop_reason += f", aborted by {'a second ' if self.stop_reason == name else ''}{name}"
            self._say_stopping(f"stopping ({name}): aborting {self._running_sets} running games")
        self.abort_now(name)

    def abort_now(self, reason: str) -> None:
        self.stop(reason)
        if self._sets_scope is not None:
            self._sets_scope.cancel()

    def abort_games(self, reason: str) -> None:
        """Abort every game playing here (their results would not be stored: see `Membership.run`)."""
        for stop in list(self._stops.values()):
            stop.abort(reason)

    # ------------------------------------------------------------ scheduling

    async def _schedule(self, handle: Any, sets: trio.Nursery) -> None:
        # The connected bots' slots, kept up to date by the server as sessions change (`Handle.slot_view`): a
        # round reads the bots whose slots or started games changed, not every bot.  A stand-in handle without
        # one (tests) is compared whole every round.  The server keeps the view until this director stops.
        view = handle.slot_view() if hasattr(handle, "slot_view") else None
        try:
            await self._plan_rounds(handle, sets, view)
        finally:
            if view is not None:
                view.close()

    async def _plan_rounds(self, handle: Any, sets: trio.Nursery, view: SlotView | None) -> None:
        assert self.stopping is not None
        mirror = SlotView() if view is None else None
        stale = False  # the pool missed changes (a round without the cluster's view): it looks at every bot
        while not self.stopping.is_set():
            limit = self.settings.concurrency - self._running_sets
            if self.settings.max_games is not None:
                # The games started (finished or playing) and the sets planned that have not started theirs:
                # a set whose game started is in `_started_games` already, not counted twice.
                limit = min(limit, self.settings.max_games - self._started_games - self._unstarted_sets)
            if limit > 0:
                smallest = min(self.settings.players.values())
                if mirror is not None:
                    mirror.refresh(handle.slots())
                source = view if view is not None else mirror
                assert source is not None
                slots = source.slots
                changed: set[str] | None = source.take_changed() | self._reserved_changed
                self._reserved_changed = set()
                if stale:
                    changed, stale = None, False
                pool: CandidatePool | None
                if self.membership is None:
                    # No bot may run more than its share of the server's game slots (a bot whose
                    # games hang must not fill them).  The pool rebuilds only the bots whose slots changed.
                    share = slot_share(self.settings.concurrency, len(slots), smallest)
                    pool = self._pool.refresh(slots, changed, self._reserved, min(self.settings.max_games_per_bot, share))
                    self.gaps.round()
                else:  # the whole ladder's busy counts, shares and fairness counts
                    # From the cluster's view read last (in the background: a round never waits on the database).
                    pool = self.membership.adjust(self.scheduler, slots, changed, self._reserved, smallest,
                                                  self.settings.max_games_per_bot, self._pool)
                    stale = pool is None
                    self.gaps.round()
                    if self.membership.problem:
                        self.view.tell(self.membership.problem)
                    else:
                        self.view.take_down(DATABASE_AWAY, DATABASE_BACK)
                    # a host that cannot take new games tells load balancers (grpc.health.v1)
                    handle.set_serving(not self.membership.problem)
                planned_at = time.monotonic()
                if pool is None:  # nothing known to plan with: as a round with no bot
                    tables = self.scheduler.plan([], limit, now=planned_at)
                else:
                    tables = self.scheduler.plan_pool(pool, limit, now=planned_at)
                # The seated bots' versions only: a look over every connected bot cost more than the round's plan.
                versions = {bot: handle.version_of(bot) for table in tables for bot in table.bots}
                for table in tables:
                    for bot in table.bots:
                        self._reserved[bot] = self._reserved.get(bot, 0) + 1
                    self._reserved_changed.update(table.bots)
                    self._running_sets += 1
                    self._unstarted_sets += 1
                    self._all_done = trio.Event()
                    self.gaps.planned(table.bots, planned_at)
                    sets.start_soon(self._play_set, handle, table, versions, planned_at)
            # A bot the fairness caps hold back is released after a while: plan again then.  Otherwise only
            # an event can seat a table, and each wakes this loop (`_kick`): a game's end (its seats freed
            # first), a bot that came or went, a stop.  A shared ladder also plans every second, for the
            # other hosts' claims (a missed NOTIFY costs that second); a host alone plans on events only, with
            # a round every `_IDLE_ROUND_S` in case one was missed (it used to plan every second).
            idle = 1.0 if self.membership is not None else _IDLE_ROUND_S
            wakeup = self.scheduler.next_wakeup(time.monotonic())
            await self._sleep_until_kicked(idle if wakeup is None else min(idle, max(0.0, wakeup - time.monotonic())))

    async def _sleep_until_kicked(self, timeout: float) -> None:
        assert self._wake is not None
        with trio.move_on_after(timeout):
            await self._wake.wait()
            # One planning round per burst: a game's end wakes the scheduler several times (each
            # seat's release, the set's end), and games that end together are planned together.
            if self.settings.plan_batch_s > 0:
                await trio.sleep(self.settings.plan_batch_s)
        self._wake = trio.Event()

    def _kick(self) -> None:
        if self._wake is not None:
            self._wake.set()

    async def _watch_sessions(self, handle: Any) -> None:
        """Wake the scheduler when bots come or go; note arrivals and departures (first/last seen).

        It waits for arrivals and departures only (`Handle.roster_event`): a game's end already
        wakes the scheduler from `_play_set`, and waking here too, for each seat's release, cost
        a look over every connected bot twice a game."""
        present: dict[str, str] = {}
        while True:
            sessions = handle.connected_versions()
            changed = [(name, version) for name, version in sessions.items() if name not in present]
            changed += [(name, version) for name, version in present.items() if name not in sessions]
            if changed or len(sessions) != len(present):
                self.view.connected = sorted(sessions)
                for name in present:
                    if name not in sessions:
                        self.gaps.gone(name)
            present = sessions
            self._kick()
            if changed:
                # Every arrival and departure seen so far in one write (one transaction, and it joins the
                # group commit): a write each was a commit each, and a thousand bots logging in while games
                # ran waited minutes for theirs (439 of 1,000 noted 68 s after they started).
                try:
                    await self._db_write(self._note_sessions, changed, set(sessions))
                except outage_errors() as error:  # the database is away: a bot's last-seen time is not worth a crash
                    log.warning("cannot note that %d bots came or went (%s...): %s", len(changed),
                                ", ".join(name for name, _ in changed[:3]), error_line(error))
            if changed and handle.connected_versions() != present:
                continue  # something changed during the writes: its event may have passed already
            self._noted = present
            try:
                await handle.roster_event()
            finally:
                self._noted = None

    async def _note_connected(self, handle: Any) -> None:
        """Every `LadderSettings.seen_s`, note the bots connected here as seen: a bot that stays connected (and
        plays) for hours is not "last seen" at its arrival, and when this host dies it was seen within a period."""
        while True:
            await trio.sleep(self.settings.seen_s)
            # a bot connected to several hosts of a shared ladder is written by the first of them in a half-period
            await self._note_seen(handle, unless_within_s=self.settings.seen_s / 2)

    async def _note_seen(self, handle: Any, unless_within_s: float | None = None) -> None:
        names = sorted(handle.connected_versions())
        if not names:
            return
        since = None
        if unless_within_s is not None:
            since = (datetime.now(timezone.utc) - timedelta(seconds=unless_within_s)).isoformat(timespec="milliseconds")
        try:
            await self._db_write(self.store.note_seen, names, None, since)
        except outage_errors() as error:  # the database is away: a last-seen time is not worth a crash
            log.warning("cannot note that %d connected bots are still there: %s", len(names), error_line(error))

    def _note_sessions(self, changed: list[tuple[str, str]], present: set[str]) -> None:
        """Bots that came or went, in the store (in a worker thread, within one `_db_write`'s transaction)."""
        for name, version in changed:
            self.store.touch_bot(name, version)
            if name not in present:
                # Gone without a game: an open-registration name is not kept (bounded table).
                self.store.forget_unplayed(name)

    def sessions_noted(self, handle: Any) -> bool:
        """True when every arrival and departure so far is in the store (first/last seen, and an
        unplayed open-registration name forgotten): the session watcher is idle and up to date."""
        return self._noted is not None and self._noted == handle.connected_versions()

    async def _stop_after(self, seconds: float) -> None:
        await trio.sleep(seconds)
        self.stop(f"--duration {seconds:g} s reached")

    async def _watch_signals(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
            task_status.started()
            async for signum in received:
                self.on_signal(signum)

    # ------------------------------------------------------------ one set

    async def _play_set(self, handle: Any, table: Table, versions: dict[str, str], planned_at: float = 0.0) -> None:
        from arena.replay.buffer import ReplayBuffer
        from arena.replay.format import ReplayHeader
        from arena.server.host import new_game_id
        from arena.server.sessions import SeatUnavailable

        assert self.stopping is not None
        # One game per table on a fresh seed, its own result unit (a set of one).  The ladder
        # never replays a deal with the seats rotated: a bot that remembers its hands would
        # hold, in the next rotation, the cards its opponent is holding.
        seed = secrets.randbits(63)
        rotations = [table.bots]
        options = dict(self.settings.options.get(table.ruleset, {}))
        claimed: list[str] = []  # games whose seats this host claimed in the shared database
        unstarted = True  # counted in `_unstarted_sets` until its game starts or the set ends without one
        try:
            for index, seats in enumerate(rotations):
                if self.membership is not None:  # a starved host may take these seats first (host balance)
                    await self.membership.hold_off(seats, self._playing_here, self.stopping)
                    if self.membership.taken(seats, self._reserved):
                        break  # another host has them now, as a view read since the plan shows: plan again
                if self.stopping.is_set():
                    break
                if self.settings.max_games is not None and self._started_games >= self.settings.max_games:
                    break
                if not all(handle.is_connected(bot) for bot in seats):
                    break  # a bot left before its game started
                game_id = new_game_id()
                self._started_games += 1
                if unstarted:
                    unstarted = False
                    self._unstarted_sets -= 1
                set_id = game_id
                header = {
                    "game_id": game_id,
                    "ruleset": table.ruleset,
                    "players": len(seats),
                    "seed": seed,
                    "options": options,
                    "seats": [{"seat": i, "name": bot, "version": versions.get(bot, "")} for i, bot in enumerate(seats)],
                    "time_control": self.settings.time_control.to_dict(),
                    "started_at": utc_now(),
                    "ladder_set": set_id,
                    "rotation": index,
                }
                # The row first, then the replay's buffer (in memory: the replay is committed whole with
                # the result), made on the commit's worker thread once the row is committed (`Call.after`).
                parsed = ReplayHeader.from_dict(header)
                # On a shared ladder the seats are claimed in the start's own transaction (its checks first).
                claim = None
                if self.membership is not None:
                    claim = self.membership.start_claim(seats)
                    claimed.append(game_id)  # freed by the end's commit, or apart (a start whose reply was lost)
                # In steps: the claim's read goes with the reads of the group commit's other starts (and, on
                # SQLite, results); on PostgreSQL starts commit on a connection of their own (`_starts`).
                group = self._starts or self._group
                start = Call(
                    functools.partial(
                        group.store.game_started_steps, game_id, table.ruleset, options, seed, set_id, index,
                        list(seats), versions=[versions.get(bot, "") for bot in seats], claim=claim,
                    ),
                    keys=frozenset(seats) if claim is not None else frozenset(),
                    # No bot is told anything a start records: on SQLite its commit need not wait for an fsync
                    # (a killed process keeps it; the next result's commit makes it durable on disk).
                    durable=False,
                )
                # The buffer's maker does not reference `start` itself: a call holding a reference to itself
                # (through its ``after``) is a cycle, and each game's buffer, with its whole replay, lived on
                # after the game until the collector's next pass over an older generation found it.
                start.after = functools.partial(self._new_replay, parsed)
                start_ran: list[float] = []
                start.before = functools.partial(_note_time, start_ran)
                try:
                    await group.commit(start, self.gaps)
                except BaseException:
                    if start.done and start.error is None and start.result:  # written, then cancelled: abort it
                        with trio.CancelScope(shield=True):
                            unplayed = None
                            if isinstance(start.after_result, ReplayBuffer):
                                unplayed = CommitClosedRecorder(start.after_result)
                                unplayed.abort_now("server shutting down")
                            await self._end_quietly(game_id, "server shutting down", unplayed)
                    raise
                if start.error is not None:
                    if not isinstance(start.error, outage_errors()):
                        raise start.error
                    # the database is away: this game never starts
                    log.warning("cannot record the start of game %s: %s", game_id, error_line(start.error))
                    self._started_games -= 1
                    break
                if not start.result:  # another host seated one of these bots meanwhile: plan again
                    claimed.remove(game_id)
                    self._started_games -= 1
                    break
                if start.after_error is not None:
                    with trio.CancelScope(shield=True):
                        await self._end_quietly(game_id, f"cannot start the replay: {start.after_error}", None)
                    raise start.after_error
                recorder = CommitClosedRecorder(start.after_result)
                committed_at = time.monotonic()
                if start_ran and planned_at:
                    self.gaps.add("start_queue", start_ran[0] - planned_at)
                    self.gaps.add("start_commit", committed_at - start_ran[0])
                self.view.running[game_id] = RunningGame(
                    game_id, table.ruleset, tuple(seats), "-", time.monotonic()
                )
                began = time.monotonic()
                extra = {}
                if self.membership is not None:  # a host of a shared ladder may have to abort its games
                    self._stops[game_id] = extra["stop"] = GameStop()
                try:
                    commit = _ResultCommit(self._commit_and_count, recorder)
                    self.gaps.add("to_play", time.monotonic() - committed_at)
                    outcome = await handle.play_game(
                        table.ruleset, options, seed, list(seats), self.settings.time_control,
                        recorder=recorder, game_id=game_id, on_result=commit, **extra,
                    )
                except SeatUnavailable as error:
                    # A bot left between rotations: the set ends here, nothing was played.
                    with trio.CancelScope(shield=True):
                        recorder.abort_now(f"seat unavailable: {error}")
                        await self._end_quietly(game_id, f"seat unavailable: {error}", recorder)
                    self.view.aborted += 1
                    self._started_games -= 1  # --max-games counts finished games: this one frees its place
                    break
                except BaseException:
                    # Cancelled (shutdown): the runner has committed the abort through on_result, unless
                    # it could not (then the row is aborted here, with the replay as far as it got).
                    if commit.status is None:
                        with trio.CancelScope(shield=True):
                            recorder.abort_now("server shutting down")
                            await self._end_quietly(game_id, "server shutting down", recorder)
                    self.view.aborted += 1
                    raise
                finally:
                    self.view.running.pop(game_id, None)
                    self._stops.pop(game_id, None)
                returned = time.monotonic()
                if commit.committed_at:
                    self.gaps.add("told", returned - commit.committed_at)
                self.gaps.freed(seats, returned)
                self.gaps.add("in_game", returned - began)
                self.scheduler.game_finished(returned - began)
                self._record(outcome, returned - began)
                if outcome.status != "finished":
                    self._started_games -= 1  # --max-games counts finished games: another may start instead
                    break
        finally:
            for game_id in claimed:  # after the result's commit: the seats are free on every host
                await self.membership.release(game_id)
            if unstarted:
                self._unstarted_sets -= 1
            for bot in table.bots:
                self._reserved[bot] -= 1
            self._reserved_changed.update(table.bots)
            self._running_sets -= 1
            if self._running_sets == 0 and self._all_done is not None:
                self._all_done.set()
            self._kick()

    def _playing_here(self) -> int:
        """The games this host has started and not yet ended (its sets less those still waiting to start)."""
        return self._running_sets - self._unstarted_sets

    async def _end_quietly(self, game_id: str, reason: str, recorder: CommitClosedRecorder | None) -> None:
        """Record a game as aborted, with its replay as far as it got (``recorder``, its abort line noted);
        if the database is away, say so and leave the row to the next start.

        A running row left behind is aborted when this host starts again (`arena.ladder.recovery`),
        or by another host once this one is gone; raising here would take the whole server down.
        """
        replay: dict[str, Any] = {}

        def before() -> None:  # packed on the commit's worker thread, ahead of the transaction
            replay["packed"] = recorder.packed() if recorder is not None else None

        try:
            call = await self._db_commit(Call(
                lambda: self.store.game_ended_steps(game_id, "aborted", [], reason=reason, replay=replay.get("packed"),
                                                    **self._freeing(game_id)),
                before=before))
            if call.error is not None:
                raise call.error
        except outage_errors() as error:
            log.warning("cannot record game %s as aborted (%s): %s", game_id, reason, error_line(error))
            return
        if self.membership is not None:
            self.membership.ended(game_id)

    def _new_replay(self, header: Any) -> Any:
        """A game's `ReplayBuffer`, made on the commit's worker thread once its start is committed (`Call.after`).
        A start that was not recorded (a shared ladder's claim lost a seat: ``result`` False) gets one too,
        dropped unused: `_play_set` reads ``after_result`` only for a recorded start."""
        from arena.replay.buffer import ReplayBuffer

        return ReplayBuffer(header, self.settings.replay_hash_every)

    def replay_text(self, game_id: str) -> bytes | None:
        """An ended game's replay for readers (Spectate, `Handle.replay_provider`; on a worker thread): from
        the database, or the file a ladder from before replays went into the database wrote (its row names it)."""
        text = self.store.replay_text(game_id)
        if text is not None:
            return text
        from arena.ladder.store.replays import legacy_file

        path = legacy_file(self.store.replay_paths(game_id).get(game_id), self.settings.replays)
        return path.read_bytes() if path is not None else None

    def running_elsewhere(self, game_id: str) -> str | None:
        """Where another host of the ladder runs this game, in one line, or None (`Handle.host_provider`; on a
        worker thread): its live events are in that host's process only."""
        found = self.store.running_on([game_id]).get(game_id)
        return found.sentence(game_id) if found is not None else None

    def _freeing(self, game_id: str) -> dict[str, Any]:
        """`LadderStore.game_ended`'s keywords that free the game's seats on a shared ladder in the same commit."""
        return {"then": self.membership.release_statements(game_id)} if self.membership is not None else {}

    async def _commit_and_count(self, outcome: Any, recorder: CommitClosedRecorder) -> None:
        """A game's result committed (`_commit_result`), then counted in the fit's input if it finished."""
        try:
            await self._commit_result(outcome, recorder)
        except BaseException:
            self.fits.lost_track()  # unknown whether the row took it (a commit that raised after it applied)
            raise
        if outcome.status == "finished":
            self.fits.count(outcome)

    async def _commit_result(self, outcome: Any, recorder: CommitClosedRecorder | None = None) -> None:
        """The runner's ``on_result``: commit the game's result with its replay (the point that makes both final).

        Called before the bots are told; a raise makes the runner abort the game.  On the commit's
        worker thread, one hand-off: the replay's result line the runner asked for is added to the
        game's buffer and the whole replay packed (`CommitClosedRecorder.packed`, ahead of the
        transaction), then the result and the replay are committed together.
        """
        seats = [
            SeatRecord(
                seat=s.seat, bot=s.name, placement=s.placement, points=s.points, strikes=s.strikes,
                timeouts=s.timeouts, think_ms=s.think_ms, decisions=s.decisions, forfeited=s.forfeited,
                errors=s.errors,
            )
            for s in outcome.seats
        ]
        replay: dict[str, Any] = {"packed": None}
        asked = time.monotonic()
        ran: list[float] = []

        def before() -> None:
            """The replay with its result line, packed once (a retry commits the same bytes)."""
            ran.append(time.monotonic())
            if recorder is not None and replay["packed"] is None:
                replay["packed"] = recorder.packed()

        def write() -> Any:
            """The result's steps: its fenced update is read with the group commit's other reads."""
            return self.store.game_ended_steps(
                outcome.game_id, outcome.status, seats, ended_at=outcome.ended_at or None,
                replay_path=outcome.replay_path, reason=outcome.reason, decisions=outcome.decisions,
                replay=replay["packed"], **self._freeing(outcome.game_id),
            )

        # The result and its replay are in memory, so a database that is away (restarting, failing
        # over) costs the bots a wait, not the result: retry until it is back, for up to
        # `result_retry_s`; only then does the runner abort the game (RESULT_NOT_STORED).
        deadline = time.monotonic() + self.settings.result_retry_s
        pause = 0.25
        while True:
            try:
                call = await self._db_commit(Call(write, before=before))
                if call.error is not None:
                    raise call.error
            except driver_errors() as error:
                if time.monotonic() + pause > deadline:
                    raise
                if outcome.status != "finished" and self.stopping is not None and self.stopping.is_set():
                    raise  # an abort while stopping: the row stays running, and the next start aborts it
                self._waiting_results.add(outcome.game_id)
                text = " ".join(str(error).split())[:160] or type(error).__name__
                if len(self._waiting_results) == 1 and pause == 0.25:
                    log.warning("cannot commit game %s (%s): retrying until the database is back", outcome.game_id, text)
                self.view.tell(f"{DATABASE_AWAY}: {len(self._waiting_results)} finished result(s) waiting to be "
                               "committed; no new games until it is back")
                await trio.sleep(pause)
                pause = min(5.0, pause * 2)
                continue
            if self.membership is not None:
                self.membership.ended(outcome.game_id)
            if ran:
                self.gaps.add("result_queue", ran[-1] - asked)
                self.gaps.add("result_commit", time.monotonic() - ran[-1])
            if outcome.game_id in self._waiting_results:
                self._waiting_results.discard(outcome.game_id)
                log.warning("game %s committed after the database came back", outcome.game_id)
                if not self._waiting_results and (self.membership is None or not self.membership.problem):
                    self.view.take_down(DATABASE_AWAY, DATABASE_BACK)
            return

    def _record(self, outcome: Any, seconds: float) -> None:
        """The dashboard's side of a game that ended (its result is already committed)."""
        self.view.decisions += outcome.decisions
        if outcome.status == "finished":
            self.view.finished += 1
            self.fits.finished(outcome.ruleset, {s.name: s.placement for s in outcome.seats})
            ranked = sorted(outcome.seats, key=lambda s: s.placement)
            result = ", ".join(f"{s.name} {_ordinal(s.placement)}" + (" (forfeit)" if s.forfeited else "") for s in ranked)
        else:
            self.view.aborted += 1
            result = f"aborted: {outcome.reason}"
        self.view.latest.append(FinishedGame(outcome.game_id, outcome.ruleset, result, outcome.decisions, seconds))
        if self.settings.max_games is not None and self.view.finished >= self.settings.max_games:
            self.stop(f"--max-games {self.settings.max_games} reached")

    # ------------------------------------------------------------ the store

    def load_history(self) -> None:
        """What the scheduler and the fits start from: the stored head-to-head history, the ratings, and the
        ladder's typical game."""
        self.store.forget_unplayed()  # names an earlier run saw that never played
        # Until this host finishes a game, its caps' time limits scale with the ladder's typical game (a host
        # joining a busy ladder otherwise waited, idle, for a slow bot playing on another host).
        typical = ladder_typical_game(self.store)
        if typical is not None:
            self.scheduler.assume_game(typical)
        for ruleset in self.settings.players:
            self.scheduler.load_history(ruleset, self.store.pair_counts(ruleset))
            self.fits.load(ruleset)

    async def _db_call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a store call on a worker thread, one at a time, so fsyncs never stall the games."""
        return await trio.to_thread.run_sync(lambda: fn(*args, **kwargs), limiter=self._db)

    async def _db_write(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`_db_call` for a write, committed together with the writes that queued meanwhile (group commit).

        Each write joins the queue; whoever gets the database next runs the whole queue in one
        transaction (`LadderStore.run_together`), and every caller returns once that committed:
        as durable as a commit of its own, for one fsync instead of one each.
        """
        call = await self._db_commit(Call(functools.partial(fn, *args, **kwargs)))
        if call.error is not None:
            raise call.error
        return call.result

    async def _db_commit(self, call: Call) -> Call:
        """`_db_write` for a prepared `Call` (with its ``before`` and ``after``, run on the commit's
        thread); returns it done, with its result or error, and ``after``'s."""
        return await self._group.commit(call, self.gaps)
