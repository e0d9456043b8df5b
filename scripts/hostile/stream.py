"""One Play stream over grpc.aio, and the messages a bot sends on it.

`BotStream` sends protobuf messages or raw bytes (the request serializer
passes bytes through, so a client can put anything on the wire) and keeps
what the arena sends in a queue read by `recv`.  One reader task per stream
calls ``call.read()`` without a timeout: a cancelled grpc.aio read ends the
call, so timeouts are taken on the queue instead.
"""

from __future__ import annotations

import asyncio
from typing import Optional, Union

import grpc

from arena import __version__ as ARENA_VERSION
from mau_arena_sdk.wire import pb

PLAY = "/mauarena.v1.Arena/Play"
CHANNEL_OPTIONS = [("grpc.so_reuseport", 0)]
#: Whether this wire has `Welcome.resume_secret` / `Hello.resume_secret` (a session resumes only with it).
HAS_RESUME_SECRET = "resume_secret" in pb.Welcome.DESCRIPTOR.fields_by_name


def _serialize(message: Union[pb.BotMessage, bytes]) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


def error_name(message: pb.ArenaMessage) -> str:
    return pb.Error.Code.Name(message.error.code)


def reply_kind(reply: Optional[pb.ArenaMessage], stream: Optional["BotStream"] = None) -> str:
    """What came back for a Hello: "welcome", an error code name, "stream ended (STATUS)" or "no reply"."""
    if reply is None:
        if stream is not None and stream.ended:
            return f"stream ended ({stream.status.name if stream.status else 'OK'})"
        return "no reply"
    kind = reply.WhichOneof("kind")
    return error_name(reply) if kind == "error" else kind


def hello(name: str, *, token: str = "", games: tuple[str, ...] = (), max_games: int = 1,
          bot_version: str = "hostile", resume: Optional[pb.Welcome] = None,
          resume_session: str = "") -> pb.BotMessage:
    """A Hello; ``resume`` (a Welcome this bot received) resumes that session the way its owner may.

    ``resume_session`` alone names a session without any secret: what an attacker who only
    read a session id can send.
    """
    fields = dict(name=name, token=token, sdk_version=ARENA_VERSION, games=list(games),
                  max_games=max_games, bot_version=bot_version, resume_session=resume_session)
    if resume is not None:
        fields["resume_session"] = resume.session_id
        if HAS_RESUME_SECRET:
            fields["resume_secret"] = resume.resume_secret
    return pb.BotMessage(hello=pb.Hello(**fields))


def answer(turn: pb.TurnRequest, index: int = 0, *, game_id: Optional[str] = None) -> pb.BotMessage:
    """The answer to ``turn`` choosing ``legal[index]``; ``game_id`` overrides the turn's own."""
    return pb.BotMessage(answer=pb.Answer(
        game_id=turn.game_id if game_id is None else game_id, request_id=turn.request_id,
        action_index=index, action_text=turn.legal[index]))


class Channels:
    """A few shared grpc.aio channels handed out round robin (many streams, few TCP connections)."""

    def __init__(self, address: str, count: int = 1) -> None:
        self.address = address
        self._channels = [grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) for _ in range(count)]
        self._next = 0

    def get(self) -> grpc.aio.Channel:
        channel = self._channels[self._next % len(self._channels)]
        self._next += 1
        return channel

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close(grace=None)


class BotStream:
    """One Play call: ``send`` messages or bytes, ``recv`` what the arena sent (None once it ended)."""

    def __init__(self, channel: grpc.aio.Channel, own_channel: bool = False) -> None:
        self._channel = channel
        self._own_channel = own_channel
        play = channel.stream_stream(PLAY, request_serializer=_serialize,
                                     response_deserializer=pb.ArenaMessage.FromString)
        self.call = play()
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.status: Optional[grpc.StatusCode] = None
        self.ended = False
        self._reader = asyncio.create_task(self._read())

    @classmethod
    def open(cls, address: str) -> "BotStream":
        """A stream on a channel of its own (closed with the stream)."""
        return cls(grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS), own_channel=True)

    async def _read(self) -> None:
        try:
            while True:
                message = await self.call.read()
                if message is grpc.aio.EOF:
                    break
                self.inbox.put_nowait(message)
        except asyncio.CancelledError:
            raise
        except grpc.RpcError as error:
            self.status = error.code()
        except Exception:  # an undecodable reply or a dead channel: the stream is over either way
            self.status = grpc.StatusCode.UNKNOWN
        finally:
            self.ended = True
            self.inbox.put_nowait(None)

    async def send(self, message: Union[pb.BotMessage, bytes]) -> bool:
        """Write one message; False when the stream is already over."""
        if self.ended:
            return False
        try:
            await self.call.write(message)
            return True
        except Exception:
            return False

    async def recv(self, timeout: float) -> Optional[pb.ArenaMessage]:
        """The next message, None when the stream ended; raises TimeoutError after ``timeout`` s."""
        try:
            return await asyncio.wait_for(self.inbox.get(), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no message within {timeout:g} s") from None

    async def first_reply(self, timeout: float) -> Optional[pb.ArenaMessage]:
        """The arena's answer to a Hello: a Welcome or an Error; None if the stream ended or went quiet."""
        try:
            return await self.recv(timeout)
        except TimeoutError:
            return None

    async def close(self) -> None:
        self.call.cancel()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)
        if self._own_channel:
            await self._channel.close(grace=None)
