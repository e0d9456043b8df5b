"""The attack: Play streams from one address whose Hello is refused before any token check, back to back.

A bad name, an unsupported version or a first message that is not a Hello is refused (BAD_HELLO,
UNSUPPORTED_VERSION) before the authenticator is asked, so the limit on refused tokens never applied:
a red-team run sent 527 bad Hellos a second from 16 clients on one address, and the games' loop lag
went from 40 to 100 ms (p99).  Now those refusals fill a bucket per address
(`arena.server.hellopace.RefusedHellos`); while it is empty, a new Play stream from that address is
refused at once (RESOURCE_EXHAUSTED) before its Hello is read.  Good Hellos take nothing from it, a
bot whose author fixed a typo gets in once one refusal's worth has refilled, and another address has
its own bucket.

The bucket's clock is the test's (it stands still until the test moves it), so what is refused never
depends on how fast the machine runs.  The second address is the IPv6 loopback: the server listens on
``localhost`` (127.0.0.1 and ::1, two budget keys).
"""

from __future__ import annotations

import queue
from typing import Any

import grpc
import pytest

from mau_arena_sdk.wire import pb
from server_helpers import PLAY, RawBot, blocking, hello, ipv6_loopback, serve, until

BURST = 5
PER_SECOND = 0.01  # one refusal's worth refills in 100 s of the bucket's clock
HELD = 2



pytestmark = pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback (::1): no second client address")


def _first_replies(target: str, streams: list[list[Any]]) -> list[tuple[str, str]]:
    """One Play stream per entry (its messages sent, the stream kept open; None: close it after them); each
    stream's first answer: ("welcome", name), ("error", code name), or ("status", status code name)."""
    out = []
    with grpc.insecure_channel(target) as channel:
        play = channel.stream_stream(PLAY, request_serializer=lambda m: m if isinstance(m, bytes) else
                                     m.SerializeToString(), response_deserializer=pb.ArenaMessage.FromString)
        for messages in streams:
            outbox: queue.Queue = queue.Queue()
            for message in messages:
                outbox.put(message)
            call = play(iter(outbox.get, None))
            try:
                first = next(call)
                kind = first.WhichOneof("kind")
                out.append(("error", pb.Error.Code.Name(first.error.code)) if kind == "error" else (kind, "ok"))
            except grpc.RpcError as error:
                out.append(("status", error.code().name, error.details()))
            except StopIteration:
                out.append(("ended", ""))
            call.cancel()
    return out


def test_bad_hellos_from_one_address_are_held_then_refused_unread_beyond_their_bucket_and_a_fixed_bot_gets_in():
    now = [0.0]
    address = "ipv4:127.0.0.1"

    async def director(handle):
        refused = handle.refused_hellos
        refused.pace.clock = lambda: now[0]  # stands still: an empty bucket stays empty (a hold: 100 s)
        v4, v6 = f"127.0.0.1:{handle.port}", f"[::1]:{handle.port}"
        flood = await blocking(_first_replies, v4, [[hello("!bad")]] * BURST)
        # The bucket is empty: the next streams are held before their Hello is read, two at most ...
        held = [RawBot(handle.port, hello("!bad")) for _ in range(HELD)]
        await until(lambda: refused.held.held_by(address) == HELD)
        # ... and beyond those, refused at once: a stream that never says Hello too, so nothing is read.
        beyond = await blocking(_first_replies, v4, [[hello("!bad")]] * 30 + [[]])
        fixed_too_soon = await blocking(_first_replies, v4, [[hello("fixed")]])
        elsewhere = await blocking(_first_replies, v6, [[hello("!bad")], [hello("other")]])
        now[0] += 1 / PER_SECOND  # one refusal's worth comes back
        fixed = await blocking(_first_replies, v4, [[hello("fixed")]])
        for bot in held:
            await blocking(bot.close)
        await until(lambda: refused.held.held == 0)  # a held stream's place comes back when it ends
        return flood, beyond, fixed_too_soon, elsewhere, fixed

    flood, beyond, fixed_too_soon, elsewhere, fixed = serve(
        director, host="localhost", refused_hellos_burst=BURST, refused_hellos_per_second=PER_SECOND,
        refused_hellos_held_per_address=HELD, hello_timeout_s=60.0)
    assert flood == [("error", "BAD_HELLO")] * BURST  # the bucket: told what is wrong, as before
    assert {reply[:2] for reply in beyond} == {("status", "RESOURCE_EXHAUSTED")}, beyond[:3]
    assert "too many refused Hellos from this address" in beyond[0][2] and "try again in 100 s" in beyond[0][2]
    assert fixed_too_soon[0][:2] == ("status", "RESOURCE_EXHAUSTED"), fixed_too_soon  # it cannot be told unread
    assert elsewhere == [("error", "BAD_HELLO"), ("welcome", "ok")]  # another address: its own bucket
    assert fixed == [("welcome", "ok")]


@pytest.mark.parametrize("refused", [
    pytest.param([hello("ok", sdk_version="9.0.0")], id="unsupported-version"),
    pytest.param([pb.BotMessage(answer=pb.Answer(game_id="g"))], id="not-a-hello"),
    pytest.param([b"\xff\xff\xff"], id="undecodable"),
    pytest.param([None], id="closed-before-hello"),
])
def test_every_refusal_before_the_token_check_counts_and_good_hellos_never_do(refused):
    """A flood that varies its refusal (or sends none: a stream closed before its Hello) empties the same
    bucket; many good Hellos from one address take nothing from it."""
    address = "ipv4:127.0.0.1"

    async def director(handle):
        pace = handle.refused_hellos.pace
        pace.clock = lambda: 0.0
        v4 = f"127.0.0.1:{handle.port}"
        good = await blocking(_first_replies, v4, [[hello(f"good{n}")] for n in range(BURST * 3)])
        after_good = pace.free_in_s(address)
        flood = await blocking(_first_replies, v4, [refused] * BURST)
        return good, after_good, flood, pace.free_in_s(address)

    good, after_good, flood, after_flood = serve(director, refused_hellos_burst=BURST,
                                                 refused_hellos_per_second=PER_SECOND, hello_timeout_s=60.0)
    assert good == [("welcome", "ok")] * (BURST * 3) and after_good == 0
    assert all(reply[:2] != ("status", "RESOURCE_EXHAUSTED") for reply in flood), flood
    assert after_flood == pytest.approx(1 / PER_SECOND)  # empty: the next stream would be held


def test_the_refused_hello_settings_refuse_nonsense():
    from arena.server.config import ConfigError, ServerConfig

    for field, value in (("refused_hellos_per_second", float("nan")), ("refused_hellos_per_second", 0.0),
                         ("refused_hellos_per_second", -1.0), ("refused_hellos_burst", 0),
                         ("refused_hellos_held", 0), ("refused_hellos_held_per_address", 0)):
        with pytest.raises(ConfigError, match=f"{field} must be"):
            ServerConfig(**{field: value}).validate()
    ServerConfig(refused_hellos_per_second=float("inf")).validate()  # never refused: a valid, if unwise, choice
