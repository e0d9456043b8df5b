"""Floods that need no seat, against a running arena: games finished while they last, against quiet windows.

    mkdir -p /tmp/f
    arena serve --port 50051 --game ddmau --demo --plain --db /tmp/f/arena.db --replays /tmp/f/replays &
    arena bots add atk --db /tmp/f/arena.db            # for --token (the known-token Hello flood)
    python scripts/bench_reader_floods.py --address 127.0.0.1:50051 --pid $! --name atk --token TOKEN

Each flood runs between two quiet windows of the same length, on the same arena, and prints the games
finished in each window (from ListGames), the server's CPU seconds (/proc/PID/stat) and the ratio of
flooded to the mean of the two quiet ones:

* ``watchers``: many Spectate streams opened on the running games (never read by the caller: grpc's
  core reads them), each costing the games' loop a write per event;
* ``hellos``: Hello after Hello with a registered bot's own token (a known token skips the failure
  limits), each answered at once with DUPLICATE_SESSION;
* ``standings``: GetStandings back to back from several client threads.

arena/server/README.md ("Threat model") has the figures before and after the budgets that bound them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import threading
import time

import grpc

from mau_arena_sdk.wire import pb, rpc


def server_cpu(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def finished(stub) -> set[str]:
    """The finished games the arena lists (its most recent 500: far more than a window finishes)."""
    while True:
        try:
            games = stub.ListGames(pb.ListGamesRequest(limit=1000), timeout=10).games
            return {g.game_id for g in games if g.status == "finished"}
        except grpc.RpcError:  # paced, or refused: this script's own reads count against its address too
            time.sleep(0.1)


def window(stub, pid: int, seconds: float) -> tuple[int, float]:
    games, cpu = finished(stub), server_cpu(pid)
    time.sleep(seconds)
    return len(finished(stub) - games), server_cpu(pid) - cpu


def watchers(address: str, count: int, stop: threading.Event) -> None:
    channels = [grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(10)]
    running = [g.game_id for g in rpc.ArenaStub(channels[0]).ListGames(pb.ListGamesRequest(live_only=True)).games]
    calls = [rpc.ArenaStub(channels[i % 10]).Spectate(pb.SpectateRequest(game_id=running[i % len(running)]))
             for i in range(count if running else 0)]
    stop.wait()
    for call in calls:
        call.cancel()


def hellos(address: str, count: int, stop: threading.Event, name: str, token: str) -> None:
    async def one(channel):
        call = rpc.ArenaStub(channel).Play()
        await call.write(pb.BotMessage(hello=pb.Hello(name=name, token=token, sdk_version="0.1.0")))
        await call.read()
        call.cancel()

    async def main():
        channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(8)]

        async def worker(i):
            while not stop.is_set():
                try:
                    await one(channels[i % 8])
                except Exception:
                    await asyncio.sleep(0.01)

        await asyncio.gather(*(worker(i) for i in range(count)))

    asyncio.run(main())


def standings(address: str, count: int, stop: threading.Event) -> None:
    def worker():
        stub = rpc.ArenaStub(grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]))
        while not stop.is_set():
            try:
                stub.GetStandings(pb.StandingsRequest(), timeout=30)
            except grpc.RpcError:
                pass

    threads = [threading.Thread(target=worker) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True)
    parser.add_argument("--pid", type=int, required=True, help="the arena serve process (for its CPU time)")
    parser.add_argument("--seconds", type=float, default=20.0, help="each window")
    parser.add_argument("--name", default="", help="a registered bot (the hellos flood; skipped without)")
    parser.add_argument("--token", default="")
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--hellos", type=int, default=200)
    parser.add_argument("--standings", type=int, default=16)
    args = parser.parse_args()
    stub = rpc.ArenaStub(grpc.insecure_channel(args.address))
    floods = [("watchers", lambda stop: watchers(args.address, args.watchers, stop)),
              ("standings", lambda stop: standings(args.address, args.standings, stop))]
    if args.name:
        floods.append(("hellos", lambda stop: hellos(args.address, args.hellos, stop, args.name, args.token)))
    print(f"{'flood':10} {'quiet':>12} {'flooded':>12} {'quiet':>12} {'ratio':>6}   (games, server CPU s)")
    for name, flood in floods:
        before = window(stub, args.pid, args.seconds)
        stop = threading.Event()
        thread = threading.Thread(target=flood, args=(stop,))
        thread.start()
        time.sleep(2.0)  # the flood under way before its window starts
        during = window(stub, args.pid, args.seconds)
        stop.set()
        thread.join()
        after = window(stub, args.pid, args.seconds)
        quiet = (before[0] + after[0]) / 2
        ratio = during[0] / quiet if quiet else float("nan")
        cells = " ".join(f"{g:5d} {c:6.2f}" for g, c in (before, during, after))
        print(f"{name:10} {cells} {ratio:6.2f}", flush=True)


if __name__ == "__main__":
    main()
