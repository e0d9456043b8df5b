"""`arena.match.timekeeping.GameStalls` on a real `StallLedger` driven by hand: which disconnections a stall of the
arena excuses, for how long, and which stall ends a game, at the bounds of each rule.

tests/match/test_runner_stalls.py plays these rules through whole games, one case each side; here each bound is
taken exactly (the ledger's tick and threshold are powers of two, so the arithmetic is exact).
"""

from __future__ import annotations

import pytest

from arena.match.stalls import StallLedger
from arena.match.timekeeping import (
    STALL_DROP_SEEN_S,
    STALL_DROPS_STREAM_S,
    STALL_RECONNECT_MS,
    GameStalls,
    StalledTooLong,
)

TICK_S = 0.125
STALL_AFTER_S = 0.25  # as the real ledger's: a gap this much longer than the tick's is a stall of the excess


class Host:
    """The arena's process on a hand-moved monotonic clock, its watchdog ticking, stopped when told."""

    def __init__(self) -> None:
        self.now = 100.0
        self.ledger = StallLedger(tick_s=TICK_S, stall_after_s=STALL_AFTER_S, monotonic=lambda: self.now)
        self.ledger.watching = True  # as if its watchdog ran: `run` and `stop` tick it

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds / TICK_S)):
            self.now += TICK_S
            assert self.ledger.tick() is None

    def stop(self, stall_s: float) -> float:
        """Stopped long enough for a stall of ``stall_s``; returns the games' clock's time of it."""
        self.now += STALL_AFTER_S + stall_s
        stall = self.ledger.tick()
        assert stall is not None and stall.seconds == stall_s
        return self.ledger.last_stall_at()

    @property
    def games_time(self) -> float:
        return self.ledger.arena_time()


def after(*stalls_s: float) -> tuple[GameStalls, float]:
    """A game that went through these stalls (a second apart) and looked once after them; the last one's time."""
    host = Host()
    game = GameStalls(host.ledger)
    for stall_s in stalls_s:
        host.run(1.0)
        at = host.stop(stall_s)
    game.look()
    return game, at


def test_only_a_stream_seen_ending_in_the_stall_or_within_two_seconds_after_it_is_excused():
    game, at = after(20.0)
    assert game.last_stall_at == at and game.stalled_ms == 20_000
    window_end = at + STALL_RECONNECT_MS / 1000  # 10 s: a long stall excuses the SDK's longest backoff
    for detached_at in (at, at + 1.0, at + STALL_DROP_SEEN_S):
        assert game.excused_until(detached_at, 2000, at + 1.0) == window_end, detached_at
    for detached_at in (at - TICK_S, at + STALL_DROP_SEEN_S + TICK_S, None):  # before it, later, never said
        assert game.excused_until(detached_at, 2000, at + 1.0) is None, detached_at
    # Found away once the excused window is over: its absence is its own.
    assert game.excused_until(at, 2000, window_end - TICK_S) == window_end
    assert game.excused_until(at, 2000, window_end) is None


def test_the_window_off_the_clock_is_the_longer_of_ten_seconds_and_the_seats_own_but_never_longer_than_the_stall():
    game, at = after(20.0)
    assert game.excused_until(at, 15_000, at) == at + 15.0
    game, at = after(12.0)
    assert game.excused_until(at, 15_000, at) == at + 12.0
    game, at = after(6.0)
    assert game.excused_until(at, 2000, at) == at + 6.0


def test_a_stall_too_short_to_drop_a_stream_excuses_nothing_and_short_stalls_do_not_add_up():
    game, at = after(STALL_DROPS_STREAM_S)
    assert game.excused_until(at, 2000, at) == at + STALL_DROPS_STREAM_S
    game, at = after(STALL_DROPS_STREAM_S - TICK_S)
    assert game.excused_until(at, 2000, at) is None
    # Two 3 s stops between two looks: 6 s of the game's time, but no single stall that could drop a stream.
    game, at = after(3.0, 3.0)
    assert game.stalled_ms == 6000 and game.last_stall_s == 3.0
    assert game.excused_until(at, 2000, at) is None


def test_a_stall_ends_the_game_only_when_longer_than_max_stall_s_between_two_looks():
    host = Host()
    game = GameStalls(host.ledger, max_stall_s=30.0, game_id="g1")
    host.stop(30.0)
    game.look()  # as long as the bound: credited, the game goes on
    host.run(1.0)
    host.stop(30.0)
    host.run(1.0)
    host.stop(TICK_S)  # one more moment of stall before the game looks again: 30.125 s since the last look
    with pytest.raises(StalledTooLong, match="could not run for 30 s"):
        game.look()
    assert game.stalled_ms == 60_125
    # A game without a ledger sees no stall.
    quiet = GameStalls(None, max_stall_s=0.0)
    quiet.look()
    assert quiet.stalled_ms == 0 and quiet.excused_until(0.0, 2000, 0.0) is None
