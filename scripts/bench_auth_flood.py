"""What a flood of wrong tokens costs a running ladder (issue 12, item 6).

    python scripts/bench_auth_flood.py [--seconds 30] [--flood 60] [--repeat 1] [--tree PATH]

Starts ``arena serve --demo --move-ms 200 --bank-ms 1000 --concurrency 8`` (open
registration; one more bot, ``regbot``, registered with a token, so that a wrong token
costs the ladder's scrypt check) from this tree, or from ``--tree`` (for instance an
export of another commit, for a before/after in the same run).  After a warm-up it
measures finished games per minute in three windows of ``--seconds``: undisturbed,
then while ``--flood`` clients send Hellos as ``regbot`` with wrong tokens as fast as
the server answers them (each client: open a stream, Hello, read the answer, again),
then undisturbed again.  Prints the rates and the flooded one's ratio to the mean of
the two undisturbed ones around it (target: at least 0.80), the server's
resident memory before the flood and at its peak during it (target: at most 30 MB
more), and what the flood got back.

The machine's load moves game rates by 2x on its own (see arena/server/README.md):
the reference windows are measured in the same run, right before and after the flood,
and the load average is printed.  Run it a few times.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import multiprocessing
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def finished_games(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as connection:
            return connection.execute("SELECT COUNT(*) FROM games WHERE status = 'finished'").fetchone()[0]
    except sqlite3.Error:
        return 0


def flood(port: int, clients: int, seconds: float, results: "multiprocessing.Queue") -> None:
    """Clients sending wrong-token Hellos for ``seconds``; puts a Counter of the answers."""
    import grpc

    from mau_arena_sdk.wire import pb, rpc

    counts: collections.Counter = collections.Counter()

    async def client(stub, index: int, until: float) -> None:
        attempt = 0
        while time.monotonic() < until:
            attempt += 1
            call = stub.Play()
            try:
                await call.write(pb.BotMessage(hello=pb.Hello(
                    name="regbot", token=f"wrong-{index}-{attempt}", sdk_version="0.2.0")))
                message = await asyncio.wait_for(call.read(), 30)
                if message is grpc.aio.EOF:
                    counts["ended"] += 1
                elif message.WhichOneof("kind") == "error":
                    error = message.error
                    key = pb.Error.Code.Name(error.code)
                    if "wrong token" in error.message:
                        key += " (checked: wrong token)"
                    elif "too many" in error.message:
                        key += " (not checked)"
                    counts[key] += 1
                else:
                    counts[message.WhichOneof("kind")] += 1
            except (grpc.RpcError, asyncio.TimeoutError) as error:
                counts[type(error).__name__] += 1
            finally:
                call.cancel()

    async def main() -> None:
        until = time.monotonic() + seconds
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for _ in range(4)]
        stubs = [rpc.ArenaStub(channel) for channel in channels]
        await asyncio.gather(*(client(stubs[i % 4], i, until) for i in range(clients)))
        for channel in channels:
            await channel.close()

    asyncio.run(main())
    results.put(counts)


def window(server: subprocess.Popen, db: Path, seconds: float) -> tuple[float, float, float]:
    """(games per minute, RSS at the start, peak RSS) over ``seconds``."""
    start_games, start_rss, peak = finished_games(db), rss_mb(server.pid), 0.0
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        peak = max(peak, rss_mb(server.pid))
        time.sleep(0.2)
    took = time.monotonic() - started
    return (finished_games(db) - start_games) * 60 / took, start_rss, max(peak, rss_mb(server.pid))


def run_once(args, tree: Path, label: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="auth-flood-") as scratch:
        scratch = Path(scratch)
        db = scratch / "ladder.db"
        env = {**os.environ, "PYTHONPATH": str(tree)}
        register = (
            "import sys; from arena.ladder.store import LadderStore; "
            "s = LadderStore.open(sys.argv[1]); s.add_bot('regbot', 'the-right-token'); s.close()"
        )
        subprocess.run([sys.executable, "-c", register, str(db)], env=env, check=True, cwd=tree)
        port = free_port()
        command = [
            sys.executable, "-m", "arena", "serve", "--demo", "--plain", "--summary-every", "3600",
            "--port", str(port), "--db", str(db), "--replays", str(scratch / "replays"),
            "--move-ms", "200", "--bank-ms", "1000", "--concurrency", "8",
        ] + (["--game", args.game] if args.game else [])
        server = subprocess.Popen(command, env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while finished_games(db) < 4:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{label}: the ladder did not start playing: {server.stderr.read().decode()[-500:]}")
                time.sleep(0.2)
            time.sleep(args.warmup)
            load_before = os.getloadavg()[0]
            quiet, rss_before, quiet_peak = window(server, db, args.seconds)
            results: multiprocessing.Queue = multiprocessing.get_context("spawn").Queue()
            flooder = multiprocessing.get_context("spawn").Process(
                target=flood, args=(port, args.flood, args.seconds, results))
            flooder.start()
            flooded, rss_flood_start, flood_peak = window(server, db, args.seconds)
            counts = results.get(timeout=120)
            flooder.join(30)
            after, _, _ = window(server, db, args.seconds)
            load_after = os.getloadavg()[0]
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
    return {
        "label": label, "quiet": quiet, "flooded": flooded, "after": after, "rss_before": rss_before,
        "rss_quiet_peak": quiet_peak, "rss_flood_peak": flood_peak, "counts": counts,
        "load": (load_before, load_after),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each window (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of play before measuring (default 5)")
    parser.add_argument("--flood", type=int, default=60, help="flooding clients at once (default 60)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per tree (default 1)")
    parser.add_argument("--game", default="moumou", help="ruleset the ladder schedules (default moumou; '' for all)")
    parser.add_argument("--tree", type=Path, action="append",
                        help="a source tree to run the server from (repeatable; default: this one)")
    args = parser.parse_args()
    if args.seconds <= 0 or args.flood < 1 or args.repeat < 1:
        parser.error("--seconds, --flood and --repeat must be positive")
    trees = args.tree or [ROOT]
    for tree in trees:
        if not (tree / "arena" / "__main__.py").is_file():
            parser.error(f"--tree {tree}: not an arena source tree")
    print(f"{args.flood} flooding clients, windows of {args.seconds:g} s, ladder: --move-ms 200 --bank-ms 1000 "
          f"--concurrency 8 --game {args.game or '(all)'}", flush=True)
    header = (f"{'tree':<24} {'before':>7} {'flood':>7} {'after':>7} {'ratio':>6} "
              f"{'RSS MB':>7} {'peak':>7} {'growth':>7}  load")
    print(header)
    for attempt in range(args.repeat):
        for tree in trees:
            r = run_once(args, tree, str(tree))
            reference = (r["quiet"] + r["after"]) / 2
            ratio = r["flooded"] / reference if reference else float("nan")
            growth = r["rss_flood_peak"] - max(r["rss_before"], r["rss_quiet_peak"])
            print(f"{str(tree)[-24:]:<24} {r['quiet']:>7.0f} {r['flooded']:>7.0f} {r['after']:>7.0f} {ratio:>6.2f} "
                  f"{r['rss_before']:>7.1f} {r['rss_flood_peak']:>7.1f} {growth:>+7.1f}  "
                  f"{r['load'][0]:.1f}->{r['load'][1]:.1f}", flush=True)
            total = sum(r["counts"].values())
            answers = ", ".join(f"{key} {count}" for key, count in r["counts"].most_common())
            print(f"    flood: {total} Hellos ({total / args.seconds:.0f}/s): {answers}", flush=True)
    print("games per minute in three windows: before, during and after the flood; ratio = during / mean of "
          "before and after\ntargets: ratio >= 0.80, growth <= 30 MB (growth: flood peak minus the larger of the "
          "quiet window's start and peak)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
