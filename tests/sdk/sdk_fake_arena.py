"""A scripted in-process arena for SDK tests: a grpcio thread-pool server on 127.0.0.1:0.

Each test gives a `script(hello, inbox, send)` function that plays the arena's
side of one stream: it receives the Hello, reads the bot's answers from
``inbox`` (a queue fed by a reader thread) and sends ArenaMessages.
"""

from __future__ import annotations

import json
import queue
import threading
from concurrent import futures

import grpc

from mau_arena_sdk.wire import pb, rpc


#: Send this to drop the stream as a network failure would (status UNAVAILABLE).
ABORT = object()


class _Servicer(rpc.ArenaServicer):
    def __init__(self, script):
        self.script = script
        self.hellos: list = []
        self.streams = 0
        self.failures: list[BaseException] = []   # raised in a script's thread; FakeArena re-raises them

    def Play(self, request_iterator, context):
        first = next(request_iterator)
        self.hellos.append(first.hello)
        self.streams += 1
        inbox: queue.Queue = queue.Queue()

        def read():
            try:
                for message in request_iterator:
                    inbox.put(message)
            except Exception:  # the stream was cancelled
                pass
            inbox.put(None)

        threading.Thread(target=read, daemon=True).start()
        outbox: queue.Queue = queue.Queue()
        done = object()

        def run_script():
            try:
                self.script(first.hello, inbox, outbox.put, self.streams, context)
            except BaseException as failure:  # an assertion of the script: the test must fail, not warn
                self.failures.append(failure)
            finally:
                outbox.put(done)

        threading.Thread(target=run_script, daemon=True).start()
        while True:
            item = outbox.get()
            if item is done:
                return
            if item is ABORT:
                context.abort(grpc.StatusCode.UNAVAILABLE, "connection dropped by the fake arena")
            yield item


class FakeArena:
    def __init__(self, script):
        self.servicer = _Servicer(script)
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=[("grpc.so_reuseport", 0)])
        rpc.add_ArenaServicer_to_server(self.servicer, self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def __enter__(self):
        self.server.start()
        return self

    def __exit__(self, *exc):
        self.server.stop(grace=None)
        if exc[0] is None and self.servicer.failures:
            raise self.servicer.failures[0]


def welcome(session_id="s-1", resume_secret=""):
    return pb.ArenaMessage(welcome=pb.Welcome(session_id=session_id, server_version="fake", max_message_bytes=1 << 20,
                                              resume_secret=resume_secret or f"secret-of-{session_id}"))


def game_started(game_id, seat=0, players=("me", "other"), ruleset="moumou"):
    return pb.ArenaMessage(
        game_started=pb.GameStarted(game_id=game_id, ruleset=ruleset, seat=seat, players=list(players),
                                    time_control=pb.TimeControl(move_ms=1000, bank_ms=5000))
    )


def turn(game_id, request_id, legal, hand=("7h", "Kc"), discard=("9h",), details=None, seat=0, ruleset="moumou"):
    observation = pb.Observation(ruleset=ruleset, seat=seat, current=seat, decision="turn", hand=list(hand),
                                 discard=list(discard), stock_size=20, direction=1)
    for s, name in enumerate(("me", "other")):
        observation.seats.add(seat=s, name=name, hand_size=len(hand) if s == seat else 4, score=0, status="active")
    if details:
        observation.details_json = json.dumps(details)
    return pb.ArenaMessage(
        turn=pb.TurnRequest(game_id=game_id, request_id=request_id, observation=observation, legal=list(legal),
                            time=pb.TimeLeft(move_ms=900, bank_ms=4000))
    )


def game_ended(game_id, placements=(1, 2)):
    message = pb.GameEnded(game_id=game_id, reason="finished")
    for seat, placement in enumerate(placements):
        message.results.add(seat=seat, name=("me", "other")[seat], placement=placement, points=10 * (placement - 1))
    return pb.ArenaMessage(game_ended=message)


def error(code, message="", game_id="", request_id=0):
    return pb.ArenaMessage(error=pb.Error(code=pb.Error.Code.Value(code), message=message, game_id=game_id,
                                          request_id=request_id))
