"""The attack: health ``Check`` calls back to back from one address (no login needed).

Each is answered on the games' loop: a red-team run asked 820 a second from 16 callers on one address
and the loop's lag went from 40 to 287 ms (p99).  Now Check has a pace per address
(`arena.server.readpace.ReadPace` on `arena.server.health`: `health_checks_burst` at once, then
`health_checks_per_second`; 20 and 10 by default, the values tested here); beyond it a call waits for its
turn, and one whose turn is more than `health_checks_max_wait_s` away is refused at once with
RESOURCE_EXHAUSTED.  Monitoring asks every few seconds, several probes behind one address
included, and is never refused.

The pace's clock is the test's (it stands still until the test moves it), so nothing here depends on
how fast the machine answers.  The second address is the IPv6 loopback (the server listens on
``localhost``).
"""

from __future__ import annotations


import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from server_helpers import blocking, ipv6_loopback, serve

SERVING = health_pb2.HealthCheckResponse.SERVING
BURST, PER_SECOND = 20, 10.0  # ServerConfig's defaults



def _checks(target: str, count: int, between=lambda: None) -> list:
    """``count`` Checks one after another on one channel (``between`` runs before each): SERVING, or the
    refusal's (code, details)."""
    out = []
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for _ in range(count):
            between()
            try:
                out.append(stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=30).status)
            except grpc.RpcError as error:
                out.append((error.code(), error.details()))
    return out


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback (::1): no second client address")
def test_a_flood_of_checks_from_one_address_is_refused_beyond_its_pace_and_another_address_is_not():
    now = [0.0]

    async def director(handle):
        handle.health.checks.clock = lambda: now[0]
        flood = await blocking(_checks, f"127.0.0.1:{handle.port}", BURST + 30)
        elsewhere = await blocking(_checks, f"[::1]:{handle.port}", BURST)
        now[0] += 1.0
        refilled = await blocking(_checks, f"127.0.0.1:{handle.port}", int(PER_SECOND) + 1)
        return flood, elsewhere, refilled

    # Refused at once beyond the burst (a call that would wait its turn, at the default max wait, is the read
    # pace's: test_fairplay_wire.py::test_the_read_pace_is_a_bucket_per_address_that_refills).
    flood, elsewhere, refilled = serve(director, host="localhost", health_checks_max_wait_s=0.0)
    assert flood[:BURST] == [SERVING] * BURST
    beyond = flood[BURST:]
    assert all(isinstance(r, tuple) and r[0] == grpc.StatusCode.RESOURCE_EXHAUSTED for r in beyond), beyond[:3]
    assert "too many health Checks from this address (at most 20 at once, then 10 a second)" in beyond[0][1]
    assert elsewhere == [SERVING] * BURST
    assert refilled[:-1] == [SERVING] * int(PER_SECOND)  # a second's worth came back, and no more
    assert refilled[-1][0] == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_monitoring_every_few_seconds_is_never_refused_even_several_probes_behind_one_address():
    now = [0.0]

    def every(seconds):
        def step():
            now[0] += seconds
        return step

    async def director(handle):
        handle.health.checks.clock = lambda: now[0]
        target = f"127.0.0.1:{handle.port}"
        one_probe = await blocking(_checks, target, 100, every(3.0))      # one probe, every 3 s
        flood = await blocking(_checks, target, BURST * 2)                 # a flood empties the bucket ...
        after_flood = await blocking(_checks, target, 50, every(3.0))      # ... the next probe is answered
        # Eight probes on one node (a balancer, the kubelet, a metrics agent...), each every second.
        crowd = await blocking(_checks, target, 8 * 60, every(1.0 / 8))
        return one_probe, flood, after_flood, crowd

    # No wait allowed (max wait 0): a Check beyond the pace is refused, so "never refused" is "never even held".
    one_probe, flood, after_flood, crowd = serve(director, health_checks_max_wait_s=0.0)
    assert one_probe == [SERVING] * 100
    assert any(isinstance(status, tuple) for status in flood)
    assert after_flood == [SERVING] * 50
    assert crowd == [SERVING] * (8 * 60)


def test_the_check_pace_settings_refuse_nonsense():
    from arena.server.config import ConfigError, ServerConfig

    for field, value in (("health_checks_per_second", float("nan")), ("health_checks_per_second", 0.0),
                         ("health_checks_per_second", -3.0), ("health_checks_burst", 0), ("health_checks_burst", -1),
                         ("health_checks_max_wait_s", float("nan")), ("health_checks_max_wait_s", -1.0)):
        with pytest.raises(ConfigError, match=f"{field} must be"):
            ServerConfig(**{field: value}).validate()
