"""The ladder's standings while it runs: the fit's input kept as results commit, fitted when read and in the background.

`LadderDirector` owns one `LadderFits` and tells it what happens: the history at the start
(`load`), each committed result (`count`), a commit that raised (`lost_track`), each ended
game for the live Elo (`finished`), and at the end the last fit with its snapshot (`final`).
Everything else happens here:

* **The input.**  The fit's running totals per ruleset (`RunningTotals`): from each committed
  result when this process is the store's only writer, else (a host of a shared ladder, every
  host writing the totals) from the rows changed since the last read (`take_changes`).  After a
  commit that raised, whether its row took the result is unknown, so the totals are dropped and
  every fit reads the store.
* **Fits when read.**  The dashboard, the web view and GetStandings read `standings`
  (`StandingsBook`), which fits a ruleset whose rows are behind its results on the reading
  thread, unless its last fit cost more than `read_fit_budget_s`; then the background fit keeps
  its full pace while the reads last.
* **The background fit** (`run`) within `refit_share` of a core: every `unread_refit_s` while
  nobody reads, for the scheduler's uncertainty tie-break (`Scheduler.set_ratings`) and the
  rating snapshots (every `snapshot_s`).

Rows of fewer results never replace rows of more (`_show`): a read's fit and the background's
may overlap.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from typing import Any, Awaitable, Callable

import trio

from arena.ladder.ratings import LiveElo, Rating
from arena.ladder.standings import Standing, StandingsBook, standings_from
from arena.ladder.store import SeatRecord, error_line, outage_errors
from arena.ladder.store.fit_totals import RunningTotals

log = logging.getLogger("arena.ladder")


def _timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``fn(*args)`` and the CPU seconds this thread spent in it."""
    began = time.thread_time()
    result = fn(*args)
    return result, time.thread_time() - began


class LadderFits:
    """Standings, live Elo and rating snapshots of one ladder host.

    store, settings (`LadderSettings`), view (`DashboardView`: its live Elo table and the connected bots),
    scheduler (told each fit's ratings); ``db_call`` and ``db_write`` run a store call on the director's
    one database connection (a read; a write in its group commit: `GroupCommit.call`, `GroupCommit.write`).
    """

    def __init__(self, store: Any, settings: Any, view: Any, scheduler: Any,
                 db_call: Callable[..., Awaitable[Any]], db_write: Callable[..., Awaitable[Any]]) -> None:
        self.store = store
        self.settings = settings
        self.view = view
        self.scheduler = scheduler
        self._db_call = db_call
        self._db_write = db_write
        self.live_elo = LiveElo()
        #: Brought up to date when read (`_fit_when_read`); the dashboard's view reads the same book.
        self.standings = StandingsBook(self._fit_when_read)
        view.standings = self.standings
        #: Per ruleset: changes to the fit's input (each finished result, `count`; the history loaded
        #: at the start counts as one), and of the rows shown, (that count when their input was taken, when
        #: they were fitted, the fit's CPU seconds): rows whose count is behind are refitted when read.
        self._counted: dict[str, int] = defaultdict(int)
        self._fits: dict[str, tuple[int, float, float]] = {}
        self._read_wanted = False  # a read found rows it could not fit itself: the background fit keeps pace
        self._dirty: set[str] = set()  # rulesets with results the background fit has not fitted
        self._failing = False  # the last background fit could not reach the database (said once)
        #: The fit's input per ruleset (see the module's doc); None: every refit reads the store.
        self.running_totals: dict[str, RunningTotals] | None = {}
        self._from_store = settings.cluster is not None
        self._totals_read: dict[str, str] = {}  # ruleset -> the snapshot of the last read of its changed rows

    # ------------------------------------------------------------ what the director tells it

    def load(self, ruleset: str) -> None:
        """The history of ``ruleset`` at the start (on the store's worker thread, before any game runs)."""
        games = self.store.rated_games(ruleset)
        for game in games:
            self.live_elo.update(ruleset, game.placements)
        if games:
            self.view.live_elo[ruleset] = self.live_elo.ratings(ruleset)
            self._dirty.add(ruleset)
            self._counted[ruleset] += 1
        if self._from_store:  # every row, and the snapshot the next reads of the changes start from
            self._totals_read[ruleset], pairs, bots = self.store.fit_changes(ruleset, None)
            self.running_totals[ruleset] = RunningTotals.of_rows(pairs, bots)
        elif self.running_totals is not None:  # before any game runs: no result can fall between
            self.running_totals[ruleset] = RunningTotals(self.store.pair_table(ruleset), self.store.totals(ruleset))

    def count(self, outcome: Any) -> None:
        """A finished result committed: into the fit's running totals (the store's ``fit_totals`` took it in
        the same commit).  Its ruleset's standings are refitted at the next read or background fit.  A shared
        ladder's running totals take it with the other hosts' results, at the next read of the changed rows."""
        if self._from_store:
            return
        self._counted[outcome.ruleset] += 1
        self._dirty.add(outcome.ruleset)
        if self.running_totals is not None and outcome.ruleset in self.running_totals:
            self.running_totals[outcome.ruleset].add_game(
                [SeatRecord(seat=s.seat, bot=s.name, placement=s.placement, points=s.points, strikes=s.strikes,
                            timeouts=s.timeouts, forfeited=s.forfeited, errors=s.errors) for s in outcome.seats])

    def lost_track(self) -> None:
        """A result's commit raised: whether its row took it is unknown, so from now on every fit reads the
        store.  (A shared ladder's running totals are read from the store already: they stay.)"""
        if not self._from_store:
            self.running_totals = None

    def finished(self, ruleset: str, placements: dict[str, int]) -> None:
        """A finished game for the live Elo (committed or not: the dashboard's running estimate)."""
        self.live_elo.update(ruleset, placements)
        # Only this game's seats moved: the dashboard's table takes their ratings in place (a copy of
        # every bot's, each game, cost O(bots) on the games' thread: 1,000 entries at the scale target).
        shown = self.view.live_elo.setdefault(ruleset, {})
        for bot in placements:
            shown[bot] = self.live_elo.rating(ruleset, bot)

    async def final(self) -> None:
        """The last fit, with its snapshot, when the ladder stops (the database may be away: then the
        standings are refitted at the next start)."""
        try:
            if self._from_store:
                await self.take_changes()
            await self.refit(force=True, snapshot=True)
        except outage_errors() as error:
            log.warning("the final ratings could not be saved: %s", error_line(error))

    # ------------------------------------------------------------ fitting

    async def run(self) -> None:
        """Refit in the background, within `LadderSettings.refit_share` of a core (a fit shares the GIL
        with the games: a costly one is run less often).  While the standings are read through
        `StandingsBook` only (the ladder's own input, in memory), the reads fit what they show; then this
        fits every `unread_refit_s`, for the scheduler and the snapshots."""
        last_snapshot, last_fit = trio.current_time(), float("-inf")  # the history's fit comes at once
        pause = self.settings.refit_s
        while True:
            await trio.sleep(pause)
            if self._from_store:
                try:
                    await self.take_changes()
                except outage_errors() as error:  # the database is away: read them again once it is back
                    self._failed(error)
                    pause = self.settings.refit_s
                    continue
            now = trio.current_time()
            snapshot = now - last_snapshot >= self.settings.snapshot_s
            if not (snapshot or self._read_wanted or self.running_totals is None
                    or now - last_fit >= self.settings.unread_refit_s):
                pause = self.settings.refit_s
                continue
            last_fit = now
            self._read_wanted = False
            if snapshot:
                last_snapshot = now
            try:
                cost = await self.refit(snapshot=snapshot)
            except outage_errors() as error:  # the database is away: fit again once it is back
                self._failed(error)
                continue
            if self._failing:
                log.warning("the ratings are refitted again")
                self._failing = False
            pause = max(self.settings.refit_s, cost / self.settings.refit_share)

    def _failed(self, error: BaseException) -> None:
        if not self._failing:
            log.warning("cannot refit the ratings (%s): trying again every round", error_line(error))
        self._failing = True

    async def take_changes(self) -> None:
        """A shared ladder: the rows of the fit's totals that any host's results changed since the last read, read
        on a worker thread (`LadderStore.fit_changes`: one statement a ruleset) and put in the running totals here,
        on the games' thread, where the reads' fits take them (`_fit_when_read`); a ruleset with new rows counts as
        changed, so its standings are refitted when read or by the background fit.  Every host and `arena
        leaderboard` fit the same rows of the same tables (`RunningTotals.put`)."""
        if self.running_totals is None:
            return
        for ruleset in self.settings.players:
            running = self.running_totals.get(ruleset)
            if running is None:
                continue
            at, pairs, bots = await self._db_call(self.store.fit_changes, ruleset, self._totals_read.get(ruleset))
            self._totals_read[ruleset] = at
            if pairs or bots:
                running.put(pairs, bots)
                self._counted[ruleset] += 1
                self._dirty.add(ruleset)

    async def refit(self, force: bool = False, snapshot: bool = False) -> float:
        """Fit the rulesets with new results; returns the CPU seconds the reads and fits took."""
        rulesets = set(self.settings.players) if force else set(self._dirty)
        self._dirty.clear()
        cost = 0.0
        for ruleset in sorted(rulesets):
            counted = self._counted[ruleset]
            spent_here = 0.0
            running = self.running_totals.get(ruleset) if self.running_totals is not None else None
            if running is not None:  # the store's totals, kept in memory: no read
                began = time.thread_time()
                rated, totals = running.table(), running.totals()
                spent_here += time.thread_time() - began
            else:
                try:
                    rated, spent = await self._db_call(_timed, self.store.pair_table, ruleset)
                    spent_here += spent
                    totals, spent = await self._db_call(_timed, self.store.totals, ruleset)
                    spent_here += spent
                except BaseException:
                    self._dirty.add(ruleset)  # fitted again next round
                    raise
            rows, spent = await trio.to_thread.run_sync(_timed, standings_from, rated, totals, list(self.view.connected))
            spent_here += spent
            cost += spent_here
            self._show(ruleset, rows, counted, spent_here)
        if snapshot:
            for ruleset, rows in self.standings.last().items():
                await self._db_write(
                    self.store.save_ratings,
                    ruleset,
                    [Rating(r.bot, r.rating, r.ci, r.games, r.score) for r in rows],
                )
        return cost

    def _show(self, ruleset: str, rows: list[Standing], counted: int, cost: float) -> None:
        """A fit's rows (of the first ``counted`` results), unless rows of more results were shown meanwhile
        (a read's fit, while this one ran on a worker thread)."""
        if not rows:
            return
        shown = self._fits.get(ruleset)
        if shown is not None and shown[0] > counted:
            return
        self._fits[ruleset] = (counted, time.monotonic(), cost)
        self.standings.put(ruleset, rows)
        self.scheduler.set_ratings(ruleset, {r.bot: (r.rating, r.ci) for r in rows})

    def _fit_when_read(self) -> None:
        """`StandingsBook`'s refresh, on the reading thread (the server's loop): fit each ruleset with results
        newer than its rows, from the running totals in memory, unless its rows are younger than `refit_s`
        (as fresh as the background fit ever kept them) or its last fit cost more than `read_fit_budget_s`
        (then the background fit keeps its full pace while the reads last).  The rows are those a fit of
        every committed result gives: the same function on the same input as the background fit."""
        now = time.monotonic()
        for ruleset, counted in self._counted.items():
            shown = self._fits.get(ruleset)
            if shown is not None and (shown[0] >= counted or now - shown[1] < self.settings.refit_s):
                continue  # up to date, or as fresh as the background fit ever kept it
            running = self.running_totals.get(ruleset) if self.running_totals is not None else None
            if running is None or (shown is not None and shown[2] > self.settings.read_fit_budget_s):
                self._read_wanted = True
                continue
            self._dirty.discard(ruleset)
            began = time.thread_time()
            rows = standings_from(running.table(), running.totals(), list(self.view.connected))
            self._show(ruleset, rows, counted, time.thread_time() - began)

    def standings_rows(self, ruleset: str) -> list[dict[str, Any]]:
        """For the GetStandings RPC (called on the gRPC loop): the standings, brought up to date as any read
        of them is (`StandingsBook`)."""
        rows = []
        for r in self.standings.get(ruleset, []):
            half = r.ci  # inf while the bot's rating is not tied to the others': the interval is unbounded
            rows.append(
                {
                    "name": r.bot, "rating": r.rating, "ci_low": r.rating - half, "ci_high": r.rating + half,
                    "games": r.games, "wins": r.wins, "timeouts": r.timeouts, "strikes": r.strikes,
                    "errors": r.errors,
                }
            )
        return rows
