"""The attack: hold the server's file descriptors with connections that do nothing, so no bot gets in.

Every connection is an open file.  A red-team run opened 1,100 raw sockets that never spoke against
`arena serve` under systemd's soft limit of 1,024 open files: the server logged "File descriptor limit
reached. Retrying.", new bots got no Welcome for most of 90 s, and a bot that dropped could not come
back (its games ended in strikes).  Connections that finished the HTTP/2 handshake and only answered
pings were never closed at all.  Now a connection with no call open is closed after
`ServerConfig.connection_idle_s` and one that has not finished its handshake after
`handshake_timeout_s` (gRPC's ``max_connection_idle_ms`` and ``server_handshake_timeout_ms``), while a
bot, whose Play stream stays open while it waits for a game, is never cut.  Both limits are short here
so that the test is quick; the waits are bounded, never timed.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest

from server_helpers import blocking, serve

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "random_bot.py"
#: How long a test waits for the server to close a connection it should close within a second or two:
#: a bound on a wait, not a timing (without the limits, gRPC closed a silent socket after 30 s and a
#: handshaken idle one never).
CLOSE_BOUND_S = 15.0


class Handshaken:
    """A gRPC channel of its own that connects (TCP, HTTP/2 preface and SETTINGS, pings answered by grpc)
    and never makes a call; `left` is set when the server lets it go (GOAWAY: the channel leaves READY)."""

    def __init__(self, port: int) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=[
            ("grpc.use_local_subchannel_pool", 1), ("grpc.so_reuseport", 0)])
        self.ready = threading.Event()
        self.left = threading.Event()
        self.ready_at = self.left_at = 0.0
        self.channel.subscribe(self._state, try_to_connect=True)

    def _state(self, state: grpc.ChannelConnectivity) -> None:
        if state is grpc.ChannelConnectivity.READY and not self.ready.is_set():
            self.ready_at = time.monotonic()
            self.ready.set()
        elif self.ready.is_set() and state is not grpc.ChannelConnectivity.READY and not self.left.is_set():
            self.left_at = time.monotonic()
            self.left.set()

    def close(self) -> None:
        self.channel.unsubscribe(self._state)
        self.channel.close()


@pytest.mark.skipif(not RANDOM_BOT.exists(), reason="needs sample_bots/random_bot.py")
def test_an_idle_handshaken_connection_is_closed_while_a_bot_waiting_for_a_game_stays_connected():
    idle_s = 1.0
    processes = []

    async def director(handle):
        processes.append(subprocess.Popen(
            [sys.executable, str(RANDOM_BOT), "--arena", f"127.0.0.1:{handle.port}", "--name", "waiter",
             "--log-level", "WARNING"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        await handle.wait_for_sessions(["waiter"], timeout_s=60)
        bot_in_at = time.monotonic()
        stream = handle.hub.by_name["waiter"].connection  # the bot's Play stream, waiting for a game
        idler = Handshaken(handle.port)
        try:
            assert await blocking(idler.ready.wait, CLOSE_BOUND_S), "the idle channel never connected"
            closed = await blocking(idler.left.wait, CLOSE_BOUND_S)
            lasted = idler.left_at - idler.ready_at
        finally:
            idler.close()
        # The bot has now waited for a game longer than the idle limit, on the stream it came with.
        waited = time.monotonic() - bot_in_at
        still = handle.is_connected("waiter") and handle.hub.by_name["waiter"].connection is stream
        return closed, lasted, waited, still

    try:
        closed, lasted, waited, still = serve(director, connection_idle_s=idle_s)
    finally:
        for process in processes:
            process.kill()
            out = process.communicate(timeout=30)[0]
    assert closed, f"an idle handshaken connection was still open after {CLOSE_BOUND_S:g} s"
    assert lasted >= idle_s * 0.9, f"closed after {lasted:.2f} s, before it was idle for {idle_s} s"
    assert waited > idle_s and still, f"the waiting bot lost its stream (waited {waited:.2f} s): {out}"
    assert "lost" not in out and "reconnect" not in out, out


def test_a_socket_that_never_completes_the_handshake_is_closed_within_the_handshake_bound():
    handshake_s = 1.0

    async def director(handle):
        with socket.create_connection(("127.0.0.1", handle.port)) as silent:
            opened = time.monotonic()
            silent.settimeout(CLOSE_BOUND_S)  # the bound on the wait for the server's close

            def until_closed() -> float:
                try:
                    while silent.recv(65536):  # the server's SETTINGS, then (with the limit) its GOAWAY
                        pass
                except socket.timeout:
                    return float("inf")
                except ConnectionResetError:
                    pass
                return time.monotonic() - opened

            return await blocking(until_closed)

    after = serve(director, handshake_timeout_s=handshake_s)
    assert after < CLOSE_BOUND_S, f"a socket that never spoke was still open after {CLOSE_BOUND_S:g} s"
    assert handshake_s * 0.9 <= after, f"closed after {after:.2f} s, before the handshake bound"
