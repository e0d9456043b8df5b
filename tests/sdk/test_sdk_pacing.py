"""The client's pacing (`Bot.steady`) against a scripted arena: the flags, and a held answer across a reconnection.

The attack it answers, performed over a real server: tests/server/test_fairplay_timing.py.
"""

from __future__ import annotations

import threading
import time

from mau_arena_sdk import Bot, Client, ClientOptions
from mau_arena_sdk.flags import parse_flags
from mau_arena_sdk.pace import Pacer
from sdk_fake_arena import ABORT, FakeArena, game_ended, game_started, turn, welcome


class Steady(Bot):
    steady = True


def test_steady_comes_from_the_bot_and_the_flags_override_it():
    assert Client(Bot(), ClientOptions(name="x")).pacer is None
    assert Client(Steady(), ClientOptions(name="x")).pacer is not None
    assert Client(Steady(), ClientOptions(name="x", steady=False)).pacer is None
    assert Client(Bot(), ClientOptions(name="x", steady=True)).pacer is not None
    defaults = ClientOptions(name="x", steady=True)
    assert parse_flags([], defaults)[0].steady is True
    assert parse_flags(["--no-steady"], defaults)[0].steady is False
    assert parse_flags(["--steady"], ClientOptions(name="x", steady=False))[0].steady is True


def test_a_held_answer_is_sent_once_and_not_early_when_its_request_comes_back_after_a_drop():
    acted = threading.Event()
    seen = []
    hold_s = 0.4  # below the cap: half of the turn's 900 ms

    class Forced(Steady):
        def act(self, t):
            seen.append(t.request_id)
            acted.set()
            return 0

    def script(hello, inbox, send, stream, context):
        if stream == 1:
            send(welcome("sess-7"))
            send(game_started("g1"))
            seen.append(time.monotonic())
            send(turn("g1", 3, ["draw"]))   # forced: the answer is held (nothing learned yet: the cold pace)
            assert acted.wait(10)
            send(ABORT)                      # dropped while the answer is held
            return
        send(welcome("sess-7"))
        send(game_started("g1"))
        send(turn("g1", 3, ["draw"]))        # the arena asks the open request again
        message = inbox.get(timeout=10)
        seen.append(("answer", message.answer.request_id, time.monotonic() - seen[0]))
        send(game_ended("g1"))
        assert inbox.get(timeout=10) is None  # nothing more: the held answer went out once

    bot = Forced()
    with FakeArena(script) as arena:
        client = Client(bot, ClientOptions(name="me", arena=arena.address, games_limit=1, connect_timeout_s=5,
                                           backoff_base_s=0.01, backoff_cap_s=0.05))
        client.pacer = Pacer(cold_s=hold_s)
        assert client.serve() == 0
    assert seen[1] == 3 and len(seen) == 3  # act ran once: the second request was answered from the held answer
    answer = seen[2]
    assert answer[:2] == ("answer", 3)
    assert answer[2] >= hold_s  # never before the pace, counted from when the request arrived
