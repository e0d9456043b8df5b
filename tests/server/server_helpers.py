"""Test helpers: run a real server on 127.0.0.1:0 and talk to it with raw grpcio clients.

The test body is the server's director (trio); blocking client calls go to
worker threads with `blocking`.  `RawBot` keeps the exact bytes it received,
so tests can search what really crossed the wire.

A test whose outcome depends on the games' clock (a timeout, a bot away for a
while) runs the server on `virtual_clock()` and moves time itself with
``clock.jump(seconds)`` once the server waits where the test wants it to: a
slow machine then delays the test but never changes what it sees.  Real time
remains only in the hang guards (a blocking receive's timeout), which are
generous on purpose.
"""

from __future__ import annotations

import queue
import random
import socket
import threading
from typing import Any, Callable, Optional

import grpc
import trio
import trio.testing

from arena.server import ServerConfig, run
from mau_arena_sdk.wire import pb

PLAY = "/mauarena.v1.Arena/Play"
_END = object()


#: How long a helper waits (real time) for something that should happen at once: only a hang guard.
HANG_GUARD_S = 60.0


def ipv6_loopback() -> bool:
    """Whether this machine has an IPv6 loopback (::1): a second client address beside 127.0.0.1 for the tests
    of per-address limits."""
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


def serve(director: Callable[[Any], Any], **config: Any) -> Any:
    return run(ServerConfig(**config), director)


def virtual_clock() -> trio.testing.MockClock:
    """A clock for `serve(director, clock=...)` that stands still until the test calls ``jump``.

    The server's games time everything on it (deadlines, the answers' arrival stamps), so no
    time passes while bots answer; ``trio.fail_after``/``move_on_after`` in the director run on it
    too, so guard waits with the blocking receives' real timeouts instead.
    """
    return trio.testing.MockClock(rate=0)


async def blocking(fn: Callable[..., Any], *args: Any) -> Any:
    return await trio.to_thread.run_sync(fn, *args)


async def until(condition: Callable[[], Any], seconds: float = 20) -> None:
    """Wait, bounded, for a condition on the server's state that no event announces (a stream budget's
    places, which grpc frees when a stream's cancellation reaches the server): checked every few ms on
    the server's own loop, so it sees each change as soon as the server has made it."""
    with trio.fail_after(seconds):
        while not condition():
            await trio.sleep(0.005)


def hello(name: str, **fields: Any) -> pb.BotMessage:
    fields.setdefault("sdk_version", "0.1.0")
    return pb.BotMessage(hello=pb.Hello(name=name, **fields))


def answer_for(turn: pb.TurnRequest, index: int = 0) -> pb.BotMessage:
    return pb.BotMessage(answer=pb.Answer(
        game_id=turn.game_id, request_id=turn.request_id, action_index=index, action_text=turn.legal[index]))


class RawBot:
    """One Play stream over a synchronous grpcio channel; messages in a queue, raw bytes kept."""

    def __init__(self, port: int, first: Optional[pb.BotMessage] = None, **channel_options: Any) -> None:
        options = [("grpc.so_reuseport", 0), *channel_options.items()]
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=options)
        self._out: queue.Queue = queue.Queue()
        self.inbox: queue.Queue = queue.Queue()
        self.received_bytes: list[bytes] = []
        self.status: Optional[grpc.StatusCode] = None
        method = self.channel.stream_stream(
            PLAY,
            request_serializer=lambda m: m if isinstance(m, bytes) else m.SerializeToString(),
            response_deserializer=None,
        )
        self.call = method(iter(self._out.get, _END))
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()
        if first is not None:
            self.send(first)

    def _pump(self) -> None:
        try:
            for data in self.call:
                self.received_bytes.append(data)
                self.inbox.put(pb.ArenaMessage.FromString(data))
        except grpc.RpcError as error:
            self.status = error.code()
        finally:
            self.inbox.put(None)  # the stream ended

    def send(self, message: "pb.BotMessage | bytes") -> None:
        self._out.put(message)

    def recv(self, timeout: float = 10.0) -> Optional[pb.ArenaMessage]:
        """The next message, or None once the stream has ended."""
        return self.inbox.get(timeout=timeout)

    def recv_kind(self, kind: str, timeout: float = 10.0) -> pb.ArenaMessage:
        """Skip to the next message of ``kind`` (welcome, turn, error...); fail if the stream ends first."""
        while True:
            message = self.recv(timeout)
            assert message is not None, f"stream ended while waiting for {kind} (status {self.status})"
            if message.WhichOneof("kind") == kind:
                return message

    def ended(self, timeout: float = 10.0) -> list[pb.ArenaMessage]:
        """Every message until the stream ends."""
        seen = []
        while (message := self.recv(timeout)) is not None:
            seen.append(message)
        return seen

    def close(self) -> None:
        self._out.put(_END)
        self.call.cancel()
        self._thread.join(10)
        self.channel.close()


class AutoBot(RawBot):
    """A bot that answers every turn with a random legal action until ``games`` games have ended.

    It answers only while `may_answer` is set (from the start unless ``held``): a test clears it
    to keep a game waiting on this bot, and sets it to let the game go on.
    """

    def __init__(self, port: int, name: str, games: int = 1, max_games: int = 1, seed: int = 0,
                 delay_s: float = 0.0, channel_options: Optional[dict] = None, held: bool = False,
                 **fields: Any) -> None:
        self.name = name
        self.games_wanted = games
        self.rng = random.Random(seed)
        self.delay_s = delay_s
        self.may_answer = threading.Event()
        if not held:
            self.may_answer.set()
        self.log: list[pb.ArenaMessage] = []
        super().__init__(port, hello(name, max_games=max_games, **fields), **(channel_options or {}))
        self._player = threading.Thread(target=self._play, daemon=True)
        self._player.start()

    def _play(self) -> None:
        ended = 0
        while (message := self.recv(60)) is not None:
            self.log.append(message)
            kind = message.WhichOneof("kind")
            if kind == "turn":
                if not self.may_answer.wait(HANG_GUARD_S):
                    break  # never let go: the test failed elsewhere; end the stream
                if self.delay_s:
                    threading.Event().wait(self.delay_s)
                self.send(answer_for(message.turn, self.rng.randrange(len(message.turn.legal))))
            elif kind == "game_ended":
                ended += 1
                if ended >= self.games_wanted:
                    break
        self._out.put(_END)

    def wait(self, timeout: float = 30.0) -> list[pb.ArenaMessage]:
        self._player.join(timeout)
        assert not self._player.is_alive(), f"{self.name} did not finish its games"
        self.close()
        return self.log
