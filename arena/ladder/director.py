"""The ladder director: the trio task `arena serve` hands to `arena.server.run`.

It keeps the server busy: whenever a bot connects or a game slot frees, it
asks the `Scheduler` for tables and plays each as one game on a fresh seed
(no two ladder games share a deal: a bot must not see one deal from two seats).  Every game is written to the store
as ``running`` before it starts and committed with its result and its whole replay, kept in memory
while the game ran (`arena.ladder.commit_closed`, `arena.ladder.store.replays`), in one transaction
when it ends (the runner's ``on_result``, `arena.ladder.result_commit`, before the bots are told), so a crash loses
nothing a bot was told had finished; the games running at a crash are aborted, unrated, at the
next start, and their partial replays are lost with the process (`arena.ladder.recovery`).  Ratings are refitted
when read and in the background (`arena.ladder.fits.LadderFits`, told of every committed result) and feed the
dashboard, the GetStandings RPC and the scheduler's uncertainty tie-break.

This module is the planning loop and the games it starts (`_play_set`: may the table still start, its
start committed, its game played, the set's seats and slot freed); the rest is the director's parts, each in
its own module: what it is told (`arena.ladder.settings`) and returns (`arena.ladder.summary`), its
store connection's group commits (`arena.ladder.group_commit`), a game's start (`arena.ladder.start_commit`)
and end (`arena.ladder.result_commit`) committed, how it stops and drains
(`arena.ladder.stopping`: ``--duration``, ``--max-games``, Ctrl-C, SIGTERM), the bots' first and last
seen (`arena.ladder.session_notes`), what it starts from (`arena.ladder.history`) and where readers
find a game it does not hold (`arena.ladder.game_lookup`).  `LadderSettings` and `LadderSummary` are
re-exported here, with the director they belong to.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import Any, Callable, Mapping, Sequence

import trio

from arena.games import rulesets
from arena.ladder import game_lookup
from arena.ladder.candidates import CandidatePool
from arena.ladder.dashboard import DashboardView, FinishedGame, RunningGame
from arena.ladder.fits import LadderFits
from arena.ladder.game_gaps import GameGaps
from arena.ladder.group_commit import GroupCommit
from arena.ladder.history import load_history
from arena.ladder.result_commit import DATABASE_AWAY, DATABASE_BACK, GameEnds, ResultCommit
from arena.ladder.scheduler import Scheduler, Table, slot_share
from arena.ladder.session_notes import SessionNotes
from arena.ladder.settings import LadderSettings
from arena.ladder.start_commit import GameStarts, PlannedStart, StartedGame
from arena.ladder.stopping import Stopping
from arena.ladder.store import LadderStore
from arena.ladder.summary import LadderSummary
from arena.match.bound import require_bound
from arena.match.runner import GameStop
from arena.server.host import new_game_id
from arena.server.sessions import SeatUnavailable
from arena.server.slot_view import SlotView

__all__ = ["LadderDirector", "LadderSettings", "LadderSummary"]

log = logging.getLogger("arena.ladder")

_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}

#: The longest a host alone goes between two planning rounds when nothing wakes it (`LadderDirector._schedule`).
_IDLE_ROUND_S = 10.0


def _ordinal(place: int | None) -> str:
    if place is None:
        return "-"
    return _ORDINALS.get(place, f"{place}th")


class LadderDirector:
    """The ladder on one server: plans tables among the connected bots, plays and records their games,
    and stops when told (`stop`, `on_signal`, `abort_now`); `arena serve` runs it as the server's director."""

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
        #: Whether, why and how far the ladder is stopping (`stop`, `on_signal`; `stopping`, `stop_reason`).
        self.stops = Stopping(self._kick, lambda: self._running_sets, self.view.tell)
        self._reserved: dict[str, int] = {}
        self._running_sets = 0
        self._started_games = 0
        self._unstarted_sets = 0  # sets planned whose game has not started yet (nor will: see `_play_set`)
        self._reserved_changed: set[str] = set()  # bots whose `_reserved` count changed since the last round
        #: The store's calls, one at a time on its connection, and its writes waiting for the next group commit.
        self._group = GroupCommit(store, self.gaps)
        #: The standings, live Elo and rating snapshots (fitted when read and in the background).
        self.fits = LadderFits(store, settings, self.view, self.scheduler, self._group.call, self._group.write)
        self.standings = self.fits.standings  # what `arena serve` hands the web view
        #: Every game's end committed: results (retried while the database is away) and aborts.
        self.ends = GameEnds(store, self._group, settings, self.view, self.gaps, self.fits, self.stops.is_set)
        #: Every game's start committed before it is played.  Starts commit on a connection of their own where
        #: the database has room for two writers (PostgreSQL: `LadderStore.sibling`, set in `_direct`), so a
        #: start never waits behind results and their replays' fsyncs; on SQLite they join the one group commit.
        self.starts = GameStarts(self._group, settings, self.ends, self.gaps)
        #: The connected bots, watched for the scheduler and noted in the store (first and last seen).
        self.notes = SessionNotes(store, self._group, settings, self.view, self.gaps, self._kick)
        self._wake: trio.Event | None = None
        self._all_done: trio.Event | None = None
        self._stops: dict[str, Any] = {}  # game id -> its GameStop, to abort the games playing here
        self.membership = None
        #: Set when another process joined the shared ladder under this host's name (`replaced_host`).
        self.host_replaced = False
        #: Called once joined with (games this host had left running, now aborted; the recovery done).
        self.on_joined: Callable[[list, Any], None] | None = None

    # ------------------------------------------------------------ the director

    async def __call__(self, handle: Any) -> LadderSummary:
        started = time.monotonic()
        self.stops.start()
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
        self.ends.membership = self.membership
        recovered = await self.membership.join(handle.port, handle.address)
        self.store.recovered = recovered
        recovery = await trio.to_thread.run_sync(recover_replays, self.store, self.settings.replays)
        handle.set_hosts(self.membership.hosts)
        if self.on_joined is not None:
            self.on_joined(recovered, recovery)

    async def _direct(self, handle: Any, started: float) -> LadderSummary:
        await self._group.call(self.load_history)
        starts = await self._group.call(self.store.sibling)
        if starts is not self.store:
            self.starts.group = GroupCommit(starts, self.gaps)
        async with trio.open_nursery() as background:
            if self.membership is not None:
                background.start_soon(self.membership.run, handle, self._kick, self.abort_games, self.replaced_host)
                background.start_soon(self.membership.listen, self._kick)
                background.start_soon(self.membership.watch, self._kick)
            if self.settings.handle_signals:
                await background.start(self.stops.watch_signals)  # SIGTERM drains from here on: now say SERVING
            handle.set_serving(self.membership is None or not self.membership.problem)
            if self.settings.duration_s is not None:
                background.start_soon(self.stops.stop_after, self.settings.duration_s)
            background.start_soon(self.notes.watch, handle)
            background.start_soon(self.notes.note_connected, handle)
            background.start_soon(self.fits.run)
            async with trio.open_nursery() as sets:
                self.stops.sets_scope = sets.cancel_scope
                await self._schedule(handle, sets)
                handle.set_serving(False)  # draining: new bots belong elsewhere
                await self.stops.drain(self._all_done, self.settings.drain_s)
                sets.cancel_scope.cancel()
            with trio.CancelScope(shield=True):
                await self.fits.final()
                with trio.move_on_after(5):  # the bots leave with this host: seen until now (a bounded wait)
                    await self.notes.note_seen(handle)
            background.cancel_scope.cancel()
        return LadderSummary(
            finished=self.view.finished,
            aborted=self.view.aborted,
            decisions=self.view.decisions,
            seconds=time.monotonic() - started,
            stopped_because=self.stop_reason,
            interrupted=self.interrupted,
            gaps=self.gaps.summary(),
            host_replaced=self.host_replaced,
        )

    # ------------------------------------------------------------ stopping (`arena.ladder.stopping`)

    @property
    def stopping(self) -> trio.Event | None:
        """Set once the ladder stops scheduling (None until it runs)."""
        return self.stops.event

    @property
    def stop_reason(self) -> str:
        """What stopped the ladder, as the final line says it ("Ctrl-C", "--max-games 4 reached")."""
        return self.stops.reason

    @property
    def stop_hint(self) -> str:
        """What the stopping message adds while games drain ("again to abort running games" after a signal)."""
        return self.stops.hint

    @property
    def interrupted(self) -> bool:
        """Whether a Ctrl-C reached the ladder (`LadderSummary.interrupted`)."""
        return self.stops.interrupted

    def stop(self, reason: str, hint: str = "") -> None:
        """Stop scheduling; running games drain (call from trio).  Called before the ladder runs, it makes the
        ladder stop as soon as it starts, without a game (`Stopping.stop`)."""
        self.stops.stop(reason, hint)

    def on_signal(self, signum: int) -> None:
        """SIGINT (Ctrl-C) or SIGTERM: the first stops scheduling and lets the running games finish (`drain_s`),
        the second aborts them (`Stopping.on_signal`)."""
        self.stops.on_signal(signum)

    def abort_now(self, reason: str) -> None:
        """Stop, and abort the running games at once."""
        self.stops.abort_now(reason)

    def abort_games(self, reason: str) -> None:
        """Abort every game playing here (their results would not be stored: see `Membership.run`)."""
        for stop in list(self._stops.values()):
            stop.abort(reason)

    def replaced_host(self, reason: str) -> None:
        """Another process joined the shared ladder under this host's name while this one was cut off: this one is
        no longer that host.  Abort every game playing here (the database already holds them aborted, or refuses
        their results) and stop; `arena serve` exits 1 (`LadderSummary.host_replaced`)."""
        self.host_replaced = True
        self.abort_games(reason)
        self.abort_now(reason)

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

    def sessions_noted(self, handle: Any) -> bool:
        """True when every arrival and departure so far is in the store (first/last seen, and an
        unplayed open-registration name forgotten): the session watcher is idle and up to date."""
        return self.notes.noted(handle)

    # ------------------------------------------------------------ one set

    async def _play_set(self, handle: Any, table: Table, versions: dict[str, str], planned_at: float = 0.0) -> None:
        """Play a planned table: one game on a fresh seed, its own result unit (a set of one; see
        `arena.ladder.start_commit` for why a deal is never replayed with the seats rotated).  The set holds its
        bots' reservations and a game slot until it ends, whether its game started or not (`_end_set`)."""
        seats = table.bots
        seed = secrets.randbits(63)
        options = dict(self.settings.options.get(table.ruleset, {}))
        claimed: list[str] = []  # games whose seats this host claimed in the shared database
        unstarted = True  # counted in `_unstarted_sets` until its game starts or the set ends without one
        try:
            if not await self._may_start(handle, seats):
                return
            game_id = new_game_id()
            self._started_games += 1
            unstarted = False
            self._unstarted_sets -= 1
            start = self.starts.plan(game_id, table.ruleset, seats, seed, options, versions)
            claim = None
            if self.membership is not None:  # claimed in the start's own transaction (its checks first)
                claim = self.membership.start_claim(seats)
                claimed.append(game_id)  # freed by the end's commit, or apart (a start whose reply was lost)
            started = await self.starts.commit(start, claim, planned_at)
            if started.recorder is None:  # the database is away, or another host seated a bot: plan again
                if started.seats_taken:
                    claimed.remove(game_id)
                self._started_games -= 1
                return
            await self._play_game(handle, start, started)
        finally:
            await self._end_set(table, claimed, unstarted)

    async def _may_start(self, handle: Any, seats: Sequence[str]) -> bool:
        """Whether a planned table's game may still start: the ladder is not stopping, ``--max-games`` leaves
        room, its bots are connected, and on a shared ladder no other host has taken them since the plan."""
        assert self.stopping is not None
        if self.membership is not None:  # a starved host may take these seats first (host balance)
            await self.membership.hold_off(seats, self._playing_here, self.stopping)
            if self.membership.taken(seats, self._reserved):
                return False  # another host has them now, as a view read since the plan shows: plan again
        if self.stopping.is_set():
            return False
        if self.settings.max_games is not None and self._started_games >= self.settings.max_games:
            return False
        return all(handle.is_connected(bot) for bot in seats)  # a bot may have left before its game started

    async def _play_game(self, handle: Any, start: PlannedStart, started: StartedGame) -> None:
        """Play a started game on the server and note its end; its result (or abort) is committed by the
        runner's ``on_result`` (`ResultCommit`) before the bots are told, or here if the game never ran."""
        game_id, seats, recorder = start.game_id, start.seats, started.recorder
        assert recorder is not None
        self.view.running[game_id] = RunningGame(
            game_id, start.ruleset, tuple(seats), "-", time.monotonic()
        )
        began = time.monotonic()
        extra = {}
        if self.membership is not None:  # a host of a shared ladder may have to abort its games
            self._stops[game_id] = extra["stop"] = GameStop()
        try:
            commit = ResultCommit(self.ends.commit_and_count, recorder)
            self.gaps.add("to_play", time.monotonic() - started.committed_at)
            outcome = await handle.play_game(
                start.ruleset, start.options, start.seed, list(seats), self.settings.time_control,
                recorder=recorder, game_id=game_id, on_result=commit, **extra,
            )
        except SeatUnavailable as error:
            # A bot left since the plan: the set ends here, nothing was played.
            with trio.CancelScope(shield=True):
                recorder.abort_now(f"seat unavailable: {error}")
                await self.ends.end_quietly(game_id, f"seat unavailable: {error}", recorder)
            self.view.aborted += 1
            self._started_games -= 1  # --max-games counts finished games: this one frees its place
            return
        except BaseException:
            # Cancelled (shutdown): the runner has committed the abort through on_result, unless
            # it could not (then the row is aborted here, with the replay as far as it got).
            if commit.status is None:
                with trio.CancelScope(shield=True):
                    recorder.abort_now("server shutting down")
                    await self.ends.end_quietly(game_id, "server shutting down", recorder)
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

    async def _end_set(self, table: Table, claimed: list[str], unstarted: bool) -> None:
        """A set is over, its game played or not: free its seat claims, its bots' reservations and its slot, and
        plan again."""
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

    def replay_text(self, game_id: str) -> bytes | None:
        """An ended game's replay for readers (Spectate, `Handle.replay_provider`; on a worker thread): from
        the database, or the file a ladder from before replays went into the database wrote (its row names it)."""
        return game_lookup.replay_text(self.store, self.settings.replays, game_id)

    def running_elsewhere(self, game_id: str) -> str | None:
        """Where another host of the ladder runs this game, in one line, or None (`Handle.host_provider`; on a
        worker thread): its live events are in that host's process only."""
        return game_lookup.running_elsewhere(self.store, game_id)

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
        """What the scheduler and the fits start from (`arena.ladder.history`; on the store's worker thread)."""
        load_history(self.store, self.scheduler, self.fits, self.settings.players)
