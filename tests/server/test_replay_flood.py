"""The attack: flood Spectate with requests for ended games, each of which costs a whole re-simulation.

A reader is anyone who can reach the server.  Before the rebuild budget every
request re-simulated its game at once on a shared worker thread, without bound
and without memory: a client could keep the CPU (and, through the GIL, the
loop that answers the bots) busy for as long as it liked.  Now a request beyond
the budget is refused at once, one address holds at most its share of the
budget (`PER_READER` of its slots: the rest stay for other readers), a game is
rebuilt once however many ask, and the games being played go on beside the
flood.  (The budget's global bound against many addresses is shown with the
web's X-Forwarded-For in tests/web/test_web_api.py and in tests/replay/test_rebuilds.py.)
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
import trio

from arena.match.timecontrol import TimeControl
from arena.rebuilds import PER_READER, RUNNING, WAITING
from arena.server.replayed import spectator_events
from server_helpers import AutoBot, blocking, serve
from mau_arena_sdk.wire import pb, rpc
from tests.replay.conftest import record_random_game

FLOOD = 40
CONTROL = TimeControl(move_ms=2000, bank_ms=2000, increment_ms=0, first_move_ms=2000, max_strikes=3,
                      reconnect_ms=3000)


def test_a_spectate_flood_for_ended_games_is_refused_beyond_the_budget_and_the_games_play_on(toy, tmp_path):
    text = record_random_game(tmp_path, "maumau", seed=5).read_bytes()
    database_answers = threading.Event()  # the provider (a database fetch) is held until the flood is in
    fetched: list[str] = []

    def provider(game_id):
        fetched.append(game_id)
        assert database_answers.wait(30)
        return text

    def spectate(port, game_id):
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            try:
                return "ok", list(rpc.ArenaStub(channel).Spectate(pb.SpectateRequest(game_id=game_id), timeout=30))
            except grpc.RpcError as error:
                return error.code(), error.details()

    async def wait_until(condition, seconds=20):
        with trio.fail_after(seconds):
            while not condition():
                await trio.sleep(0.01)

    async def director(handle):
        handle.replay_provider = provider
        flooders = ThreadPoolExecutor(FLOOD)
        flood = [flooders.submit(spectate, handle.port, f"old-{i}") for i in range(FLOOD)]
        admitted = PER_READER  # one address: its share, not the whole line
        assert PER_READER < RUNNING + WAITING
        await wait_until(lambda: sum(f.done() for f in flood) >= FLOOD - admitted)
        refused = [f.result() for f in flood if f.done()]
        in_flight = handle.rebuilds.in_flight()
        # While the admitted rebuilds wait on the database, two bots play a whole game here.
        bots = [AutoBot(handle.port, name, seed=i) for i, name in enumerate(("alice", "bob"))]
        await handle.wait_for_sessions(["alice", "bob"], timeout_s=10)
        control = await handle.play_game(toy, {"hand": 6}, 3, ["alice", "bob"], CONTROL, None, "control")
        for bot in bots:
            await blocking(bot.wait)
        database_answers.set()
        served = [await blocking(f.result, 30) for f in flood]
        built = handle.rebuilds.built
        # The same ended game asked for by the whole flood at once: rebuilt once, or not at all.
        again = [flooders.submit(spectate, handle.port, "old-popular") for _ in range(FLOOD)]
        again = [await blocking(f.result, 30) for f in again]
        flooders.shutdown()
        return refused, in_flight, control, served, built, again, handle.rebuilds.built

    # The watching streams' own budget (tests/server/test_spectator_flood.py) is opened wide here: this
    # flood is about the rebuilds, all from one address.
    refused, in_flight, control, served, built, again, built_after = serve(
        director, max_spectators=2 * FLOOD, spectators_per_address=2 * FLOOD)
    assert len(refused) == FLOOD - PER_READER
    assert {code for code, _ in refused} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert "from your address" in refused[-1][1] and "try again" in refused[-1][1]
    assert in_flight == PER_READER and len(fetched) >= 1
    assert control.status == "finished" and all(s.timeouts == 0 for s in control.seats)
    ok = [(i, events) for i, (code, events) in enumerate(served) if code == "ok"]
    assert len(ok) == PER_READER and built == PER_READER
    for i, events in ok:  # what was served is the game, whole
        assert events == spectator_events(text, f"old-{i}")
    assert [code for code, _ in again] == ["ok"] * FLOOD
    assert all(events == again[0][1] for _, events in again)
    assert built_after == built + 1
