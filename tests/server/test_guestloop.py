"""Trio's I/O wait on the asyncio loop (arena/server/guestloop.py): same behaviour, no thread hop."""

from __future__ import annotations

import time

import pytest
import trio

from arena.match.timecontrol import TimeControl
from arena.server import guestloop
from server_helpers import AutoBot, RawBot, blocking, hello, serve

QUICK = TimeControl(move_ms=2000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=3, reconnect_ms=500)


def test_games_timers_and_answers_are_served_by_the_loop_waiter(toy):
    """A whole game (answers crossing from asyncio into trio) and a trio timer both run through the waiter."""
    async def director(handle):
        before = guestloop.waits_on_loop
        started = time.monotonic()
        await trio.sleep(0.05)  # a trio timer with nothing else to do: only the loop's timer can wake it
        slept = time.monotonic() - started
        bots = [AutoBot(handle.port, name, seed=i) for i, name in enumerate(("ann", "ben"))]
        await handle.wait_for_sessions(["ann", "ben"], timeout_s=10)
        outcome = await handle.play_game(toy, {"hand": 4}, 11, ["ann", "ben"], QUICK)
        for bot in bots:
            await blocking(bot.wait)
        return slept, outcome, guestloop.waits_on_loop - before

    slept, outcome, waits = serve(director)
    assert 0.05 <= slept < 1.0
    assert outcome.status == "finished" and outcome.decisions > 0
    assert all(seat.strikes == 0 for seat in outcome.seats)
    assert waits > outcome.decisions  # trio went idle at least once per decision, each time on the loop


def test_a_deadline_still_cuts_off_a_silent_bot_on_time(toy):
    """The cut-off of a bot that never answers comes from the loop's timer for trio's deadline."""
    control = TimeControl(move_ms=100, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=1, reconnect_ms=500)

    async def director(handle):
        silent = RawBot(handle.port, hello("mute"))
        talker = AutoBot(handle.port, "talk")
        await handle.wait_for_sessions(["mute", "talk"], timeout_s=10)
        started = time.monotonic()
        outcome = await handle.play_game(toy, {"hand": 3}, 5, ["mute", "talk"], control, late_grace_ms=0)
        elapsed = time.monotonic() - started
        silent.close()
        await blocking(talker.wait)
        return outcome, elapsed

    outcome, elapsed = serve(director)
    mute = outcome.seats[0]
    assert mute.timeouts == 1 and mute.forfeited  # one strike at 100 ms, then defaults without asking
    assert 0.1 <= elapsed < 5.0


class _CountingToken:
    """Stands in for the hub's trio token and counts the calls handed to trio's run_sync_soon."""

    def __init__(self, token) -> None:
        self.token = token
        self.calls = 0

    def run_sync_soon(self, fn, *args) -> None:
        self.calls += 1
        self.token.run_sync_soon(fn, *args)


def _game_through_counting_token(toy):
    async def director(handle):
        counting = handle.hub.trio_token = _CountingToken(handle.hub.trio_token)
        bots = [AutoBot(handle.port, name, seed=i) for i, name in enumerate(("ann", "ben"))]
        await handle.wait_for_sessions(["ann", "ben"], timeout_s=10)
        calls_before_game = counting.calls
        outcome = await handle.play_game(toy, {"hand": 4}, 11, ["ann", "ben"], QUICK)
        for bot in bots:
            await blocking(bot.wait)
        return outcome, counting.calls - calls_before_game

    return serve(director)


def test_answers_reach_the_game_task_without_run_sync_soon(toy):
    """On the server thread an answer is handed to trio directly (trio is between ticks there):
    no run_sync_soon, so no wake-up socket write and no pass of trio's entry-queue task."""
    outcome, calls = _game_through_counting_token(toy)
    assert outcome.status == "finished" and outcome.decisions > 0
    assert all(seat.strikes == 0 for seat in outcome.seats)
    assert calls == 0


def test_the_run_sync_soon_path_still_plays_whole_games(toy, monkeypatch):
    """ARENA_TO_TRIO=token (for comparisons) hands every answer over with run_sync_soon, as before."""
    monkeypatch.setenv("ARENA_TO_TRIO", "token")
    outcome, calls = _game_through_counting_token(toy)
    assert outcome.status == "finished" and all(seat.strikes == 0 for seat in outcome.seats)
    assert calls >= outcome.decisions


def test_direct_hand_off_also_works_when_trio_waits_in_its_own_thread(toy, monkeypatch):
    """Without the loop waiter, a task rescheduled from the loop wakes trio's thread (trio's own
    force_guest_tick_asap), so the direct hand-off needs no loop waiter to be correct."""
    monkeypatch.setenv("ARENA_TRIO_IO_THREAD", "1")  # this loop is not registered: trio's thread waits
    before = guestloop.waits_on_loop
    outcome, calls = _game_through_counting_token(toy)
    assert outcome.status == "finished" and all(seat.strikes == 0 for seat in outcome.seats)
    assert calls == 0 and guestloop.waits_on_loop == before


def test_trio_deadlines_are_timed_by_a_timerfd_never_early_and_released_after_the_run(toy):
    """Trio's deadline wakes the loop through a timerfd armed at the absolute deadline (asyncio's
    call_later rounds every wait up to the next millisecond); the fds are unregistered and the
    timerfd closed when the run ends."""
    async def director(handle):
        import asyncio

        loop = asyncio.get_running_loop()
        while loop not in guestloop._waits:  # until trio has waited on the loop once and its _LoopWait exists (a
            await trio.sleep(0.001)           # sleep whose deadline had passed before trio's tick needed no wait)
        wait = guestloop._waits[loop]
        overshoots = []
        for _ in range(20):
            started = time.monotonic()
            await trio.sleep(0.005)
            overshoots.append(time.monotonic() - started - 0.005)
        return wait, overshoots

    wait, overshoots = serve(director)
    probe = guestloop._deadline_timer() if guestloop._USE_TIMERFD else None
    if probe is None:  # pragma: no cover - not Linux
        pytest.skip("no timerfd here (not Linux, or ARENA_TRIO_TIMERFD=0)")
    probe.close()
    assert min(overshoots) >= 0.0
    assert wait.timer is not None and wait.timer.fd == -1  # it existed, and was closed with the run
    assert wait.deliver is None


def test_timerfd_fires_at_its_absolute_deadline():
    import select

    timer = guestloop._deadline_timer()
    if timer is None:  # pragma: no cover - not Linux
        pytest.skip("no timerfd here (not Linux)")
    try:
        start = time.monotonic()
        timer.set(start + 0.03, absolute=True)
        assert select.select([timer.fd], [], [], 0.0)[0] == []
        readable, _, _ = select.select([timer.fd], [], [], 2.0)
        elapsed = time.monotonic() - start
        assert readable == [timer.fd] and 0.03 <= elapsed < 1.0
        assert timer.read() == 1
        assert select.select([timer.fd], [], [], 0.0)[0] == []  # cleared until armed again
        assert timer.read() == 0  # non-blocking: nothing to take
    finally:
        timer.close()
