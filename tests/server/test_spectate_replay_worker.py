"""Spectate of an ended game this host no longer holds: rebuilt in the budget's worker process (not the arena's),
a read at its address's pace in proportion to the game's length, a killed worker one clear error, and no worker
left once the server has stopped."""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc

from arena.server.peers import peer_address
from arena.server.replayed import spectator_events
from mau_arena_sdk.wire import pb, rpc
from server_helpers import HANG_GUARD_S, blocking, serve, until
from tests.replay.conftest import record_random_game

BURST = 20


def spectate(port: int, game_id: str) -> tuple:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            return "ok", list(rpc.ArenaStub(channel).Spectate(pb.SpectateRequest(game_id=game_id), timeout=HANG_GUARD_S))
        except grpc.RpcError as error:
            return error.code(), error.details()


def reads_left(port: int) -> int:
    """How many ListGames this address may still call at once (the pace refills nothing while the test runs)."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = rpc.ArenaStub(channel)
        for count in range(BURST + 1):
            try:
                stub.ListGames(pb.ListGamesRequest(limit=1), timeout=HANG_GUARD_S)
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
                return count
    return BURST + 1


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_spectate_of_an_ended_game_is_rebuilt_in_a_worker_a_killed_one_is_one_clear_error_and_none_outlives_the_server(tmp_path):
    texts = {f"old-{n}": record_random_game(tmp_path, "maumau", seed=5 + n, game_id=f"old-{n}").read_bytes()
             for n in range(2)}

    async def director(handle):
        handle.replay_provider = texts.get
        workers = handle.rebuilds.workers
        served = await blocking(spectate, handle.port, "old-0")
        (first,) = workers.pids()
        os.kill(first, signal.SIGSTOP)  # the next rebuild waits in it until the test kills it
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(spectate, handle.port, "old-1")
            await blocking(workers.wait_jobs, 2, HANG_GUARD_S)
            os.kill(first, signal.SIGKILL)
            lost = await blocking(asked.result, HANG_GUARD_S)
        again = await blocking(spectate, handle.port, "old-1")
        return served, first, lost, again, workers.pids()

    served, first, lost, again, pids = serve(director)
    assert served == ("ok", spectator_events(texts["old-0"], "old-0"))
    assert first != os.getpid()
    assert lost[0] == grpc.StatusCode.UNAVAILABLE
    assert lost[1].startswith("the replay worker process was killed by signal 9 while building this answer")
    assert again == ("ok", spectator_events(texts["old-1"], "old-1"))
    assert len(pids) == 1 and pids[0] != first
    assert not alive(first) and not alive(pids[0])  # the server stopped: its worker is gone, not orphaned


def test_spectate_of_an_ended_game_costs_read_turns_in_proportion_to_its_length(tmp_path):
    """A long replay leaves its address fewer reads than a short one; without its turns it cost none."""
    short = record_random_game(tmp_path, "maumau", seed=5, game_id="short", max_decisions=40).read_bytes()
    long = record_random_game(tmp_path, "mose", players=4, seed=1, game_id="long", max_decisions=400).read_bytes()
    left = {}
    for game, text in (("short", short), ("long", long)):
        async def director(handle):
            handle.replay_provider = {game: text}.get
            served = await blocking(spectate, handle.port, game)
            return served, await blocking(reads_left, handle.port)

        served, left[game] = serve(director, reads_burst=BURST, reads_per_second=1e-6, reads_max_wait_s=0)
        assert served[0] == "ok"
    assert left == {"short": BURST - 1, "long": BURST - 8}  # a turn per 50 decisions: 400 cost 8


def test_a_spectate_cancelled_while_its_replay_waits_gives_its_place_back_and_still_owes_its_cost(tmp_path):
    """The attack (red team, session 23): Spectates of ended games cancelled before their rebuild ran kept their
    places in the rebuild budget for good (and paid one turn however long the game).  Now the rebuild goes on,
    its place is given back when it ends, and its address owes the game's whole cost as if it had waited."""
    long = record_random_game(tmp_path, "mose", players=4, seed=1, game_id="long", max_decisions=400).read_bytes()
    gate = threading.Event()

    def provider(game_id):
        assert gate.wait(HANG_GUARD_S)  # the rebuild waits until the client has gone
        return {"long": long}.get(game_id)

    async def director(handle):
        handle.replay_provider = provider
        with grpc.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
            call = rpc.ArenaStub(channel).Spectate(pb.SpectateRequest(game_id="long"), timeout=HANG_GUARD_S)
            await blocking(handle.rebuilds.wait_in_flight, 1, HANG_GUARD_S)
            call.cancel()
            await until(lambda: handle.hub.live.spectators.held == 0)  # the cancellation reached the handler
        gate.set()
        # the rest of its cost (7 turns beyond the first) is charged once the rebuild says how long the game is
        await until(lambda: handle.reads.free_in_s(peer_address("ipv4:127.0.0.1:1"), BURST - 7) > 0)
        budget = handle.rebuilds.in_flight(), handle.rebuilds.built
        return budget, await blocking(spectate, handle.port, "long"), await blocking(reads_left, handle.port)

    budget, served, left = serve(director, reads_burst=BURST, reads_per_second=1e-6, reads_max_wait_s=0)
    assert budget == (0, 1)  # it ran, and its place is free
    assert served == ("ok", spectator_events(long, "long"))  # the next reader gets it, from memory
    assert left == BURST - 16  # 8 turns for the cancelled call, 8 for the one served


def test_a_game_that_finished_too_long_ago_to_keep_its_events_is_spectated_in_full_from_its_replay(tmp_path):
    """A game beyond ``spectate_finished_kept`` keeps only its final event here (ListGames still lists it): Spectate
    serves it from its replay, as it does a game no longer listed, not just that final event.  Without a replay
    (the provider has none), the final event it kept is what there is."""
    text = record_random_game(tmp_path, "maumau", seed=5, game_id="trimmed").read_bytes()

    class State:
        def observation(self, seat):
            return {"ruleset": "maumau", "seat": None, "seat_count": 2, "hand": None}

    async def director(handle):
        handle.replay_provider = {"trimmed": text}.get
        live = handle.hub.live
        for game_id in ("trimmed", "no-replay", "newer"):  # played here, each step published, then finished
            game = live.start(game_id, "maumau", ["a", "b"])
            live.record(game, 0, None, "", State())
            live.record(game, 1, 0, "draw", State())
            live.finish(game, status="aborted")
        kept = [len(live.get(g).events) for g in ("trimmed", "no-replay", "newer")]
        return (kept, await blocking(spectate, handle.port, "trimmed"),
                await blocking(spectate, handle.port, "no-replay"))

    kept, trimmed, no_replay = serve(director, spectate_finished_kept=1)
    assert kept == [1, 1, 3]  # the two older games kept only their final event
    assert trimmed == ("ok", spectator_events(text, "trimmed"))
    assert len(trimmed[1]) > 10  # its whole game, not its final event
    assert no_replay[0] == "ok" and [e.ended.reason for e in no_replay[1]] == ["aborted"]
