"""A bot program on one host, over the bare protocol: one Play stream that says Hello (with a client ``instance`` of
its own choosing, or none, as a client built before the field) and answers every turn with its first legal action.

For tests that must decide exactly which host a bot is connected to and from which program: the SDK connects to
every host a Welcome lists, on its own schedule.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

import grpc

from arena import __version__
from mau_arena_sdk.wire import pb, rpc


class RawBot:
    """One session: `first` is the arena's answer to the Hello (its ``welcome`` or its ``error``); games are
    played in a thread until `close`."""

    def __init__(self, port: int, name: str, token: str = "", instance: str = "", max_games: int = 1) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self._out: "queue.Queue[Any]" = queue.Queue()
        hello = pb.Hello(name=name, token=token, sdk_version=__version__, protocol=pb.PROTOCOL_V1, max_games=max_games,
                         **({"instance": instance} if instance else {}))
        self._out.put(pb.BotMessage(hello=hello))
        self._replies = rpc.ArenaStub(self.channel).Play(iter(self._out.get, None), timeout=120)
        self.first = next(self._replies)
        self.games: list[str] = []  # the games it was seated in, in order
        self._reader = threading.Thread(target=self._play, daemon=True)
        if self.welcomed:
            self._reader.start()

    @property
    def welcomed(self) -> bool:
        return self.first.WhichOneof("kind") == "welcome"

    @property
    def refusal(self) -> tuple[str, str]:
        """(code name, text) of the arena's refusal ("", "" when welcomed)."""
        if self.welcomed:
            return "", ""
        return pb.Error.Code.Name(self.first.error.code), self.first.error.message

    def _play(self) -> None:
        try:
            for message in self._replies:
                kind = message.WhichOneof("kind")
                if kind == "game_started":
                    self.games.append(message.game_started.game_id)
                elif kind == "turn":
                    turn = message.turn
                    self._out.put(pb.BotMessage(answer=pb.Answer(game_id=turn.game_id, request_id=turn.request_id,
                                                                 action_index=0)))
        except grpc.RpcError:  # cancelled by `close`, or the host went away
            pass

    def close(self) -> None:
        """End the session as a program that stops does: its stream closes."""
        self._out.put(None)
        self._replies.cancel()
        self.channel.close()
        if self._reader.is_alive():
            self._reader.join(10)
