"""`run(config, director)`: the arena server's one entry point.

grpc.aio serves on a fresh asyncio loop (the host); trio runs as a guest on
that loop and owns the concurrency: the director, the games, every wait for
a bot.  Both live on one thread, so they share plain objects without locks.
Shutdown order matters: stop accepting, let the trio run finish, only then
stop gRPC (with a grace period).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
import os
import secrets
import socket
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Mapping, Optional, Sequence, Union

import grpc
import trio

from arena.server.config import ServerConfig
from arena.rebuilds import Rebuilds
from arena.server import guestloop
from arena.server.live import LiveGame, LiveGames, Spectators
from arena.server.readpace import ReadPace
from arena.server.seat import RemoteSeat
from arena.server.service import ArenaService
from arena.server.health import Health
from arena.server.bot_session import SessionInfo
from arena.server.hellopace import RefusedHellos
from arena.server.sessions import Hub, SeatUnavailable
from arena.server.slot_view import SlotView
from arena.server.streambudget import StreamBudget
from mau_arena_sdk.wire import rpc

log = logging.getLogger("arena.server")

Director = Callable[["Handle"], Awaitable[Any]]
#: ``standings_provider(ruleset)`` returns rows (dicts or objects) with name, rating,
#: ci_low, ci_high, games, wins, timeouts, strikes, errors.
StandingsProvider = Callable[[str], Iterable[Any]]
#: ``replay_provider(game_id)`` returns an ended game's replay text, or None; called in a worker
#: thread (it may query a database), for Spectate of a game this host does not remember.
ReplayProvider = Callable[[str], Optional[bytes]]
#: ``host_provider(game_id)`` says where another host of a shared ladder runs a game, in one line (with its
#: address), or None; called in a worker thread, for Spectate of a running game this host does not run.
HostProvider = Callable[[str], Optional[str]]


def new_game_id() -> str:
    """Sortable by start time, unguessable enough that ids cannot be probed."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(4)


class Handle:
    """What a director (ladder, match, benchmark, test) uses, from trio."""

    def __init__(self, hub: Hub, port: int) -> None:
        self.hub = hub
        self.port = port
        self.config = hub.config
        self.standings_provider: Optional[StandingsProvider] = None
        self.replay_provider: Optional[ReplayProvider] = None
        self.host_provider: Optional[HostProvider] = None
        #: The process's budget for re-simulating ended games for readers (Spectate here, and the
        #: web view when it runs on this loop): bounded, shared, remembered, its work in a worker
        #: process started on first use and stopped with the server (`arena.rebuilds`).
        self.rebuilds = Rebuilds()
        self.health: Optional[Health] = None  # the grpc.health.v1 service, set when the server is built
        #: The read-only calls' pace per address (ListGames, GetStandings, Spectate: `ArenaService._paced`).
        self.reads = ReadPace(self.config.reads_per_second, self.config.reads_burst, self.config.reads_max_wait_s)
        #: Hellos refused before the token check, per address; beyond it, new Play streams are refused unread.
        self.refused_hellos = RefusedHellos(self.config.refused_hellos_per_second, self.config.refused_hellos_burst,
                                            self.config.refused_hellos_held, self.config.refused_hellos_held_per_address)

    def now(self) -> float:
        """The games' clock in seconds (real time without the process's stalls, `arena.match.stalls`, or
        `ServerConfig.clock`'s time): what answers are stamped with, so a director running
        `arena.match.runner.play_game` itself passes ``clock=handle.now`` (and ``stalls=handle.stalls``)."""
        return self.hub.now()

    @property
    def stalls(self) -> Any:
        """The process's `arena.match.stalls.StallLedger` behind `now` (None under a test clock)."""
        return self.hub.stalls

    def set_serving(self, serving: bool) -> None:
        """What the health service says (SERVING / NOT_SERVING); call from the director (trio)."""
        if self.health is not None:
            self.health.set_soon(serving)

    @property
    def address(self) -> str:
        return f"{self.config.host}:{self.port}"

    @property
    def rulesets(self) -> list[str]:
        return list(self.hub.rulesets)

    @property
    def owed_answer_hold_s(self) -> float:
        """The longest a bot's slot stays taken after a game that ended while the bot still owed it an answer
        (`ServerConfig.owed_answer_hold_s`): a director that seats the bot again at once may wait that long
        (`wait_free`)."""
        return self.config.owed_answer_hold_s

    def on_hold_expired(self, callback: Optional[Callable[[str, str, int], None]]) -> None:
        """Have ``callback(bot name, game id, request id)`` called, from trio on the server's thread, whenever a
        bot's slot held for the answer it still owes a finished game is given back without that answer
        (`ServerConfig.owed_answer_hold_s` passed: the bot most likely hangs), just before it is.  It must not
        block.  `arena match` stops such a bot (and restarts it with --recover); None: no callback."""
        self.hub.owed_answers.on_expired = callback

    # ---- sessions

    def sessions(self) -> list[SessionInfo]:
        """Connected bots, by name."""
        return self.hub.sessions()

    def connected_versions(self) -> dict[str, str]:
        """Connected bots' names and declared versions: `sessions` without the snapshots, for a
        director that only watches who comes and goes (it runs at every change)."""
        return {name: session.version for name, session in self.hub.by_name.items() if session.connected}

    def version_of(self, name: str) -> str:
        """A connected bot's declared version ("" if it is not connected)."""
        session = self.hub.by_name.get(name)
        return session.version if session is not None and session.connected else ""

    def slots(self) -> dict[str, tuple[int, int, tuple[str, ...]]]:
        """Connected bots' (capacity, games running, rulesets played), by name: what a scheduler plans
        with, without `sessions`' snapshots (a ladder plans again after every game)."""
        return {name: (session.capacity, session.busy, session.games)
                for name, session in self.hub.by_name.items() if session.connected}

    def slot_view(self) -> SlotView:
        """`slots`, kept up to date by the hub as sessions change, with the names changed since the reader
        last looked (`SlotView.take_changed`): a director that plans after every game reads what changed,
        not every connected bot.  Call from the director (trio, on the server's thread), and close the view
        when it stops (`SlotView.close`)."""
        return self.hub.slot_view()

    def is_connected(self, name: str) -> bool:
        session = self.hub.by_name.get(name)
        return session is not None and session.connected

    async def session_event(self) -> None:
        """Return at the next change: a bot connected, left, resumed, or a game slot was freed."""
        await self.hub.wait_changed()

    async def roster_event(self) -> None:
        """Return when a bot connected, left or resumed; a freed game slot does not count (a director
        that starts every game itself knows when one ends, and a ladder's games end dozens of times
        a second)."""
        await self.hub.wait_roster()

    async def wait_free(self, names: Sequence[str], timeout_s: Optional[float] = None) -> str:
        """Wait until each of these bots that is connected has a free game slot for each of its seats
        among ``names``, or ``timeout_s`` (default: the server's `ServerConfig.owed_answer_hold_s` and a
        second) has passed; returns '' when they have, else why not (which bot still owes which answer).

        A bot whose last game ended while it still owed an answer has its slot back only when that answer
        comes (`Hub.release`): a director that starts its next game at once waits here for it first."""
        wanted: dict[str, int] = {}
        for name in names:
            wanted[name] = wanted.get(name, 0) + 1
        limit = self.owed_answer_hold_s + 1.0 if timeout_s is None else timeout_s

        def blocked() -> str:
            for name, count in wanted.items():
                session = self.hub.by_name.get(name)
                if session is not None and session.connected and session.capacity - session.busy < count:
                    return (f"bot {name!r} is busy ({session.busy} of {session.capacity} games"
                            f"{self.hub.owed_text(session)})")
            return ""

        with trio.move_on_after(limit):
            while blocked():
                await self.session_event()
        return blocked()

    async def wait_for_sessions(self, names_or_count: "Union[int, Sequence[str]]", timeout_s: float) -> list[SessionInfo]:
        """Wait until these bots (or this many bots) are connected; TimeoutError after ``timeout_s``."""
        with trio.move_on_after(timeout_s):
            while True:
                current = {s.name: s for s in self.sessions()}
                if isinstance(names_or_count, int):
                    if len(current) >= names_or_count:
                        return list(current.values())
                elif all(name in current for name in names_or_count):
                    return [current[name] for name in names_or_count]
                await self.session_event()
        have = ", ".join(sorted(s.name for s in self.sessions())) or "none"
        raise TimeoutError(f"waited {timeout_s:g} s for bots {names_or_count!r}; connected: {have}")

    def cut_stream(self, name: str) -> bool:
        """Cut bot ``name``'s stream now, as a failed network would; False if it is not connected.

        The session stays, waiting for the bot to resume it (as after any disconnect); the bot
        sees its call end with a non-OK status.  For conformance checks (`arena check-bot`) and tests.
        """
        session = self.hub.by_name.get(name)
        if session is None or session.connection is None:
            return False
        session.connection.abort()
        return True

    def set_hosts(self, addresses: Sequence[str]) -> None:
        """The live hosts of a shared ladder (this one first), sent in every Welcome from now on;
        when they changed, the connected bots are told at once (a Hosts message)."""
        self.hub.set_cluster_hosts(addresses)

    # ---- seats and games

    def seat(self, name: str, ruleset: str, game_id: str) -> RemoteSeat:
        """Reserve one game slot of bot ``name``; the seat gives it back in `game_ended` or `release()`."""
        session = self.hub.reserve(name, ruleset)
        return RemoteSeat(self.hub, session, game_id)

    def start_live_game(self, game_id: str, ruleset: str, players: Sequence[str]) -> LiveGame:
        """Register a game for ListGames/Spectate (play_game does this; for directors running the runner themselves)."""
        return self.hub.live.start(game_id, ruleset, players)

    def event_recorder(self, game: LiveGame) -> Callable[[int, Optional[int], str, Any], None]:
        """The runner's ``on_event`` callback feeding spectators the public view."""
        def on_event(index: int, seat: Optional[int], action_text: str, state: Any) -> None:
            self.hub.live.record(game, index, seat, action_text, state)
        return on_event

    async def play_game(
        self,
        ruleset: str,
        options: Mapping[str, Any],
        seed: int,
        seat_names: Sequence[str],
        time_control: Any,
        recorder: Any = None,
        game_id: Optional[str] = None,
        **runner_options: Any,
    ) -> Any:
        """Play one game between connected bots with the match runner; returns its `GameOutcome`.

        Raises `SeatUnavailable` (nothing reserved) if a bot is missing, busy,
        or does not play ``ruleset``.  ``runner_options`` (``stop``,
        ``late_grace_ms``...) go to `arena.match.runner.play_game` unchanged;
        its ``clock`` is the server's (`now`) unless given.
        """
        from arena.match.runner import play_game as run_match

        game_id = game_id or new_game_id()
        seats: list[RemoteSeat] = []
        try:
            for name in seat_names:
                seats.append(self.seat(name, ruleset, game_id))
        except SeatUnavailable:
            for seat in seats:
                seat.release()
            raise
        game = self.start_live_game(game_id, ruleset, seat_names)
        runner_options.setdefault("clock", self.hub.now)  # the clock the answers are stamped with
        runner_options.setdefault("stalls", self.hub.stalls)  # the stalls behind it: logged, and a long one aborts
        try:
            result = await run_match(
                ruleset, dict(options), seed, seats, time_control,
                game_id=game_id, recorder=recorder, on_event=self.event_recorder(game), **runner_options,
            )
        except BaseException:
            self.hub.live.finish(game, status="aborted")
            raise
        finally:
            for seat in seats:
                seat.release()
        self.hub.live.finish(game, result)
        return result

    def games(self, live_only: bool = False) -> list[Any]:
        return self.hub.live.summaries(live_only=live_only, limit=10_000)


def run(config: ServerConfig, director: Director) -> Any:
    """Serve until ``await director(handle)`` returns; return its result (or raise its error).

    Synchronous: it owns a fresh asyncio loop for its whole life.  Ctrl-C
    cancels the director, shuts down cleanly, then raises KeyboardInterrupt.
    """
    config.validate()
    if config.freeze_gc:
        gc.collect()
        gc.freeze()
    thresholds = gc.get_threshold()
    if config.gc_threshold is not None:
        gc.set_threshold(*config.gc_threshold)
    try:
        return asyncio.run(_serve(config, director))
    finally:
        gc.set_threshold(*thresholds)


async def _listen(config: ServerConfig) -> list[tuple[Any, int]]:
    """``config.acceptors`` gRPC servers bound to one port, each with the port it got; OSError if it is taken.

    grpc.aio takes new streams one at a time per server (one call requested from gRPC's core, the next
    only once that one reached the event loop), and each takes a round of wake-ups across gRPC's
    threads and the loop: on a busy, shared machine that admitted 2-6 logins a second however many
    waited (arena/server/README.md, "Logins on a busy server").  Several servers on one port
    (SO_REUSEPORT: the kernel hands each new connection to one of them) take that many at a time.  A
    taken port is still refused: with one acceptor the socket does not share the port at all; with
    more, a plain bind of the port is tried first, which fails while anyone listens there.
    """
    shared = config.acceptors > 1
    try:
        taken = shared and port_in_use(config.host, config.port)
    except (OSError, UnicodeError):
        taken = False  # not resolvable: the servers' own bind reports it
    if taken:
        raise OSError(errno.EADDRINUSE, f"cannot listen on {config.host}:{config.port}: it is in use")
    servers: list[tuple[Any, int]] = []
    port = config.port
    for _ in range(config.acceptors):
        server = grpc.aio.server(options=_server_options(config, reuse_port=shared))
        address = f"{config.host}:{port}" if ":" not in config.host else f"[{config.host}]:{port}"
        try:
            if config.uses_tls:
                key, cert = Path(config.tls_key).read_bytes(), Path(config.tls_cert).read_bytes()
                bound = server.add_secure_port(address, grpc.ssl_server_credentials([(key, cert)]))
            else:
                bound = server.add_insecure_port(address)
        except RuntimeError:  # grpcio's way of saying the bind failed
            bound = 0
        if not bound:
            await asyncio.gather(server.stop(None), *(s.stop(None) for s, _ in servers))
            raise OSError(f"cannot listen on {address} (in use, or not an address of this machine)")
        servers.append((server, bound))
        port = bound  # the others share the port the first one got (a free one, for port 0)
    return servers


def port_in_use(host: str, port: int) -> bool:
    """Does something listen on ``host:port``?  A plain bind (as a server without SO_REUSEPORT makes)
    tells; port 0 is never in use.  ``socket.gaierror`` when the host does not resolve."""
    if port == 0:
        return False
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a port in TIME_WAIT is free
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return True
    return False


def _server_options(config: ServerConfig, reuse_port: bool = False) -> list[tuple[str, Any]]:
    return [
        # A second server on a taken port must fail, not share it; the acceptors of one arena share theirs.
        ("grpc.so_reuseport", 1 if reuse_port else 0),
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.max_send_message_length", config.max_message_bytes),
        ("grpc.keepalive_time_ms", 20_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        # Every ping waits 10 s at most for its answer, grpc's flow-control (BDP) pings too: one of those in
        # flight holds the keepalive ping back, and by default it waits 60 s, so a bot's connection gone silent
        # kept its name taken (DUPLICATE_SESSION for the bot coming back) for a minute or more instead of ~30 s
        # (the SDK's own side: KEEPALIVE in mau_arena_sdk/client.py).
        ("grpc.http2.ping_timeout_ms", 10_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1),
        # A connection that holds a file descriptor and no call is closed (GOAWAY) after `connection_idle_s`,
        # and one that has not finished its handshake after `handshake_timeout_s`: without them, idle
        # connections (answering pings is enough; gRPC's pings and ours do not count as calls) filled the
        # process's open files and every new login and resume was refused until some went away.  A bot is
        # never idle (its Play stream stays open between games), and any gRPC client reconnects at its next
        # call (ServerConfig; arena/server/README.md, "Idle connections").
        ("grpc.max_connection_idle_ms", int(config.connection_idle_s * 1000)),
        ("grpc.server_handshake_timeout_ms", int(config.handshake_timeout_s * 1000)),
    ]


def _rulesets() -> list[str]:
    from arena import games

    return games.rulesets()


async def _serve(config: ServerConfig, director: Director) -> Any:
    hub = Hub(config, _rulesets())
    with hub.stalls.reporting() if hub.stalls is not None else contextlib.nullcontext():
        return await _serve_hub(config, hub, director)


async def _serve_hub(config: ServerConfig, hub: Hub, director: Director) -> Any:
    loop = asyncio.get_running_loop()
    hub.live = LiveGames(config.finished_games_kept, config.spectate_finished_kept,
                         Spectators(config.max_spectators, config.spectators_per_address))
    servers = await _listen(config)
    port = servers[0][1]
    handle = Handle(hub, port)
    service = ArenaService(hub, handle)
    handle.health = Health(watchers=StreamBudget(config.max_health_watchers, config.health_watchers_per_address,
                                                 "health Watch streams"),
                           checks=ReadPace(config.health_checks_per_second, config.health_checks_burst,
                                          config.health_checks_max_wait_s))
    for server, _ in servers:
        rpc.add_ArenaServicer_to_server(service, server)
        handle.health.add_to(server)
    await handle.health.set(config.serving_at_start)
    for server, _ in servers:
        await server.start()
    log.info("arena listening on %s:%d%s", config.host, port, " (TLS)" if config.uses_tls else "")

    done: asyncio.Future = loop.create_future()
    if guestloop.install():  # trio's I/O wait on this loop, not in a thread: see guestloop.py
        guestloop.use_loop(loop)

    def trio_done(result: Any) -> None:
        hub.direct = None
        hub.trio_token = None  # the run is over: nothing may be handed to trio any more
        guestloop.release(loop)
        if not done.done():
            done.set_result(result)

    if os.environ.get("ARENA_TO_TRIO") != "token":  # "token": always run_sync_soon (for comparisons)
        hub.direct = (threading.get_ident(), lambda: guestloop.wake(loop))
    trio.lowlevel.start_guest_run(
        _trio_main, hub, handle, director,
        run_sync_soon_threadsafe=guestloop.call_soon_from_anywhere(loop),
        run_sync_soon_not_threadsafe=loop.call_soon,
        done_callback=trio_done,
        host_uses_signal_set_wakeup_fd=True,
        clock=hub.clock,  # the games' clock: real time without the process's stalls, or a test's (`Hub.clock`)
    )
    interrupted = False
    try:
        while True:
            try:
                result = await asyncio.shield(done)
                break
            except asyncio.CancelledError:  # Ctrl-C (asyncio.run cancels us): cancel the director, wait for trio
                interrupted = True
                hub.close_all()
                hub.to_trio(_cancel_main, hub)
    finally:
        await handle.health.shutting_down()
        hub.close_all()
        await asyncio.gather(*(server.stop(config.shutdown_grace_s) for server, _ in servers))
        service.gate.close()
        handle.rebuilds.close()
    if interrupted:
        raise KeyboardInterrupt
    return result.unwrap()


def _cancel_main(hub: Hub) -> None:
    scope = getattr(hub, "main_scope", None)
    if scope is not None:
        scope.cancel()


async def _trio_main(hub: Hub, handle: Handle, director: Director) -> Any:
    hub.trio_token = trio.lowlevel.current_trio_token()
    hub.ready.set()
    with trio.CancelScope() as scope:
        hub.main_scope = scope
        try:
            return await director(handle)
        finally:
            hub.close_all()
    raise KeyboardInterrupt  # only reached when cancelled by Ctrl-C
