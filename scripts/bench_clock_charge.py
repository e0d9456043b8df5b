"""How much of the server's own slowness is a bot charged for, per decision, under load?

    python scripts/bench_clock_charge.py                      # 64 busy games, 4 thinking ones, 20 s
    python scripts/bench_clock_charge.py --busy 100 --seconds 30 --think-ms 300

Loopback only, every bot a separate process.  ``--busy`` games of minimal
bots that answer at once (bench_arena.py's raw bot) keep the server's loop
busy; ``--thinkers`` games are played by grpc.aio bots that think
``--think-ms`` per decision and time themselves: from when their read of the
TurnRequest returned to just before they write the Answer (``own``).

For every thinking decision the server side (a thin wrapper around the
`RemoteSeat`, outside the runner) notes when the runner made the request
and takes from the answer its ``sent_at`` (the stream writer's stamp) and
``received_at`` (the stream reader's).  Printed, median and p99 over the
same decisions, in ms:

* ``from creation - own``: what the runner charged before this change
  (request made -> answer read) over what the bot thought;
* ``from write - own``: what it charges now (request handed to the
  transport, at most ``write_credit_ms`` after it was made -> answer read);
* ``queued``: request made -> written (what the bot is no longer charged);
* ``written -> bot's read`` and ``bot's write -> stamp``: the two legs on
  the wire, from the bot's own stamps (``time.monotonic`` is one clock for
  every process of the machine).

What is left in ``from write - own`` is the wire both ways plus the bot's own
and the server's read latency (the reader stamps the moment ``read()``
returns).  Both figures come from one run on the same decisions, so the
machine's load moves them together.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from mau_arena_sdk.wire import pb, rpc  # noqa: E402

RULESET = "moumou"
CLIENT_OPTIONS = [("grpc.so_reuseport", 0)]


# ---------------------------------------------------------------- the thinking bot (its own process)

def thinker(port: int, name: str, max_games: int, think_s: float, log_path: str) -> None:
    """A grpc.aio bot that thinks ``think_s`` per decision and logs its own think time per (game, k-th decision)."""
    records: list[tuple[str, str, int, float, float, float]] = []
    counts: dict[str, int] = {}

    async def main() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=CLIENT_OPTIONS) as channel:
            call = rpc.ArenaStub(channel).Play()
            lock = asyncio.Lock()
            await call.write(pb.BotMessage(hello=pb.Hello(name=name, sdk_version="0.1.0", games=[RULESET],
                                                          max_games=max_games)))

            async def answer(turn: pb.TurnRequest, got: float) -> None:
                await asyncio.sleep(think_s)
                async with lock:
                    sent = time.monotonic()
                    k = counts[turn.game_id] = counts.get(turn.game_id, 0) + 1
                    records.append((turn.game_id, name, k, (sent - got) * 1000, got, sent))
                    await call.write(pb.BotMessage(answer=pb.Answer(
                        game_id=turn.game_id, request_id=turn.request_id, action_index=0)))

            tasks = set()
            try:
                while True:
                    message = await call.read()
                    got = time.monotonic()
                    if message is grpc.aio.EOF:
                        return
                    if message.HasField("turn"):
                        task = asyncio.create_task(answer(message.turn, got))
                        tasks.add(task)
                        task.add_done_callback(tasks.discard)
            except (grpc.RpcError, asyncio.CancelledError):
                pass

    # The bench stops a thinker with SIGINT; started from a shell's background job it would inherit SIGINT
    # ignored (and Python then installs no KeyboardInterrupt), never stop, and write no log
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    finally:
        Path(log_path).write_text("\n".join(json.dumps(r) for r in records))


# ---------------------------------------------------------------- the server side

class WatchedSeat:
    """A RemoteSeat as the runner sees it, noting per decision: made, written, read (server clock)."""

    def __init__(self, inner: Any, notes: list[tuple[str, int, float, float, float]]) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self.clock_starts_on_write = True
        self.notes = notes
        self.asked = 0
        self.made = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def decide(self, request):
        self.made = time.monotonic()
        self.asked += 1
        answer = await self.inner.decide(request)
        self._note(answer)
        return answer

    async def next_answer(self, request):
        answer = await self.inner.next_answer(request)
        self._note(answer)
        return answer

    def _note(self, answer) -> None:
        if answer.request_id > 0 and answer.sent_at:
            self.notes.append((self.inner.game_id, self.name, self.asked, self.made, answer.sent_at,
                               answer.received_at))


class Monotonic(trio.abc.Clock):
    """A trio clock that is ``time.monotonic`` (CLOCK_MONOTONIC, one clock for every process of the machine)."""

    def start_clock(self) -> None:
        pass

    def current_time(self) -> float:
        return time.monotonic()

    def deadline_to_sleep_time(self, deadline: float) -> float:
        return deadline - time.monotonic()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def measure(busy: int, thinkers: int, seconds: float, warmup: float, think_ms: int, credit_ms: int):

    from arena.match.runner import play_game
    from arena.match.timecontrol import TimeControl
    from arena.match.timekeeping import clock_start
    from arena.server import ServerConfig, new_game_id, run

    control = TimeControl(move_ms=think_ms * 4, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=0)
    fast = TimeControl(move_ms=5000, bank_ms=10_000, increment_ms=0, first_move_ms=5000, max_strikes=3)
    notes: list = []
    window = [math.inf, math.inf]
    logs = Path(tempfile.mkdtemp(prefix="clock-charge-"))
    busy_bots = 0 if busy == 0 else 2 if busy <= 8 else 8
    per_busy = math.ceil(2 * busy / busy_bots) if busy_bots else 0

    async def director(handle):
        busy_names = [f"busy{i}" for i in range(busy_bots)]
        think_names = [f"think{i}" for i in range(2 * thinkers)]
        processes = [subprocess.Popen([sys.executable, str(ROOT / "scripts" / "bench_arena.py"), "--raw-bot",
                                       str(handle.port), name, str(per_busy)], cwd=ROOT) for name in busy_names]
        processes += [subprocess.Popen([sys.executable, __file__, "--thinker", str(handle.port), name, "1",
                                        str(think_ms / 1000), str(logs / f"{name}.jsonl")], cwd=ROOT)
                      for name in think_names]
        try:
            await handle.wait_for_sessions(busy_names + think_names, timeout_s=120)

            async def keep_busy(table: int) -> None:
                rng = random.Random(table)
                pair = [busy_names[(2 * table) % busy_bots], busy_names[(2 * table + 1) % busy_bots]]
                while True:
                    await handle.play_game(RULESET, {}, rng.randrange(2**31), pair, fast)

            async def keep_thinking(table: int) -> None:
                rng = random.Random(1000 + table)
                pair = think_names[2 * table:2 * table + 2]
                while True:
                    game_id = new_game_id()
                    seats = [WatchedSeat(handle.seat(name, RULESET, game_id), notes) for name in pair]
                    try:
                        await play_game(RULESET, {}, rng.randrange(2**31), seats, control, game_id=game_id,
                                        max_decisions=400, write_credit_ms=credit_ms)
                    finally:
                        for seat in seats:
                            seat.inner.release()

            async with trio.open_nursery() as nursery:
                for table in range(busy):
                    nursery.start_soon(keep_busy, table)
                for table in range(thinkers):
                    nursery.start_soon(keep_thinking, table)
                await trio.sleep(warmup)
                window[:] = [time.monotonic(), time.monotonic() + seconds]
                await trio.sleep(seconds)
                nursery.cancel_scope.cancel()
        finally:
            for process in processes:
                if process.args[2] == "--thinker":
                    process.send_signal(2)  # SIGINT: a thinker writes its log
                else:
                    process.terminate()
            for process in processes:
                try:
                    await trio.to_thread.run_sync(process.wait, 10)
                except subprocess.TimeoutExpired:
                    process.kill()

    # The server on CLOCK_MONOTONIC itself, not the arena's clock (real time less the process's stalls,
    # `arena.match.stalls`): the bots' stamps are CLOCK_MONOTONIC, and a stall on a loaded machine (820 ms in a CI
    # run) would set the two clocks apart.  What is measured here is the write credit, not the stalls.
    run(ServerConfig(port=0, max_games_per_bot=max(64, per_busy), finished_games_kept=100_000, clock=Monotonic()),
        director)
    # (game, bot, its k-th decision there) -> (own ms, got, sent): time.monotonic is one clock for every
    # process of the machine (CLOCK_MONOTONIC), so the bot's stamps compare with the server's.
    own: dict[tuple[str, str, int], tuple[float, float, float]] = {}
    for path in logs.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            game_id, name, k, ms, got, sent = json.loads(line)
            own[(game_id, name, k)] = (ms, got, sent)
    rows = []
    for game_id, name, k, made, written, received in notes:
        if not window[0] <= made <= window[1] or (game_id, name, k) not in own:
            continue
        start = clock_start(made, written, credit_ms / 1000)   # the runner's rule
        ms, got, sent = own[(game_id, name, k)]
        rows.append(((received - made) * 1000, (received - start) * 1000, (written - made) * 1000, ms,
                     (got - written) * 1000, (received - sent) * 1000))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=64, help="games of at-once bots loading the server (default 64)")
    parser.add_argument("--thinkers", type=int, default=4, help="games of thinking bots measured (default 4)")
    parser.add_argument("--think-ms", type=int, default=200, help="the thinking bots' think time (default 200)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measuring window (default 20)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before the window (default 3)")
    parser.add_argument("--credit-ms", type=int, default=None, help="the runner's write credit (default: its own)")
    parser.add_argument("--thinker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.thinker:
        port, name, max_games, think_s, log_path = args.thinker
        thinker(int(port), name, int(max_games), float(think_s), log_path)
        return 0
    from arena.match.timekeeping import DEFAULT_WRITE_CREDIT_MS

    credit = DEFAULT_WRITE_CREDIT_MS if args.credit_ms is None else args.credit_ms
    load = os.getloadavg()[0]
    rows = measure(args.busy, args.thinkers, args.seconds, args.warmup, args.think_ms, credit)
    print(f"clock charge: {args.busy} busy games, {args.thinkers} thinking games ({args.think_ms} ms a decision), "
          f"{args.seconds:g} s, write credit {credit} ms, {os.cpu_count()} cores, load {load:.1f} at start, "
          f"{len(rows)} decisions")
    if not rows:
        print("no decision measured")
        return 1
    for label, index in (("from creation - own", 0), ("from write - own", 1)):
        diffs = [row[index] - row[3] for row in rows]
        print(f"  {label:<24} median {statistics.median(diffs):7.2f} ms   p99 {percentile(diffs, 0.99):7.2f} ms"
              f"   max {max(diffs):7.2f} ms")
    for label, index in (("queued: made -> written", 2), ("written -> bot's read", 4),
                         ("bot's write -> stamp", 5)):
        values = [row[index] for row in rows]
        print(f"  {label:<24} median {statistics.median(values):7.2f} ms   p99 {percentile(values, 0.99):7.2f} ms"
              f"   max {max(values):7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
