"""`arena.match.stalls`: the ledger's arithmetic on a hand-driven clock, and its watchdog on the real one."""

from __future__ import annotations

import logging
import math
import threading
import time

import pytest
import trio

from arena.match.stalls import ArenaClock, StallLedger, process_ledger


class Hands:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def ledger_on(hands: Hands) -> StallLedger:
    ledger = StallLedger(tick_s=0.05, stall_after_s=0.25, monotonic=hands)
    ledger.watching = True  # as if its watchdog ran: the test ticks it
    return ledger


def ticking(ledger: StallLedger, hands: Hands, until: float) -> None:
    """Regular ticks (every 50 ms) up to ``until``: no stall."""
    while hands.now + 0.05 <= until + 1e-9:
        hands.now += 0.05
        assert ledger.tick() is None


def test_the_arena_time_between_two_moments_is_the_real_time_less_the_stalls_overlapping_it():
    hands = Hands()
    ledger = ledger_on(hands)
    start_arena, start_real = ledger.arena_time(), hands.now
    ticking(ledger, hands, 101.0)
    assert ledger.arena_time() - start_arena == pytest.approx(1.0)  # no stall: real time
    # The process stops for 20 s right after a tick: the next tick comes 20 s late.
    stopped_at = hands.now
    hands.now += 20.0
    during = ledger.arena_time()  # the main thread ran first after the SIGCONT: the open gap counts already
    assert during - start_arena == pytest.approx(1.0 + 0.25)
    stall = ledger.tick()
    assert stall is not None and stall.start == pytest.approx(stopped_at + 0.25) and stall.end == hands.now
    assert stall.seconds == pytest.approx(19.75) and ledger.count == 1
    assert ledger.arena_time() == pytest.approx(during)  # the tick closes the gap where the reading left it
    ticking(ledger, hands, hands.now + 0.5)
    # A decision from start_real to now: 21.5 s of real time, 19.75 s of it the stall's excess.
    assert hands.now - start_real == pytest.approx(21.5)
    assert ledger.arena_time() - start_arena == pytest.approx(21.5 - 19.75)
    assert ledger.stalled_s() == pytest.approx(19.75)
    # A wait wholly after the stall, and one wholly before it, are real time.
    before = ledger.arena_time()
    ticking(ledger, hands, hands.now + 0.3)
    assert ledger.arena_time() - before == pytest.approx(0.3)


def test_gaps_up_to_the_threshold_are_no_stall_and_longer_ones_count_their_excess_only():
    hands = Hands()
    ledger = ledger_on(hands)
    hands.now += 0.25  # late, but within the threshold: scheduling noise, charged as before
    assert ledger.tick() is None and ledger.stalled_s() == 0.0
    hands.now += 0.40
    assert ledger.tick().seconds == pytest.approx(0.15)
    hands.now += 1.25
    assert ledger.tick().seconds == pytest.approx(1.0)
    assert ledger.stalled_s() == pytest.approx(1.15) and ledger.count == 2
    assert [round(s.seconds, 6) for s in ledger.stalls] == [0.15, 1.0]


def test_the_arena_time_never_goes_back_whatever_lands_between_a_reading_and_a_tick():
    hands = Hands()
    ledger = ledger_on(hands)
    readings = []
    for step in (0.05, 0.2, 0.26, 0.3, 3.0, 0.05, 0.5, 0.01, 7.0):
        for fraction in (0.0, 0.3, 0.6, 0.99, 1.0):
            hands.now += step * 0.25 if fraction else 0.0
            readings.append(ledger.arena_time())
        ledger.tick()
        readings.append(ledger.arena_time())
    assert readings == sorted(readings)
    # The watchdog may tick between a reader's read of the state and its read of the time.
    hands.now += 2.0  # a gap open for 2 s
    racing = RacingHands(hands)
    ledger.monotonic = racing
    racing.tick_inside = ledger.tick
    raced = ledger.arena_time()  # the old state, the time read after the tick closed the gap
    assert racing.ticked
    assert ledger.arena_time() >= raced


class RacingHands:
    """The hands, but the first reading from outside a tick lets the watchdog tick first (a thread switch)."""

    def __init__(self, hands: Hands) -> None:
        self.hands, self.tick_inside, self.ticked, self._inside = hands, None, False, False

    def __call__(self) -> float:
        if self.tick_inside is not None and not self.ticked and not self._inside:
            self._inside = True
            self.tick_inside()
            self._inside, self.ticked = False, True
        return self.hands.now


def test_without_a_watchdog_an_open_gap_is_no_stall():
    """A ledger nobody ticks (a forked child, a watchdog not started) must never stop the games' clock."""
    hands = Hands()
    ledger = StallLedger(monotonic=hands)
    hands.now += 5.0
    assert ledger.stalled_s() == 0.0 and ledger.arena_time() == hands.now
    assert ledger.last_stall_at() == -math.inf


def test_the_last_stall_is_one_instant_on_the_arena_clock_open_or_closed():
    hands = Hands()
    ledger = ledger_on(hands)
    ticking(ledger, hands, 101.0)
    hands.now += 10.0
    open_at = ledger.last_stall_at()
    assert open_at == pytest.approx(ledger.arena_time())  # the clock stands there while the gap is open
    ledger.tick()
    assert ledger.last_stall_at() == pytest.approx(open_at)
    ticking(ledger, hands, hands.now + 1.0)
    assert ledger.last_stall_at() == pytest.approx(open_at)
    assert ledger.arena_time() - open_at == pytest.approx(1.0)


def test_the_tick_must_be_shorter_than_a_stall():
    with pytest.raises(ValueError, match="shorter than a stall"):
        StallLedger(tick_s=0.3, stall_after_s=0.25)


def test_trio_runs_on_the_arena_clock():
    hands = Hands()
    ledger = ledger_on(hands)
    clock = ArenaClock(ledger)
    assert clock.current_time() == ledger.arena_time()
    hands.now += 0.1
    assert clock.deadline_to_sleep_time(ledger.arena_time() + 2.0) == pytest.approx(2.0)

    real = ArenaClock(StallLedger())  # unwatched: real time

    async def main() -> float:
        began = trio.current_time()
        await trio.sleep(0.01)
        return trio.current_time() - began

    assert trio.run(main, clock=real) >= 0.01


def test_the_watchdog_sees_the_interpreter_held_by_one_long_c_call():
    """A GIL held for a second by C code (here ``sum`` over a range, which never lets go) is a stall: the
    process ran, but none of its Python could, so no answer could have been read meanwhile."""
    ledger = process_ledger()
    assert ledger.watching and process_ledger() is ledger
    n, took = 1_000_000, 0.0
    while took < 0.8:  # a call long enough on this machine, whatever its speed
        n *= 2
        seen = ledger.count
        began = time.monotonic()
        sum(range(n))
        took = time.monotonic() - began
    ticked = threading.Event()
    deadline = time.monotonic() + 30
    while ledger.count == seen and time.monotonic() < deadline:
        ticked.wait(0.01)  # the watchdog needs the GIL once to note it: a bounded look, not a timing
    assert ledger.count > seen
    assert ledger.stalls[-1].seconds >= took - 0.25 - 0.2


def test_a_stall_is_logged_only_while_a_server_of_the_process_runs_and_counted_always(caplog):
    # The ledger is the process's and its watchdog outlives every server: its warnings after a server stopped
    # landed in other tests' captured logs (a schema test's expected output) and on closed streams.
    hands = Hands()
    ledger = ledger_on(hands)
    with caplog.at_level(logging.WARNING, logger="arena.match"):
        hands.now += 1.0
        assert ledger.tick() is not None  # counted
        assert not caplog.records  # no server: nothing logged
        with ledger.reporting(), ledger.reporting():  # two servers, one stops
            pass
        with ledger.reporting():
            with ledger.reporting():
                pass
            hands.now += 1.0
            assert ledger.tick() is not None
        hands.now += 1.0
        assert ledger.tick() is not None
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == ["the arena could not run for 750 ms"]
    assert ledger.count == 3
