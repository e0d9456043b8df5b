"""Bots that break the rules on purpose, written against raw grpc so they can do what the SDK never would.

    python tests/bots/misbehaving.py MODE --arena HOST:PORT --name NAME

Modes (each plays one game, then exits; on well-formed turns it answers the
first legal action):

    slow       answers its 2nd and 3rd turns after the whole time budget
    crash      the process dies on its 3rd turn
    garbage    sends bytes that are not a protobuf message on its 2nd turn
    illegal    answers every turn with an index outside the legal list
    stale      answers the previous request again before each real answer
    oversized  sends a 100 kB answer on its 2nd turn, then resumes its session
    silent     never answers
    reconnect  drops its stream on its 2nd turn, then resumes its session
    empty      sends an empty BotMessage and a second Hello before each answer
    vanish     plays its game well, then closes its stream and stays alive, never to come back (what a
               process stopped between two games is once the arena's keepalive has dropped it)
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import threading

import grpc

from mau_arena_sdk.client import SDK_VERSION
from mau_arena_sdk.wire import pb

MODES = ("slow", "crash", "garbage", "illegal", "stale", "oversized", "silent", "reconnect", "empty", "vanish")


def _serialize(message) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


class Stream:
    """One Play stream whose request side accepts protobuf messages or raw bytes."""

    def __init__(self, address: str, name: str, resume: str = "", secret: str = "") -> None:
        self.channel = grpc.insecure_channel(address)
        self.outbox: queue.Queue = queue.Queue()
        play = self.channel.stream_stream(
            "/mauarena.v1.Arena/Play", request_serializer=_serialize,
            response_deserializer=pb.ArenaMessage.FromString,
        )
        self.send(pb.BotMessage(hello=pb.Hello(name=name, sdk_version=SDK_VERSION, bot_version="misbehaving", max_games=1,
                                               resume_session=resume, resume_secret=secret)))
        self.call = play(iter(self.outbox.get, None))

    def send(self, message) -> None:
        self.outbox.put(message)

    def close(self) -> None:
        self.call.cancel()
        self.outbox.put(None)
        self.channel.close()


def answer(turn, index: int = 0, text: str | None = None, request_id: int | None = None) -> pb.BotMessage:
    return pb.BotMessage(answer=pb.Answer(
        game_id=turn.game_id,
        request_id=turn.request_id if request_id is None else request_id,
        action_index=index,
        action_text=turn.legal[index] if text is None else text,
    ))


def play(mode: str, address: str, name: str) -> int:
    """Play one game; a stream that ends before the game does is resumed once (oversized, reconnect)."""
    stream = Stream(address, name)
    session_id = secret = ""
    turns = 0
    previous = None
    may_resume = mode in ("oversized", "reconnect")
    while True:
        try:
            for message in stream.call:
                kind = message.WhichOneof("kind")
                if kind == "welcome":
                    session_id, secret = message.welcome.session_id, message.welcome.resume_secret
                elif kind == "error":
                    print(f"[{name}] arena says {pb.Error.Code.Name(message.error.code)}: {message.error.message}",
                          file=sys.stderr)
                elif kind == "game_ended":
                    stream.close()
                    if mode == "vanish":
                        print(f"[{name}] vanishing: stream closed, the process stays", file=sys.stderr, flush=True)
                        threading.Event().wait()  # until a signal ends the process
                    return 0
                elif kind == "turn":
                    turns += 1
                    drop = misbehave(mode, stream, message.turn, turns, previous)
                    previous = message.turn
                    if drop:
                        break
        except grpc.RpcError as error:
            print(f"[{name}] stream ended: {error.code()}", file=sys.stderr)
        stream.close()
        if not (may_resume and session_id):
            return 0
        may_resume = False
        mode = "well-behaved"  # after one resume, play properly
        stream = Stream(address, name, resume=session_id, secret=secret)


def misbehave(mode: str, stream: Stream, turn, turns: int, previous) -> bool:
    """Answer one turn in this mode's way; True asks for the session to be resumed on a new stream."""
    if mode == "slow" and turns in (2, 3):
        # late by 200 ms, answered from a timer so the next turn is still read at once
        late_by_s = (turn.time.move_ms + turn.time.bank_ms) / 1000 + 0.2
        threading.Timer(late_by_s, stream.send, [answer(turn)]).start()
        return False
    if mode == "crash" and turns == 3:
        os._exit(3)
    elif mode == "garbage" and turns == 2:
        stream.send(b"\xff\xff\xff\xff garbage \x00\x01\x02")
        return False
    elif mode == "illegal":
        stream.send(answer(turn, index=len(turn.legal) + 5, text=turn.legal[0]))
        return False
    elif mode == "stale" and previous is not None:
        stream.send(answer(previous))  # the old request, already decided
    elif mode == "oversized" and turns == 2:
        stream.send(answer(turn, text="play " + "7h" * 50_000))
        return False
    elif mode == "silent":
        return False
    elif mode == "reconnect" and turns == 2:
        return True
    elif mode == "empty":
        stream.send(pb.BotMessage())
        stream.send(pb.BotMessage(hello=pb.Hello(name="again")))
    stream.send(answer(turn))
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--arena", required=True, metavar="HOST:PORT")
    parser.add_argument("--name", required=True)
    parser.add_argument("--parallel", type=int, default=1, help="accepted as `arena match` passes it; plays one game")
    args = parser.parse_args()
    return play(args.mode, args.arena, args.name)


if __name__ == "__main__":
    sys.exit(main())
