"""The ASGI application: the JSON API and the static pages, one Starlette app."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.responses import FileResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.web.api import routes
from arena.web.source import WebSource

STATIC = Path(__file__).with_name("static")


def create_app(source: WebSource) -> Starlette:
    async def page(request) -> FileResponse:
        # one page; the browser routes #/game/ID, #/bot/NAME... itself
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app = Starlette(routes=[
        *routes(source),
        Route("/", page),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    app.state.source = source
    return app
