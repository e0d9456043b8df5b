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
* ``standings``: GetStandings back to back from several client threads;
* ``checks``: health ``Check`` back to back from 16 asyncio callers;
* ``badhellos``: Play streams whose Hello has a bad name (refused BAD_HELLO before any token check), back
  to back from 16 asyncio callers.

Each window also prints the round trips of a health ``Check`` asked 8 times a second (p50/p99 ms): a
probe of the games' loop, which answers it.  Give ``--probe`` another address of the same server (start
it with ``--host localhost`` and probe ``[::1]:PORT``) so that the probe and the games count are not
paced with the flood's address; ``--floods checks,badhellos`` runs only those.

arena/server/README.md ("Threat model") has the figures before and after the budgets that bound them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import threading
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from flood_server import probe
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


def window(stub, pid: int, seconds: float, probe_address: str) -> tuple[int, float, float, float]:
    """Games finished, server CPU seconds, and the probe's p50 and p99 round trips (ms) in one window."""
    games, cpu = finished(stub), server_cpu(pid)
    stop, rtts = threading.Event(), []
    thread = threading.Thread(target=probe, args=(probe_address, stop, rtts))
    thread.start()
    time.sleep(seconds)
    stop.set()
    thread.join()
    cuts = statistics.quantiles(rtts, n=100) if len(rtts) > 1 else [float("nan")] * 99
    return len(finished(stub) - games), server_cpu(pid) - cpu, cuts[49], cuts[98]


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


def unpaced(address: str, count: int, stop: threading.Event, kind: str) -> None:
    """``count`` asyncio callers asking one call back to back: a health Check, or a Play stream whose Hello
    has a bad name (read its refusal, then cancel)."""

    async def main():
        channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(4)]

        async def worker(i):
            channel = channels[i % 4]
            health, arena = health_pb2_grpc.HealthStub(channel), rpc.ArenaStub(channel)
            while not stop.is_set():
                try:
                    if kind == "checks":
                        await health.Check(health_pb2.HealthCheckRequest(), timeout=10)
                    else:
                        call = arena.Play()
                        await call.write(pb.BotMessage(hello=pb.Hello(name="!bad", sdk_version="0.1.0")))
                        await call.read()
                        call.cancel()
                except grpc.RpcError:
                    pass
                except Exception:
                    await asyncio.sleep(0.001)

        await asyncio.gather(*(worker(i) for i in range(count)))

    asyncio.run(main())


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
    parser.add_argument("--callers", type=int, default=16, help="the checks and badhellos floods' callers")
    parser.add_argument("--probe", default="", help="the loop probe's and the games count's address (default --address)")
    parser.add_argument("--floods", default="", help="comma-separated: which floods to run (default all)")
    args = parser.parse_args()
    probe_address = args.probe or args.address
    stub = rpc.ArenaStub(grpc.insecure_channel(probe_address))
    floods = [("watchers", lambda stop: watchers(args.address, args.watchers, stop)),
              ("standings", lambda stop: standings(args.address, args.standings, stop)),
              ("checks", lambda stop: unpaced(args.address, args.callers, stop, "checks")),
              ("badhellos", lambda stop: unpaced(args.address, args.callers, stop, "badhellos"))]
    if args.name:
        floods.append(("hellos", lambda stop: hellos(args.address, args.hellos, stop, args.name, args.token)))
    if args.floods:
        wanted = args.floods.split(",")
        floods = [(name, flood) for name, flood in floods if name in wanted]
    print(f"{'flood':10} {'quiet':>24} {'flooded':>24} {'quiet':>24} {'ratio':>6}   "
          "(games, server CPU s, probe p50/p99 ms)")
    for name, flood in floods:
        before = window(stub, args.pid, args.seconds, probe_address)
        stop = threading.Event()
        thread = threading.Thread(target=flood, args=(stop,))
        thread.start()
        time.sleep(2.0)  # the flood under way before its window starts
        during = window(stub, args.pid, args.seconds, probe_address)
        stop.set()
        thread.join()
        after = window(stub, args.pid, args.seconds, probe_address)
        quiet = (before[0] + after[0]) / 2
        ratio = during[0] / quiet if quiet else float("nan")
        cells = " ".join(f"{g:5d} {c:6.2f} {p50:4.1f}/{p99:5.1f}" for g, c, p50, p99 in (before, during, after))
        print(f"{name:10} {cells} {ratio:6.2f}", flush=True)


if __name__ == "__main__":
    main()
