"""Many light bot sessions in one process, over raw grpcio: for load tests and ladder tests.

    python -m arena.ladder.loadbot --arena 127.0.0.1:50051 --names a,b,c --parallel 2 --style high

Each name is its own Play stream (one thread each, one shared channel) that
answers every turn at once with the first, last or a random legal action.
It speaks the wire protocol directly, without the SDK, so a benchmark
measures the arena and not the client library; real bots should use `mau_arena_sdk`.
At exit it prints one JSON line of totals (turns answered, games ended,
errors by code, Hellos retried) for the benchmark to collect.  A process
lets a few sessions log in at a time (``--connect-at-once``), and a session
whose Hello is refused with "try again in N s" (too many logins at once from
one address) tries again after that wait, as the SDK does.  ``--ended-log FILE`` appends
one JSON line per GameEnded a session was told (bot, game id, reason,
placements; placements are 0 when the game was aborted), flushed at once,
for crash tests that compare what bots were told with what was stored.
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import re
import signal
import sys
import threading
import time
from collections import Counter

import grpc

from arena import __version__
from mau_arena_sdk.wire import pb

_END = object()
#: Hello refusals that say "try again": the session retries after the wait they name.
RETRY_CODES = (pb.Error.Code.Value("AUTH_FAILED"), pb.Error.Code.Value("CAPACITY"))


def _seconds_in(text: str) -> float:
    """The N of "try again in N s" (1 when the message names no number)."""
    match = re.search(r"try again in (\d+(?:\.\d+)?) s", text)
    return float(match.group(1)) if match else 1.0


class Session(threading.Thread):
    def __init__(self, channel: grpc.Channel, name: str, args: argparse.Namespace, totals: Counter, lock: threading.Lock,
                 ended_log=None, connecting: threading.Semaphore | None = None) -> None:
        super().__init__(daemon=True, name=f"session-{name}")
        self.channel = channel
        self.bot_name = name
        self.args = args
        self.totals = totals
        self.lock = lock
        self.outbox: queue.Queue = queue.Queue()
        self.rng = random.Random(name)
        self.call = None
        self.ended_log = ended_log
        self.connecting = connecting or threading.Semaphore(1_000_000)
        self.stopped = threading.Event()
        self.turns = self.games = 0

    def _log_ended(self, ended) -> None:
        line = json.dumps({"bot": self.bot_name, "game_id": ended.game_id, "reason": ended.reason,
                           "status": pb.GameEnded.Status.Name(ended.status).lower(),
                           "placements": [result.placement for result in ended.results]})
        with self.lock:
            self.ended_log.write(line + "\n")
            self.ended_log.flush()

    def run(self) -> None:
        turns = games = 0
        errors: Counter = Counter()
        try:
            for attempt in range(self.args.retries + 1):
                retry_s = self._attempt(errors)
                turns += self.turns
                games += self.games
                if retry_s is None or self.stopped.is_set():
                    break
                # Refused at the door (too many logins at once, from one address): come back later, as the SDK does.
                errors["retried"] += 1
                if self.stopped.wait(retry_s * (1 + self.rng.random())):
                    break
        finally:
            with self.lock:
                self.totals["turns"] += turns
                self.totals["games"] += games
                for code, count in errors.items():
                    self.totals[code if code == "retried" else f"error:{code}"] += count

    def _attempt(self, errors: Counter) -> float | None:
        """One stream; the seconds to wait before another try if the Hello was refused for now, else None."""
        a = self.args
        self.turns = self.games = 0
        self.outbox = queue.Queue()
        self.outbox.put(pb.BotMessage(hello=pb.Hello(
            name=self.bot_name, token=a.token, sdk_version=__version__, games=a.games or [],
            max_games=a.max_games, bot_version=f"loadbot-{a.style}",
        )))
        play = self.channel.stream_stream(
            "/mauarena.v1.Arena/Play",
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=pb.ArenaMessage.FromString,
        )
        retry_s = None
        welcomed = False
        self.connecting.acquire()  # a few Hellos at a time per process: a burst of logins is refused
        try:
            self.call = play(iter(self.outbox.get, _END))
            for message in self.call:
                kind = message.WhichOneof("kind")
                if not welcomed and kind in ("welcome", "error"):
                    welcomed = True
                    self.connecting.release()
                if kind == "error" and message.error.code in RETRY_CODES and not self.turns and "try again" in message.error.message:
                    retry_s = _seconds_in(message.error.message)
                if kind == "turn":
                    turn = message.turn
                    if a.style == "slow":
                        time.sleep(a.slow_ms / 1000)
                    index = self._choose(turn.legal)
                    self.outbox.put(pb.BotMessage(answer=pb.Answer(
                        game_id=turn.game_id, request_id=turn.request_id,
                        action_index=index, action_text=turn.legal[index],
                    )))
                    self.turns += 1
                elif kind == "game_ended":
                    self.games += 1
                    if self.ended_log is not None:
                        self._log_ended(message.game_ended)
                elif kind == "error" and retry_s is None:
                    errors[pb.Error.Code.Name(message.error.code)] += 1
                    if a.verbose:
                        print(f"{self.bot_name}: {message.error.message}", file=sys.stderr, flush=True)
        except grpc.RpcError as error:
            if retry_s is None:
                errors[f"rpc:{error.code().name}"] += 1
        finally:
            if not welcomed:
                self.connecting.release()
        return retry_s

    def _choose(self, legal) -> int:
        style = self.args.style
        if style == "first":
            return 0
        if style in ("high", "low"):
            ranks = "789TJQKA"
            keyed = sorted(range(len(legal)), key=lambda i: ranks.find(legal[i].split()[-1][:1]))
            return keyed[-1] if style == "high" else keyed[0]
        return self.rng.randrange(len(legal))

    def stop(self) -> None:
        self.stopped.set()
        self.outbox.put(_END)
        if self.call is not None:
            self.call.cancel()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.ladder.loadbot", description=__doc__.split("\n\n")[0])
    parser.add_argument("--arena", required=True, metavar="HOST:PORT")
    parser.add_argument("--names", required=True, help="comma-separated session names")
    parser.add_argument("--token", default="")
    parser.add_argument("--games", type=lambda s: [g for g in s.split(",") if g], help="rulesets (default all)")
    parser.add_argument("--parallel", "--max-games", dest="max_games", type=int, default=1, metavar="N",
                        help="games at once per session (--max-games: its old name, as in the SDK)")
    parser.add_argument("--style", choices=("first", "random", "high", "low", "slow"), default="random")
    parser.add_argument("--slow-ms", type=int, default=50, help="think time of --style slow")
    parser.add_argument("--duration", type=float, help="seconds to stay connected (default: until SIGTERM)")
    parser.add_argument("--ended-log", metavar="FILE", help="append a JSON line per GameEnded received")
    parser.add_argument("--connect-at-once", type=int, default=1, metavar="N",
                        help="sessions of this process waiting for their Welcome at once (default 1)")
    parser.add_argument("--retries", type=int, default=10,
                        help="times a session tries again after a Hello refused with 'try again' (default 10)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    names = [n for n in args.names.split(",") if n]
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    channel = grpc.insecure_channel(args.arena, options=[("grpc.so_reuseport", 0)])
    totals: Counter = Counter()
    lock = threading.Lock()
    try:
        ended_log = open(args.ended_log, "a", encoding="utf-8") if args.ended_log else None
    except OSError as error:
        parser.error(f"--ended-log {args.ended_log}: {error.strerror}")
    connecting = threading.Semaphore(max(1, args.connect_at_once))
    sessions = [Session(channel, name, args, totals, lock, ended_log, connecting) for name in names]
    started = time.monotonic()
    for session in sessions:
        session.start()
    while not stop.is_set() and any(s.is_alive() for s in sessions):
        if args.duration is not None and time.monotonic() - started >= args.duration:
            break
        stop.wait(0.2)
    for session in sessions:
        session.stop()
    for session in sessions:
        session.join(timeout=5)
    channel.close()
    if ended_log is not None:
        ended_log.close()
    print(json.dumps(dict(totals)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
