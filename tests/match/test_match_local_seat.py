"""LocalSeat: SDK-style bots in-process, seeing the same Turn objects as over the wire, under real deadlines."""

from __future__ import annotations

import threading

import pytest
import trio

import arena.games as games
from arena.match.local import LocalSeat
from arena.match.runner import play_game
from arena.match.timecontrol import TimeControl
from scripted_seats import Recorder
from mau_arena_sdk.actions import Action as SdkAction
from mau_arena_sdk.turn import Turn

ROOMY = TimeControl(move_ms=5000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=3)


class Greedy:
    """Takes as many tokens as it may, answering in whichever form it was built with."""

    def __init__(self, form="action"):
        self.form = form
        self.turns: list = []
        self.games: list = []
        self.results: list = []

    def on_game_start(self, game):
        self.games.append(game)

    def act(self, turn):
        self.turns.append(turn)
        best = max(turn.legal, key=lambda a: int(a.args[0]))
        if self.form == "index":
            return turn.legal.index(best)
        if self.form == "text":
            return best.text
        return best

    def on_game_end(self, game, result):
        self.results.append(result)


def run_game(bots, time_control=ROOMY, start=7, seed=3, recorder=None):
    recorder = recorder or Recorder()
    seats = [LocalSeat(bot, name=f"bot{i}") for i, bot in enumerate(bots)]

    async def main():
        return await play_game("test-nim", {"start": start}, seed, seats, time_control, recorder=recorder)

    return trio.run(main), recorder


def test_local_bots_get_sdk_turns_and_every_answer_form_works():
    bots = [Greedy("action"), Greedy("text"), Greedy("index")]
    outcome, recorder = run_game(bots, start=7)
    assert outcome.status == "finished"
    assert all(s.strikes == 0 for s in outcome.seats)
    assert [d[1] for d in recorder.decisions] == ["take 2", "take 2", "take 2", "take 1"]
    turn = bots[0].turns[0]
    assert isinstance(turn, Turn) and all(isinstance(a, SdkAction) for a in turn.legal)
    assert turn.observation.seat == 0 and turn.observation.counter == 7 and len(turn.observation.hand) == 3
    assert turn.time_left_ms == 5000 and turn.game_id == outcome.game_id
    assert bots[1].games[0].seat == 1 and bots[1].games[0].players == ("bot0", "bot1", "bot2")
    assert [b.results[0].placement for b in bots] == [s.placement for s in outcome.seats]
    assert bots[0].results[0].won and outcome.seats[0].think_ms >= 0


def test_a_slow_local_bot_is_cut_off_at_its_deadline_and_the_game_finishes():
    release = threading.Event()

    class Stuck(Greedy):
        def act(self, turn):
            release.wait(30)
            return super().act(turn)

    class ReleasingRecorder(Recorder):
        def finish(self, result):  # let the stuck thread go before on_game_end is due
            super().finish(result)
            release.set()

    tc = TimeControl(move_ms=50, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=2)
    try:  # the other seat gets a roomy clock: a loaded machine must not make it time out too
        outcome, recorder = run_game([Stuck(), Greedy()], [tc, ROOMY], start=6, recorder=ReleasingRecorder())
    finally:
        release.set()
    me = outcome.seats[0]
    assert me.strike_reasons == ["timeout", "timeout"] and me.forfeited
    assert outcome.status == "finished" and [s.placement for s in outcome.seats] == [2, 1]
    assert all(d[1] == "take 1" for d in recorder.decisions if d[0] == 0)


def test_a_local_bot_whose_code_fails_plays_the_first_legal_action_and_each_failure_is_an_error():
    """The SDK's rule (mau_arena_sdk.decide), as over the network: no strike, no crash, but counted."""
    class Buggy:
        def __init__(self):
            self.calls = 0

        def act(self, turn):
            self.calls += 1
            if self.calls == 1:
                raise ZeroDivisionError("bot bug")
            if self.calls == 2:
                return "take 3"
            if self.calls == 3:
                return 7
            return None

    outcome, recorder = run_game([Buggy(), Greedy()], start=15)
    me = outcome.seats[0]
    assert me.strikes == 0 and not me.forfeited and outcome.status == "finished"
    assert me.errors == me.decisions > 3 and outcome.seats[1].errors == 0
    errors = [d[6] for d in recorder.decisions if d[0] == 0]
    assert errors[:4] == [
        "act() raised ZeroDivisionError: bot bug",
        "act() returned 'take 3', which is not legal here; legal: take 1, take 2",
        "act() returned index 7, but there are 2 legal actions",
        "act() returned NoneType None; return an Action, its text or its index",
    ]


def test_a_failing_on_game_start_is_reported_with_the_first_answer():
    class Careless(Greedy):
        def on_game_start(self, game):
            raise KeyError("ruleset")

    outcome, recorder = run_game([Careless("index"), Greedy()], start=9)
    errors = [d[6] for d in recorder.decisions if d[0] == 0]
    assert errors[0] == "on_game_start() raised KeyError: 'ruleset'" and not any(errors[1:])
    assert outcome.seats[0].errors == 1 and outcome.seats[0].strikes == 0


class RandomSdkBot:
    def __init__(self, seed):
        import random

        self.rng = random.Random(seed)

    def act(self, turn):
        return self.rng.choice(turn.legal)


# Every real ruleset registered when the tests are collected (the engines land one by one).
REAL_RULESETS = [name for name in games.rulesets() if name != "test-nim"]


@pytest.mark.parametrize("ruleset", REAL_RULESETS)
def test_every_ruleset_plays_through_the_runner_and_its_record_re_simulates(ruleset):
    """Long games (Mose has 13 rounds) are cut at 300 decisions to keep the suite fast."""
    info = games.ruleset_info(ruleset)
    players = info.default_players or info.min_players
    recorder = Recorder()
    seats = [LocalSeat(RandomSdkBot(i), name=f"r{i}") for i in range(players)]

    async def main():
        return await play_game(ruleset, {}, 5, seats, ROOMY, recorder=recorder, max_decisions=300)

    outcome = trio.run(main)
    assert outcome.status == "finished" or "max_decisions" in outcome.reason, outcome.reason
    assert all(s.strikes == 0 for s in outcome.seats)
    replayed = games.new_game(ruleset, players, 5)
    for seat, action, _, _, _, state_hash, _ in recorder.decisions:
        assert replayed.current == seat
        replayed.apply(action)
        assert replayed.state_hash() == state_hash
    assert len(recorder.decisions) == outcome.decisions
    if outcome.status == "finished":
        assert replayed.is_over
        assert [s.placement for s in outcome.seats] == list(replayed.result().placements)
    else:
        assert recorder.aborted == outcome.reason and outcome.decisions == 300


def test_an_unthreaded_local_seat_is_still_judged_by_its_answer_time():
    # An unthreaded bot blocks the event loop, so no deadline can fire while it thinks: its lateness shows
    # only in the answer's time stamp. The seats and the runner share a clock that only the bot's thinking
    # moves, so the outcome does not depend on how fast a loaded machine runs the other decisions.
    now = [0.0]

    class Dawdler(Greedy):
        def act(self, turn):
            if len(self.turns) == 0:
                now[0] += 0.08  # think for longer than the limit (the bot's own slowness, not a sync)
            return super().act(turn)

    tc = TimeControl(move_ms=50, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=3)
    recorder = Recorder()
    clock = lambda: now[0]  # noqa: E731
    seats = [LocalSeat(Dawdler(), "d", threaded=False, clock=clock),
             LocalSeat(Greedy(), "g", threaded=False, clock=clock)]
    outcome = trio.run(lambda: play_game("test-nim", {"start": 6}, 1, seats, tc, recorder=recorder, clock=clock))
    assert recorder.decisions[0][1:5] == ("take 1", 50, True, True)   # "take 2" came too late
    assert outcome.seats[0].timeouts == 1 and outcome.status == "finished"
