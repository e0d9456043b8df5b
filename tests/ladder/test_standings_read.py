"""The standings are fitted when read: every read shows what a fit of every committed result gives.

A SQLite ladder's director used to refit every second whether anyone looked or not (about 1% of the
server's CPU at 200 bots).  Now a read of its standings (`StandingsBook`: the dashboard, the web view,
GetStandings) fits the rulesets with new results, and nobody reading, the background fit runs only every
`unread_refit_s`, for the scheduler.  These tests read the standings after random results and compare
them, row for row, with a fit of the store (`compute_standings`), on both backends, and count the fits
of a ladder nobody reads on a trio `MockClock` (so the count does not depend on the machine's speed).
"""

from __future__ import annotations

import random

import pytest
import trio
import trio.testing

from test_deals import RULESETS, FakeHandle

import arena.ladder.fits as fits_module
from arena.ladder.director import LadderDirector, LadderSettings
from arena.ladder.standings import compute_standings
from arena.ladder.store import LadderStore
from arena.match.outcome import GameOutcome, SeatOutcome


class ReadingHandle(FakeHandle):
    """Results with random placements (ties included); after each of them, every ruleset's standings are
    read as a reader would (``director.standings``, `standings_rows`) and compared with a fit of the store."""

    def __init__(self, names: list[str], store: LadderStore, seed: int) -> None:
        super().__init__(names)
        self.store = store
        self.director: LadderDirector | None = None
        self.chooser = random.Random(seed)
        self.reads = 0
        self.committed: dict[str, int] = {ruleset: 0 for ruleset in RULESETS}  # results whose commit returned

    async def play_game(self, ruleset, options, seed, seats, time_control, recorder=None, game_id="", on_result=None):
        for bot in seats:
            self.busy[bot] += 1
        try:
            await trio.sleep(0)
            placements = [self.chooser.randint(1, len(seats)) for _ in seats]
            outcome = GameOutcome(
                game_id, ruleset, dict(options), seed, "finished",
                [SeatOutcome(seat=i, name=bot, placement=placements[i]) for i, bot in enumerate(seats)],
            )
            if recorder is not None:
                await recorder.write_result({"placements": placements, "points": [0] * len(seats), "reason": ""})
            await on_result(outcome)  # committed: from here on every read must count it
            self.committed[ruleset] += 1
            self.check()
            return outcome
        finally:
            for bot in seats:
                self.busy[bot] -= 1

    def check(self) -> None:
        """A read compared with a fit of the store, when the store holds exactly the results whose commit
        returned (a group commit makes other games' results durable a moment before their own commit call
        returns to the director: until then no bot of theirs was told, and a read need not show them)."""
        director = self.director
        if any(self.store.count_games(ruleset, "finished") != self.committed[ruleset] for ruleset in RULESETS):
            return
        self.reads += 1
        connected = director.view.connected
        for ruleset in RULESETS:
            expected = compute_standings(self.store, ruleset, connected)
            assert director.standings.get(ruleset, []) == expected
            assert [row["name"] for row in director.fits.standings_rows(ruleset)] == [r.bot for r in expected]
            assert [row["rating"] for row in director.fits.standings_rows(ruleset)] == [r.rating for r in expected]


@pytest.mark.parametrize("seed", [1, 2])
def test_every_read_shows_the_fit_of_every_committed_result(db, tmp_path, seed):
    store = LadderStore.open(db)
    try:
        # refit_s=0: no read is served rows fitted before its newest result (refit_s would allow that much)
        director = LadderDirector(store, LadderSettings(
            players=dict(RULESETS), replays=tmp_path / "replays", max_games=80, handle_signals=False,
            refit_s=0.0, concurrency=6))
        handle = ReadingHandle([f"bot{i}" for i in range(7)], store, seed)
        handle.director = director
        trio.run(director, handle)
        assert handle.reads >= 10
        handle.check()  # and after the run
        assert director.view.standings is director.standings  # the dashboard reads the same, fresh rows
    finally:
        store.close()


def test_a_ladder_nobody_reads_fits_seldom_and_a_read_catches_up(tmp_path, monkeypatch):
    store = LadderStore.open(":memory:")
    fits = []
    fit = fits_module.standings_from
    monkeypatch.setattr(fits_module, "standings_from", lambda *args: fits.append(1) or fit(*args))
    try:
        director = LadderDirector(store, LadderSettings(
            players={"duo": 2}, replays=tmp_path / "replays", handle_signals=False, duration_s=60.0,
            concurrency=2))

        class SlowGames(FakeHandle):
            async def play_game(self, *args, **kwargs):
                await trio.sleep(1.0)  # two results a second of the mock clock
                return await super().play_game(*args, **kwargs)

        # The clock jumps once every task has waited 20 ms of real time: the commits' worker threads finish first.
        clock = trio.testing.MockClock(autojump_threshold=0.02)
        trio.run(director, SlowGames(["a", "b", "c", "d"]), clock=clock)
        # A minute of results: a fit a second before (about 60 and the last); now every `unread_refit_s`
        # (10 s) for the scheduler and the snapshot at 60 s, and the last.
        # (about 120 results; a commit slower than the clock's 20 ms lets a second of mock time pass without
        # one, so fewer on a loaded machine: a fit a second would still make some 20 or more)
        assert director.view.finished >= 20
        assert 5 <= len(fits) <= 9, len(fits)
        assert director.standings["duo"] == compute_standings(store, "duo", director.view.connected)
    finally:
        store.close()


class OtherHosts(ReadingHandle):
    """A host of a shared ladder whose games' results come with some of other hosts' (written by a store of
    their own on the same database, as another `arena serve` would), and that reads its standings as it goes."""

    def __init__(self, names: list[str], store: LadderStore, other: LadderStore, seed: int) -> None:
        super().__init__(names, store, seed)
        self.other = other
        self.hosts: list = []
        self.others = 0

    def set_hosts(self, hosts) -> None:
        self.hosts.append(hosts)

    async def play_game(self, *args, stop=None, **kwargs):  # (a shared ladder's host can abort its games)
        return await super().play_game(*args, **kwargs)

    def check(self) -> None:
        from arena.ladder.store import SeatRecord

        self.others += 1
        ruleset = sorted(RULESETS)[self.others % len(RULESETS)]
        bots = self.chooser.sample(self.names, RULESETS[ruleset])
        game_id = f"elsewhere-{self.others}"
        self.other.game_started(game_id, ruleset, {}, self.others, game_id, 0, bots)
        self.other.game_ended(game_id, "finished", [SeatRecord(i, bot, placement=self.chooser.randint(1, len(bots)))
                                                    for i, bot in enumerate(bots)])
        for ruleset in RULESETS:  # a read as readers make them: fitted from what the last read of the rows brought
            self.director.standings.get(ruleset, [])
            self.reads += 1


def test_a_shared_ladder_s_host_fits_every_host_s_results_from_the_rows_changed(postgres_db, tmp_path):
    """A host of a shared ladder keeps the fit's totals from the rows changed since its last read (every host
    writes them), so after the run its standings are a fit of the store, other hosts' results included, and
    equal what `arena leaderboard` (`compute_standings`) shows."""
    from arena.ladder.membership import ClusterSettings

    store = LadderStore.open(postgres_db, shared=True)
    other = LadderStore.open(postgres_db, shared=True)
    try:
        director = LadderDirector(store, LadderSettings(
            players=dict(RULESETS), replays=tmp_path / "replays", max_games=40, handle_signals=False,
            refit_s=0.01, concurrency=4,
            cluster=ClusterSettings(postgres_db, host_name="h1", advertise="127.0.0.1:1")))
        handle = OtherHosts([f"bot{i}" for i in range(7)], store, other, seed=3)
        handle.director = director
        trio.run(director, handle)
        assert handle.others >= 40 and director.fits.running_totals  # fed from the rows, not refitted from the store
        for ruleset in RULESETS:
            assert store.count_games(ruleset, "finished") > 0
            assert director.standings.get(ruleset, []) == compute_standings(store, ruleset, director.view.connected)
    finally:
        other.close()
        store.close()
