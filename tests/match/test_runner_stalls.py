"""The runner and the arena's stalls (`arena.match.stalls`), on trio's MockClock with a ledger the test drives.

The games' clock already leaves a stall out (tests/match/test_stalls.py; the real host stopped mid-game:
tests/ladder/test_frozen_host.py).  What the runner adds, tested here: a seat whose stream dropped in the
stall (a client's keepalive gives up on a stopped host) comes back off its clock; a stall longer than
``max_stall_ms`` aborts the game, unrated; the game's stall time is noted in its outcome.
"""

from __future__ import annotations

import math

import trio
import trio.testing

from arena.match.runner import play_game
from arena.match.seat import SeatDisconnected
from arena.match.timecontrol import TimeControl
from arena.match.timekeeping import STALL_RECONNECT_MS
from arena.replay.format import result_line
from scripted_seats import Answer, Recorder, ScriptedSeat

TIGHT = TimeControl(move_ms=100, bank_ms=200, increment_ms=0, first_move_ms=0, max_strikes=3, reconnect_ms=2000)


class Ledger:
    """What the runner reads of a `StallLedger`; `stall` is the arena stopped for a while (the mock clock, like
    the arena clock, does not move for it)."""

    def __init__(self) -> None:
        self.total, self.at, self.latest = 0.0, -math.inf, 0.0

    def stall(self, seconds: float) -> None:
        self.total += seconds
        self.latest = seconds
        self.at = trio.current_time()

    def latest_s(self) -> float:
        return self.latest

    def stalled_s(self) -> float:
        return self.total

    def last_stall_at(self) -> float:
        return self.at


class DroppedInTheStall(ScriptedSeat):
    """Asked, the arena stops (``stall_s``); meanwhile the bot's client gave up on the silent host, so the
    arena finds the stream gone when it runs again; the bot is back ``back_after`` seconds later."""

    def __init__(self, name: str, ledger: Ledger | None, stall_s: float, back_after: float, *steps,
                 left_after_s: float = 0.0) -> None:
        super().__init__(name, *steps)
        self.ledger, self.stall_s, self.back_after = ledger, stall_s, back_after
        self.left_after_s = left_after_s  # > 0: the stream ends this long after the stall (the bot left on its own)
        self.dropped = False
        self.detached_at: float | None = None  # when the arena saw the stream end (`RemoteSeat.detached_at`)

    async def decide(self, request):
        if self.dropped:
            return await super().decide(request)
        self.requests.append(request)
        self.dropped = True
        await trio.sleep(0.03)  # it was thinking when the arena stopped
        if self.ledger is not None:
            self.ledger.stall(self.stall_s)
        if self.left_after_s:
            await trio.sleep(self.left_after_s)
        self.detached_at = trio.current_time()
        self._back_after = self.back_after
        raise SeatDisconnected("connection lost", after_delivery=True)


def play(seats, ledger, time_control=TIGHT, **kwargs):
    recorder = Recorder()

    async def main():
        return await play_game("test-nim", {"start": 6}, 1, seats, time_control, game_id="g1", recorder=recorder,
                               clock=trio.current_time, stalls=ledger, **kwargs)

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)), recorder


def test_a_seat_whose_stream_dropped_in_the_arenas_stall_comes_back_off_its_clock():
    ledger = Ledger()
    seat = DroppedInTheStall("dropped", ledger, 20.0, 1.5, Answer(0.02, text="take 2"))
    outcome, recorder = play([seat, ScriptedSeat("other")], ledger)
    me = outcome.seats[0]
    assert (me.strikes, me.timeouts, me.disconnects) == (0, 0, 1)
    assert recorder.decisions[0][1:5] == ("take 2", 50, False, False)  # 30 ms before the stop, 20 ms after
    assert seat.requests[1].move_ms == 70 and seat.requests[1].bank_ms == 200  # asked again with what it had left
    assert outcome.status == "finished" and outcome.stalled_ms == 20_000
    assert result_line(recorder.finished, 2)["stalled_ms"] == 20_000  # noted in the replay's result line


def test_without_a_stall_the_same_absence_is_the_seats_own():
    seat = DroppedInTheStall("dropped", None, 20.0, 1.5, Answer(0.02, text="take 2"))
    outcome, recorder = play([seat, ScriptedSeat("other")], Ledger())
    me = outcome.seats[0]
    assert me.strike_reasons == ["disconnected"] and recorder.decisions[0][1:5] == ("take 1", 300, False, True)
    assert outcome.stalled_ms == 0


def test_a_seat_not_back_within_its_window_after_the_stall_is_struck():
    ledger = Ledger()
    seat = DroppedInTheStall("gone", ledger, 20.0, STALL_RECONNECT_MS / 1000 + 1)
    outcome, recorder = play([seat, ScriptedSeat("other")], ledger)
    me = outcome.seats[0]
    assert me.strike_reasons[0] == "disconnected" and me.strikes >= 1
    assert recorder.decisions[0][1:5] == ("take 1", 30, False, True)  # struck, charged only its own 30 ms


def test_a_stall_longer_than_max_stall_ms_aborts_the_game_unrated():
    ledger = Ledger()
    seat = DroppedInTheStall("dropped", ledger, 31.0, 1.5, Answer(0.02, text="take 2"))
    outcome, recorder = play([seat, ScriptedSeat("other")], ledger, max_stall_ms=30_000)
    assert outcome.status == "aborted" and "the arena could not run for 31 s" in outcome.reason
    assert all(s.placement == 0 and s.strikes == 0 for s in outcome.seats)
    assert recorder.aborted == outcome.reason and not recorder.decisions
    # The same stall under a longer bound is credited and the game goes on.
    ledger = Ledger()
    seat = DroppedInTheStall("dropped", ledger, 31.0, 1.5, Answer(0.02, text="take 2"))
    outcome, _ = play([seat, ScriptedSeat("other")], ledger, max_stall_ms=60_000)
    assert outcome.status == "finished" and outcome.seats[0].strikes == 0 and outcome.stalled_ms == 31_000


def test_a_seat_that_leaves_after_the_stall_or_after_a_short_one_gets_no_time_off_its_clock():
    """Only a drop in a stall long enough to drop a stream, seen right after it, is excused: a bot that noticed
    a stall and left on its own a little later, or after a blip or a stall of a few seconds (no keepalive gives up
    that soon), must not buy thinking time off its clock:
    its time away is charged as any absence's (here 1.5 s, inside its reconnect window and its move time)."""
    roomy = TimeControl(move_ms=10_000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=3, reconnect_ms=5000)
    charged = {}
    cases = (("in the stall", 20.0, 0.0), ("later", 20.0, 2.5), ("blip", 0.5, 0.0), ("too short to drop it", 3.0, 0.0))
    for case, stall_s, left_after_s in cases:
        ledger = Ledger()
        seat = DroppedInTheStall("sly", ledger, stall_s, 1.5, Answer(0.02, text="take 2"), left_after_s=left_after_s)
        outcome, recorder = play([seat, ScriptedSeat("other")], ledger, time_control=roomy)
        assert outcome.seats[0].strikes == 0 and recorder.decisions[0][1] == "take 2", (case, outcome.seats[0])
        charged[case] = recorder.decisions[0][2]
    # 30 ms before the stop, (2.5 s before it left,) 1.5 s away unless excused, 20 ms to answer
    assert charged == {"in the stall": 50, "later": 4050, "blip": 1550, "too short to drop it": 1550}


def test_the_time_excused_after_a_stall_is_at_most_the_stall_itself():
    """A 6 s stall excuses at most 6 s away (not the 10 s a long stall gets): back after 7 s, the seat is struck."""
    ledger = Ledger()
    seat = DroppedInTheStall("late", ledger, 6.0, 7.0)
    outcome, recorder = play([seat, ScriptedSeat("other")], ledger)
    me = outcome.seats[0]
    assert me.strike_reasons[0] == "disconnected", me
    assert recorder.decisions[0][1:5] == ("take 1", 30, False, True)
