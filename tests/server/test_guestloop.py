"""Trio's I/O wait on the asyncio loop (arena/server/guestloop.py): same behaviour, no thread hop."""

from __future__ import annotations

import time

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
