"""The gRPC side: the `Arena` servicer on the asyncio host loop.

Each Play stream has exactly one long-lived reader task: a timeout or a
cancellation around a grpc.aio read would end the stream for good, so the
reader never has one; it stamps each message with its arrival time and
hands it to trio.  The handler coroutine itself writes the session's outbox
in order.  Whatever a bot sends, the worst outcome is the end of its own
stream.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Optional

import grpc
from google.protobuf.message import DecodeError

from arena.messages import error_to_pb
from arena.server.authgate import AuthGate
from arena.server.hello import HelloRefused, check_hello
from arena.server.live import LiveGame
from arena.server.streambudget import Crowded
from arena.server.peers import peer_address
from arena.server.readpace import ReadPace, list_turns, replay_cost, wait_turn
from arena.server.bot_session import BotSession
from arena.server.connection import MAX_VIOLATIONS, Connection, to_write
from arena.server.sessions import Hub
from mau_arena_sdk.wire import pb, rpc

if TYPE_CHECKING:
    from arena.server.host import Handle

log = logging.getLogger("arena.server")

DEFAULT_LIST_LIMIT = 100
UNDECODABLE = "a message could not be decoded as a BotMessage (mauarena.v1); the stream ends"
MAX_LIST_LIMIT = 1000
#: Spectate's trailing metadata key on a NOT_FOUND whose details say which other host runs the game.
RUNNING_ELSEWHERE = "arena-running-elsewhere"


class ArenaService(rpc.ArenaServicer):
    def __init__(self, hub: Hub, handle: "Handle") -> None:
        self.hub = hub
        self.handle = handle
        self.gate = AuthGate(hub.config)
        self.reads: ReadPace = handle.reads

    # ---------------------------------------------------------------- Play

    async def Play(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        hub = self.hub
        connection = Connection(context.peer() or "")
        if hub.shutting_down:
            await _write_quietly(context, error_to_pb("SHUTTING_DOWN", "the arena is shutting down"))
            return
        refusal = await self.handle.refused_hellos.wait_turn(peer_address(connection.peer))
        if refusal:  # this address's Hellos keep being refused: held, or beyond that not read (`RefusedHellos`)
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, refusal)
        connection.handler = asyncio.current_task()
        hub.connections.add(connection)
        try:
            session = await self._welcome(context, connection)
            if session is None:
                return
            reader = asyncio.create_task(self._read(context, session, connection))
            try:
                await self._write(context, connection)
            except asyncio.CancelledError:
                if not connection.aborted:
                    raise
                # Cut off by the server: finish the call with a status instead of dying with it.
                context.set_code(grpc.StatusCode.RESOURCE_EXHAUSTED)
                context.set_details("the arena cut this stream off (see its log); resume the session")
            finally:
                connection.closed = True
                reader.cancel()
                hub.detach(session, connection)
            if connection.undecodable:
                _end_malformed(context)
        finally:
            hub.connections.discard(connection)
            self._release_name(connection)

    async def _first_message(self, context: grpc.aio.ServicerContext, connection: Connection) -> Any:
        """The stream's first message; None (after telling the bot why, where it can be told) otherwise.

        Until then the stream counts against the Hello budget, not against admitted sessions:
        it is evicted when it stays silent for ``hello_timeout_s`` or when the budget is full
        and it is the oldest silent stream.
        """
        hub = self.hub
        evict = hub.expect_hello(connection)
        read = asyncio.ensure_future(context.read())
        try:
            done, _ = await asyncio.wait({read, evict}, timeout=hub.config.hello_timeout_s,
                                         return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the handler itself is cancelled (server stop): leave nothing pending
            read.cancel()
            raise
        finally:
            hub.hello_done(connection)
        if read not in done:  # abandoned: cancelling the read ends the stream, which is what we want
            read.cancel()
            code, text = evict.result() if evict.done() else (
                "BAD_HELLO", f"no Hello within {hub.config.hello_timeout_s:g} s")
            await _write_quietly(context, error_to_pb(code, text))
            return None
        try:
            first = read.result()
        except Exception as error:  # too large, undecodable, reset: only this stream ends
            self._refused_early(connection)
            log.info("stream from %s ended before its Hello: %s", connection.peer, _short(error))
            if _undecodable(error):
                await _write_quietly(context, error_to_pb("MALFORMED", UNDECODABLE))
                _end_malformed(context)
            return None
        if first is grpc.aio.EOF:
            self._refused_early(connection)
            return None
        return first

    async def _welcome(self, context: grpc.aio.ServicerContext, connection: Connection) -> Optional[BotSession]:
        """Read and check the Hello; None (after telling the bot why) if it is refused."""
        hub = self.hub
        first = await self._first_message(context, connection)
        if first is None:
            return None
        if first.WhichOneof("kind") != "hello":
            self._refused_early(connection)
            await _write_quietly(context, error_to_pb("BAD_HELLO", "the first message must be a Hello"))
            return None
        await hub.ready.wait()
        try:
            try:
                terms = check_hello(first.hello, hub.known_rulesets, hub.config.max_games_per_bot, hub.rulesets)
            except HelloRefused:
                self._refused_early(connection)
                raise
            await self.gate.check(terms.name, terms.token, connection.peer)
            if hub.config.names is not None:
                await self._hold_name(terms, connection)
            try:
                return hub.admit(terms, connection)
            except HelloRefused:
                self._release_name(connection)
                raise
        except HelloRefused as refusal:
            log.info("refused %r from %s: %s", first.hello.name[:40], connection.peer, refusal.message)
            await _write_quietly(context, error_to_pb(refusal.code, refusal.message))
            return None

    async def _hold_name(self, terms: Any, connection: Connection) -> None:
        """A shared ladder: this name may be connected here only while no other host has it from another program
        (`ServerConfig.names`); this host's own rule (one connection per name) is asked first, as `admit` would."""
        hub = self.hub
        hub.refuse_if_connected(terms)
        names = hub.config.names
        claim = asyncio.get_running_loop().run_in_executor(None, names.claim, terms.name, terms.instance)
        try:
            ticket, refusal = await asyncio.shield(claim)
        except asyncio.CancelledError:  # the stream is gone meanwhile: a name the claim holds is let go when it is done
            claim.add_done_callback(lambda done: self._release_claimed(terms.name, done))
            raise
        except Exception as error:  # the database is away, or the ladder not joined yet: the bot tries again
            log.warning("cannot check where bot %r is connected on the ladder: %s", terms.name, _short(error))
            raise HelloRefused("CAPACITY", "the arena cannot reach its ladder's database to check where this bot "
                                           "is connected; try again in a few seconds") from None
        if refusal is not None:
            raise HelloRefused("DUPLICATE_SESSION", refusal)
        connection.name_held = (terms.name, ticket)

    def _release_claimed(self, name: str, claim: "asyncio.Future[Any]") -> None:
        """A claim whose stream ended while it ran: the name it holds, if any, is let go."""
        if not claim.cancelled() and claim.exception() is None and claim.result()[0] is not None:
            self._let_go(name, claim.result()[0])

    def _release_name(self, connection: Connection) -> None:
        """The stream that held its bot's name (`_hold_name`) has ended, or was refused after its claim."""
        held, connection.name_held = connection.name_held, None
        if held is not None:
            self._let_go(*held)

    def _let_go(self, name: str, ticket: Any) -> None:
        try:
            asyncio.get_running_loop().run_in_executor(None, self.hub.config.names.release, name, ticket)
        except RuntimeError:  # the loop's executor is shut down: the server is stopping (its host's leave clears all)
            pass

    def _refused_early(self, connection: Connection) -> None:
        """A stream refused before any token check (a bad Hello, or none): it counts against its address."""
        self.handle.refused_hellos.record(peer_address(connection.peer))

    async def _read(self, context: grpc.aio.ServicerContext, session: BotSession, connection: Connection) -> None:
        hub = self.hub
        now = hub.now  # the games' clock (arena.match.stalls.ArenaClock), or the test clock (ServerConfig.clock)
        try:
            while True:
                message = await context.read()
                received_at = now()
                if message is grpc.aio.EOF:
                    break
                kind = message.WhichOneof("kind")
                if kind == "answer":
                    hub.to_trio(session.route_answer, message.answer, received_at)
                else:
                    connection.violations += 1
                    if connection.violations > MAX_VIOLATIONS:
                        connection.send(error_to_pb("MALFORMED", "too many messages that are not answers"))
                        break
                    if kind == "hello":
                        connection.send(error_to_pb("BAD_HELLO", "already welcomed: Hello is only the first message"))
                    else:
                        connection.send(error_to_pb("MALFORMED", "empty message: expected an Answer"))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # too large, undecodable, reset: only this stream ends
            log.info("stream of %s (%s) ended: %s", session.name, connection.peer, _short(error))
            if _undecodable(error):
                connection.undecodable = True
                connection.send(error_to_pb("MALFORMED", UNDECODABLE))
        finally:
            connection.close()

    async def _write(self, context: grpc.aio.ServicerContext, connection: Connection) -> None:
        now = self.hub.now
        while True:
            message = await connection.outbox.get()
            if message is Connection.CLOSE:
                return
            message = to_write(message, now)  # a TurnRequest: the bot's clock starts here, not when it was queued
            try:
                await context.write(message)
            except Exception as error:
                log.info("cannot write to %s: %s", connection.peer, _short(error))
                return

    # ---------------------------------------------------------------- read-only calls

    async def _paced(self, context: grpc.aio.ServicerContext, cost: float = 1.0) -> None:
        """A read-only call at its address's pace (`ReadPace`), ``cost`` calls' worth: answered when its turn
        comes, or refused at once (RESOURCE_EXHAUSTED) when that is too far away."""
        reads = self.reads
        await wait_turn(reads, context, f"too many read-only calls from this address (at most {reads.per_second:g} "
                        f"a second, {reads.max_wait_s:g} s of them waiting); try again in a few seconds", cost)

    async def GetStandings(self, request: pb.StandingsRequest, context: grpc.aio.ServicerContext) -> pb.StandingsReply:
        await self._paced(context)
        ruleset = request.ruleset or (self.hub.rulesets[0] if self.hub.rulesets else "")
        if request.ruleset and request.ruleset not in self.hub.rulesets:
            await context.abort(grpc.StatusCode.NOT_FOUND,
                                f"this arena does not schedule {request.ruleset[:40]!r}; "
                                f"it schedules: {', '.join(self.hub.rulesets)}")
        reply = pb.StandingsReply(ruleset=ruleset)
        provider = self.handle.standings_provider
        if provider is None:
            return reply
        try:
            rows = list(provider(ruleset))
        except Exception as error:
            log.exception("standings provider failed")
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"standings unavailable: {_short(error)}")
        connected = set(self.hub.by_name)
        for row in rows:
            name = str(_field(row, "name", ""))
            reply.standings.add(
                name=name,
                rating=float(_field(row, "rating", 0.0)),
                ci_low=float(_field(row, "ci_low", 0.0)),
                ci_high=float(_field(row, "ci_high", 0.0)),
                games=int(_field(row, "games", 0)),
                wins=int(_field(row, "wins", 0)),
                timeouts=int(_field(row, "timeouts", 0)),
                strikes=int(_field(row, "strikes", 0)),
                connected=name in connected,
                errors=int(_field(row, "errors", 0)),
            )
        return reply

    async def ListGames(self, request: pb.ListGamesRequest, context: grpc.aio.ServicerContext) -> pb.ListGamesReply:
        limit = min(request.limit or DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT)
        await self._paced(context, list_turns(limit))
        return pb.ListGamesReply(games=self.hub.live.summaries(request.live_only, request.ruleset, limit))

    async def Spectate(self, request: pb.SpectateRequest, context: grpc.aio.ServicerContext) -> None:
        """A game's events, within the watching streams' budget (`LiveGames.spectators`): beyond it, or
        beyond this address's share, RESOURCE_EXHAUSTED at once."""
        address = peer_address(context.peer() or "")
        spectators = self.hub.live.spectators
        try:
            spectators.enter(address)
        except Crowded as crowded:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(crowded))
        try:
            await self._spectate(request, context)
        finally:
            spectators.leave(address)

    async def _spectate(self, request: pb.SpectateRequest, context: grpc.aio.ServicerContext) -> None:
        game = self.hub.live.get(request.game_id)
        if (game is None or game.trimmed) and self.handle.replay_provider is not None:
            # not held, or held without its events (finished longer ago than `spectate_finished_kept`)
            await self._spectate_replay(request.game_id, context, game)
            return
        if game is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no game {request.game_id[:60]!r} (see ListGames)")
        backlog = game.backlog()
        queue: Optional[asyncio.Queue] = None
        if not game.over:
            queue = asyncio.Queue()
            game.watchers.add(queue)
        try:
            for event in backlog:
                await context.write(event)
            while queue is not None:
                event = await queue.get()
                if event is None:
                    return
                await context.write(event)
        finally:
            if queue is not None:
                game.watchers.discard(queue)

    async def _spectate_replay(self, game_id: str, context: grpc.aio.ServicerContext,
                               kept: Optional[LiveGame] = None) -> None:
        """An ended game this host does not remember (another host's, or an old one), or remembers only by its
        final event (``kept``: served as it is when there is no replay), from its replay.

        Re-simulating a replay costs as much CPU as playing the game did, so it runs in the process's
        bounded budget (`Handle.rebuilds`), its work in the budget's worker process (not on this loop's
        GIL): beyond the budget, or beyond its address's share of it, a reader is refused at once.  The call
        is a read at its address's pace as GetStandings is: one turn before, and the rest of its cost, in
        proportion to the game's decisions (`replay_cost`), once the rebuild has said how long it is (owed
        even when the client cancels before: the rebuild goes on in the budget, `arena.rebuilds`).
        """
        from arena.rebuilds import Busy
        from arena.server.replayed import spectator_event_bytes
        from arena.workerprocesses import WorkerLost

        await self._paced(context)
        provider = self.handle.replay_provider
        rebuilds = self.handle.rebuilds
        address = peer_address(context.peer() or "")

        def rebuild() -> Optional[tuple[bytes, ...]]:
            text = provider(game_id)
            return None if text is None else rebuilds.run_in_worker(spectator_event_bytes, text, game_id)

        def owed(events: Optional[tuple[bytes, ...]]) -> float:
            """The rest of the call's cost, beyond its first turn, charged to its address: the seconds it waits."""
            rest = replay_cost(len(events) - 2) - 1 if events is not None else 0  # the start and end are no decisions
            return self.reads.charge(address, rest) if rest > 0 else 0.0

        def owed_when_built(built: "asyncio.Future") -> None:
            if not built.cancelled() and built.exception() is None:
                owed(built.result())

        try:
            built = asyncio.wrap_future(rebuilds.submit(("spectate", game_id), rebuild, reader=address))
            try:
                events = await asyncio.shield(built)
            except asyncio.CancelledError:  # the client went: the rebuild goes on, and its cost is owed all the same
                built.add_done_callback(owed_when_built)
                raise
        except Busy as busy:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, f"ended games are being rebuilt for other "
                                f"readers: {busy}")
        except WorkerLost as lost:
            log.warning("Spectate %s: %s", game_id[:60], lost)
            await context.abort(grpc.StatusCode.UNAVAILABLE, str(lost))
        except Exception as error:  # a damaged or unreadable replay, a database that is away
            log.warning("Spectate %s: its replay cannot be served: %s", game_id[:60], _short(error))
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the replay of {game_id[:60]!r} cannot be read: "
                                f"{_short(error)}")
        if events is None and kept is not None:
            for event in kept.backlog():
                await context.write(event)
            return
        if events is None:
            elsewhere = await self._running_elsewhere(game_id)
            if elsewhere:  # another host's running game: say which (the trailing metadata marks the answer)
                await context.abort(grpc.StatusCode.NOT_FOUND, elsewhere, trailing_metadata=((RUNNING_ELSEWHERE, "1"),))
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no game {game_id[:60]!r} (see ListGames; a game "
                                "running on another host is watched there)")
        wait_s = owed(events)
        if wait_s > 0:  # its turn: the address's next calls wait for what it still owes
            await asyncio.sleep(min(wait_s, self.reads.max_wait_s))
        for event in events:
            await context.write(pb.SpectatorEvent.FromString(event))

    async def _running_elsewhere(self, game_id: str) -> Optional[str]:
        """Where another host runs this game, in one line (`Handle.host_provider`), or None."""
        provider = self.handle.host_provider
        if provider is None:
            return None
        try:
            return await asyncio.to_thread(provider, game_id)
        except Exception as error:  # a database that is away: the plain answer
            log.warning("Spectate %s: cannot tell which host runs it: %s", game_id[:60], _short(error))
            return None


def _field(row: Any, name: str, default: Any) -> Any:
    if isinstance(row, dict):
        return row.get(name, default) if row.get(name) is not None else default
    value = getattr(row, name, default)
    return default if value is None else value


def _short(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:200]


async def _write_quietly(context: grpc.aio.ServicerContext, message: pb.ArenaMessage) -> None:
    try:
        await context.write(message)
    except Exception:
        pass


def _undecodable(error: BaseException) -> bool:
    """Whether a failed read was a message that arrived but could not be parsed (not a reset or a cap)."""
    return isinstance(error, DecodeError)  # what grpc.aio's read raises when the deserializer fails


def _end_malformed(context: grpc.aio.ServicerContext) -> None:
    """End the stream with a non-OK status after its MALFORMED Error (a clean OK would hide the cause)."""
    try:
        context.set_code(grpc.StatusCode.INVALID_ARGUMENT)
        context.set_details(UNDECODABLE)
    except Exception:  # the call is already over
        pass
