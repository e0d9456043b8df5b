"""Several gRPC servers on one port (`ServerConfig.acceptors`): one arena, one port, more logins at once.

grpc.aio takes new streams one at a time per server, so a busy arena admitted a few
logins a second (arena/server/README.md, "Logins on a busy server"); with N acceptors the
kernel spreads connections over N servers.  Each must be the whole arena: every bot,
whichever acceptor took its connection, is in the same hub and plays the others, and the
health service answers on every connection.  A taken port is still refused, either way round.
"""

from __future__ import annotations

import grpc
import pytest
import trio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.match.timecontrol import TimeControl
from server_helpers import AutoBot, blocking, serve

BOTS = 16


def own_connection(index: int) -> dict:
    """Channel options that keep a channel off the process's shared connections (one TCP connection each)."""
    return {"grpc.use_local_subchannel_pool": 1, "grpc.primary_user_agent": f"bot{index}"}


def health_on_separate_connections(port: int, count: int) -> list:
    statuses = []
    for index in range(count):
        with grpc.insecure_channel(f"127.0.0.1:{port}", options=list(own_connection(index).items())) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="mauarena.v1.Arena"), timeout=10)
            statuses.append(reply.status)
    return statuses


def test_bots_reaching_different_acceptors_share_one_arena_and_health_answers_on_each():
    async def director(handle):
        bots = []
        for index in range(BOTS):
            bot = AutoBot(handle.port, f"bot{index:02d}", games=1, seed=index,
                          channel_options=own_connection(index))
            bots.append(bot)
        sessions = await handle.wait_for_sessions([bot.name for bot in bots], timeout_s=30)
        # Bots that came in through different acceptors play each other: one hub, one arena.
        async with trio.open_nursery() as nursery:
            for first, second in zip(bots[0::2], bots[1::2]):
                nursery.start_soon(handle.play_game, "moumou", {}, 7, [first.name, second.name],
                                   TimeControl(move_ms=5000))
        for bot in bots:
            await blocking(bot.wait)
        statuses = await blocking(health_on_separate_connections, handle.port, BOTS)
        return len(sessions), statuses, len(handle.games())

    connected, statuses, games = serve(director, acceptors=4)
    assert connected == BOTS and games == BOTS // 2
    # 16 connections over 4 acceptors: all on one of them has a chance of 4^-15; an acceptor without the
    # health service would answer UNIMPLEMENTED.
    assert statuses == [health_pb2.HealthCheckResponse.SERVING] * BOTS


@pytest.mark.parametrize("first, second", [(4, 1), (1, 4), (4, 4)])
def test_a_taken_port_is_refused_with_any_number_of_acceptors(first, second):
    async def outer(handle):
        async def inner(_):
            return "started"

        with pytest.raises(OSError, match="cannot listen"):
            await trio.to_thread.run_sync(lambda: serve(inner, port=handle.port, acceptors=second))
        return True

    assert serve(outer, acceptors=first)
