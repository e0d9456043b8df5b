"""Hostile or broken peers end only their own stream; the server stops cleanly."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import grpc
import pytest
import trio

from server_helpers import RawBot, blocking, hello, serve
from tests.terminal_signals import sigint_as_at_a_terminal
from mau_arena_sdk.wire import pb

ROOT = Path(__file__).resolve().parents[2]


async def welcomed(port: int, name: str) -> RawBot:
    bot = RawBot(port, hello(name))
    await blocking(bot.recv_kind, "welcome")
    return bot


def test_an_oversized_message_ends_only_that_stream():
    async def director(handle):
        bystander = await welcomed(handle.port, "bystander")
        big = await welcomed(handle.port, "big")
        big.send(pb.BotMessage(answer=pb.Answer(action_text="x" * 20_000)))
        rest = await blocking(big.ended)
        while "big" in [s.name for s in handle.sessions()]:
            await handle.session_event()
        big_hello = RawBot(handle.port, hello("y" * 10 + "z", bot_version="v" * 20_000))
        await blocking(big_hello.ended)
        newcomer = await welcomed(handle.port, "newcomer")
        names = [s.name for s in handle.sessions()]
        for bot in (bystander, big, big_hello, newcomer):
            bot.close()
        return rest, big.status, names

    rest, status, names = serve(director, max_message_bytes=4096)
    assert rest == [] and status == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert names == ["bystander", "newcomer"]


def test_garbage_on_the_socket_and_undecodable_messages_do_not_hurt_the_server():
    junk = [
        b"GET / HTTP/1.1\r\nHost: arena\r\n\r\n",
        b"\x00" * 64 + bytes(range(256)) * 8,
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\xff" * 4096,          # an HTTP/2 preface, then junk frames
    ]

    def throw_junk(port: int) -> None:
        for data in junk:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
                raw.sendall(data)
                raw.settimeout(2)
                try:
                    while raw.recv(4096):
                        pass
                except (socket.timeout, ConnectionError):
                    pass

    async def director(handle):
        bystander = await welcomed(handle.port, "bystander")
        await blocking(throw_junk, handle.port)
        undecodable = RawBot(handle.port, b"\xff\xff\xff\xff\x0f")        # not a BotMessage
        first = await blocking(undecodable.ended)
        speaker = await welcomed(handle.port, "speaker")
        speaker.send(b"\x12\x05\x08\x01\x10")                             # a truncated Answer: invalid
        after = await blocking(speaker.ended)
        newcomer = await welcomed(handle.port, "newcomer")
        names = [s.name for s in handle.sessions()]
        for bot in (bystander, undecodable, speaker, newcomer):
            bot.close()
        return first, after, names, undecodable.status, speaker.status

    first, after, names, *statuses = serve(director)
    # Each undecodable message gets one MALFORMED Error and a non-OK status (it used to be a silent OK).
    for messages in (first, after):
        assert [m.error.code for m in messages] == [pb.Error.MALFORMED], messages
        assert "could not be decoded" in messages[0].error.message
    assert statuses == [grpc.StatusCode.INVALID_ARGUMENT] * 2
    assert names == ["bystander", "newcomer"]


LISTENER = (
    "import queue, sys, grpc\n"
    "from mau_arena_sdk.wire import pb, rpc\n"
    "outbox = queue.Queue()\n"
    "outbox.put(pb.BotMessage(hello=pb.Hello(name='stayer', sdk_version='0.1.0')))\n"
    "channel = grpc.insecure_channel(sys.argv[1])\n"
    "for message in rpc.ArenaStub(channel).Play(iter(outbox.get, None)):\n"
    "    kind = message.WhichOneof('kind')\n"
    "    print(kind if kind != 'error' else pb.Error.Code.Name(message.error.code), flush=True)\n"
)


def test_shutdown_tells_bots_closes_the_port_and_leaves_no_threads_behind():
    before = set(threading.enumerate())
    listener = None

    async def director(handle):
        nonlocal listener
        # the bot is another process, so every thread left here would be the server's
        listener = subprocess.Popen([sys.executable, "-c", LISTENER, f"127.0.0.1:{handle.port}"], cwd=ROOT,
                                    stdout=subprocess.PIPE, text=True)
        await handle.wait_for_sessions(["stayer"], timeout_s=30)
        return handle.port

    try:
        port = serve(director)
        heard = listener.communicate(timeout=30)[0].split()
    finally:
        if listener is not None:
            listener.kill()
            listener.wait()
    assert heard == ["welcome", "SHUTTING_DOWN"]
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    left = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    # trio keeps idle worker threads for 10 s to reuse them; they are daemons and do nothing
    assert all(t.daemon and t.name.startswith("Trio thread") for t in left), left


def test_a_second_server_cannot_share_a_taken_port():
    async def outer(handle):
        async def inner(_):
            return "started"

        with pytest.raises(OSError, match="cannot listen"):
            await trio.to_thread.run_sync(lambda: serve(inner, port=handle.port))
        return True

    assert serve(outer)


def test_ctrl_c_stops_the_server_cleanly():
    script = (
        "import sys, trio\n"
        "from arena.server import ServerConfig, run\n"
        "async def director(handle):\n"
        "    print(handle.port, flush=True)\n"
        "    await trio.sleep_forever()\n"
        "try:\n"
        "    run(ServerConfig(), director)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(3)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                               preexec_fn=sigint_as_at_a_terminal)  # Ctrl-C as at a terminal, even from a background job
    try:
        port = int(process.stdout.readline())
        bot = RawBot(port, hello("watcher"))
        assert bot.recv_kind("welcome")
        process.send_signal(2)
        assert process.wait(timeout=20) == 3
        assert process.stdout.read().strip() == "interrupted"
        assert [m.error.code for m in bot.ended()] == [pb.Error.SHUTTING_DOWN]
        bot.close()
    finally:
        process.kill()
        process.wait()


def test_a_stream_flooding_non_answers_is_cut_off_and_others_carry_on():
    async def director(handle):
        bystander = await welcomed(handle.port, "bystander")
        flooder = await welcomed(handle.port, "flooder")
        flooder.send(hello("flooder"))
        second_hello = await blocking(flooder.recv_kind, "error")
        for _ in range(150):
            flooder.send(pb.BotMessage())
        rest = await blocking(flooder.ended)
        names = [s.name for s in handle.sessions()]
        bystander.close()
        flooder.close()
        return second_hello.error, rest, names

    second_hello, rest, names = serve(director)
    assert second_hello.code == pb.Error.BAD_HELLO and "already welcomed" in second_hello.message
    codes = [m.error.code for m in rest]
    assert codes[-1] == pb.Error.MALFORMED and "too many" in rest[-1].error.message
    assert names == ["bystander"]
