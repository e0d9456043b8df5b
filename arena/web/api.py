"""The JSON API behind every page, version 1 (``/api/v1/...``); documented in ``docs/web-api.md``.

Every answer is JSON; every error a reader can cause is a 4xx with
``{"error": "what is wrong"}``, never a traceback.  Live game events are
also offered as a server-sent event stream (``?follow=1``), which is how
the pages watch a game as it is played.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Callable

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.ladder.store import error_line, outage_errors
from arena.workerprocesses import WorkerLost
from arena.server.peers import address_key
from arena.server.readpace import list_turns, replay_cost, replay_turns
from arena.web.pace import TooMany, client_key
from arena.web.source import MAX_LIMIT, BadRequest, Busy, NotFound, NotYet, WebSource

log = logging.getLogger(__name__)
VERSION = 1
#: The Retry-After (seconds) of an answer the database could not give (an outage: a restart takes a few).
OUTAGE_RETRY_S = 5
#: A list of games counts against its address's pace (`arena.web.pace`) as one request per this many games
#: asked (``limit``): its cost, on the arena's loop, grows with its rows (0.1-0.2 ms each).


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _int(request: Request, name: str, default: int) -> int:
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    try:
        return int(text)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number, not {text!r}") from None


def reader(request: Request) -> str | None:
    """The asker's address key (`arena.server.peers`: an IPv6 address by its /64), for its share of the
    rebuild and watching budgets (its proxy's, unless the app was
    made with ``proxy_hops``, which reads ``X-Forwarded-For``)."""
    return address_key(request.client.host) if request.client is not None else None


def request_cost(scope: dict[str, Any]) -> float:
    """How many requests' worth of its address's pace a request takes (`arena.web.pace.Paced`): a list
    of games one per `arena.server.readpace.GAMES_PER_TURN` games asked, anything else one.  A replay takes one here and the
    rest of its cost (`arena.server.readpace.replay_turns`) once its endpoint knows the game's length."""
    if scope.get("path") != "/api/v1/games":
        return 1.0
    limit = QueryParams(scope.get("query_string", b"")).get("limit") or ""
    try:
        asked = min(max(int(limit), 1), MAX_LIMIT)
    except ValueError:  # answered with a 400; the default otherwise
        asked = 1 if limit else 50
    return list_turns(asked)


def _answers(fn: Callable[[Request], Any]) -> Callable[[Request], Any]:
    """Turn the source's errors into clear 4xx answers (and anything else into a 500 without internals)."""

    def endpoint(request: Request) -> Response:
        try:
            result = fn(request)
        except Exception as problem:
            return failure(request, problem)
        return result if isinstance(result, Response) else JSONResponse(result)

    return endpoint


def owe(pace: Any, request: Request, debt: float) -> None:
    """A replay longer than the pace's burst: the rest of its cost, a debt this address's next requests wait for."""
    if pace is not None and debt > 0:
        pace.reads.charge(client_key(request.scope), debt)


def failure(request: Request, problem: Exception) -> Response:
    """The answer to a request that raised ``problem``: a 4xx with the reader's mistake, a 503 when the
    server is busy, a 500 without internals (its traceback logged) for anything else."""
    if isinstance(problem, BadRequest):
        return error(400, str(problem))
    if isinstance(problem, NotFound):
        return error(404, str(problem))
    if isinstance(problem, NotYet):
        return error(409, str(problem))
    if isinstance(problem, Busy):  # the rebuild budget is taken: a flood of replay requests waits its turn outside
        return JSONResponse({"error": str(problem)}, status_code=503, headers={"Retry-After": "2"})
    if isinstance(problem, WorkerLost):  # the replay worker died under this request: the next gets a fresh one
        log.warning("web: %s: %s", request.url.path, problem)
        return JSONResponse({"error": str(problem)}, status_code=503, headers={"Retry-After": "2"})
    if isinstance(problem, outage_errors()):  # the database is away (restarting, unreachable): say so, briefly
        log.warning("web: %s: the ladder database cannot be read: %s", request.url.path, error_line(problem))
        return JSONResponse({"error": "the ladder database cannot be read right now; try again shortly"},
                            status_code=503, headers={"Retry-After": str(OUTAGE_RETRY_S)})
    log.error("web: %s failed", request.url.path, exc_info=problem)
    return error(500, "internal error; the server log has the details")


def routes(source: WebSource) -> list[Route]:
    def index(request: Request) -> Any:
        return {"version": VERSION, "endpoints": [
            "/api/v1/rulesets", "/api/v1/standings/{ruleset}", "/api/v1/live",
            "/api/v1/games?bot=&ruleset=&status=&limit=&offset=", "/api/v1/games/{game_id}",
            "/api/v1/games/{game_id}/events[?follow=1]", "/api/v1/games/{game_id}/replay?view=",
            "/api/v1/bots/{name}", "/api/v1/bots/{name}/ratings?ruleset=", "/api/v1/hosts",
        ]}

    def rulesets(request: Request) -> Any:
        return {"rulesets": source.rulesets()}

    def standings(request: Request) -> Any:
        ruleset = request.path_params["ruleset"]
        return {"ruleset": ruleset, "standings": source.standings(ruleset)}

    def hosts(request: Request) -> Any:
        hosts, left_out = source.hosts(every=request.query_params.get("all", "") in ("1", "true"))
        return {"shared": source.shared, "hosts": hosts, **({"not_shown": left_out} if source.shared else {})}

    def live(request: Request) -> Any:
        return {"games": source.running()}

    def games(request: Request) -> Any:
        q = request.query_params
        return {"games": source.games(bot=q.get("bot", ""), ruleset=q.get("ruleset", ""),
                                      status=q.get("status", ""), limit=_int(request, "limit", 50),
                                      offset=_int(request, "offset", 0))}

    def game(request: Request) -> Any:
        return source.game(request.path_params["game_id"])

    async def replay(request: Request) -> Response:
        """An ended game's frames from one view: its row read (a thread), the rest of its pace taken in
        proportion to its decisions, then its answer built (and remembered) in the rebuild budget's worker
        process, awaited without holding a thread, and sent as the worker encoded it."""
        game_id, view = request.path_params["game_id"], request.query_params.get("view", "spectator")
        try:
            record = await run_in_threadpool(source.replay_record, game_id, view)
            pace = getattr(request.app.state, "pace", None)
            cost = replay_cost(record.decisions)
            now = replay_turns(record.decisions, pace.reads.burst) if pace is not None else 1.0  # the rest: after
            if now > 1:  # the middleware took one turn
                await pace.turn(client_key(request.scope), now - 1)
            built = source.replay_json(record, view, reader(request))
            try:
                body = await asyncio.wrap_future(built)
            except asyncio.CancelledError:  # the client went: the rebuild goes on (`arena.rebuilds`), its debt too
                owe(pace, request, cost - now)
                raise
            owe(pace, request, cost - now)
        except TooMany as refused:
            return JSONResponse({"error": str(refused)}, status_code=429,
                                headers={"Retry-After": str(refused.retry_s)})
        except Exception as problem:
            return failure(request, problem)
        return Response(body, media_type="application/json")

    def bot(request: Request) -> Any:
        return source.bot(request.path_params["name"])

    def ratings(request: Request) -> Any:
        ruleset = request.query_params.get("ruleset", "")
        if not ruleset:
            raise BadRequest("ruleset is required (?ruleset=NAME)")
        return {"bot": request.path_params["name"], "ruleset": ruleset,
                "points": source.rating_history(request.path_params["name"], ruleset, reader(request))}

    async def events(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        follow = request.query_params.get("follow", "") in ("1", "true", "yes")
        if source.live is None or source.live.game(game_id) is None:
            # Another host's running game: its events are in that host's process only.  Say where.
            try:
                elsewhere = await run_in_threadpool(source.running_on, game_id)
            except Exception as problem:  # the database could not say
                return failure(request, problem)
            if elsewhere is not None:
                return JSONResponse({"error": elsewhere.sentence(game_id), "running_on": elsewhere.to_dict()},
                                    status_code=404)
            known = "finished or unknown" if source.live is not None else "not served live by `arena web`"
            return error(404, f"no live game {game_id!r} here ({known}); a finished game's frames are at "
                              f"/api/v1/games/{game_id}/replay")
        # A watching stream costs the games' loop a write per event: each is within the arena's budget.
        address = reader(request)
        if not source.live.has_room(address):
            return JSONResponse({"error": source.live.room_refusal(address)}, status_code=503,
                                headers={"Retry-After": "2"})
        stream = source.live.events(game_id, follow)
        if not follow:
            release = source.live.admit(address)
            try:
                return JSONResponse({"game_id": game_id, "events": [event async for batch in stream for event in batch]})
            finally:
                release()

        async def sse():
            # The place is taken when the body starts, so a response never sent holds none.
            try:
                release = source.live.admit(address)
            except Busy as busy:
                yield f"event: error\ndata: {json.dumps({'error': str(busy)})}\n\n"
                return
            try:
                async for batch in stream:
                    # A reader that has gone is written no more (each write to its closed socket is a line
                    # in asyncio's log); the backlog and the events that arrived together are one write.
                    if await request.is_disconnected():
                        return
                    yield "".join(f"data: {json.dumps(event, separators=(',', ':'))}\n\n" for event in batch)
                yield "event: end\ndata: {}\n\n"
            finally:
                release()
                await stream.aclose()  # its watcher queue is dropped now, not when the generator is collected

        return StreamingResponse(sse(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def missing(request: Request) -> Response:
        return error(404, f"no such endpoint {request.url.path!r}; see /api/v1")

    return [
        Route("/api/v1", _answers(index)),
        Route("/api/v1/rulesets", _answers(rulesets)),
        Route("/api/v1/standings/{ruleset}", _answers(standings)),
        Route("/api/v1/live", _answers(live)),
        Route("/api/v1/hosts", _answers(hosts)),
        Route("/api/v1/games", _answers(games)),
        Route("/api/v1/games/{game_id}", _answers(game)),
        Route("/api/v1/games/{game_id}/events", events),
        Route("/api/v1/games/{game_id}/replay", replay),
        Route("/api/v1/bots/{name}", _answers(bot)),
        Route("/api/v1/bots/{name}/ratings", _answers(ratings)),
        Route("/api/{rest:path}", missing),
    ]
