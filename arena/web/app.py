"""The ASGI application: the JSON API and the static pages, one Starlette app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import FileResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.web.api import request_cost, routes
from arena.web.pace import Paced, WebPace
from arena.web.proxy import ProxyHops
from arena.web.source import WebSource

STATIC = Path(__file__).with_name("static")


def create_app(source: WebSource, proxy_hops: int = 0, pace: WebPace | None = None) -> Any:
    """The app; with ``proxy_hops`` N (behind N reverse proxies) each request's client address is the
    N-th from the right in ``X-Forwarded-For`` (`arena.web.proxy`): the address that a
    reader's pace and its share of the rebuild budget count.  Trust it only where nothing but the proxies
    can reach the app, or any client can claim any address.  ``pace``: how often one address may ask
    (`arena.web.pace.WebPace`, which counts what it held and refused), the default one if None."""
    async def page(request) -> FileResponse:
        # one page; the browser routes #/game/ID, #/bot/NAME... itself
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    pace = pace if pace is not None else WebPace()
    app = Starlette(routes=[
        *routes(source),
        Route("/", page),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], middleware=[Middleware(Paced, pace=pace, cost=request_cost)])
    app.state.source = source
    app.state.pace = pace
    if proxy_hops:
        return ProxyHops(app, proxy_hops)
    return app
