#!/usr/bin/env python3
"""A flood of stale answers from admitted bots in games, against a ladder: its other games while it lasts.

    python scripts/bench_answer_flood.py                 # 4 flooders, 20 s windows
    python scripts/bench_answer_flood.py --flooders 2 --seconds 15 --keep /tmp/flood

Starts `arena serve --port 0 --plain --game moumou,prsi` (loopback, in a temporary folder), four honest
`sample_bots/random_bot.py` on `moumou`, and ``--flooders`` registered attacking sessions on `prsi`
(so they play one another, each with its token, as on a real ladder).  Three windows of ``--seconds``
each: the attackers play honestly, then flood, then play honestly again.  Flooding, a session answers
its turns at once as before and, while it has a request open, sends as fast as it can answers naming
that request with another game's id (each one stale: never applied, and before the budget each cost the
games' loop a wake-up and a notice).  A session whose stream is cut reconnects with its token (the arena
hands it its session back) and goes on.

Prints, per window, the `moumou` games finished (from ListGames), the server's CPU seconds
(/proc/PID/stat) and the ratio of the flooded window's games to the mean of the quiet ones, and the
junk answers sent and the cuts the flooders met.  arena/server/README.md ("Threat model") has the
figures before and after the budget (`bot_session.MAX_STALE_ANSWERS`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mau_arena_sdk.client import SDK_VERSION  # noqa: E402
from mau_arena_sdk.wire import pb, rpc  # noqa: E402

ARENA = [sys.executable, "-m", "arena"]
HONEST = ["h1", "h2", "h3", "h4"]


def server_cpu(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Flooder:
    """One registered session on `prsi`: answers its turns, and floods stale answers while ``flooding``."""

    def __init__(self, address: str, name: str, token: str, run: "Run") -> None:
        self.address, self.name, self.token, self.run = address, name, token, run
        self.sent = 0
        self.cuts: list[str] = []
        self.session = ("", "")  # (id, resume secret) of its Welcome: a reconnect resumes it, as the SDK does

    async def serve(self) -> None:
        async with grpc.aio.insecure_channel(self.address, options=[("grpc.so_reuseport", 0)]) as channel:
            while not self.run.over:
                await self._stream(channel)
                await asyncio.sleep(0.1)

    async def _stream(self, channel) -> None:
        call = rpc.ArenaStub(channel).Play()
        open_turn: list[pb.TurnRequest | None] = [None]
        last_error = [""]
        await call.write(pb.BotMessage(hello=pb.Hello(
            name=self.name, token=self.token, sdk_version=SDK_VERSION, games=["prsi"], max_games=1,
            resume_session=self.session[0], resume_secret=self.session[1])))

        async def read() -> None:
            async for message in call:
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    open_turn[0] = message.turn
                    await call.write(pb.BotMessage(answer=pb.Answer(
                        game_id=message.turn.game_id, request_id=message.turn.request_id, action_index=0,
                        action_text=message.turn.legal[0])))
                elif kind == "game_ended":
                    open_turn[0] = None
                elif kind == "welcome":
                    self.session = (message.welcome.session_id, message.welcome.resume_secret)
                elif kind == "error":
                    last_error[0] = pb.Error.Code.Name(message.error.code)

        reader = asyncio.ensure_future(read())
        try:
            while not reader.done() and not self.run.over:
                turn = open_turn[0]
                if self.run.flooding and turn is not None:
                    junk = pb.BotMessage(answer=pb.Answer(game_id="not-this-game", request_id=turn.request_id))
                    for _ in range(20):
                        await call.write(junk)
                    self.sent += 20
                else:
                    await asyncio.sleep(0.02)
        except (grpc.RpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
            pass  # the stream was cut while writing
        if reader.done() and not self.run.over:  # ended by the arena: the last Error it sent says why
            self.cuts.append(last_error[0] or "no word")
        reader.cancel()
        call.cancel()


class Run:
    over = False
    flooding = False


async def finished_moumou(stub) -> set[str]:
    while True:
        try:
            games = (await stub.ListGames(pb.ListGamesRequest(limit=1000), timeout=10)).games
            return {g.game_id for g in games if g.status == "finished" and g.ruleset == "moumou"}
        except grpc.RpcError:  # paced: this script's reads count against its address too
            await asyncio.sleep(0.1)


async def windows(address: str, pid: int, flooders: list[Flooder], run: Run, seconds: float) -> list[tuple]:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = rpc.ArenaStub(channel)
        tasks = [asyncio.ensure_future(f.serve()) for f in flooders]
        warm, deadline = await finished_moumou(stub), time.monotonic() + 60
        while len(await finished_moumou(stub) - warm) < 10 and time.monotonic() < deadline:
            await asyncio.sleep(0.5)  # the honest bots connected and playing before the first window
        rows = []
        for label, flooding in (("quiet", False), ("flooded", True), ("quiet", False)):
            run.flooding = flooding
            sent = sum(f.sent for f in flooders)
            cuts = sum(len(f.cuts) for f in flooders)
            games, cpu, started = await finished_moumou(stub), server_cpu(pid), time.monotonic()
            await asyncio.sleep(seconds)
            rows.append((label, len(await finished_moumou(stub) - games), server_cpu(pid) - cpu,
                         time.monotonic() - started, sum(f.sent for f in flooders) - sent,
                         sum(len(f.cuts) for f in flooders) - cuts))
            print(f"  {label:8} {rows[-1][1]:5d} moumou games {rows[-1][2]:6.2f} s server CPU "
                  f"{rows[-1][4]:8d} junk answers {rows[-1][5]:3d} cuts", flush=True)
        run.over = True
        await asyncio.gather(*tasks, return_exceptions=True)
        return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="each window (default 20)")
    parser.add_argument("--flooders", type=int, default=4, help="attacking sessions (default 4; at least 2)")
    parser.add_argument("--keep", type=Path, help="keep the run's folder (server output, database) here")
    args = parser.parse_args()
    if args.seconds <= 0 or args.flooders < 2:
        parser.error("--seconds must be positive and --flooders at least 2 (they play one another)")
    folder = Path(tempfile.mkdtemp(prefix="answer-flood-")) if args.keep is None else args.keep
    if (folder / "arena.db").exists():
        parser.error(f"{folder} already holds an arena.db (an earlier run's): give --keep a new or empty folder")
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "arena.db"
    tokens = {}
    for i in range(args.flooders):
        name = f"flood{i}"
        out = subprocess.run([*ARENA, "bots", "add", name, "--db", str(db)], capture_output=True, text=True,
                             check=True, cwd=ROOT).stdout
        tokens[name] = out.splitlines()[1].strip()  # the line after "registered NAME ...: its token"
    log = open(folder / "serve.out", "w")
    server = subprocess.Popen(
        [*ARENA, "serve", "--port", "0", "--plain", "--game", "moumou,prsi", "--db", str(db),
         "--replays", str(folder / "replays"), "--move-ms", "200", "--bank-ms", "1000", "--first-move-ms", "1000",
         "--concurrency", "8", "--summary-every", "3600"],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    bots: list[subprocess.Popen] = []
    try:
        address = None
        deadline = time.monotonic() + 60
        while address is None and time.monotonic() < deadline and server.poll() is None:
            found = re.search(r"listening on (\S+:\d+)", (folder / "serve.out").read_text())
            address = found.group(1) if found else None
            time.sleep(0.1)
        if address is None:
            print(f"the arena did not start: see {folder / 'serve.out'}", file=sys.stderr)
            return 1
        for name in HONEST:
            bots.append(subprocess.Popen(
                [sys.executable, str(ROOT / "sample_bots" / "random_bot.py"), "--arena", address, "--name", name,
                 "--games", "moumou"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT))
        run = Run()
        flooders = [Flooder(address, name, token, run) for name, token in tokens.items()]
        print(f"arena at {address}; {len(HONEST)} honest bots on moumou, {len(flooders)} flooders on prsi; "
              f"{args.seconds:g} s windows")
        rows = asyncio.run(windows(address, server.pid, flooders, run, args.seconds))
        quiet = (rows[0][1] + rows[2][1]) / 2
        ratio = rows[1][1] / quiet if quiet else float("nan")
        reasons = Counter(c for f in flooders for c in f.cuts)
        print(f"ratio (flooded games / mean of the quiet windows): {ratio:.2f}; junk answers sent while flooding: "
              f"{rows[1][4]} ({rows[1][4] / rows[1][3]:.0f} a second); streams cut, by the last Error before: "
              f"{', '.join(f'{n} {code}' for code, n in reasons.most_common()) or 'none'}")
        return 0
    finally:
        for bot in bots:
            bot.terminate()
        server.send_signal(signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        for bot in bots:
            try:
                bot.wait(10)
            except subprocess.TimeoutExpired:
                bot.kill()
        log.close()
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
