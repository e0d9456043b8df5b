"""Prototype: does "grpc.aio host loop + trio as a guest" stay close to raw grpc.aio here?

    python scripts/proto_guest_mode.py                 # both designs, 1 and 8 bots, ~1 minute
    python scripts/proto_guest_mode.py --seconds 2 --bots 1,8

Two minimal servers speak the real protocol (a TurnRequest of the size a
moumou turn has, answered by an Answer) to bot processes using the
synchronous grpcio client, as the SDK does:

* ``aio``: grpc.aio alone; one reader task per stream feeds an asyncio.Queue,
  the session waits on it with ``asyncio.wait_for``;
* ``guest``: the arena's design: grpc.aio serves, trio runs as a guest on the
  same loop; the reader stamps each message and forwards it with
  ``TrioToken.run_sync_soon`` into a trio memory channel; the session (a trio
  task) waits on the channel under ``trio.move_on_at`` (never on the read).

Printed: round trips/s (ping-pong), and for bots answering late, how far past
the deadline the waiting session is woken (p50/p99), with the bot processes
at nice 19 so the scheduler, not the framework, stays out of the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import queue
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from mau_arena_sdk.wire import pb, rpc  # noqa: E402

OPTIONS = [("grpc.so_reuseport", 0)]


def reference_turn() -> pb.ArenaMessage:
    """A TurnRequest as large as a real one (the first moumou decision)."""
    from arena import games
    from arena.messages import turn_request_to_pb

    ruleset = "moumou" if "moumou" in games.rulesets() else games.rulesets()[0]
    state = games.new_game(ruleset, 2, 12345)
    seat = state.current
    turn = turn_request_to_pb("20260101T000000-00000000", 1, state.observation(seat), state.legal_actions(),
                              1000, 10_000, ["alice", "bob"])
    return pb.ArenaMessage(turn=turn)


# ---------------------------------------------------------------- bot process

def bot_main(port: int, late_ms: float) -> None:
    """Answer every TurnRequest (after ``late_ms``) until the stream ends."""
    channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=OPTIONS)
    outbox: queue.Queue = queue.Queue()
    outbox.put(pb.BotMessage(hello=pb.Hello(name=f"proto{os.getpid()}", sdk_version="0.1.0")))
    try:
        for message in rpc.ArenaStub(channel).Play(iter(outbox.get, None)):
            if message.HasField("turn"):
                if late_ms:
                    time.sleep(late_ms / 1000)
                turn = message.turn
                outbox.put(pb.BotMessage(answer=pb.Answer(
                    game_id=turn.game_id, request_id=turn.request_id, action_index=0, action_text=turn.legal[0])))
    except grpc.RpcError:
        pass
    outbox.put(None)
    channel.close()


# ---------------------------------------------------------------- measurement shared by both servers

class Run:
    """What one measurement asks of the sessions and what they report."""

    def __init__(self, bots: int, seconds: float, deadline_ms: float | None) -> None:
        self.bots = bots
        self.seconds = seconds
        self.deadline_ms = deadline_ms      # None: ping-pong; else: late answers, measure overshoot
        self.connected = 0
        self.round_trips = 0
        self.overshoots_ms: list[float] = []
        self.start_at = 0.0
        self.stop_at = 0.0


# ---------------------------------------------------------------- design 1: grpc.aio alone

class AioServicer(rpc.ArenaServicer):
    def __init__(self, run: Run, turn: pb.ArenaMessage, all_connected: asyncio.Event) -> None:
        self.run, self.turn, self.all_connected = run, turn, all_connected

    async def Play(self, request_iterator, context):
        await context.read()  # Hello
        inbox: asyncio.Queue = asyncio.Queue()

        async def reader():
            while (message := await context.read()) is not grpc.aio.EOF:
                inbox.put_nowait((message, time.monotonic()))

        task = asyncio.create_task(reader())
        run = self.run
        run.connected += 1
        if run.connected == run.bots:
            self.all_connected.set()
        await self.all_connected.wait()
        request_id = 0
        try:
            while time.monotonic() < run.stop_at:
                request_id += 1
                self.turn.turn.request_id = request_id
                await context.write(self.turn)
                deadline = time.monotonic() + (run.deadline_ms or 10_000) / 1000
                try:
                    while True:
                        message, _ = await asyncio.wait_for(inbox.get(), max(0.0, deadline - time.monotonic()))
                        if message.answer.request_id == request_id:
                            break
                    if run.start_at <= time.monotonic() <= run.stop_at:
                        run.round_trips += 1
                except asyncio.TimeoutError:
                    if run.start_at <= time.monotonic() <= run.stop_at:
                        run.overshoots_ms.append((time.monotonic() - deadline) * 1000)
        finally:
            task.cancel()


async def serve_aio(run: Run, turn: pb.ArenaMessage, spawn) -> None:
    all_connected = asyncio.Event()
    server = grpc.aio.server(options=OPTIONS)
    rpc.add_ArenaServicer_to_server(AioServicer(run, turn, all_connected), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    run.start_at, run.stop_at = float("inf"), float("inf")
    processes = spawn(port)
    await all_connected.wait()
    run.start_at = time.monotonic() + 0.5
    run.stop_at = run.start_at + run.seconds
    await asyncio.sleep(run.stop_at - time.monotonic() + 0.2)
    await server.stop(1)
    for process in processes:
        process.wait()


# ---------------------------------------------------------------- design 2: grpc.aio host, trio guest

async def serve_guest(run: Run, turn: pb.ArenaMessage, spawn) -> None:
    import trio

    loop = asyncio.get_running_loop()
    server = grpc.aio.server(options=OPTIONS)
    ready = asyncio.Event()
    state: dict = {}

    async def session(receive, outbox: asyncio.Queue) -> None:
        try:
            await ping_pong(receive, outbox)
        finally:
            outbox.put_nowait(None)  # end the stream before the server stops

    async def ping_pong(receive, outbox: asyncio.Queue) -> None:
        request_id = 0
        while time.monotonic() < run.stop_at:  # trio's own clock has a random offset: compare in monotonic time
            request_id += 1
            turn.turn.request_id = request_id
            outbox.put_nowait(turn)  # same thread: plain calls across the two loops
            deadline = trio.current_time() + (run.deadline_ms or 10_000) / 1000
            with trio.move_on_at(deadline) as scope:
                while True:
                    message, _ = await receive.receive()
                    if message.answer.request_id == request_id:
                        break
            woke = trio.current_time()
            if run.start_at <= time.monotonic() <= run.stop_at:
                if scope.cancelled_caught:
                    run.overshoots_ms.append((woke - deadline) * 1000)
                else:
                    run.round_trips += 1

    class GuestServicer(rpc.ArenaServicer):
        async def Play(self, request_iterator, context):
            await context.read()  # Hello
            await ready.wait()
            send, receive = trio.open_memory_channel(1000)
            outbox: asyncio.Queue = asyncio.Queue()
            token = state["token"]

            async def reader():
                while (message := await context.read()) is not grpc.aio.EOF:
                    token.run_sync_soon(send.send_nowait, (message, time.monotonic()))

            task = asyncio.create_task(reader())
            token.run_sync_soon(state["nursery"].start_soon, session, receive, outbox)
            run.connected += 1
            if run.connected == run.bots:
                state["all_connected"].set()
            try:
                while (message := await outbox.get()) is not None:
                    await context.write(message)
            finally:
                task.cancel()

    async def trio_main():
        state["token"] = trio.lowlevel.current_trio_token()
        state["all_connected"] = asyncio.Event()
        async with trio.open_nursery() as nursery:
            state["nursery"] = nursery
            ready.set()
            await trio.sleep_forever()

    rpc.add_ArenaServicer_to_server(GuestServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    done = loop.create_future()
    trio.lowlevel.start_guest_run(
        trio_main, run_sync_soon_threadsafe=loop.call_soon_threadsafe, run_sync_soon_not_threadsafe=loop.call_soon,
        done_callback=lambda outcome: done.set_result(outcome), host_uses_signal_set_wakeup_fd=True,
    )
    await ready.wait()
    run.start_at, run.stop_at = float("inf"), float("inf")
    processes = spawn(port)
    await state["all_connected"].wait()
    run.start_at = time.monotonic() + 0.5
    run.stop_at = run.start_at + run.seconds
    await asyncio.sleep(run.stop_at - time.monotonic() + 0.2)
    state["token"].run_sync_soon(state["nursery"].cancel_scope.cancel)
    await done
    await server.stop(1)
    for process in processes:
        process.wait()


# ---------------------------------------------------------------- driver

def measure(design: str, bots: int, seconds: float, deadline_ms: float | None, turn: pb.ArenaMessage) -> Run:
    run = Run(bots, seconds, deadline_ms)
    late_ms = 0 if deadline_ms is None else deadline_ms * 3

    def spawn(port: int) -> list[subprocess.Popen]:
        nice = ["nice", "-n", "19"] if deadline_ms is not None else []
        command = [*nice, sys.executable, __file__, "--bot", str(port), "--late-ms", str(late_ms)]
        return [subprocess.Popen(command, cwd=ROOT) for _ in range(bots)]

    serve = serve_aio if design == "aio" else serve_guest
    asyncio.run(serve(run, turn, spawn))
    return run


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time per figure (default 3)")
    parser.add_argument("--bots", default="1,8", help="bot process counts (default 1,8)")
    parser.add_argument("--deadline-ms", type=float, default=20.0, help="decision limit for the overshoot runs")
    parser.add_argument("--bot", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--late-ms", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bot:
        bot_main(args.bot, args.late_ms)
        return 0
    turn = reference_turn()
    counts = [int(n) for n in args.bots.split(",")]
    print(f"TurnRequest of {turn.ByteSize()} bytes; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}")
    print(f"{'design':8} {'bots':>4} {'round trips/s':>14} {'overshoot p50':>14} {'p99 (ms)':>9} {'late answers':>12}")
    for bots in counts:
        for design in ("aio", "guest"):
            speed = measure(design, bots, args.seconds, None, turn)
            late = measure(design, bots, args.seconds, args.deadline_ms, turn)
            print(f"{design:8} {bots:>4} {speed.round_trips / args.seconds:>14,.0f} "
                  f"{percentile(late.overshoots_ms, 0.5):>14.2f} {percentile(late.overshoots_ms, 0.99):>9.2f} "
                  f"{len(late.overshoots_ms):>12}", flush=True)
    print("overshoot: how long after the deadline the waiting session woke (bots at nice 19, answering 3x late)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
