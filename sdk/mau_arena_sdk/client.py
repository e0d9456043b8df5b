"""The connection to the arena: one gRPC channel, one bidirectional stream per session.

How it works: the stream is served by grpc.aio on an asyncio loop; bot
authors never see it.  Bot code (``act``, ``on_game_start``,
``on_game_end``) runs where `mau_arena_sdk.relay.Relay` puts it: inside the
loop with room for one game, else on the thread that owns the loop, outside
it, with a stand-by thread taking the loop over from a slow call so that the
other games are not held up (that module says how and why).

When the stream drops, the client reconnects with capped, jittered
exponential backoff and sends ``Hello.resume_session`` with the session's
``resume_secret`` from its Welcome (the proof that it is the same bot; kept
in memory only, never logged); the arena re-attaches
the session to its running games and re-sends any open turn request.  An
answer computed while the connection was down is kept and re-sent at once
when the same request comes back.  A stream lost before its Welcome arrived
leaves no secret to resume with: the client connects as new (the arena hands
a bot with a token its away session back), and since it had reached the
arena it keeps trying past the connect timeout, waiting out a
DUPLICATE_SESSION (the arena still holding the old stream) for
`ARENA_NOTICES_S`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import grpc

from mau_arena_sdk.bot import Bot
from mau_arena_sdk.decide import Decision, decide, error_text
from mau_arena_sdk.errors import ArenaRefused, ArenaUnreachable, ConnectionLost
from mau_arena_sdk.event_loops import on_loop, set_result, thread_loop
from mau_arena_sdk.game_worker import GameWorker
from mau_arena_sdk.outgoing import Outgoing
from mau_arena_sdk.pace import Pacer
from mau_arena_sdk.relay import Relay
from mau_arena_sdk.history import History
from mau_arena_sdk.turn import GameInfo, GameResult, Turn
from mau_arena_sdk.wire import pb, rpc

#: Client keepalive: a connection that died without a word (a host killed, a cable pulled, a proxy that
#: stops forwarding) is noticed within ~15 s instead of when the operating system gives up on it.  Within
#: what the arena allows (a ping every 5 s at most, pings without calls permitted).  grpc has one ping in
#: flight at a time, and its flow-control (BDP) pings wait 60 s for their answer by default: while one
#: is unanswered the keepalive ping is never sent, so a connection gone silent right after some traffic
#: was noticed only after a minute.  Every ping now waits 5 s at most.
KEEPALIVE = [
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.http2.ping_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]

SDK_VERSION = "0.2.0"  # the distribution's version (sdk/pyproject.toml); the server checks its major

#: How long an arena may take to notice that a connection of ours went silent (its keepalive: a ping after
#: 20 s without traffic, 10 s for the answer), plus a margin: while it has not, a bot whose earlier stream
#: died before its Welcome arrived is refused DUPLICATE_SESSION under its own name.
ARENA_NOTICES_S = 35.0

#: Hello errors that no retry can fix, with what to tell the user.
_REFUSALS = {
    pb.Error.BAD_HELLO: "the arena rejected the hello",
    pb.Error.AUTH_FAILED: "authentication failed (unknown bot name or wrong token; see `arena bots add NAME`)",
    pb.Error.UNSUPPORTED_VERSION: f"the arena does not support this SDK version ({SDK_VERSION}); upgrade the SDK",
    pb.Error.CAPACITY: "the arena is full (too many connections or sessions)",
    pb.Error.DUPLICATE_SESSION: "this name is taken by a connected bot: pick another with --name",
}

#: In-game notices: the stream stays open, the bot is told what happened.
_NOTICES = {
    pb.Error.TIMEOUT: "answer too late: the default action was applied (strike)",
    pb.Error.ILLEGAL_ACTION: "the arena judged our answer illegal: the default action was applied (strike)",
    pb.Error.STALE_REQUEST: "answer to a request that was no longer open (dropped)",
    pb.Error.FORFEIT: "too many strikes: this seat forfeits the game and plays defaults from now on",
    pb.Error.MALFORMED: "the arena could not understand a message of ours",
    pb.Error.MESSAGE_TOO_LARGE: "a message was too large",
}


@dataclass
class ClientOptions:
    """Everything the client needs; `sdk.flags` fills it from code defaults and the command line."""

    name: str
    arena: str = "127.0.0.1:50051"
    token: str = ""
    games: list[str] = field(default_factory=list)  # empty: every ruleset
    max_games: int = 1
    max_reconnects: int = 8
    games_limit: int | None = None
    connect_timeout_s: float = 10.0
    bot_version: str = ""
    steady: bool | None = None  # hold answers to a steady pace (`mau_arena_sdk.pace`); None: as `Bot.steady` says
    backoff_base_s: float = 0.25
    backoff_cap_s: float = 8.0


def backoff_delay(attempt: int, base_s: float, cap_s: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with a cap and jitter, so a crowd of bots does not reconnect in lockstep."""
    ceiling = min(cap_s, base_s * (2 ** max(0, attempt - 1)))
    return ceiling * (rng or random).uniform(0.5, 1.0)


class _Game:
    """Per-game bookkeeping: its info, its error count, its last answer, and who runs its calls."""

    def __init__(self, game_id: str, info: GameInfo | None, worker: bool = False, link: "_Link | None" = None):
        self.game_id = game_id
        self.info = info
        self.link = link    # the host this game is played on: its answers go there
        self.errors = 0
        self.pending_error = ""  # a hook's failure, sent with the next answer (Answer.bot_error)
        self.notices = 0
        self.last_answer: tuple[int, Any] | None = None
        self.held: int | None = None  # the request id of the answer held back by pacing, until it is sent
        self.history = History()  # the game's public events, from every request so far
        self.busy = False   # a thread is running one of this game's calls
        self.slow = False   # a call of this game was taken over: its next calls go to a worker thread
        self.queued = 0     # its calls waiting in the client's work queue
        self.pending: deque = deque()  # calls that came in meanwhile, run in order by that thread
        self.worker: GameWorker | None = GameWorker(f"game-{game_id[:12]}") if worker else None


class _Link:
    """One host's session: its address, the session's id and resume secret, the current stream.

    A bot given one address has one link; when the arena is one host of a shared ladder its
    Welcome lists the other live hosts and the client opens a link to each (at most
    `Client.MAX_HOSTS`), so the bot can be seated by any of them.  A Hosts message later
    says the list changed: a link is opened to each new host, and a link to a host no longer
    listed is ended once it has no game left (never the one the bot was given).
    """

    def __init__(self, address: str, entry: bool = False) -> None:
        self.address = address
        self.entry = entry
        self.advertised = ""      # what the host calls itself (Welcome.hosts[0])
        self.session_id = ""
        self.resume_secret = ""   # Welcome.resume_secret: proves a resume is ours; never logged
        self.outgoing: "Outgoing | None" = None
        self.call: Any = None
        self.last_failure = ""
        self.welcomed = False     # welcomed at least once
        #: When a stream of ours died after our Hello went out and before any answer (None: never): the arena
        #: may hold a session of ours whose Welcome was lost with it (`Client._session`).
        self.hello_lost_at: float | None = None
        self.unlisted = False     # the ladder's host list no longer names it: ended once its games are
        self.dropped = False      # ended on purpose (unlisted): no reconnection


class _SessionEnd(Exception):
    def __init__(self, how: str):
        super().__init__(how)
        self.how = how  # "stopped", "closed", "lost", "duplicate" (see `Client._on_error`)


def _outgoing(game: _Game) -> "Outgoing | None":
    """Where a message for ``game`` goes: its host's stream now (None while disconnected)."""
    link = game.link
    return link.outgoing if link is not None else None


class Client:
    """Runs one bot against one arena until stopped, the games limit, or a fatal error.

    Threads: bot code runs where `Relay` puts it (`mau_arena_sdk.relay`: on the thread that owns the
    asyncio loop, or, for a slow call among several games, taken over by a stand-by thread); the
    sessions, one per host, are the loop's tasks.
    """

    def __init__(self, bot: Bot, options: ClientOptions, log: logging.Logger | None = None):
        self.bot = bot
        self.options = options
        self.log = log or logging.getLogger("mau_arena_sdk")
        self.games: dict[str, _Game] = {}
        self.games_done = 0
        self._entry = _Link(options.arena, entry=True)
        self._links: dict[str, _Link] = {options.arena: self._entry}   # address -> link
        self._link_tasks: dict[str, Any] = {}
        self._links_changed: asyncio.Event | None = None  # set when a link is added (wakes `_serve`)
        self._stopping = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._relay: Relay | None = None  # made by `serve`, with its loop
        #: This process's id, sent in the Hello to every host (``Hello.instance``): the sessions of one name on the
        #: hosts of a shared ladder must come from one client, and these are this one's.  Random, never reused.
        self.instance = secrets.token_urlsafe(16)
        steady = options.steady if options.steady is not None else getattr(bot, "steady", False)
        #: Answer timing held to a steady pace (`mau_arena_sdk.pace`); None: every answer leaves when it is ready.
        self.pacer: Pacer | None = Pacer() if steady else None

    #: At most this many hosts of a shared ladder get a session (the one given included).
    MAX_HOSTS = 16

    @property
    def session_id(self) -> str:
        """The session id on the host the bot was given (``--arena``)."""
        return self._entry.session_id

    # ------------------------------------------------------------------ public
    def serve(self) -> int:
        """Connect, play, reconnect as needed; return the process exit code (errors raise ArenaError).

        On the main thread, SIGINT and SIGTERM stop it cleanly (status 0).
        """
        restore = self._catch_signals()
        loop = thread_loop()
        self._loop = loop
        relay = self._relay = Relay(loop, self.options.max_games, _outgoing)
        asyncio.set_event_loop(loop)
        try:
            task = loop.create_task(self._serve())
            task.add_done_callback(lambda _: loop.stop())
            try:
                relay.run(task)
            except KeyboardInterrupt:
                self.log.info("interrupted: closing the connection")
                self.stop()
                relay.interrupted()
                return 0
            if task.cancelled():
                return 0
            return task.result()
        finally:
            relay.close()
            asyncio.set_event_loop(None)
            for signum, handler in restore:
                signal.signal(signum, handler)
            self._close_games()

    def stop(self) -> None:
        """End the session from any thread (used for Ctrl-C and the games limit)."""
        self._stopping.set()
        loop = self._loop
        if loop is None:
            return
        if on_loop(loop):
            self._stop_on_loop()
            return
        try:
            loop.call_soon_threadsafe(self._stop_on_loop)
        except RuntimeError:  # the loop has finished: nothing left to stop
            pass

    # ------------------------------------------------------------------ signals and the loop
    def _catch_signals(self) -> list[tuple[int, Any]]:
        """On the main thread: SIGINT and SIGTERM stop the client; inside bot code on the main thread
        they raise KeyboardInterrupt there (as before), so a bot stuck in its own code can be stopped."""
        if threading.current_thread() is not threading.main_thread():
            return []

        def on_signal(signum: int, frame: Any) -> None:
            # A Python-level handler runs between two bytecodes of this thread, maybe inside the
            # loop's own code: hand the stop to the loop (the self-pipe ends its wait) instead.
            self._stopping.set()
            loop = self._loop
            if loop is not None:
                try:
                    loop.call_soon_threadsafe(self._stop_on_loop)
                except RuntimeError:
                    pass
            if loop is None or not loop.is_running() or not on_loop(loop):
                raise KeyboardInterrupt  # in bot code (or before the loop runs): interrupt it

        restore = []
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                restore.append((signum, signal.signal(signum, on_signal)))
            except (ValueError, OSError):  # pragma: no cover - not allowed here
                pass
        return restore

    def _stop_on_loop(self) -> None:
        if self._stopped is not None:
            self._stopped.set()
        for link in list(self._links.values()):
            outgoing, call = link.outgoing, link.call
            if outgoing is not None:
                outgoing.close()
            if call is not None:
                call.cancel()

    async def _serve(self) -> int:
        """Every link's session loop; ends when all have ended (a fatal error ends them all)."""
        self._stopped = asyncio.Event()
        self._links_changed = asyncio.Event()
        if self._stopping.is_set():
            return 0
        self._start_link(self._entry)
        try:
            while self._link_tasks:
                # Also woken when a link is added, so a new host's task is watched from its start.
                self._links_changed.clear()
                changed = asyncio.ensure_future(self._links_changed.wait())
                try:
                    done, _ = await asyncio.wait({*self._link_tasks.values(), changed},
                                                 return_when=asyncio.FIRST_COMPLETED)
                finally:
                    changed.cancel()
                for task in done:
                    address = next((a for a, t in self._link_tasks.items() if t is task), None)
                    if address is None:  # the wake-up, or a dropped link's task replaced by a new one
                        continue
                    del self._link_tasks[address]
                    error = task.exception()
                    if error is None:
                        continue
                    others = [self._links[a] for a in self._link_tasks]
                    if others and any(link.welcomed for link in others) and not self._stopping.is_set():
                        # One host of a shared ladder is gone for good: the others carry on.
                        self.log.warning("giving up on %s (%s); playing on with %s", address, error,
                                         ", ".join(link.address for link in others))
                        self._links.pop(address, None)
                        continue
                    raise error
            return 0
        finally:
            for task in self._link_tasks.values():
                task.cancel()
            if self._link_tasks:
                await asyncio.gather(*self._link_tasks.values(), return_exceptions=True)

    def _start_link(self, link: _Link) -> None:
        self._links[link.address] = link
        self._link_tasks[link.address] = asyncio.ensure_future(self._run_link(link))
        if self._links_changed is not None:
            self._links_changed.set()

    def _on_hosts(self, link: _Link, hosts: list[str]) -> None:
        """The ladder's live hosts changed (a Hosts message): connect to new ones, let go of gone ones."""
        if not hosts:
            return
        listed = set(hosts)
        for other in list(self._links.values()):
            if other is link or other.entry:
                continue
            was = other.unlisted
            other.unlisted = other.address not in listed and other.advertised not in listed
            if other.unlisted and not was:
                self._drop_if_idle(other)
        self._learn_hosts(link, hosts)

    def _drop_if_idle(self, link: _Link) -> None:
        """End the session to a host no longer listed, once none of our games runs there.

        A host we are not connected to (it died: its games will never end) is let go at once.
        """
        if not link.unlisted or link.dropped:
            return
        if link.outgoing is not None and any(game.link is link for game in self.games.values()):
            return  # still connected with games there: when the last one ends
        self.log.info("the ladder no longer lists %s: ending the session there", link.address)
        self._close_games(link)
        link.dropped = True
        self._links.pop(link.address, None)
        if link.outgoing is not None:
            link.outgoing.close()
        if link.call is not None:
            link.call.cancel()

    def _learn_hosts(self, link: _Link, hosts: Any) -> None:
        """A Welcome listed the ladder's live hosts (the one it came from first): open a session to the others."""
        if not hosts:
            return
        link.advertised = hosts[0]
        known = {l.address for l in self._links.values()} | {l.advertised for l in self._links.values()}
        for address in hosts[1:]:
            if address in known or self._stopping.is_set():
                continue
            if len(self._links) >= self.MAX_HOSTS:
                self.log.warning("the ladder has more than %d hosts: not connecting to %s", self.MAX_HOSTS, address)
                break
            self.log.info("the ladder's host %s also lists %s: connecting there too", link.address, address)
            known.add(address)
            self._start_link(_Link(address))

    async def _run_link(self, link: _Link) -> int:
        """One host: connect, play, reconnect with backoff until stopped, closed or lost for good."""
        channel = grpc.aio.insecure_channel(
            link.address,
            options=[
                ("grpc.max_receive_message_length", 64 * 1024 * 1024),
                # grpc's own reconnection backoff must not outlast ours (its default starts at 1 s).
                ("grpc.initial_reconnect_backoff_ms", int(self.options.backoff_base_s * 1000) or 1),
                ("grpc.min_reconnect_backoff_ms", int(self.options.backoff_base_s * 1000) or 1),
                ("grpc.max_reconnect_backoff_ms", int(self.options.backoff_cap_s * 1000) or 1),
            ] + KEEPALIVE,
        )
        stub = rpc.ArenaStub(channel)
        failures = 0
        give_up_at = time.monotonic() + self.options.connect_timeout_s
        try:
            while True:
                how = await self._session(link, stub)
                if how in ("stopped", "closed"):
                    return 0
                if link.unlisted:  # lost, and no longer one of the ladder's hosts: let it go
                    self._drop_if_idle(link)
                    return 0
                if how == "welcomed-then-lost":
                    failures = 0  # the last session worked: start the backoff afresh
                if how == "hello-then-lost":
                    # We reached the arena, and it may have admitted us before the stream died with our Welcome:
                    # a fresh connect timeout, and our token (if any) takes that session over (server README,
                    # "Resume"); until the arena notices the old stream is gone it refuses us DUPLICATE_SESSION.
                    link.hello_lost_at = time.monotonic()
                    give_up_at = max(give_up_at, link.hello_lost_at + self.options.connect_timeout_s)
                if not link.welcomed and how == "duplicate":
                    # Refused under our own name after our earlier stream died before its Welcome: wait for the
                    # arena to notice that stream is gone (its keepalive), then a name in use is final.
                    if time.monotonic() >= link.hello_lost_at + ARENA_NOTICES_S:
                        raise ArenaRefused("DUPLICATE_SESSION", f"{_REFUSALS[pb.Error.DUPLICATE_SESSION]} "
                                                                f"({link.last_failure}) [DUPLICATE_SESSION]")
                    delay = backoff_delay(failures + 1, self.options.backoff_base_s, 1.0)
                    failures += 1
                elif not link.welcomed:
                    # Still trying to reach the arena for the first time: retry until the connect timeout.
                    if time.monotonic() >= give_up_at:
                        raise ArenaUnreachable(
                            f"cannot reach the arena at {link.address} "
                            f"(tried for {self.options.connect_timeout_s:g} s: {link.last_failure}); "
                            "is it running? check --arena HOST:PORT"
                        )
                    delay = min(backoff_delay(failures + 1, self.options.backoff_base_s, 1.0),
                                max(0.0, give_up_at - time.monotonic()))
                    failures += 1
                else:
                    failures += 1
                    if failures > self.options.max_reconnects:
                        raise ConnectionLost(
                            f"lost the connection to {link.address} and {self.options.max_reconnects} "
                            f"reconnection attempts failed ({link.last_failure})"
                        )
                    delay = backoff_delay(failures, self.options.backoff_base_s, self.options.backoff_cap_s)
                    self.log.warning(
                        "connection to %s lost; reconnecting in %.1f s (attempt %d of %d)",
                        link.address, delay, failures, self.options.max_reconnects,
                    )
                try:
                    await asyncio.wait_for(self._stopped.wait(), delay)
                    return 0
                except asyncio.TimeoutError:
                    pass
        finally:
            await channel.close()

    # ------------------------------------------------------------------ session
    def _hello(self, link: _Link | None = None) -> Any:
        """The Hello for a host's session (default: the host the bot was given)."""
        link = link or self._entry
        hello = pb.Hello(
            name=self.options.name,
            token=self.options.token,
            sdk_version=SDK_VERSION,
            protocol=pb.PROTOCOL_V1,
            games=self.options.games,
            max_games=self.options.max_games,
            bot_version=self.options.bot_version,
            resume_session=link.session_id,
            resume_secret=link.resume_secret,
            instance=self.instance,
        )
        return pb.BotMessage(hello=hello)

    async def _session(self, link: _Link, stub: Any) -> str:
        """One stream: hello, then messages until it ends.  Returns how it ended."""
        if self._stopping.is_set() or link.dropped:
            return "stopped"
        resuming = bool(link.session_id)
        outgoing = Outgoing(asyncio.get_running_loop())
        outgoing.put_owned(self._hello(link))
        with self._relay.lock:
            link.outgoing = outgoing
        link.call = call = stub.Play()
        writer = asyncio.ensure_future(outgoing.drain_to(call))
        welcomed = False
        try:
            read = call.read
            while True:
                message = await read()
                if message is grpc.aio.EOF:
                    break
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    self._on_turn(link, message.turn)
                elif kind == "welcome":
                    welcomed = True
                    self._on_welcome(link, message.welcome, resuming)
                elif kind == "error":
                    self._on_error(link, message.error, welcomed, resuming)
                elif kind == "game_started":
                    self._on_game_started(link, message.game_started)
                elif kind == "game_ended":
                    await self._on_game_ended(message.game_ended)
                elif kind == "hosts":
                    self._on_hosts(link, list(message.hosts.hosts))
            how = "stopped" if self._stopping.is_set() or link.dropped else "closed"
            if how == "closed":
                self.log.info("the arena closed the session")
            return how
        except _SessionEnd as end:
            return end.how
        except (grpc.RpcError, asyncio.CancelledError) as error:
            if self._stopping.is_set() or link.dropped:
                return "stopped"
            if isinstance(error, asyncio.CancelledError):
                raise
            code = error.code() if hasattr(error, "code") else None
            details = error.details() if hasattr(error, "details") else ""
            link.last_failure = f"{code.name if code else 'error'}: {details}"
            self.log.debug("stream to %s ended: %s", link.address, link.last_failure)
            if welcomed:
                return "welcomed-then-lost"
            return "hello-then-lost" if outgoing.sent else "lost"
        finally:
            with self._relay.lock:
                link.outgoing = None
            link.call = None
            outgoing.close()
            call.cancel()
            # Let grpc complete the call's last operations (the writer's write fails at once on a
            # cancelled call) on this loop: cancelling their futures instead would leave completions
            # to arrive after the loop has stopped for good.
            for pending in (writer, call.code()):
                try:
                    await asyncio.wait_for(pending, 5)
                except (asyncio.TimeoutError, asyncio.CancelledError, Exception):  # the stream is over either way
                    pass

    def _send(self, game: _Game, message: Any) -> None:
        """Queue a message for the host of ``game``, from the loop; dropped while disconnected."""
        outgoing = _outgoing(game)
        if outgoing is not None:
            outgoing.put_owned(message)

    # ------------------------------------------------------------------ handlers (on the loop)
    def _on_welcome(self, link: _Link, welcome: Any, resuming: bool) -> None:
        resumed = resuming and welcome.session_id == link.session_id
        if resuming and not resumed:
            self.log.warning("the arena at %s started a new session; games of the old one are lost to us",
                             link.address)
            self._close_games(link)
        link.session_id = welcome.session_id
        link.resume_secret = welcome.resume_secret
        link.welcomed = True
        self.log.info(
            "%s %s as %r (server %s)",
            "resumed the session at" if resumed else "connected to",
            link.address, self.options.name, welcome.server_version,
        )
        self._learn_hosts(link, list(welcome.hosts))

    def _on_error(self, link: _Link, error: Any, welcomed: bool, resuming: bool) -> None:
        code_name = pb.Error.Code.Name(error.code)
        detail = f" ({error.message})" if error.message else ""
        if error.code == pb.Error.SHUTTING_DOWN:
            # the arena's own text says it in full (and may add why); repeating a bare code helps nobody
            self.log.info("%s", error.message or "the arena is shutting down")
            raise _SessionEnd("closed")
        if not welcomed:
            if resuming and error.code == pb.Error.DUPLICATE_SESSION:
                # The arena may not have noticed our old stream is gone yet: retry later.
                self.log.warning("resume refused for now%s", detail)
                raise _SessionEnd("lost")
            if link.hello_lost_at is not None and error.code == pb.Error.DUPLICATE_SESSION:
                # Our earlier stream died before its Welcome reached us: the arena may still hold it.
                self.log.warning("the arena still holds our earlier connection, whose Welcome never reached us; "
                                 "trying again%s", detail)
                link.last_failure = error.message or "DUPLICATE_SESSION"
                raise _SessionEnd("duplicate")
            reason = _REFUSALS.get(error.code, "the arena refused the connection")
            raise ArenaRefused(code_name, f"{reason}{detail} [{code_name}]")
        game = self.games.get(error.game_id)
        if game is not None:
            game.notices += 1
        where = f"game {error.game_id} request {error.request_id}: " if error.game_id else ""
        self.log.warning("%s%s%s [%s]", where, _NOTICES.get(error.code, "error from the arena"), detail, code_name)

    def _game(self, game_id: str, info: GameInfo | None = None, link: _Link | None = None) -> _Game:
        game = self.games.get(game_id)
        if game is None:
            worker = self._relay.worker_per_game
            game = self.games[game_id] = _Game(game_id, info, worker=worker, link=link)
        elif link is not None:
            game.link = link
        return game

    def _on_game_started(self, link: _Link, message: Any) -> None:
        info = GameInfo.from_pb(message)
        known = self.games.get(info.game_id)
        if known is not None and known.info is not None:
            return  # re-sent after a resume: the bot already knows this game
        game = self._game(info.game_id, info, link)
        game.info = info
        self.log.info("game %s started: %s, seat %d of %s", info.game_id, info.ruleset, info.seat, ", ".join(info.players))
        self._relay.dispatch(game, self._guarded, game, "on_game_start", lambda: self.bot.on_game_start(info))

    def _on_turn(self, link: _Link, message: Any) -> None:
        game = self._game(message.game_id, link=link)
        last = game.last_answer
        if last is not None and last[0] == message.request_id:
            if game.held != message.request_id:  # a held answer goes out when its hold ends, to the stream then
                self._send(game, last[1])  # re-sent after a resume: we already know our answer
            return
        received = self.pacer.clock() if self.pacer is not None else None  # when pacing: the hold counts from here
        self._relay.dispatch(game, self._answer, game, message, received)

    async def _on_game_ended(self, message: Any) -> None:
        if message.game_id not in self.games:
            return  # a result sent again after a resume, for a game this bot has already closed
        game = self._game(message.game_id)
        del self.games[message.game_id]
        self.games_done += 1
        if game.link is not None and game.link.unlisted:
            self._drop_if_idle(game.link)
        limit = self.options.games_limit
        last = limit is not None and self.games_done >= limit
        done = asyncio.get_running_loop().create_future() if last else None
        self._relay.dispatch(game, self._finish, game, message, done)
        if game.worker is not None:
            game.worker.shutdown(wait=False)
        if done is not None:
            await done  # let on_game_end run before we leave (the loop keeps serving meanwhile)
            self.log.info("played %d game(s): stopping (--games-limit)", self.games_done)
            self.stop()
            raise _SessionEnd("stopped")

    # ------------------------------------------------------------------ bot code (on the owner or a worker)
    def _answer(self, game: _Game, message: Any, received: float | None = None) -> Any:
        """Ask the bot (`decide`: the first legal action when its code fails).  Returns the answer message, or None
        when pacing holds it back (``received``: when the request arrived, on the pacer's clock; `_hold`)."""
        fallback = message.legal[0] if message.legal else ""
        try:
            turn = Turn.from_pb(message, game.history)
        except Exception as exception:  # a message this SDK cannot read: still answer, and say why
            decision = Decision(0, error_text(f"the SDK could not read the turn: {exception!r}"), exception)
        else:
            decision = decide(self.bot, turn)
        if decision.error:
            game.errors += 1
            self.log.error("game %s request %d: %s; answering %r instead", message.game_id, message.request_id,
                           decision.error, fallback, exc_info=decision.exception)
        index = decision.index
        bot_error, game.pending_error = decision.error or game.pending_error, ""
        text = message.legal[index] if message.legal else ""  # the arena's own text, byte for byte
        answer = pb.BotMessage(
            answer=pb.Answer(game_id=message.game_id, request_id=message.request_id, action_index=index,
                             action_text=text, bot_error=bot_error)
        )
        if received is not None:
            seats = len(game.info.players) if game.info is not None else 0
            hold = self.pacer.hold_s((message.observation.ruleset, seats, message.observation.decision), received, message.time.move_ms,
                                     len(message.legal) > 1)
            if hold > 0:
                game.held = message.request_id  # before `last_answer`: a re-sent request must not send it early
                game.last_answer = (message.request_id, answer)
                release = self.pacer.clock() + hold
                self._loop.call_soon_threadsafe(self._hold, game, message.request_id, answer, release)
                return None
        game.last_answer = (message.request_id, answer)
        return answer

    # ------------------------------------------------------------------ pacing (on the loop)
    def _hold(self, game: _Game, request_id: int, answer: Any, release: float) -> None:
        """Send ``answer`` at ``release`` (on the pacer's clock): a timer on the loop, no thread waits meanwhile."""
        self._loop.call_later(max(0.0, release - self.pacer.clock()), self._release, game, request_id, answer)

    def _release(self, game: _Game, request_id: int, answer: Any) -> None:
        if game.held != request_id:
            return
        game.held = None
        # To the game's stream now (dropped while disconnected: re-sent on request), even when the game has
        # ended meanwhile (aborted, or another seat resigned): the arena drops it as stale, but it is how the
        # arena learns that this bot is free, as a game that ends while its bot owes an answer keeps the bot's
        # slot until the answer comes (arena/server/owed_answers.py, via `Hub.release`).
        self._send(game, answer)

    def _finish(self, game: _Game, message: Any, done: Optional[asyncio.Future] = None) -> None:
        try:
            seat = game.info.seat if game.info else None
            result = GameResult.from_pb(message, seat=seat, errors=game.errors)
            placing = f"placed {result.placement} of {len(result.seats)}" if result.mine else "ended"
            errors = f"; {game.errors} bot error(s) answered with the first legal action" if game.errors else ""
            self.log.info("game %s %s (%s)%s", game.game_id, placing, result.reason or "finished", errors)
            info = game.info or GameInfo(game_id=game.game_id, ruleset="", seat=-1, players=())
            self._guarded(game, "on_game_end", lambda: self.bot.on_game_end(info, result))
        finally:
            if done is not None:
                self._loop.call_soon_threadsafe(set_result, done)

    def _guarded(self, game: _Game, what: str, call: Callable[[], None]) -> None:
        try:
            call()
        except Exception as exception:
            game.errors += 1
            # Reported with the game's next answer (on_game_end's cannot be: the game is over).
            game.pending_error = error_text(f"{what}() raised {type(exception).__name__}: {exception}")
            self.log.exception("game %s: %s() raised", game.game_id, what)

    def _close_games(self, link: _Link | None = None) -> None:
        """Forget the games (of one host's session, or all)."""
        for game_id, game in list(self.games.items()):
            if link is not None and game.link is not link:
                continue
            if game.worker is not None:
                game.worker.shutdown(wait=False, cancel_futures=True)
            game.pending.clear()
            del self.games[game_id]
