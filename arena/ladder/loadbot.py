"""Many light bot sessions in one process, on one asyncio event loop: for load tests and ladder tests.

    python -m arena.ladder.loadbot --arena 127.0.0.1:50051 --names a,b,c --parallel 2 --style high
    python -m arena.ladder.loadbot --arena 127.0.0.1:50051 --count 250 --prefix p0x --style random

Each name is its own Play stream (grpc.aio, all of them on one event loop and
one channel per arena address) that answers every turn at once with the first,
last or a random legal action.  A thread per session could not hold a thousand
sessions next to the server on a small machine; coroutines can (a few hundred
bytes and no thread each), so a load test runs several of these processes with
hundreds of sessions each.  It speaks the wire protocol directly, without the
SDK, so a benchmark measures the arena and not the client library; real bots
should use `mau_arena_sdk`.

``--progress-every S`` prints a JSON line of progress every S seconds (sessions
connected now, welcomed so far, logins under way, turns, timeout notices, stale answers, CPU).  At exit it prints one JSON line of
totals for the benchmark to collect: turns answered, games ended, errors by code (``error:TIMEOUT`` counts the arena's
notices that an answer came too late and a default was played,
``error:STALE_REQUEST`` answers that arrived after that; each TIMEOUT is also
counted as ``timeouts_load_side`` when this process may have spent half the
move limit on that turn itself, its own time plus how late its event loop ran
when the turn was read, else as ``timeouts_arena_side``), refused Hellos by
code (``refused:CODE``), logins retried, Hello timeouts, give-ups, the
timeouts the arena recorded for these bots' seats (``seat_timeouts``, from
GameEnded), the arena's measured think time per decision (``think_ms_*``: the
round trip as the server saw it), and this process's own health, so that a
reader can tell who was slow: its CPU seconds, its wall seconds, how long a
turn took from being read to being answered here (``answer_ms_*``), and how
late the event loop ran a timer (``loop_lag_ms_max``: a starved load process
shows here first), and how long a login took (``login_ms_*``: stream opened
to Welcome).

A process lets a few sessions log in at a time (``--connect-at-once``), and a
session whose Hello is refused with "try again in N s" (too many logins at
once) tries again after that wait, as the SDK does.  A Hello with no answer
within ``--hello-timeout`` is given up, logged on stderr with the time and
counted (``hello_timeouts_opening``: gRPC never took the Hello, a stall on
this side; ``hello_timeouts_waiting``: handed to gRPC and not answered, which
includes a stream the arena's gRPC server has not yet accepted: grpc.aio
completes the write before that), and tried again after a backoff, as is a stream that ended before
its Welcome or a welcomed stream the arena dropped (``dropped``); after
``--retries`` a session gives up (``gave_up``, logged).  The progress lines
say how many sessions wait for a login slot (``queued``), have a stream
opening (``opening``) or a Hello unanswered (``waiting``), so a stall shows
where it is.  All sessions to an address share one channel (one TCP
connection) unless ``--sessions-per-connection N`` gives every N their own, as
separate bots would have (the arena's acceptors share connections out, not
streams: see ``arena serve --acceptors``).  ``--follow-hosts`` opens a
session to every host a shared ladder lists (Welcome.hosts, Hosts messages), as
the SDK does; without it a Hosts message is counted and otherwise ignored.
``--until-games N`` stops once every name was welcomed and the process was
told N games ended.
``--ended-log FILE`` appends one JSON line per GameEnded a session was told
(bot, game id, reason, placements; placements are 0 when the game was aborted),
flushed at once, for crash tests that compare what bots were told with what was
stored.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import resource
import secrets
import signal
import statistics
import sys
import time
from collections import Counter, OrderedDict, deque

import grpc

from arena import __version__
from mau_arena_sdk.wire import pb

#: Hello refusals that say "try again": the session retries after the wait they name.
RETRY_CODES = (pb.Error.Code.Value("AUTH_FAILED"), pb.Error.Code.Value("CAPACITY"))
TIMEOUT = pb.Error.Code.Value("TIMEOUT")
#: Answer times kept per process for the percentiles (a reservoir beyond this).
KEPT_SAMPLES = 200_000
#: Turns a session remembers (its own time and loop lag per request) to judge a later TIMEOUT notice.
KEPT_TURNS = 16
#: At most this many hosts of a shared ladder get a session per name, as in the SDK.
MAX_HOSTS = 16


def seconds_in(text: str) -> float:
    """The N of "try again in N s" (1 when the message names no number)."""
    match = re.search(r"try again in (\d+(?:\.\d+)?) s", text)
    return float(match.group(1)) if match else 1.0


def cpu_seconds() -> float:
    """This process's CPU time (user + system) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Samples:
    """A bounded sample of numbers (reservoir sampling) for percentiles."""

    def __init__(self, rng: random.Random, kept: int = KEPT_SAMPLES) -> None:
        self.values: list[float] = []
        self.seen = 0
        self.kept = kept
        self.rng = rng
        self.largest = 0.0

    def add(self, value: float) -> None:
        self.seen += 1
        self.largest = max(self.largest, value)
        if len(self.values) < self.kept:
            self.values.append(value)
        else:
            slot = self.rng.randrange(self.seen)
            if slot < self.kept:
                self.values[slot] = value

    def summary(self, key: str) -> dict[str, float]:
        if not self.values:
            return {}
        ordered = sorted(self.values)
        return {f"{key}_p50": round(statistics.median(ordered), 3),
                f"{key}_p99": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 3),
                f"{key}_max": round(self.largest, 3)}


class Swarm:
    """The sessions of one process: their channels (one per address), shared totals and samples."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        #: This process's client id (Hello.instance), as the SDK's: its sessions of one name on several hosts are one program.
        self.instance = secrets.token_urlsafe(16)
        self.totals: Counter = Counter()
        self.answer_ms = Samples(random.Random(1))
        self.think_ms = Samples(random.Random(2))
        self.login_ms = Samples(random.Random(3))
        self.channels: dict[tuple[str, int], grpc.aio.Channel] = {}
        self.connecting = asyncio.Semaphore(max(1, args.connect_at_once))
        self.stopping = asyncio.Event()
        self.sessions: dict[tuple[str, str], asyncio.Task] = {}
        self.ended_log = None
        self.loop_lag_ms = 0.0
        self.recent_lag_ms = 0.0  # the worst timer lag of the last second
        self.connected = 0  # sessions welcomed whose stream is still open
        self.names = 0      # names this process plays
        self.queued = 0     # sessions waiting for a login slot (``--connect-at-once``)
        self.opening = 0    # sessions with a login slot whose Hello is not written yet (the stream is opening)
        self.waiting = 0    # sessions whose Hello is written and not answered yet (Welcome or Error)

    def channel(self, address: str, number: int) -> grpc.aio.Channel:
        """The channel (one TCP connection of its own) of the ``number``-th group of ``--sessions-per-connection``
        sessions to ``address``."""
        key = (address, number // max(1, self.args.sessions_per_connection or 1 << 30))
        if key not in self.channels:
            self.channels[key] = grpc.aio.insecure_channel(address, options=[
                ("grpc.so_reuseport", 0), ("grpc.use_local_subchannel_pool", 1)])
        return self.channels[key]

    def start(self, name: str, address: str) -> None:
        """A session for ``name`` to ``address`` unless one is open (or the process is stopping)."""
        key = (name, address)
        if self.stopping.is_set() or key in self.sessions:
            return
        if sum(1 for n, _ in self.sessions if n == name) >= MAX_HOSTS:
            return
        number = sum(1 for _, a in self.sessions if a == address)
        self.sessions[key] = asyncio.get_running_loop().create_task(Session(self, name, address, number).run())

    def say(self, text: str) -> None:
        """A line on stderr with the time: what a reader needs to tell a stalled arena from a stalled load side."""
        print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)

    def check_done(self) -> None:
        """``--until-games N``: stop once every name was welcomed and N games ended, together."""
        until = self.args.until_games
        if until and self.totals["games"] >= until and self.totals["welcomed"] >= self.names:
            self.stopping.set()

    def log_ended(self, bot: str, ended) -> None:
        if self.ended_log is None:
            return
        line = json.dumps({"bot": bot, "game_id": ended.game_id, "reason": ended.reason,
                           "status": pb.GameEnded.Status.Name(ended.status).lower(),
                           "placements": [result.placement for result in ended.results]})
        self.ended_log.write(line + "\n")
        self.ended_log.flush()

    async def show_progress(self, every_s: float) -> None:
        """A JSON line every ``every_s``: sessions connected now, welcomed so far, turns answered, TIMEOUT notices
        and stale answers so far, CPU seconds so far, worst loop lag so far."""
        while True:
            await asyncio.sleep(every_s)
            print(json.dumps({"progress": True, "connected": self.connected, "welcomed": self.totals["welcomed"],
                              "queued": self.queued, "opening": self.opening, "waiting": self.waiting,
                              "hello_timeouts": self.totals["hello_timeouts"], "gave_up": self.totals["gave_up"],
                              "retried": self.totals["retried"], "dropped": self.totals["dropped"],
                              "turns": self.totals["turns"], "timeouts": self.totals["error:TIMEOUT"],
                              "timeouts_load_side": self.totals["timeouts_load_side"],
                              "late": self.totals["error:STALE_REQUEST"], "cpu_s": round(cpu_seconds(), 2),
                              "loop_lag_ms_max": round(self.loop_lag_ms, 1)}), flush=True)

    async def watch_loop(self, period_s: float = 0.05) -> None:
        """How late the event loop runs a timer: the load side's own starvation, in ms (the worst so far, and the
        worst of the last second in `recent_lag_ms`)."""
        loop = asyncio.get_running_loop()
        recent: deque = deque(maxlen=max(1, round(1 / period_s)))
        while True:
            due = loop.time() + period_s
            await asyncio.sleep(period_s)
            lag_ms = (loop.time() - due) * 1000
            recent.append(lag_ms)
            self.recent_lag_ms = max(recent)
            self.loop_lag_ms = max(self.loop_lag_ms, lag_ms)

    def report(self, wall_s: float) -> dict:
        out: dict = dict(self.totals)
        out.update(self.answer_ms.summary("answer_ms"))
        out.update(self.think_ms.summary("think_ms"))
        out.update(self.login_ms.summary("login_ms"))
        out.update({"sessions": len({name for name, _ in self.sessions}), "cpu_s": round(cpu_seconds(), 2),
                    "wall_s": round(wall_s, 2), "loop_lag_ms_max": round(self.loop_lag_ms, 1)})
        return out


class Session:
    """One bot name's stream to one address, logging in again after a refusal, a Hello timeout or a drop."""

    def __init__(self, swarm: Swarm, name: str, address: str, number: int = 0) -> None:
        self.swarm = swarm
        self.bot_name = name
        self.address = address
        self.number = number  # its place among this process's sessions to the address: which connection it uses
        self.rng = random.Random(name)
        self.turns_in: Counter = Counter()  # game id -> turns answered in it (for the think time per decision)
        self.tries = 0       # logins tried again so far
        #: request id -> (ms this side may have cost its answer, its move limit), for the last few turns
        self.lagged: OrderedDict[int, tuple[float, int]] = OrderedDict()
        self.phase = "opening"

    def _backoff(self) -> float:
        """Seconds before the next login after a failure: 0.5 s doubling with each try, at most 8 s (jittered
        by the caller)."""
        return min(8.0, 0.5 * 2 ** self.tries)

    async def run(self) -> None:
        swarm = self.swarm
        totals = swarm.totals
        try:
            while not swarm.stopping.is_set():
                retry_s = await self._attempt()
                if retry_s is None or swarm.stopping.is_set():
                    break
                if self.tries >= swarm.args.retries:
                    totals["gave_up"] += 1
                    swarm.say(f"{self.bot_name}: gave up after {self.tries + 1} logins")
                    break
                self.tries += 1
                totals["retried"] += 1
                try:
                    await asyncio.wait_for(swarm.stopping.wait(), retry_s * (1 + self.rng.random()))
                    break
                except asyncio.TimeoutError:
                    pass
        except asyncio.CancelledError:
            pass

    async def _login(self, call, hello) -> object:
        """Write the Hello and read the answer to it; `opening` -> `waiting` once the Hello is written."""
        swarm = self.swarm
        await call.write(hello)  # waits while the stream cannot start (the connection's stream limit, flow control)
        swarm.opening -= 1
        swarm.waiting += 1
        self.phase = "waiting"
        return await call.read()

    async def _attempt(self) -> float | None:
        """One stream; the seconds to wait before logging in again, or None when this name is done.

        A Hello refused with "try again in N s" is tried again after N s; a Hello that got no answer
        within ``--hello-timeout`` (counted in ``hello_timeouts_opening`` when gRPC never took the
        Hello, ``hello_timeouts_waiting`` when the arena never answered it), a stream that ended
        before its Welcome, and a welcomed stream the arena dropped are tried again after a backoff;
        a refusal no retry can fix (a bad Hello, an unsupported version) ends the name.
        """
        swarm, a = self.swarm, self.swarm.args
        totals = swarm.totals
        play = swarm.channel(self.address, self.number).stream_stream(
            "/mauarena.v1.Arena/Play",
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=pb.ArenaMessage.FromString,
        )
        hello = pb.BotMessage(hello=pb.Hello(
            name=self.bot_name, token=a.token, sdk_version=__version__, games=a.games or [],
            max_games=a.max_games, bot_version=f"loadbot-{a.style}", protocol=pb.PROTOCOL_V1, instance=swarm.instance,
        ))
        swarm.queued += 1
        try:
            await swarm.connecting.acquire()  # a few Hellos at a time per process: a burst of logins is refused
        finally:
            swarm.queued -= 1
        opened = time.perf_counter()
        swarm.opening += 1
        self.phase = "opening"
        call = play()
        in_session = False
        try:
            try:
                first = await asyncio.wait_for(self._login(call, hello), a.hello_timeout)
            except asyncio.TimeoutError:
                call.cancel()
                totals["hello_timeouts"] += 1
                totals[f"hello_timeouts_{self.phase}"] += 1
                swarm.say(f"{self.bot_name}: no answer to its Hello within {a.hello_timeout:g} s "
                          f"({'gRPC never took it' if self.phase == 'opening' else 'written, not answered'})")
                return self._backoff()
            finally:
                if self.phase == "opening":
                    swarm.opening -= 1
                else:
                    swarm.waiting -= 1
                swarm.connecting.release()
            if first is grpc.aio.EOF:
                totals["ended_before_welcome"] += 1
                return self._backoff()
            kind = first.WhichOneof("kind")
            if kind == "error":
                return self._refused(first.error)
            if kind != "welcome":
                totals["error:no_welcome"] += 1
                swarm.say(f"{self.bot_name}: the arena's first message was {kind}, not a Welcome")
                return None
            totals["welcomed"] += 1
            swarm.connected += 1
            in_session = True
            swarm.check_done()
            swarm.login_ms.add((time.perf_counter() - opened) * 1000)
            self._follow(first.welcome.hosts)
            if await self._play(call):
                return None
        except grpc.RpcError as error:
            if swarm.stopping.is_set():
                return None
            totals[f"error:rpc:{error.code().name}"] += 1
            if not in_session:
                return self._backoff()  # the connection failed before the Welcome: try again
        except asyncio.CancelledError:
            call.cancel()
            raise
        finally:
            if in_session:
                swarm.connected -= 1
        if swarm.stopping.is_set():
            return None
        totals["dropped"] += 1  # the arena ended a welcomed stream: a bot logs in again
        swarm.say(f"{self.bot_name}: its stream ended; logging in again")
        return self._backoff()

    def _refused(self, error) -> float | None:
        """A Hello answered with an Error: the seconds before another try, or None (no retry can fix it)."""
        totals = self.swarm.totals
        code = pb.Error.Code.Name(error.code)
        totals[f"refused:{code}"] += 1
        if "try again" in error.message:
            return seconds_in(error.message)
        if code == "BAD_HELLO" and "no Hello" in error.message:
            return self._backoff()  # dropped before the arena read the Hello (its budget or its timeout): try again
        if code == "DUPLICATE_SESSION":
            return self._backoff()  # the arena has not yet seen an earlier stream of this name end
        totals[f"error:{code}"] += 1
        self.swarm.say(f"{self.bot_name}: refused: {error.message}")
        return None

    async def _play(self, call) -> bool:
        """Answer turns until the stream ends; True when it ended as the arena shut down (nothing to retry)."""
        swarm, a = self.swarm, self.swarm.args
        totals = swarm.totals
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                return False
            kind = message.WhichOneof("kind")
            if kind == "turn":
                read_at = time.perf_counter()
                lag_at_read = swarm.recent_lag_ms
                turn = message.turn
                if a.style == "slow":
                    await asyncio.sleep(a.slow_ms / 1000)
                index = self._choose(turn.legal)
                await call.write(pb.BotMessage(answer=pb.Answer(
                    game_id=turn.game_id, request_id=turn.request_id,
                    action_index=index, action_text=turn.legal[index],
                )))
                here_ms = (time.perf_counter() - read_at) * 1000
                swarm.answer_ms.add(here_ms)
                # What this side may have cost the answer: its own time, and how late its loop ran (a turn
                # that arrived while the loop lagged was read that much later).
                self.lagged[turn.request_id] = (here_ms + lag_at_read, turn.time.move_ms)
                if len(self.lagged) > KEPT_TURNS:
                    self.lagged.popitem(last=False)
                self.turns_in[turn.game_id] += 1
                totals["turns"] += 1
            elif kind == "game_ended":
                self._ended(message.game_ended)
            elif kind == "hosts":
                totals["hosts_messages"] += 1
                self._follow(message.hosts.hosts)
            elif kind == "error":
                error = message.error
                code = pb.Error.Code.Name(error.code)
                totals[f"error:{code}"] += 1
                if code == "TIMEOUT":
                    here_ms, move_ms = self.lagged.get(error.request_id, (0.0, 0))
                    # Half the move limit spent on this side: the load process's lag, not the arena's.
                    totals["timeouts_load_side" if move_ms and here_ms >= move_ms / 2 else "timeouts_arena_side"] += 1
                if a.verbose:
                    swarm.say(f"{self.bot_name}: {error.message}")
                if code == "SHUTTING_DOWN":
                    return True

    def _ended(self, ended) -> None:
        totals = self.swarm.totals
        totals["games"] += 1
        self.swarm.check_done()
        turns = self.turns_in.pop(ended.game_id, 0)
        for result in ended.results:
            if result.name == self.bot_name:
                totals["seat_timeouts"] += result.timeouts
                totals["seat_strikes"] += result.strikes
                if turns:
                    self.swarm.think_ms.add(result.think_ms / turns)
        self.swarm.log_ended(self.bot_name, ended)

    def _follow(self, hosts) -> None:
        if self.swarm.args.follow_hosts:
            for address in list(hosts)[1:]:
                self.swarm.start(self.bot_name, address)

    def _choose(self, legal) -> int:
        style = self.swarm.args.style
        if style == "first":
            return 0
        if style in ("high", "low"):
            ranks = "789TJQKA"
            keyed = sorted(range(len(legal)), key=lambda i: ranks.find(legal[i].split()[-1][:1]))
            return keyed[-1] if style == "high" else keyed[0]
        return self.rng.randrange(len(legal))


async def run_swarm(args: argparse.Namespace, names: list[str]) -> dict:
    """Play until SIGTERM/SIGINT, ``--duration``, ``--until-games``, or every session has given up; the totals."""
    swarm = Swarm(args)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, swarm.stopping.set)
    if args.ended_log:
        swarm.ended_log = open(args.ended_log, "a", encoding="utf-8")
    started = time.monotonic()
    watchers = [loop.create_task(swarm.watch_loop())]
    if args.progress_every:
        watchers.append(loop.create_task(swarm.show_progress(args.progress_every)))
    try:
        swarm.names = len(names)
        for name in names:
            swarm.start(name, args.arena)
        while not swarm.stopping.is_set():
            live = [task for task in swarm.sessions.values() if not task.done()]
            if not live:
                break
            try:
                await asyncio.wait_for(swarm.stopping.wait(), 0.2 if args.duration is None else
                                       min(0.2, max(0.0, args.duration - (time.monotonic() - started))))
            except asyncio.TimeoutError:
                pass
            if args.duration is not None and time.monotonic() - started >= args.duration:
                break
        swarm.stopping.set()
        for task in swarm.sessions.values():
            task.cancel()
        await asyncio.wait(list(swarm.sessions.values()), timeout=5)
        for watcher in watchers:
            watcher.cancel()
        for channel in swarm.channels.values():
            await channel.close()
    finally:
        if swarm.ended_log is not None:
            swarm.ended_log.close()
    return swarm.report(time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.ladder.loadbot", description=__doc__.split("\n\n")[0])
    parser.add_argument("--arena", required=True, metavar="HOST:PORT")
    named = parser.add_mutually_exclusive_group(required=True)
    named.add_argument("--names", help="comma-separated session names")
    named.add_argument("--count", type=int, metavar="N", help="N sessions named PREFIX000, PREFIX001, ...")
    parser.add_argument("--prefix", default="load", help="name prefix with --count (default load)")
    parser.add_argument("--token", default="")
    parser.add_argument("--games", type=lambda s: [g for g in s.split(",") if g], help="rulesets (default all)")
    parser.add_argument("--parallel", "--max-games", dest="max_games", type=int, default=1, metavar="N",
                        help="games at once per session (--max-games: its old name, as in the SDK)")
    parser.add_argument("--style", choices=("first", "random", "high", "low", "slow"), default="random")
    parser.add_argument("--slow-ms", type=int, default=50, help="think time of --style slow")
    parser.add_argument("--duration", type=float, help="seconds to stay connected (default: until SIGTERM)")
    parser.add_argument("--until-games", type=int, metavar="N",
                        help="stop once every name was welcomed and this process's sessions were told N games "
                             "ended, together")
    parser.add_argument("--ended-log", metavar="FILE", help="append a JSON line per GameEnded received")
    parser.add_argument("--connect-at-once", type=int, default=4, metavar="N",
                        help="sessions of this process waiting for their Welcome at once (default 4)")
    parser.add_argument("--retries", type=int, default=10,
                        help="times a session logs in again after a Hello refused with 'try again', left "
                             "unanswered, or a stream dropped (default 10)")
    parser.add_argument("--hello-timeout", type=float, default=60.0, metavar="SECONDS",
                        help="give up on a Hello not answered within this, log it and log in again (default 60)")
    parser.add_argument("--sessions-per-connection", type=int, metavar="N",
                        help="sessions sharing one channel (one TCP connection); default: all of this process's "
                             "sessions to an address share one")
    parser.add_argument("--follow-hosts", action="store_true",
                        help="open a session to every host a shared ladder lists (Welcome.hosts, Hosts), as the SDK does")
    parser.add_argument("--progress-every", type=float, metavar="SECONDS",
                        help='print {"progress": true, "connected": N, "welcomed": N, "turns": N, ...} this often')
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.count is not None:
        if args.count < 1:
            parser.error("--count must be at least 1")
        names = [f"{args.prefix}{i:03d}" for i in range(args.count)]
    else:
        names = [n for n in args.names.split(",") if n]
        if not names:
            parser.error("--names is empty")
    if args.ended_log:
        try:
            open(args.ended_log, "a", encoding="utf-8").close()
        except OSError as error:
            parser.error(f"--ended-log {args.ended_log}: {error.strerror}")
    totals = asyncio.run(run_swarm(args, names))
    print(json.dumps(totals), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
