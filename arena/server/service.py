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
import time
from typing import TYPE_CHECKING, Any, Optional

import grpc

from arena.messages import error_to_pb
from arena.server.hello import HelloRefused, check_hello
from arena.server.sessions import MAX_VIOLATIONS, BotSession, Connection, Hub
from sdk.wire import pb, rpc

if TYPE_CHECKING:
    from arena.server.host import Handle

log = logging.getLogger("arena.server")

DEFAULT_LIST_LIMIT = 100
MAX_LIST_LIMIT = 1000


class ArenaService(rpc.ArenaServicer):
    def __init__(self, hub: Hub, handle: "Handle") -> None:
        self.hub = hub
        self.handle = handle

    # ---------------------------------------------------------------- Play

    async def Play(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        hub = self.hub
        connection = Connection(context.peer() or "")
        if hub.shutting_down:
            await _write_quietly(context, error_to_pb("SHUTTING_DOWN", "the arena is shutting down"))
            return
        if len(hub.connections) >= hub.config.max_connections:
            await _write_quietly(context, error_to_pb(
                "CAPACITY", f"the arena is full ({hub.config.max_connections} connections); try again later"))
            return
        connection.handler = asyncio.current_task()
        hub.connections.add(connection)
        try:
            session = await self._welcome(context, connection)
            if session is None:
                return
            reader = asyncio.create_task(self._read(context, session, connection))
            try:
                await self._write(context, connection)
            finally:
                connection.closed = True
                reader.cancel()
                hub.detach(session, connection)
        finally:
            hub.connections.discard(connection)

    async def _welcome(self, context: grpc.aio.ServicerContext, connection: Connection) -> Optional[BotSession]:
        """Read and check the Hello; None (after telling the bot why) if it is refused."""
        hub = self.hub
        try:
            first = await asyncio.wait_for(context.read(), hub.config.hello_timeout_s)
        except asyncio.TimeoutError:  # the stream is abandoned anyway, so a timed-out read is fine here
            await _write_quietly(context, error_to_pb(
                "BAD_HELLO", f"no Hello within {hub.config.hello_timeout_s:g} s"))
            return None
        except Exception as error:  # too large, undecodable, reset: only this stream ends
            log.info("stream from %s ended before its Hello: %s", connection.peer, _short(error))
            return None
        if first is grpc.aio.EOF:
            return None
        if first.WhichOneof("kind") != "hello":
            await _write_quietly(context, error_to_pb("BAD_HELLO", "the first message must be a Hello"))
            return None
        await hub.ready.wait()
        try:
            terms = check_hello(first.hello, hub.rulesets, hub.config.max_games_per_bot)
            await self._authenticate(terms.name, terms.token, connection.peer)
            return hub.admit(terms, connection)
        except HelloRefused as refusal:
            log.info("refused %r from %s: %s", first.hello.name[:40], connection.peer, refusal.message)
            await _write_quietly(context, error_to_pb(refusal.code, refusal.message))
            return None

    async def _authenticate(self, name: str, token: str, peer: str) -> None:
        """Ask the authenticator in a worker thread: checking a token may hash on purpose slowly
        (scrypt, tens of ms), and the loop must keep serving every running game meanwhile."""
        authenticator = self.hub.config.authenticator
        if authenticator is None:
            return
        try:
            verdict = await asyncio.get_running_loop().run_in_executor(None, authenticator, name, token, peer)
        except Exception:
            log.exception("authenticator failed for %r", name)
            raise HelloRefused("AUTH_FAILED", "the arena could not check this bot's token; try again later")
        if verdict is None or verdict is True:
            return
        text = verdict if isinstance(verdict, str) and verdict else f"bot {name!r} is not admitted"
        raise HelloRefused("AUTH_FAILED", text)

    async def _read(self, context: grpc.aio.ServicerContext, session: BotSession, connection: Connection) -> None:
        hub = self.hub
        try:
            while True:
                message = await context.read()
                received_at = time.monotonic()
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
        finally:
            connection.close()

    async def _write(self, context: grpc.aio.ServicerContext, connection: Connection) -> None:
        while True:
            message = await connection.outbox.get()
            if message is Connection.CLOSE:
                return
            try:
                await context.write(message)
            except Exception as error:
                log.info("cannot write to %s: %s", connection.peer, _short(error))
                return

    # ---------------------------------------------------------------- read-only calls

    async def GetStandings(self, request: pb.StandingsRequest, context: grpc.aio.ServicerContext) -> pb.StandingsReply:
        ruleset = request.ruleset or (self.hub.rulesets[0] if self.hub.rulesets else "")
        if request.ruleset and request.ruleset not in self.hub.rulesets:
            await context.abort(grpc.StatusCode.NOT_FOUND,
                                f"unknown ruleset {request.ruleset[:40]!r}; known: {', '.join(self.hub.rulesets)}")
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
            )
        return reply

    async def ListGames(self, request: pb.ListGamesRequest, context: grpc.aio.ServicerContext) -> pb.ListGamesReply:
        limit = min(request.limit or DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT)
        return pb.ListGamesReply(games=self.hub.live.summaries(request.live_only, request.ruleset, limit))

    async def Spectate(self, request: pb.SpectateRequest, context: grpc.aio.ServicerContext) -> None:
        game = self.hub.live.get(request.game_id)
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
