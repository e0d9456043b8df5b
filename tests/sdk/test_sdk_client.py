"""The SDK client against a scripted arena: answers, errors, limits, reconnection, concurrency."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mau_arena_sdk import SDK_VERSION, Bot, Client, ClientOptions, run
from mau_arena_sdk.errors import ArenaRefused, ArenaUnreachable
from sdk_fake_arena import ABORT, FakeArena, error, game_ended, game_started, turn, welcome


def _options(arena, **kw):
    kw.setdefault("name", "me")
    kw.setdefault("connect_timeout_s", 5.0)
    kw.setdefault("backoff_base_s", 0.01)
    kw.setdefault("backoff_cap_s", 0.05)
    return ClientOptions(arena=arena.address, **kw)


def _start_slow_and_fast(send):
    """The arena's side: two games, "slow" and "fast", each with its first turn (request ids 1 and 2)."""
    send(welcome())
    send(game_started("slow"))
    send(game_started("fast"))
    send(turn("slow", 1, ["draw"]))
    send(turn("fast", 2, ["draw"]))


def _slow_game_waits_for(release):
    """A bot's choice: the game called "slow" blocks in act until `release` is set, any other answers at once."""
    def choose(t):
        if t.game_id == "slow":
            assert release.wait(10)
        return 0
    return choose


def _answer(inbox):
    message = inbox.get(timeout=10)
    assert message is not None, "the bot closed the stream instead of answering"
    return message.answer


class Recorder(Bot):
    def __init__(self, choose):
        self.choose = choose
        self.events = []

    def on_game_start(self, game):
        self.events.append(("start", game.game_id, game.seat, game.players))

    def act(self, turn):
        self.events.append(("act", turn.game_id, turn.request_id))
        return self.choose(turn)

    def on_game_end(self, game, result):
        self.events.append(("end", game.game_id, result.placement, result.won, result.errors))


def test_answers_by_text_index_or_action_and_stops_at_the_games_limit():
    answers = []

    def script(hello, inbox, send, stream, context):
        send(welcome())
        send(game_started("g1"))
        for request_id, legal in enumerate([["draw", "play 7h"], ["draw", "play Kc", "play 7h"], ["pass", "draw"]], 1):
            send(turn("g1", request_id, legal))
            answers.append(_answer(inbox))
        send(game_ended("g1"))
        assert inbox.get(timeout=10) is None  # the bot closes its side after the limit

    choices = iter(["play 7h", 1, None])

    def choose(t):
        choice = next(choices)
        return t.legal_with("draw")[0] if choice is None else choice

    bot = Recorder(choose)
    with FakeArena(script) as arena:
        assert Client(bot, _options(arena, games_limit=1)).serve() == 0
        hello = arena.servicer.hellos[0]
    assert (hello.name, hello.sdk_version, hello.max_games, hello.resume_session, hello.resume_secret) == (
        "me", SDK_VERSION, 1, "", "")
    assert [(a.request_id, a.action_index, a.action_text) for a in answers] == [
        (1, 1, "play 7h"), (2, 1, "play Kc"), (3, 1, "draw")]
    assert bot.events[0] == ("start", "g1", 0, ("me", "other"))
    assert bot.events[-1] == ("end", "g1", 1, True, 0)


def test_a_raising_or_illegal_act_answers_the_first_legal_action_and_is_counted(caplog):
    answers = []

    def script(hello, inbox, send, stream, context):
        send(welcome())
        send(game_started("g1"))
        send(turn("g1", 1, ["draw", "play 7h"]))
        answers.append(_answer(inbox))
        send(turn("g1", 2, ["pass", "play 7h"]))
        answers.append(_answer(inbox))
        send(game_ended("g1", placements=(2, 1)))
        inbox.get(timeout=10)

    def choose(t):
        if t.request_id == 1:
            return int("seven")  # a ValueError of the bot's own is a crash, not an illegal answer
        return "play 9s"

    bot = Recorder(choose)
    with caplog.at_level(logging.INFO), FakeArena(script) as arena:
        assert Client(bot, _options(arena, games_limit=1)).serve() == 0
    assert [(a.action_index, a.action_text) for a in answers] == [(0, "draw"), (0, "pass")]
    assert bot.events[-1] == ("end", "g1", 2, False, 2)
    text = caplog.text
    assert "act() raised" in text and "ValueError: invalid literal for int()" in text and "Traceback" in text
    assert "'play 9s', which is not legal here; legal: pass, play 7h" in text
    assert "2 bot error(s)" in text


@pytest.mark.parametrize(
    "code, words",
    [("AUTH_FAILED", "authentication failed"), ("UNSUPPORTED_VERSION", f"SDK version ({SDK_VERSION})"),
     ("DUPLICATE_SESSION", "pick another with --name"), ("CAPACITY", "arena is full"),
     ("MALFORMED", "refused the connection")],
)
def test_a_refused_hello_is_a_clear_fatal_error(code, words):
    def script(hello, inbox, send, stream, context):
        send(error(code, "detail from the arena"))

    with FakeArena(script) as arena:
        with pytest.raises(ArenaRefused) as caught:
            Client(Recorder(lambda t: 0), _options(arena)).serve()
    assert caught.value.code == code
    assert words in str(caught.value) and "detail from the arena" in str(caught.value)


def test_run_reports_a_refusal_as_one_line_and_a_non_zero_status(caplog):
    def script(hello, inbox, send, stream, context):
        send(error("AUTH_FAILED", "wrong token"))

    with caplog.at_level(logging.ERROR), FakeArena(script) as arena:
        status = run(Recorder(lambda t: 0), name="me", argv=["--arena", arena.address], exit=False)
    assert status == 2
    assert "authentication failed" in caplog.text and "Traceback" not in caplog.text


@pytest.mark.parametrize("message, line", [("the arena is shutting down", "the arena is shutting down"),
                                           ("", "the arena is shutting down"),
                                           ("draining for an upgrade", "draining for an upgrade")])
def test_the_arena_shutting_down_is_said_once_in_the_arenas_words(caplog, message, line):
    def script(hello, inbox, send, stream, context):
        send(error("SHUTTING_DOWN", message))

    with caplog.at_level(logging.INFO, logger="mau_arena_sdk"), FakeArena(script) as arena:
        Client(Recorder(lambda t: 0), _options(arena)).serve()
    said = [r.getMessage() for r in caplog.records if "shutting down" in r.getMessage() or "draining" in r.getMessage()]
    assert said == [line]  # not "the arena is shutting down (the arena is shutting down)"


def test_an_unreachable_arena_raises_a_clear_error(free_port):
    options = ClientOptions(name="me", arena=f"127.0.0.1:{free_port}", connect_timeout_s=0.3)
    with pytest.raises(ArenaUnreachable, match=r"cannot reach the arena at 127\.0\.0\.1:\d+"):
        Client(Recorder(lambda t: 0), options).serve()


def test_reconnects_after_a_drop_resumes_the_session_and_replays_a_cached_answer():
    seen = []

    def script(hello, inbox, send, stream, context):
        if stream == 1:
            send(welcome("sess-42"))
            send(game_started("g1"))
            send(turn("g1", 7, ["draw", "play 7h"]))
            seen.append(("first", _answer(inbox).action_text))
            send(ABORT)
            return
        seen.append(("resume", hello.resume_session, hello.resume_secret))
        send(welcome("sess-42"))
        send(game_started("g1"))                     # the arena re-sends what is open
        send(turn("g1", 7, ["draw", "play 7h"]))
        seen.append(("again", _answer(inbox).action_text))
        send(turn("g1", 8, ["draw", "play 7h"]))
        seen.append(("next", _answer(inbox).action_text))
        send(game_ended("g1"))
        inbox.get(timeout=10)

    bot = Recorder(lambda t: "play 7h")
    with FakeArena(script) as arena:
        assert Client(bot, _options(arena, games_limit=1)).serve() == 0
    assert seen == [("first", "play 7h"), ("resume", "sess-42", "secret-of-sess-42"), ("again", "play 7h"),
                    ("next", "play 7h")]
    acts = [e for e in bot.events if e[0] == "act"]
    assert acts == [("act", "g1", 7), ("act", "g1", 8)]  # request 7 was answered from the cache
    assert [e[0] for e in bot.events].count("start") == 1


def test_a_stream_lost_after_its_hello_past_the_connect_timeout_is_tried_again_not_taken_as_unreachable():
    """The arena got the Hello, and the stream died without a Welcome only after the whole connect timeout (a
    connection gone silent, given up by the keepalive much later): the bot had reached the arena, so it gets a fresh
    connect timeout and tries again, and its token is in the new Hello (to take its session over), instead of
    raising "cannot reach the arena".  The fast check of what tests/sdk/test_sdk_reconnect.py's slow
    test_a_connection_lost_silently_before_the_welcome_is_tried_again_past_the_connect_timeout plays end to end."""
    connect_timeout_s = 0.3
    hellos = []

    def script(hello, inbox, send, stream, context):
        hellos.append((stream, hello.name, hello.token))
        if stream == 1:
            # The silence itself (the scenario, not a wait for something): no Welcome, longer than the timeout.
            time.sleep(3 * connect_timeout_s)
            send(ABORT)
            return
        send(welcome("sess-2"))
        send(game_started("g1"))
        send(turn("g1", 1, ["draw"]))
        assert _answer(inbox).action_text == "draw"
        send(game_ended("g1"))
        inbox.get(timeout=10)

    with FakeArena(script) as arena:
        options = _options(arena, token="my-token", games_limit=1, connect_timeout_s=connect_timeout_s)
        assert Client(Recorder(lambda t: 0), options).serve() == 0
    assert hellos == [(1, "me", "my-token"), (2, "me", "my-token")]


@pytest.mark.parametrize("threads", ["stand-by", "workers"])
def test_a_slow_game_does_not_block_the_answer_of_another_game(threads, monkeypatch):
    if threads == "workers":  # no timerfd (not Linux): every game on its own worker thread
        from mau_arena_sdk.relay import TimerFd

        monkeypatch.setattr(TimerFd, "create", classmethod(lambda cls, **kw: None))
    release = threading.Event()
    order = []

    def script(hello, inbox, send, stream, context):
        assert hello.max_games == 2
        _start_slow_and_fast(send)
        order.append(_answer(inbox).game_id)     # the fast game's answer comes first...
        release.set()
        order.append(_answer(inbox).game_id)     # ...then the slow one's
        send(game_ended("fast"))
        send(game_ended("slow"))
        inbox.get(timeout=10)

    choose = _slow_game_waits_for(release)

    with FakeArena(script) as arena:
        assert Client(Recorder(choose), _options(arena, max_games=2, games_limit=2)).serve() == 0
    assert order == ["fast", "slow"]


def test_a_session_that_ends_before_its_stand_by_thread_first_runs_closes_cleanly(monkeypatch):
    """The stand-by thread starts with the first bot call; under load it may first run only after
    the session has ended and `Relay.close` has cleared the relay's timer.  It must still leave
    cleanly (it once read the cleared timer and died on an assertion).  Here the thread is held
    until the session's clean-up has woken the timer, which forces that interleaving."""
    from mau_arena_sdk.relay import Relay, TimerFd

    if TimerFd.create() is None:
        pytest.skip("no timerfd on this platform: no stand-by thread")
    closed, errors = threading.Event(), []
    real_set, real_stand_by = TimerFd.set, Relay._stand_by

    def set_timer(timer, first, period=0.0, **kw):
        real_set(timer, first, period, **kw)
        if not period:  # the one-shot wake-up of the session's clean-up
            closed.set()

    def held_stand_by(relay, *args):
        assert closed.wait(10), "the session never closed"
        try:
            real_stand_by(relay, *args)
        except BaseException as exc:  # noqa: BLE001 - recorded and asserted below
            errors.append(exc)

    monkeypatch.setattr(TimerFd, "set", set_timer)
    monkeypatch.setattr(Relay, "_stand_by", held_stand_by)

    def script(hello, inbox, send, stream, context):
        send(welcome())
        send(game_started("g1"))
        send(turn("g1", 1, ["draw"]))
        _answer(inbox)
        send(game_ended("g1"))
        inbox.get(timeout=10)

    with FakeArena(script) as arena:
        client = Client(Recorder(lambda t: 0), _options(arena, max_games=2, games_limit=1))
        assert client.serve() == 0
    threads = client._relay._threads
    assert len(threads) == 1
    threads[0].join(10)
    assert not threads[0].is_alive() and errors == []


def test_in_game_notices_are_logged_and_the_stream_stays_open(caplog):
    def script(hello, inbox, send, stream, context):
        send(welcome())
        send(game_started("g1"))
        send(error("TIMEOUT", "took 1200 ms", game_id="g1", request_id=3))
        send(turn("g1", 4, ["draw"]))
        _answer(inbox)
        send(game_ended("g1"))
        inbox.get(timeout=10)

    with caplog.at_level(logging.WARNING), FakeArena(script) as arena:
        assert Client(Recorder(lambda t: 0), _options(arena, games_limit=1)).serve() == 0
    assert "game g1 request 3: answer too late" in caplog.text and "[TIMEOUT]" in caplog.text


def test_a_bot_file_against_no_arena_exits_non_zero_with_one_clear_line(free_port):
    bot = Path(__file__).resolve().parents[2] / "sample_bots" / "random_bot.py"
    result = subprocess.run(
        [sys.executable, str(bot), "--arena", f"127.0.0.1:{free_port}", "--connect-timeout", "0.5"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 3
    assert f"cannot reach the arena at 127.0.0.1:{free_port}" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_an_engine_style_action_object_is_accepted_by_its_text():
    from mau_arena_sdk import Turn
    from sdk_fake_arena import turn as turn_message

    class Foreign:
        verb, args = "play", ("7h",)

        def __str__(self):
            return "play 7h"

    t = Turn.from_pb(turn_message("g", 1, ["draw", "play 7h"]).turn)
    assert t.index_of(Foreign()) == 1


def test_game_worker_runs_calls_in_order_and_finishes_them_on_shutdown():
    from mau_arena_sdk.game_worker import GameWorker

    worker, seen, gate = GameWorker("game-test"), [], threading.Event()
    worker.submit(gate.wait, 10)
    for i in range(5):
        worker.submit(seen.append, i)
    worker.submit(lambda: 1 / 0)  # a failing call is logged; the next calls still run
    worker.submit(seen.append, "after")
    assert not worker._thread.daemon  # handed-over calls (on_game_end) run before the process exits
    gate.set()
    worker.shutdown(wait=True)
    assert seen == [0, 1, 2, 3, 4, "after"] and not worker._thread.is_alive()

    dropped, gate2, seen2 = GameWorker("game-test-2"), threading.Event(), []
    dropped.submit(gate2.wait, 10)
    dropped.submit(seen2.append, "never")
    dropped.shutdown(wait=False, cancel_futures=True)  # drops what has not started yet
    gate2.set()
    dropped._thread.join(10)
    assert seen2 == [] and not dropped._thread.is_alive()


def test_a_taken_over_game_runs_what_it_received_meanwhile_in_order_after_its_slow_call():
    """A slow act is taken over (the other game is served meanwhile); the slow game's own later
    messages (here its end, after the arena gave up on the turn) wait for that act, in order."""
    release = threading.Event()
    order = []

    def script(hello, inbox, send, stream, context):
        _start_slow_and_fast(send)
        order.append(("answer", _answer(inbox).game_id))   # served while the slow act still runs
        send(game_ended("slow"))                            # the arena gave up on the slow turn
        send(turn("fast", 3, ["draw"]))
        order.append(("answer", _answer(inbox).game_id))   # the fast game still goes on
        release.set()
        order.append(("answer", _answer(inbox).game_id))   # the late answer of the slow game
        send(game_ended("fast"))
        inbox.get(timeout=10)

    choose = _slow_game_waits_for(release)

    bot = Recorder(choose)
    with FakeArena(script) as arena:
        assert Client(bot, _options(arena, max_games=2, games_limit=2)).serve() == 0
    assert order == [("answer", "fast"), ("answer", "fast"), ("answer", "slow")]
    slow = [e[0] for e in bot.events if e[1] == "slow"]
    assert slow == ["start", "act", "end"]  # on_game_end only after the slow act returned
    assert [e[0] for e in bot.events if e[1] == "fast"] == ["start", "act", "act", "end"]


@pytest.mark.parametrize("max_games", [1, 3])
def test_sigterm_inside_a_slow_act_stops_the_bot_with_status_0(max_games):
    """With one game the slow act runs on the main thread; with several, the other game is served
    first (so the slow call has been taken over) and the signal still reaches the act."""
    served = threading.Event()

    def script(hello, inbox, send, stream, context):
        send(welcome())
        send(game_started("g1"))
        send(turn("g1", 1, ["draw"]))
        if max_games > 1:
            send(game_started("g2"))
            send(turn("g2", 2, ["draw"]))
            assert _answer(inbox).game_id == "g2"
        served.set()
        inbox.get(timeout=30)  # None once the bot has closed its side

    code = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})\n"
        "from mau_arena_sdk import Bot, run\n"
        "class Slow(Bot):\n"
        "    def act(self, turn):\n"
        "        if turn.game_id == 'g1':\n"
        "            print('acting', flush=True)\n"
        "            time.sleep(60)\n"
        "        return 0\n"
        "run(Slow(), name='slow')\n"
    )
    with FakeArena(script) as arena:
        process = subprocess.Popen(
            [sys.executable, "-c", code, "--arena", arena.address, "--parallel", str(max_games)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            assert process.stdout.readline().strip() == "acting"
            assert served.wait(15)
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=15) == 0, process.stderr.read()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_after_a_taken_over_call_the_slow_game_moves_to_a_worker_thread():
    """Once a game's call has been taken over, its next calls run on a thread of its own: the
    loop's owner then answers the other games without waiting for any tick."""
    release = threading.Event()
    threads = {}

    def script(hello, inbox, send, stream, context):
        _start_slow_and_fast(send)
        assert _answer(inbox).game_id == "fast"  # served by the stand-by thread
        release.set()
        assert _answer(inbox).game_id == "slow"
        send(turn("slow", 3, ["draw"]))
        assert _answer(inbox).game_id == "slow"
        send(game_ended("slow"))
        send(game_ended("fast"))
        inbox.get(timeout=10)

    def choose(t):
        threads.setdefault(t.game_id, []).append(threading.current_thread().name)
        if t.request_id == 1:
            assert release.wait(10)
        return 0

    with FakeArena(script) as arena:
        assert Client(Recorder(choose), _options(arena, max_games=2, games_limit=2)).serve() == 0
    assert threads["slow"][1].startswith("game-slow")  # its own worker after the take-over
    assert not threads["fast"][0].startswith("game-")   # the fast game stayed on the owner's path


@pytest.mark.parametrize("max_games", [1, 2])
def test_act_runs_as_plain_code_and_with_one_game_where_its_turn_is_read(max_games):
    """With one game, act runs inside the loop, in the coroutine that read its turn (no exit from
    the loop and re-entry per call); either way the loop is hidden from it, so bot code may run
    its own asyncio."""
    import asyncio
    import inspect

    seen, answers = [], []

    def script(hello, inbox, send, stream, context):
        send(welcome())
        send(game_started("g1"))
        send(turn("g1", 1, ["draw", "play 7h"]))
        answers.append(_answer(inbox).action_text)
        send(game_ended("g1"))
        inbox.get(timeout=10)

    async def pick():
        return "play 7h"

    def choose(t):
        seen.append(any(frame.function == "_session" for frame in inspect.stack()))
        return asyncio.run(pick())

    with FakeArena(script) as arena:
        assert Client(Recorder(choose), _options(arena, max_games=max_games, games_limit=1)).serve() == 0
    assert answers == ["play 7h"]  # asyncio.run worked in act (else the first legal action, "draw")
    assert seen == [max_games == 1]


def test_the_stand_by_tick_stops_after_idle_ticks_and_starts_again_with_the_next_call(monkeypatch):
    """The stand-by timer ticks only while bot code keeps coming: after IDLE_TICKS ticks without a
    call running it is stopped (no wake-ups for an idle bot), and the next call starts it again."""
    from mau_arena_sdk.relay import Relay, TimerFd

    if TimerFd.create() is None:
        pytest.skip("no timerfd on this platform: every game gets a worker thread, nothing ticks")
    starts, stopped = [], threading.Event()
    real_set, real_disarm = TimerFd.set, TimerFd.disarm

    def start(timer, first, period=0.0, **kw):
        if period:  # the tick, not the one-shot wake-up of the session's clean-up
            starts.append(period)
        real_set(timer, first, period, **kw)

    def stop(timer):
        real_disarm(timer)
        stopped.set()

    monkeypatch.setattr(TimerFd, "set", start)
    monkeypatch.setattr(TimerFd, "disarm", stop)
    monkeypatch.setattr(Relay, "IDLE_TICKS", 3)

    def script(hello, inbox, send, stream, context):
        _start_slow_and_fast(send)
        assert {_answer(inbox).game_id, _answer(inbox).game_id} == {"slow", "fast"}
        assert stopped.wait(10), "the tick never stopped"
        send(turn("fast", 3, ["draw"]))
        assert _answer(inbox).request_id == 3
        send(game_ended("slow"))
        send(game_ended("fast"))
        inbox.get(timeout=10)

    with FakeArena(script) as arena:
        assert Client(Recorder(lambda t: 0), _options(arena, max_games=2, games_limit=2)).serve() == 0
    assert len(starts) >= 2  # started for the first calls, and again for the call after the stop
