"""The attack: watch the running games with many streams, so every decision costs the games' loop a write per stream.

Spectate needs no Hello and no token.  Each watching stream is sent every
event of the game it watches (one write on the loop the games run on, tens of
µs), and a new stream first gets the whole backlog.  Unbounded, one client
that opened 1,000 Spectate streams on the running games of a ladder (`arena
serve --game ddmau --demo`) cut the games finished in 20 s from 113 to 2.  Now the watching streams are a budget
(`arena.server.live.Spectators`): at most `spectators_per_address` from one
address and `max_spectators` in all; a stream beyond either is refused at once
with RESOURCE_EXHAUSTED, a place comes back when its stream ends, and the
game being watched plays on.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import grpc
import trio

from arena.match.timecontrol import TimeControl
from arena.server.live import SPECTATORS_PER_ADDRESS
from server_helpers import AutoBot, blocking, serve, until
from mau_arena_sdk.wire import pb, rpc

CONTROL = TimeControl(move_ms=5000, bank_ms=5000, increment_ms=0, first_move_ms=5000, max_strikes=3,
                      reconnect_ms=3000)


def _first_event(call) -> "pb.SpectatorEvent | tuple":
    """The stream's first event, or (status, details) if the arena refused it."""
    try:
        return next(call)
    except grpc.RpcError as error:
        return error.code(), error.details()


def _watch_a_held_game(streams: int, **config):
    """Open ``streams`` Spectate calls at once on a game that waits for its bots; then free one place and
    open one more; then let the game finish.  Returns what each call got first, what the later one got,
    the game's outcome and the places held at the end."""

    async def director(handle):
        bots = [AutoBot(handle.port, name, seed=i, held=True) for i, name in enumerate(("alice", "bob"))]
        await handle.wait_for_sessions(["alice", "bob"], timeout_s=10)
        spectators = handle.hub.live.spectators
        channel = grpc.insecure_channel(f"127.0.0.1:{handle.port}")
        stub = rpc.ArenaStub(channel)
        outcome = []
        async with trio.open_nursery() as nursery:
            async def play():
                outcome.append(await handle.play_game("maumau", {}, 7, ["alice", "bob"], CONTROL, None, "long"))

            nursery.start_soon(play)
            await until(lambda: handle.games(live_only=True))
            calls = [stub.Spectate(pb.SpectateRequest(game_id="long")) for _ in range(streams)]
            with ThreadPoolExecutor(streams) as pool:
                firsts = [await blocking(f.result, 20) for f in [pool.submit(_first_event, c) for c in calls]]
            held_at_most = spectators.held
            watching = [c for c, first in zip(calls, firsts) if isinstance(first, pb.SpectatorEvent)]
            watching[0].cancel()  # one watcher goes away: its place is free again
            await until(lambda: spectators.held == held_at_most - 1)
            later = stub.Spectate(pb.SpectateRequest(game_id="long"))
            again = await blocking(_first_event, later)
            for bot in bots:
                bot.may_answer.set()
            for bot in bots:
                await blocking(bot.wait)
        ended = [await blocking(lambda c=c: list(c)[-1]) for c in [*watching[1:], later]]
        await until(lambda: spectators.held == 0)
        channel.close()
        return firsts, held_at_most, again, outcome[0], ended, spectators.held

    return serve(director, **config)


def test_one_address_holds_at_most_its_share_of_watching_streams_and_the_game_plays_on():
    firsts, held, again, outcome, ended, left = _watch_a_held_game(SPECTATORS_PER_ADDRESS + 3)
    admitted = [f for f in firsts if isinstance(f, pb.SpectatorEvent)]
    refused = [f for f in firsts if not isinstance(f, pb.SpectatorEvent)]
    assert len(admitted) == SPECTATORS_PER_ADDRESS and held == SPECTATORS_PER_ADDRESS
    assert all(event.index == 0 and event.game_id == "long" for event in admitted)
    assert len(refused) == 3 and {code for code, _ in refused} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert all("this address already watches" in details for _, details in refused)
    assert isinstance(again, pb.SpectatorEvent) and again.index == 0  # the freed place is taken again
    assert outcome.status == "finished" and all(s.timeouts == 0 for s in outcome.seats)
    assert all(event.HasField("ended") for event in ended) and left == 0


def test_the_watching_streams_of_all_addresses_together_are_bounded_too():
    firsts, held, again, outcome, ended, left = _watch_a_held_game(4, max_spectators=2, spectators_per_address=10)
    refused = [f for f in firsts if not isinstance(f, pb.SpectatorEvent)]
    assert held == 2 and len(refused) == 2
    assert all(code == grpc.StatusCode.RESOURCE_EXHAUSTED and "games are being watched" in details
               for code, details in refused)
    assert isinstance(again, pb.SpectatorEvent) and outcome.status == "finished" and left == 0
