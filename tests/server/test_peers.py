"""The per-address budgets count an IPv6 client by its /64 (`arena.server.peers`).

The attack: an IPv6 host may take a new source address from its /64 for every
connection.  Counted whole, each address was a fresh budget, so one such
client could have every wrong token hashed, watch any number of games and
ask read-only calls without pace.  The peer strings below are what gRPC's
``context.peer()`` gives (brackets percent-encoded), checked against a real
call over ``[::1]`` first.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc import aio

from arena.server.authgate import AuthGate
from arena.server.config import ServerConfig
from arena.server.hello import HelloRefused
from arena.server.live import Spectators
from arena.server.streambudget import Crowded
from arena.server.peers import address_key, peer_address
from arena.server.readpace import ReadPace


def rotating(count: int, network: str = "2001:db8:1:2") -> list[str]:
    """gRPC peer strings of ``count`` different addresses in one /64, each from its own port."""
    return [f"ipv6:%5B{network}:{n:x}:{n * 7:x}:{n * 13:x}:1%5D:{40000 + n}" for n in range(1, count + 1)]


def test_the_peer_strings_are_grpcs_own():
    """The form parsed here is the one a real server sees for an IPv6 loopback client."""

    async def call_over_ipv6() -> str:
        seen: list[str] = []

        async def handler(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            seen.append(context.peer())
            return b""

        server = aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            "probe.Probe", {"Call": grpc.unary_unary_rpc_method_handler(handler)}),))
        try:
            port = server.add_insecure_port("[::1]:0")
        except RuntimeError:
            pytest.skip("no IPv6 loopback on this machine (::1); the keys are still checked below")
        await server.start()
        try:
            async with aio.insecure_channel(f"[::1]:{port}") as channel:
                await channel.unary_unary("/probe.Probe/Call")(b"")
        finally:
            await server.stop(None)
        return seen[0]

    peer = asyncio.run(call_over_ipv6())
    assert peer.startswith("ipv6:%5B::1%5D:"), peer
    assert peer_address(peer) == "ipv6:::/64"


@pytest.mark.parametrize("peer, key", [
    ("ipv4:192.0.2.1:50312", "ipv4:192.0.2.1"),
    ("ipv6:%5B2001:db8:1:2::7%5D:5", "ipv6:2001:db8:1:2::/64"),
    ("ipv6:[2001:db8:1:2:ffff:1:2:3]:443", "ipv6:2001:db8:1:2::/64"),
    ("ipv6:%5B2001:db8:1:3::7%5D:5", "ipv6:2001:db8:1:3::/64"),        # the next /64 is another client
    ("ipv6:%5B::ffff:192.0.2.1%5D:5", "ipv4:192.0.2.1"),              # IPv4 on a dual-stack socket
    ("ipv6:%5Bfe80::1%25eth0%5D:5", "ipv6:fe80::/64"),                # a zone does not split the count
    ("unix:/run/arena.sock", "unix:/run/arena.sock"),
    ("ipv4:not-an-address:5", "not-an-address"),
    ("", ""),
])
def test_peer_keys(peer, key):
    assert peer_address(peer) == key


def test_the_web_view_and_grpc_give_one_client_one_key():
    assert address_key("2001:db8:1:2::9") == peer_address("ipv6:%5B2001:db8:1:2::7%5D:5")
    assert address_key("192.0.2.1") == peer_address("ipv4:192.0.2.1:9")
    assert address_key("::ffff:192.0.2.1") == "ipv4:192.0.2.1"
    assert address_key("testclient") == "testclient"  # not an address: its own key


def test_wrong_tokens_from_a_rotating_ipv6_address_cost_one_addresses_hashes():
    """Each guess for a different name from a different address of one /64: counted whole, every one was
    hashed (60 here); counted by /64, the address's limit cuts the flood off after its 10."""
    calls: list[str] = []
    config = ServerConfig(authenticator=lambda name, token, peer: calls.append(name) or "wrong token")
    gate = AuthGate(config, clock=lambda: 0.0)

    async def flood() -> list[str]:
        gate.refusal_delay_s = 0  # answer refusals at once (the delay is the server's pace, not the rule)
        codes = []
        for n, peer in enumerate(rotating(60)):
            try:
                await gate.check(f"bot{n}", "guess", peer)
                codes.append("admitted")
            except HelloRefused as refused:
                codes.append(refused.code)
        return codes

    codes = asyncio.run(flood())
    gate.close()
    assert set(codes) == {"AUTH_FAILED"}
    assert len(calls) == config.auth_failures_per_address == 10
    # Another /64 is another client, with its own budget.
    other = AuthGate(config, clock=lambda: 0.0)
    other.refusal_delay_s = 0

    async def one(peer: str) -> None:
        with pytest.raises(HelloRefused):
            await other.check("fresh", "guess", peer)

    asyncio.run(one(rotating(1, network="2001:db8:9:9")[0]))
    other.close()
    assert len(calls) == 11


def test_watching_streams_from_a_rotating_ipv6_address_share_one_addresses_budget():
    spectators = Spectators(total=64, per_address=4)
    peers = rotating(5)
    for peer in peers[:4]:
        spectators.enter(peer_address(peer))
    with pytest.raises(Crowded, match="already watches 4"):
        spectators.enter(peer_address(peers[4]))
    spectators.enter(peer_address(rotating(1, network="2001:db8:9:9")[0]))  # another client still may


def test_read_only_calls_from_a_rotating_ipv6_address_are_held_to_one_addresses_pace():
    pace = ReadPace(per_second=10, burst=40, max_wait_s=5, clock=lambda: 0.0)
    turns = [pace.turn_s(peer_address(peer)) for peer in rotating(200)]
    assert turns[:40] == [0.0] * 40            # the burst
    assert all(t and t > 0 for t in turns[40:90])  # then each waits its turn (10 a second, up to 5 s)
    assert turns[90:] == [None] * 110           # and beyond 5 s of waiting, refused
