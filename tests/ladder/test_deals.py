"""The ladder's deals: no bot ever sees one deal from two seats, and each game is one result.

Runs the real `LadderDirector` against a stand-in for the server handle (no
sockets): the stand-in records every game's seed and seats and returns a
result at once, so a few hundred games take a fraction of a second.
"""

from __future__ import annotations

import random
import signal
from collections import defaultdict

import pytest
import trio

from arena.ladder.director import LadderDirector, LadderSettings
from arena.ladder.ratings import aggregate, fit_bradley_terry
from arena.ladder.store import LadderStore
from arena.match.outcome import GameOutcome, SeatOutcome
from arena.server.bot_session import SessionInfo

RULESETS = {"duo": 2, "trio": 3}


class FakeHandle:
    """Connected bots that play whatever they are seated in; the ladder stops at --max-games."""

    port = 0
    address = "127.0.0.1:0"

    def __init__(self, names: list[str], capacity: int = 2) -> None:
        self.busy = defaultdict(int)
        self.names = names
        self.capacity = capacity
        self.played: list[tuple[int, tuple[str, ...], str]] = []  # (seed, seats, ruleset)
        self.rng = random.Random(7)
        self.standings_provider = None
        self.serving: list[bool] = []

    def set_serving(self, serving: bool) -> None:
        self.serving.append(serving)

    def sessions(self) -> list[SessionInfo]:
        return [
            SessionInfo(name, f"s-{name}", "1", "0.1.0", tuple(RULESETS), self.capacity, self.busy[name], "", "")
            for name in self.names
        ]

    def connected_versions(self) -> dict[str, str]:
        return {session.name: session.version for session in self.sessions()}

    def version_of(self, name: str) -> str:
        return self.connected_versions().get(name, "")

    def slots(self) -> dict[str, tuple[int, int, tuple[str, ...]]]:
        return {s.name: (s.capacity, s.busy, s.games) for s in self.sessions()}

    def is_connected(self, name: str) -> bool:
        return name in self.names

    async def roster_event(self) -> None:
        await trio.sleep_forever()

    async def play_game(self, ruleset, options, seed, seats, time_control, recorder=None, game_id="", on_result=None):
        for bot in seats:
            self.busy[bot] += 1
        try:
            await trio.sleep(0)
            self.played.append((seed, tuple(seats), ruleset))
            order = list(seats)
            self.rng.shuffle(order)
            if recorder is not None:
                await recorder.write_abort("stand-in game")  # the replay is not the point here
            outcome = GameOutcome(
                game_id, ruleset, dict(options), seed, "finished",
                [SeatOutcome(seat=i, name=bot, placement=order.index(bot) + 1) for i, bot in enumerate(seats)],
            )
            if on_result is not None:  # the ladder commits the result here, as the real runner calls it
                await on_result(outcome)
            return outcome
        finally:
            for bot in seats:
                self.busy[bot] -= 1


def run_ladder(tmp_path, names, games):
    store = LadderStore.open(tmp_path / "ladder.db")
    handle = FakeHandle(names)
    settings = LadderSettings(
        players=dict(RULESETS), replays=tmp_path / "replays", max_games=games, handle_signals=False,
        refit_s=60.0, concurrency=6,
    )
    trio.run(LadderDirector(store, settings), handle)
    return store, handle


def test_no_bot_sees_a_deal_twice_and_each_game_is_one_result(tmp_path):
    store, handle = run_ladder(tmp_path, [f"bot{i}" for i in range(6)], games=300)
    try:
        assert len(handle.played) == 300
        seats_by_seed: dict[int, list[tuple[str, ...]]] = defaultdict(list)
        for seed, seats, _ruleset in handle.played:
            seats_by_seed[seed].append(seats)
        # Every seed was dealt once: no bot holds a seat of a deal it has seen from another seat.
        assert all(len(tables) == 1 for tables in seats_by_seed.values())
        for ruleset in RULESETS:
            rated = store.rated_games(ruleset)
            # Each stored game is its own result unit, and the fit counts one observation per
            # pair per game, from the database's sums as from the games themselves.
            assert len({game.set_id for game in rated}) == len(rated) > 0
            table = store.pair_table(ruleset)
            comparisons = sum(len(g.placements) * (len(g.placements) - 1) // 2 for g in rated)
            assert table.n.sum() / 2 == comparisons
            assert (aggregate(rated).n == table.n).all()
            assert fit_bradley_terry(table)
        assert handle.serving[-1] is False  # at the end the host drained and said so to load balancers
        stored = {(g.seed, tuple(s.bot for s in g.seats)) for g in store.games(status="finished")}
        assert stored == {(seed, seats) for seed, seats, _ruleset in handle.played}
    finally:
        store.close()


class AbortingHandle(FakeHandle):
    """Every third game ends aborted (a bot crashed, say): those are not the finished games --max-games counts."""

    calls = 0

    async def play_game(self, ruleset, options, seed, seats, time_control, recorder=None, game_id="", on_result=None):
        # Counted on entry, before any await: which games abort must not depend on how the games interleave
        # (`played` grows only when a game ends, so counting it aborted fewer games on a loaded machine).
        self.calls += 1
        if self.calls % 3 != 0:
            return await super().play_game(ruleset, options, seed, seats, time_control, recorder, game_id, on_result)
        await trio.sleep(0)
        self.played.append((seed, tuple(seats), ruleset))
        if recorder is not None:
            await recorder.write_abort("stand-in crash")
        outcome = GameOutcome(game_id, ruleset, dict(options), seed, "aborted",
                              [SeatOutcome(seat=i, name=bot) for i, bot in enumerate(seats)], reason="stand-in crash")
        if on_result is not None:
            await on_result(outcome)
        return outcome


def test_max_games_counts_finished_games_and_aborted_ones_do_not_stall_it(tmp_path):
    """Before, a game that ended aborted still took one of the N starts, so the ladder never saw N finished."""
    store = LadderStore.open(tmp_path / "ladder.db")
    handle = AbortingHandle([f"bot{i}" for i in range(6)])
    settings = LadderSettings(
        players=dict(RULESETS), replays=tmp_path / "replays", max_games=30, handle_signals=False,
        refit_s=60.0, concurrency=6,
    )

    async def main():
        with trio.fail_after(60):  # a hang guard: the stall this test is about never ends by itself
            await LadderDirector(store, settings)(handle)

    try:
        trio.run(main)
        assert len(store.games(status="finished")) == 30
        assert len(store.games(status="aborted")) >= 10
    finally:
        store.close()


class HeldHandle(FakeHandle):
    """Games that last until the test ends them (`finish_one`), each bot with one slot."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(names, capacity=1)
        self.playing: list[trio.Event] = []  # one per game running, in the order they started
        self.most_at_once = 0
        self.changed = trio.Event()

    def _note(self) -> None:
        self.most_at_once = max(self.most_at_once, len(self.playing))
        self.changed.set()
        self.changed = trio.Event()

    async def play_game(self, ruleset, options, seed, seats, time_control, recorder=None, game_id="", on_result=None):
        done = trio.Event()
        self.playing.append(done)
        self._note()
        try:
            await done.wait()
        finally:
            self.playing.remove(done)
        try:
            return await super().play_game(ruleset, options, seed, seats, time_control, recorder, game_id, on_result)
        finally:
            self._note()

    async def until(self, condition) -> None:
        while not condition():
            await self.changed.wait()


def test_max_games_lets_as_many_games_run_at_once_as_it_has_left_to_play(tmp_path):
    """--max-games N: while fewer than N games have finished, a game's end frees its place for the next, up to
    the server's concurrency.  The limit used to count a started game twice (in the games started and in the
    sets running), so with 6 of 8 games started and one finished it planned nothing, and 5 games ran where 6
    could."""
    store = LadderStore.open(tmp_path / "ladder.db")
    handle = HeldHandle([f"bot{i:02d}" for i in range(12)])
    settings = LadderSettings(
        players={"duo": 2}, replays=tmp_path / "replays", max_games=8, handle_signals=False,
        refit_s=60.0, concurrency=6,
    )
    director = LadderDirector(store, settings)

    async def main():
        with trio.fail_after(30):  # a hang guard: before the fix no game started after the first end
            async with trio.open_nursery() as nursery:
                nursery.start_soon(director, handle)
                await handle.until(lambda: len(handle.playing) == 6)  # 12 bots of one slot: 6 games at once
                handle.playing[0].set()  # the first game ends: 1 finished, 5 playing, 2 left to start
                await handle.until(lambda: len(handle.played) == 1)
                await handle.until(lambda: len(handle.playing) == 6)
                while len(handle.played) < 8:  # the rest end one by one
                    await handle.until(lambda: handle.playing)
                    ended = len(handle.played)
                    handle.playing[0].set()
                    await handle.until(lambda: len(handle.played) > ended)

    try:
        trio.run(main)
        assert len(handle.played) == 8 == len(store.games(status="finished"))
        assert handle.most_at_once == 6
    finally:
        store.close()


def test_the_ladder_says_serving_only_once_a_sigterm_would_drain_it(tmp_path):
    """`arena serve` starts NOT_SERVING (`ServerConfig.serving_at_start`); the ladder says SERVING when it schedules
    games, and by then its signal receiver is open: a deploy script or load balancer that sends SIGTERM as soon as the
    host looks ready gets a drain and exit 0, never the default action that kills the process (seen once under load
    before this order was fixed: exit -15 in tests/ladder/test_health_and_logs.py)."""
    class Watched(FakeHandle):
        def set_serving(self, serving: bool) -> None:
            super().set_serving(serving)
            if serving:
                self.sigterm_at_serving = signal.getsignal(signal.SIGTERM)

    store = LadderStore.open(tmp_path / "ladder.db")
    handle = Watched([f"bot{i}" for i in range(4)])
    settings = LadderSettings(players=dict(RULESETS), replays=tmp_path / "replays", max_games=20, refit_s=60.0,
                              concurrency=4)
    assert settings.handle_signals
    before = signal.getsignal(signal.SIGTERM)
    try:
        trio.run(LadderDirector(store, settings), handle)
    finally:
        store.close()
    assert handle.serving == [True, False]  # ready, then draining at the end
    assert handle.sigterm_at_serving not in (signal.SIG_DFL, signal.SIG_IGN, None)
    assert handle.sigterm_at_serving is not before
    assert signal.getsignal(signal.SIGTERM) == before  # the receiver is gone with the run


def test_a_ladder_told_to_stop_before_it_runs_stops_at_once_without_a_game(tmp_path):
    """`arena serve` hands a signal that came during its start-up to the ladder before the ladder runs (its one
    receiver is open from the first line): the ladder must then stop as soon as it runs, not drop the stop."""
    store = LadderStore.open(tmp_path / "ladder.db")
    handle = FakeHandle([f"bot{i}" for i in range(4)])
    settings = LadderSettings(players=dict(RULESETS), replays=tmp_path / "replays", max_games=20, refit_s=60.0,
                              concurrency=4, handle_signals=False)
    ladder = LadderDirector(store, settings)
    ladder.stop("SIGTERM during start-up, before any game")
    ladder.stop("a later reason")  # the first stop names the reason
    try:
        summary = trio.run(ladder, handle)
        assert store.games() == []
    finally:
        store.close()
    assert summary.stopped_because == "SIGTERM during start-up, before any game"
    assert (summary.finished, summary.aborted) == (0, 0)


class InterruptedHandle(FakeHandle):
    """The first game gets Ctrl-C while it plays, and ends only once the ladder has said it is stopping."""

    def __init__(self, names, ladder_of) -> None:
        super().__init__(names)
        self.ladder_of = ladder_of
        self.said: list[str] = []
        self.said_before_the_game_ended: list[str] = []

    async def play_game(self, *args, **kwargs):
        if not self.played:
            ladder = self.ladder_of()
            ladder.on_signal(signal.SIGINT)
            while not self.said:  # the drain begins once the scheduler sees the stop
                await trio.sleep(0)
            self.said_before_the_game_ended = list(self.said)
        return await super().play_game(*args, **kwargs)


def test_a_stop_by_ctrl_c_says_how_to_abort_while_games_drain_and_then_only_what_happened(tmp_path):
    """The stopping message (on the live view's note and to `view.on_note`, which `arena serve --plain` prints at
    once) says Ctrl-C again aborts the running games; the final reason says only what stopped the ladder, since
    the instruction can no longer be followed once it is printed."""
    store = LadderStore.open(tmp_path / "ladder.db")
    ladder = None
    handle = InterruptedHandle([f"bot{i}" for i in range(2)], lambda: ladder)
    ladder = LadderDirector(store, LadderSettings(players={"duo": 2}, replays=tmp_path / "replays", max_games=20,
                                                  refit_s=60.0, concurrency=1, handle_signals=False))
    ladder.view.on_note = handle.said.append
    try:
        summary = trio.run(ladder, handle)
    finally:
        store.close()
    assert handle.said_before_the_game_ended == [
        "stopping (Ctrl-C; again to abort running games): letting 1 running games finish"]
    assert summary.stopped_because == "Ctrl-C"
    assert (summary.finished, summary.aborted) == (1, 0)


class AbortedDrainHandle(FakeHandle):
    """The first game: the ladder is stopped (`first`), and once it says it drains, `second` arrives while the
    game still plays; the game then plays on until it is cancelled."""

    def __init__(self, names, ladder_of, first, second) -> None:
        super().__init__(names)
        self.ladder_of, self.first, self.second = ladder_of, first, second
        self.said: list[str] = []

    async def play_game(self, *args, **kwargs):
        if self.played:
            return await super().play_game(*args, **kwargs)
        self.played.append(None)
        ladder = self.ladder_of()
        self.first(ladder)
        while not self.said:  # the drain begins once the scheduler sees the stop
            await trio.sleep(0)
        self.second(ladder)
        await trio.sleep_forever()


@pytest.mark.parametrize("first, second, reason, interrupted", [
    (lambda ladder: ladder.on_signal(signal.SIGINT), signal.SIGINT, "Ctrl-C, aborted by a second Ctrl-C", True),
    (lambda ladder: ladder.stop("--duration 60 s reached"), signal.SIGINT, "--duration 60 s reached, aborted by Ctrl-C",
     True),
    (lambda ladder: ladder.on_signal(signal.SIGTERM), signal.SIGINT, "SIGTERM, aborted by Ctrl-C", True),
    (lambda ladder: ladder.on_signal(signal.SIGTERM), signal.SIGTERM, "SIGTERM, aborted by a second SIGTERM", False),
])
def test_a_signal_while_games_drain_aborts_them_and_says_so(tmp_path, first, second, reason, interrupted):
    """A second signal while the ladder drains aborts the running games at once, says so at once, and the final
    reason says it after what stopped the ladder; `interrupted` (`arena serve`'s exit status 130) holds once a
    Ctrl-C played a part, whatever stopped the ladder first (a Ctrl-C after --duration ended with status 0)."""
    store = LadderStore.open(tmp_path / "ladder.db")
    ladder = None
    handle = AbortedDrainHandle([f"bot{i}" for i in range(2)], lambda: ladder, first,
                                lambda ladder: ladder.on_signal(second))
    ladder = LadderDirector(store, LadderSettings(players={"duo": 2}, replays=tmp_path / "replays", max_games=20,
                                                  refit_s=60.0, concurrency=1, drain_s=600.0, handle_signals=False))
    ladder.view.on_note = handle.said.append
    try:
        summary = trio.run(ladder, handle)  # not after the 600 s drain: the second signal ends it
        statuses = [game.status for game in store.games()]
    finally:
        store.close()
    name = "Ctrl-C" if second == signal.SIGINT else "SIGTERM"
    assert handle.said[1:] == [f"stopping ({name}): aborting 1 running games"], handle.said
    assert summary.stopped_because == reason
    assert summary.interrupted is interrupted
    assert (summary.finished, summary.aborted) == (0, 1)
    assert statuses == ["aborted"]
