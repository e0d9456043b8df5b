"""The attack: open thousands of health ``Watch`` streams (no Hello, no token needed), each held open.

A red-team run opened ~6,000 of them: the server's memory went from 76 to 197 MB and its games
slowed, and a connection with a Watch open never counts as idle, so it also kept the idle-connection
limit (test_idle_connections.py) from closing it.  Now Watch streams are a budget like the watching
streams (`arena.server.streambudget.StreamBudget`): `health_watchers_per_address` from one address,
`max_health_watchers` in all; one beyond either is RESOURCE_EXHAUSTED at once with a message that says
which, and a place comes back when a stream ends.  ``Check`` is answered meanwhile (its own pace:
test_health_check_flood.py).
"""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from server_helpers import blocking, serve, until

SERVING = health_pb2.HealthCheckResponse.SERVING


def _first(call) -> "int | tuple":
    """A Watch stream's first status, or (code, details) when the arena refused it."""
    try:
        return next(call).status
    except grpc.RpcError as error:
        return error.code(), error.details()


def _watch(limit: int, **config):
    """Open ``limit`` Watch streams and one more; end one and open another; ask Check 10 times meanwhile."""

    async def director(handle):
        channel = grpc.insecure_channel(f"127.0.0.1:{handle.port}")
        stub = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest(service="")
        calls = [stub.Watch(request) for _ in range(limit)]
        firsts = [await blocking(_first, call) for call in calls]
        beyond = await blocking(_first, stub.Watch(request))
        checks = [await blocking(lambda: stub.Check(request, timeout=10).status) for _ in range(10)]
        if not isinstance(beyond, tuple):  # served: no budget to wait on below, the test fails on it
            channel.close()
            return firsts, beyond, checks, None
        budget = handle.health.watchers
        calls[0].cancel()  # one stream ends: its place comes back
        await until(lambda: budget.held == limit - 1)
        again = stub.Watch(request)
        after = await blocking(_first, again)
        for call in [*calls[1:], again]:
            call.cancel()
        await until(lambda: budget.held == 0)
        channel.close()
        return firsts, beyond, checks, after

    return serve(director, **config)


def test_the_fifth_watch_from_one_address_is_refused_and_a_place_comes_back_when_a_stream_ends():
    firsts, beyond, checks, after = _watch(4, health_watchers_per_address=4)
    assert firsts == [SERVING] * 4
    assert isinstance(beyond, tuple), f"a fifth Watch from one address was served: {beyond}"
    code, details = beyond
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, beyond
    assert "this address already holds 4 health Watch streams (at most 4 at once)" in details, details
    assert checks == [SERVING] * 10  # Check is not held back by the Watch budget
    assert after == SERVING


def test_watch_streams_beyond_the_total_are_refused_whatever_the_address():
    firsts, beyond, checks, after = _watch(3, health_watchers_per_address=4, max_health_watchers=3)
    assert firsts == [SERVING] * 3
    assert isinstance(beyond, tuple), f"a Watch beyond the total was served: {beyond}"
    code, details = beyond
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, beyond
    assert "3 health Watch streams are open (at most 3 at once)" in details, details
    assert checks == [SERVING] * 10 and after == SERVING
