"""The ladder on a web page: leaderboard, live games, replays and bot pages, with a JSON API behind them.

Two ways to run it, one application (``create_app``):

* ``arena serve --web [HOST:]PORT``: beside the arena, on the arena's own
  asyncio loop (uvicorn, HTTP/1.1 only), reading the running ladder's
  state directly: the standings the director keeps, the live games the
  server streams to ``Spectate``.  No second copy of the ladder's state.
* ``arena web --db DB --replays DIR``: read-only, from a database and a
  replay folder, for a ladder that runs elsewhere or has stopped.

What a page may show is decided here, on the server, never in the browser:
a running game is served only in its public (spectator) form, and the
seat and omniscient views of a replay open only once its game has ended
(``source.py``).  The replay frames come from the terminal viewer's own
projection (``arena.replay.render.FrameBuilder``), so a seat's view in the
browser holds exactly what that seat could see.

The pages are plain HTML, CSS and JavaScript in ``static/`` with no CDN,
no external font and no build step.  The API is versioned under
``/api/v1``; ``docs/web-api.md`` documents every endpoint.

Its names are imported when first asked for (PEP 562), so that a light part (``arena.web.pace``'s defaults,
which `arena serve --help` shows) is imported without Starlette and the rest.
"""

from typing import Any

__all__ = ["LiveFeed", "WebSource", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from arena.web.app import create_app

        return create_app
    if name in ("LiveFeed", "WebSource"):
        from arena.web import source

        return getattr(source, name)
    raise AttributeError(f"module 'arena.web' has no attribute {name!r}")
