"""The match runner's time model and penalties, on trio's MockClock (virtual time, no sleeps)."""

from __future__ import annotations

import json

import pytest
import trio
import trio.testing

import arena.games as games
from arena.match.runner import RESULT_NOT_STORED, GameStop, Resignations, play_game
from arena.match.timecontrol import TimeControl
from arena.match.timekeeping import max_seat_wait_ms
from scripted_seats import Answer, Disconnect, Hang, Raise, Recorder, ScriptedSeat, Stale

FAST = TimeControl(move_ms=100, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=3, reconnect_ms=2000)


def play(seats, time_control=FAST, *, start=6, seed=1, players=None, **kwargs):
    """Play one test-nim game on a MockClock; returns (outcome, recorder, virtual seconds taken)."""
    recorder = kwargs.pop("recorder", None) or Recorder()
    options = {"start": start, **kwargs.pop("options", {})}

    async def main():
        began = trio.current_time()
        outcome = await play_game("test-nim", options, seed, seats, time_control, game_id="g1",
                                  recorder=recorder, clock=trio.current_time, **kwargs)
        return outcome, trio.current_time() - began

    outcome, elapsed = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return outcome, recorder, elapsed


def actions(recorder, seat=None):
    return [d[1] for d in recorder.decisions if seat is None or d[0] == seat]


# ---------------------------------------------------------------- the time model

def test_answer_within_the_limit_is_applied_and_a_late_one_gets_the_default_and_a_strike():
    fast = ScriptedSeat("fast", Answer(0.09, text="take 2"), Answer(0.3, text="take 2"))
    other = ScriptedSeat("other")
    outcome, recorder, elapsed = play([fast, other], start=6)
    assert recorder.decisions[0][:5] == (0, "take 2", 90, False, False)
    assert recorder.decisions[2][:5] == (0, "take 1", 100, True, True)   # the default, not "take 2"
    me = outcome.seats[0]
    assert (me.timeouts, me.strikes, me.strike_reasons) == (1, 1, ["timeout"])
    assert [n.code for n in fast.notices] == ["timeout"]
    assert outcome.status == "finished" and outcome.seats[1].strikes == 0
    # the runner stopped waiting at the deadline plus its grace, not when the bot finally answered
    assert elapsed == pytest.approx(0.09 + 0.15)


def test_each_seat_can_have_its_own_time_control():
    slow = TimeControl(move_ms=300, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=5, reconnect_ms=2000)
    short = ScriptedSeat("short", Answer(0.2), Answer(0.2))
    roomy = ScriptedSeat("roomy", Answer(0.2), Answer(0.2))
    outcome, recorder, _ = play([short, roomy], [FAST, slow], start=8)
    assert [outcome.seats[0].timeouts, outcome.seats[1].timeouts] == [2, 0]  # same think time, own limit
    assert [d[2] for d in recorder.decisions[:4]] == [100, 200, 100, 200]
    assert short.started[0].time_control == FAST and roomy.started[0].time_control == slow  # each hears its own
    with pytest.raises(ValueError, match="one per seat"):
        play([ScriptedSeat("a"), ScriptedSeat("b")], [FAST])


def test_a_resigned_seat_forfeits_that_game_only():
    resignations = Resignations()
    resignations.resign("g1", "a")        # this game (play() uses game id g1)
    resignations.resign("other-game", "b")  # another game: no effect here
    a, b = ScriptedSeat("a"), ScriptedSeat("b")
    outcome, _, _ = play([a, b], start=6, resignations=resignations)
    assert a.requests == [] and len(b.requests) > 0  # never asked: it plays defaults
    assert [(s.forfeited, s.placement) for s in outcome.seats] == [(True, 2), (False, 1)]
    assert outcome.seats[0].strike_reasons == ["resigned"]


def test_a_resignation_ends_the_wait_for_that_seat_at_once():
    resignations = Resignations()
    stuck, other = ScriptedSeat("stuck", Hang()), ScriptedSeat("other")

    async def main():
        async with trio.open_nursery() as nursery:
            async def resign_soon():
                await trio.sleep(0.03)  # virtual time: well inside the 100 ms limit
                resignations.resign("g1", "stuck")
            nursery.start_soon(resign_soon)
            outcome = await play_game("test-nim", {"start": 6}, 1, [stuck, other], FAST, game_id="g1",
                                      resignations=resignations, clock=trio.current_time)
            return outcome, trio.current_time()

    outcome, elapsed = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert elapsed == pytest.approx(0.03)  # not the 150 ms a timeout would have taken
    assert (outcome.seats[0].forfeited, outcome.seats[0].strikes, outcome.seats[0].placement) == (True, 0, 2)
    assert len(stuck.requests) == 1


def test_lateness_is_judged_by_the_answers_arrival_stamp_not_by_when_the_runner_wakes():
    stamped_in_time = ScriptedSeat("a", Answer(0.095, text="take 2", deliver_after=0.03))
    stamped_late = ScriptedSeat("b", Answer(0.105, text="take 2"))
    outcome, recorder, _ = play([stamped_in_time, stamped_late], start=6)
    assert recorder.decisions[0][1:5] == ("take 2", 95, False, False)
    assert recorder.decisions[1][1:5] == ("take 1", 100, True, True)


def test_overruns_draw_down_the_bank_until_it_is_spent():
    tc = TimeControl(move_ms=100, bank_ms=300, increment_ms=0, first_move_ms=0, max_strikes=5)
    seat = ScriptedSeat("slow", Answer(0.25), Answer(0.26), Answer(0.05))
    outcome, recorder, _ = play([seat, ScriptedSeat("other")], tc, start=6)
    assert [r.bank_ms for r in seat.requests] == [300, 150, 0]
    assert [r.move_ms for r in seat.requests] == [100, 100, 100]
    assert [d[3] for d in recorder.decisions if d[0] == 0] == [False, True, False]
    assert outcome.seats[0].think_ms == 250 + 250 + 50
    assert outcome.seats[0].max_think_ms == 250


def test_increment_is_added_after_each_answered_decision_but_not_after_a_timeout():
    tc = TimeControl(move_ms=100, bank_ms=0, increment_ms=50, first_move_ms=0, max_strikes=5)
    seat = ScriptedSeat("inc", Answer(0.01), Answer(0.01), Answer(0.14), Hang(), Answer(0))
    play([seat, ScriptedSeat("other")], tc, start=10)
    # 0 -> +50 -> +50 -> overrun 40, +50 -> timeout spends the bank, no increment -> 0
    assert [r.bank_ms for r in seat.requests] == [0, 50, 100, 110, 0]


def test_first_move_allowance_applies_to_each_seats_first_decision_only():
    tc = TimeControl(move_ms=100, bank_ms=0, increment_ms=0, first_move_ms=500, max_strikes=3)
    a = ScriptedSeat("a", Answer(0.55, text="take 2"), Answer(0.15))
    b = ScriptedSeat("b")
    outcome, recorder, _ = play([a, b], tc, start=6)
    assert [r.move_ms for r in a.requests] == [600, 100, 100]
    assert b.requests[0].move_ms == 600 and b.requests[1].move_ms == 100
    assert actions(recorder, 0)[:2] == ["take 2", "take 1"]
    assert outcome.seats[0].strike_reasons == ["timeout"]


# ---------------------------------------------------------------- bad answers

def test_an_index_without_text_is_a_valid_answer():
    """The protocol's Answer rule: the index decides; the text is optional and checked only when given."""
    bot = ScriptedSeat("bot", Answer(index=1, text=""))
    good = ScriptedSeat("good", Answer(text="take 2"))
    outcome, recorder, _ = play([bot, good], start=6)
    assert recorder.decisions[0][1] == "take 2" and recorder.decisions[0][4] is False
    assert outcome.seats[0].strikes == 0 and not bot.notices


@pytest.mark.parametrize("step, reason", [
    (Answer(index=5, text="take 2"), "illegal"),           # index out of range
    (Answer(index=-1, text="take 1"), "illegal"),
    (Answer(index=0, text="take 2"), "illegal"),           # text disagrees with legal[index]
    (Answer(index=1, text="take 1"), "illegal"),
    (Answer(index=0, text="take 3"), "illegal"),
    (Answer(index=1, text="!!"), "malformed"),             # unreadable text
    ("malformed", "malformed"),                           # the seat could not read the message
    ("not-an-answer", "malformed"),
    (Raise(RuntimeError("bot bug")), "error"),            # the seat itself raised
])
def test_a_bad_answer_gets_the_default_action_and_a_strike_and_the_game_goes_on(step, reason):
    bad = ScriptedSeat("bad", step)
    good = ScriptedSeat("good", Answer(text="take 2"))
    outcome, recorder, _ = play([bad, good], start=6)
    assert recorder.decisions[0][1] == "take 1" and recorder.decisions[0][4] is True
    assert recorder.decisions[1][1] == "take 2"
    assert outcome.seats[0].strikes == 1 and outcome.seats[0].strike_reasons == [reason]
    assert outcome.seats[0].timeouts == 0
    assert [n.code for n in bad.notices] == [reason]
    assert outcome.status == "finished"
    assert outcome.seats[1].strikes == 0 and outcome.seats[1].stale == 0


def test_a_stale_answer_is_dropped_and_counted_and_the_right_one_is_still_awaited():
    seat = ScriptedSeat("stale", Stale(then=Answer(0.02, text="take 2"), delay=0.01))
    outcome, recorder, _ = play([seat, ScriptedSeat("other")], start=6)
    assert recorder.decisions[0][1:5] == ("take 2", 30, False, False)
    assert outcome.seats[0].stale == 1 and outcome.seats[0].strikes == 0
    assert [n.code for n in seat.notices] == ["stale"]
    assert len(seat.requests) == 3   # the request was not sent twice


def test_a_stale_answer_followed_by_silence_is_a_timeout():
    seat = ScriptedSeat("stale", Stale(then=Hang()))
    outcome, _, _ = play([seat, ScriptedSeat("other")], start=6)
    assert outcome.seats[0].stale == 1
    assert outcome.seats[0].strike_reasons == ["timeout"]


# ---------------------------------------------------------------- forfeits

def test_max_strikes_forfeit_the_game_the_seat_is_not_asked_again_and_ranks_last():
    tc = TimeControl(move_ms=100, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=2)
    hanging = ScriptedSeat("hang", Hang(), Hang())
    steady = ScriptedSeat("steady")
    outcome, recorder, _ = play([hanging, steady], tc, start=5)
    # every move is "take 1", so seat 0 takes the last token: the engine ranks it first
    assert actions(recorder) == ["take 1"] * 5
    assert len(hanging.requests) == 2                       # never asked after the forfeit
    me = outcome.seats[0]
    assert me.forfeited and me.strikes == 2 and me.decisions == 2
    assert [s.placement for s in outcome.seats] == [2, 1]
    assert recorder.finished["placements"] == [2, 1]
    assert [n.code for n in hanging.notices] == ["timeout", "timeout", "forfeit"]
    assert recorder.decisions[4][2:5] == (0, False, False)  # defaults after the forfeit are not strikes


def test_forfeited_seats_rank_after_everyone_and_among_themselves_by_the_engine():
    tc = TimeControl(move_ms=100, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=1)
    seats = [ScriptedSeat("a", Hang()), ScriptedSeat("b"), ScriptedSeat("c", Hang())]
    outcome, _, _ = play(seats, tc, start=7)                # seat 0 takes the 7th token and "wins"
    assert [s.forfeited for s in outcome.seats] == [True, False, True]
    assert [s.placement for s in outcome.seats] == [2, 1, 3]


# ---------------------------------------------------------------- disconnects

def test_a_seat_that_reconnects_in_time_is_asked_again_with_the_time_it_has_left():
    seat = ScriptedSeat("flaky", Disconnect(back_after=0.04, delay=0.03), Answer(0.02, text="take 2"))
    outcome, recorder, elapsed = play([seat, ScriptedSeat("other")], start=6)
    first, again = seat.requests[0], seat.requests[1]
    assert again.request_id != first.request_id and again.legal == first.legal
    assert again.move_ms == 30                              # 70 ms went by: 30 ms before the drop, 40 ms away
    assert recorder.decisions[0][1:5] == ("take 2", 90, False, False)
    assert outcome.seats[0].disconnects == 1 and outcome.seats[0].strikes == 0


def test_the_clock_runs_while_a_seat_is_away_so_a_long_absence_is_a_strike():
    tc = TimeControl(move_ms=100, bank_ms=200, increment_ms=0, first_move_ms=0, max_strikes=3, reconnect_ms=2000)
    seat = ScriptedSeat("away", Disconnect(back_after=1.0), Answer(0.01, text="take 2"))
    outcome, recorder, elapsed = play([seat, ScriptedSeat("other")], tc, start=6)
    me = outcome.seats[0]
    assert me.strike_reasons == ["disconnected"] and me.disconnects == 1
    assert recorder.decisions[0][1:5] == ("take 1", 300, False, True)   # the default, the whole budget charged
    assert seat.requests[1].bank_ms == 0                                  # the bank went on the absence
    assert elapsed < 1.0                                                  # the runner did not wait for the seat


def test_a_seat_that_keeps_dropping_and_resuming_is_struck_and_forfeits_within_the_clock_bound():
    """The hostile pattern: drop, come back just inside the reconnect window, drop again, never answer."""
    tc = TimeControl(move_ms=100, bank_ms=300, increment_ms=0, first_move_ms=0, max_strikes=3, reconnect_ms=2000)
    flapping = [Disconnect(back_after=0.09) for _ in range(40)]
    seat = ScriptedSeat("flapper", *flapping)
    outcome, recorder, elapsed = play([seat, ScriptedSeat("other")], tc, start=12)
    me = outcome.seats[0]
    assert me.forfeited and me.strikes == 3 and set(me.strike_reasons) == {"disconnected"}
    assert me.decisions == 3                                 # never asked again after the forfeit
    assert elapsed <= max_seat_wait_ms(tc, me.decisions) / 1000
    assert outcome.status == "finished" and outcome.seats[0].placement == 2


def test_a_seat_that_does_not_come_back_gets_defaults_and_strikes_until_it_forfeits():
    seat = ScriptedSeat("gone", Disconnect(), Disconnect(), Disconnect())
    outcome, recorder, elapsed = play([seat, ScriptedSeat("other")], start=8)
    me = outcome.seats[0]
    assert me.strike_reasons == ["disconnected"] * 3 and me.forfeited
    assert me.disconnects == 1
    assert actions(recorder, 0) == ["take 1"] * 4
    assert len(seat.requests) == 3
    assert elapsed == pytest.approx(0.3, abs=0.01)          # each decision's clock, never the reconnect window


def test_a_seat_away_longer_than_the_reconnect_window_is_struck_at_once_until_it_is_back():
    tc = TimeControl(move_ms=1000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=5, reconnect_ms=500)
    seat = ScriptedSeat("gone", Disconnect(), Disconnect(), Disconnect())
    outcome, recorder, elapsed = play([seat, ScriptedSeat("other")], tc, start=8)
    me = outcome.seats[0]
    assert me.strike_reasons == ["disconnected"] * 3 and me.disconnects == 1
    assert elapsed == pytest.approx(0.5, abs=0.01)          # one reconnect window, then strikes without waiting


# ---------------------------------------------------------------- records and events

def test_the_recorder_gets_every_decision_with_hashes_that_re_simulate():
    seats = [ScriptedSeat("a", Answer(0.01, text="take 2"), Hang(), Answer(0.02, text="take 2")),
             ScriptedSeat("b", Answer(text="take 2"), Raise(ValueError("oops")))]
    events = []
    outcome, recorder, _ = play(seats, start=11, seed=4,
                                on_event=lambda i, seat, text, state: events.append((i, seat, text, state.state_hash())))
    replayed = games.new_game("test-nim", 2, 4, start=11)
    for seat, action, think_ms, timeout, strike, state_hash, _ in recorder.decisions:
        assert replayed.current == seat
        replayed.apply(action)
        assert replayed.state_hash() == state_hash
    assert replayed.is_over and outcome.decisions == len(recorder.decisions)
    assert recorder.finished["status"] == "finished" and recorder.finished["decisions"] == outcome.decisions
    assert [e[0] for e in events] == list(range(outcome.decisions + 1))
    assert events[0][1:3] == (-1, "")
    assert [e[3] for e in events[1:]] == [d[5] for d in recorder.decisions]
    json.dumps(recorder.finished)                            # the result line must be JSON


def test_seats_see_only_their_own_observation_and_hear_start_and_end():
    a, b = ScriptedSeat("a"), ScriptedSeat("b")
    outcome, _, _ = play([a, b], start=4, seed=9)
    hands = games.new_game("test-nim", 2, 9, start=4).hands
    for index, seat in enumerate((a, b)):
        for request in seat.requests:
            seen = json.dumps(request.observation.to_dict())
            assert request.observation["hand"] == hands[index]
            assert not any(card in seen for card in hands[1 - index])
            assert set(request.__dict__) == {"game_id", "request_id", "seat", "observation", "legal", "move_ms", "bank_ms",
                                             "events"}
        assert seat.started[0].seat == index and seat.started[0].players == ("a", "b")
        assert seat.ended[0].outcome is outcome and seat.ended[0].seat == index


# ---------------------------------------------------------------- games that must end

def test_an_engine_that_never_ends_is_cut_off_as_aborted():
    outcome, recorder, _ = play([ScriptedSeat("a"), ScriptedSeat("b")], options={"endless": True}, max_decisions=40)
    assert outcome.status == "aborted" and "max_decisions" in outcome.reason
    assert outcome.decisions == 40 and len(recorder.decisions) == 40
    assert recorder.aborted == outcome.reason and recorder.finished is None


def test_an_engine_crash_aborts_only_that_game():
    a, b = ScriptedSeat("a"), ScriptedSeat("b")
    outcome, recorder, _ = play([a, b], options={"crash_after": 3})
    assert outcome.status == "aborted" and "engine error" in outcome.reason
    assert recorder.aborted and a.ended and b.ended


def test_a_game_stop_aborts_the_game_and_tells_the_seats():
    tc = TimeControl(move_ms=60_000, bank_ms=0, increment_ms=0, first_move_ms=0)
    seats = [ScriptedSeat("a", Answer(1.0), Answer(1.0), Answer(1.0)), ScriptedSeat("b", Answer(1.0), Answer(1.0))]
    recorder = Recorder()
    stop = GameStop()

    async def main():
        async with trio.open_nursery() as nursery:
            async def stopper():
                await trio.sleep(2.5)
                stop.abort("server shutting down")
            nursery.start_soon(stopper)
            return await play_game("test-nim", {"start": 9}, 1, seats, tc, recorder=recorder, stop=stop,
                                   clock=trio.current_time)

    outcome = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert outcome.status == "aborted" and outcome.reason == "server shutting down"
    assert outcome.decisions == 2 and recorder.aborted == "server shutting down"
    assert all(s.ended and s.ended[0].outcome.status == "aborted" for s in seats)


def test_cancelling_the_game_task_records_the_abort_and_propagates():
    seats = [ScriptedSeat("a", Hang()), ScriptedSeat("b")]
    recorder = Recorder()
    tc = TimeControl(move_ms=60_000)

    async def main():
        with trio.move_on_after(1) as scope:
            await play_game("test-nim", {}, 1, seats, tc, recorder=recorder, clock=trio.current_time)
        return scope.cancelled_caught

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) is True
    assert recorder.aborted and "cancelled" in recorder.aborted
    assert seats[1].ended[0].outcome.status == "aborted"


def test_bad_ruleset_or_options_raise_before_any_seat_is_contacted():
    seat = ScriptedSeat("a")
    for ruleset, options in (("no-such-game", {}), ("test-nim", {"colour": "red"})):
        with pytest.raises(games.GameError):
            trio.run(play_game, ruleset, options, 1, [seat, ScriptedSeat("b")], FAST)
    assert seat.started == []


def test_one_failing_recorder_or_spectator_does_not_stop_the_game():
    class Broken:
        def decision(self, *args):
            raise OSError("disk full")

    def bad_spectator(*args):
        raise RuntimeError("spectator bug")

    async def main():
        return await play_game("test-nim", {"start": 5}, 1, [ScriptedSeat("a"), ScriptedSeat("b")], FAST,
                               recorder=Broken(), on_event=bad_spectator, clock=trio.current_time)

    outcome = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert outcome.status == "finished" and outcome.decisions == 5


def test_the_outcome_names_the_replay_file_the_recorder_closed():
    class Writer(Recorder):
        path = "game.jsonl.part"

        def finish(self, result):
            super().finish(result)
            return "game.jsonl"

    async def main():
        return await play_game("test-nim", {"start": 3}, 1, [ScriptedSeat("a"), ScriptedSeat("b")], FAST,
                               recorder=Writer(), clock=trio.current_time)

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)).replay_path == "game.jsonl"


def test_a_minimal_seat_without_the_optional_methods_works():
    """No notify, no next_answer, no arrival stamp: the runner falls back to decide() and its own clock."""
    from arena.match.seat import SeatAnswer

    class Minimal:
        name, version = "minimal", ""

        def __init__(self):
            self.calls = 0

        async def game_started(self, start):
            pass

        async def game_ended(self, end):
            pass

        async def wait_reconnected(self, timeout_s):
            return False

        async def decide(self, request):
            self.calls += 1
            await trio.sleep(0.01)
            if self.calls == 1:  # a stale answer first, then the real one on the next call
                return SeatAnswer(request.request_id - 1, 0, str(request.legal[0]))
            return SeatAnswer(request.request_id, 0, str(request.legal[0]))

    seat = Minimal()
    outcome, recorder, _ = play([seat, ScriptedSeat("b")], start=4)
    assert outcome.status == "finished" and outcome.seats[0].stale == 1 and outcome.seats[0].strikes == 0
    assert recorder.decisions[0][1:5] == ("take 1", 20, False, False)


def test_waits_cut_off_together_all_end_before_any_game_goes_on():
    """Deadlines that expire in one pass of trio are all honoured before any of those games does
    its follow-up work (strike, notice, next request): otherwise each cut-off waits for the
    others' follow-ups, and the last game's wait ends late by all of them."""
    events: list[str] = []

    class Watched(ScriptedSeat):
        async def decide(self, request):
            events.append(f"ask {self.name}")
            try:
                return await super().decide(request)
            except trio.Cancelled:
                events.append(f"cut {self.name}")
                raise

    async def main():
        async with trio.open_nursery() as nursery:
            for game in ("a", "b", "c"):
                seats = [Watched(f"{game}0", Hang()), Watched(f"{game}1")]
                nursery.start_soon(lambda seats=seats, game=game: play_game(
                    "test-nim", {"start": 6}, 1, seats, FAST, game_id=game, clock=trio.current_time))

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    first_cuts = [i for i, event in enumerate(events) if event.startswith("cut ")][:3]
    assert sorted(events[i] for i in first_cuts) == ["cut a0", "cut b0", "cut c0"]
    assert first_cuts == [first_cuts[0], first_cuts[0] + 1, first_cuts[0] + 2]  # nothing in between


# ---------------------------------------------------------------- a result is final only once it is durable

class TwoStepRecorder(Recorder):
    """A recorder closed around the commit, writing what happens into a shared log."""

    path = "game.jsonl"

    def __init__(self, log):
        super().__init__()
        self.log = log

    def write_result(self, result):
        self.finished = result
        self.log.append(("result line", "finished"))

    def write_abort(self, reason):
        self.aborted = reason
        self.log.append(("result line", "aborted"))

    def seal(self):
        self.log.append(("sealed",))
        return self.path


class LoggingSeat(ScriptedSeat):
    def __init__(self, name, log, *steps):
        super().__init__(name, *steps)
        self.log = log

    async def game_ended(self, end):
        await super().game_ended(end)
        self.log.append(("told", self.name, end.outcome.status))


def test_the_result_line_is_written_then_committed_then_sealed_and_only_then_told():
    log = []
    seats = [LoggingSeat("a", log), LoggingSeat("b", log)]

    async def on_result(outcome):
        await trio.sleep(0.5)  # a slow commit: nobody is told before it returns
        log.append(("committed", outcome.status, outcome.replay_path))

    outcome, recorder, _ = play(seats, recorder=TwoStepRecorder(log), on_result=on_result, start=4)
    assert outcome.status == "finished"
    assert log[:3] == [("result line", "finished"), ("committed", "finished", "game.jsonl"), ("sealed",)]
    assert sorted(log[3:]) == [("told", "a", "finished"), ("told", "b", "finished")]


def test_a_result_the_store_refuses_is_told_aborted_and_the_replay_says_so():
    log, results = [], []
    seats = [LoggingSeat("a", log), LoggingSeat("b", log)]

    def on_result(outcome):
        results.append((outcome.status, [s.placement for s in outcome.seats]))
        if outcome.status == "finished":
            raise OSError("database is locked")

    outcome, recorder, _ = play(seats, recorder=TwoStepRecorder(log), on_result=on_result, start=4)
    assert outcome.status == "aborted" and outcome.reason == RESULT_NOT_STORED
    assert "locked" not in outcome.reason  # the database's own words stay in the server's log
    assert results[0][0] == "finished" and results[1] == ("aborted", [0, 0])  # the abort is recorded too
    assert log[:3] == [("result line", "finished"), ("result line", "aborted"), ("sealed",)]
    assert sorted(log[3:]) == [("told", "a", "aborted"), ("told", "b", "aborted")]
    assert all(s.ended[0].outcome.seats[0].placement == 0 for s in seats)


def test_a_game_cancelled_by_shutdown_is_committed_as_aborted_before_the_cancellation_propagates():
    log, committed = [], []
    seats = [LoggingSeat("a", log, Hang()), LoggingSeat("b", log)]

    async def on_result(outcome):
        await trio.sleep(0.2)  # shielded: the cancellation does not cut it short
        committed.append(outcome.status)

    async def main():
        with trio.move_on_after(1) as scope:
            await play_game("test-nim", {}, 1, seats, TimeControl(move_ms=60_000), recorder=TwoStepRecorder(log),
                            on_result=on_result, clock=trio.current_time)
        return scope.cancelled_caught

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) is True
    assert committed == ["aborted"]
    assert log[:2] == [("result line", "aborted"), ("sealed",)]
