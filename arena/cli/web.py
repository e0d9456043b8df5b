"""`arena web`: the ladder's web pages and JSON API from a database and a replay folder (read-only)."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli import CommandError, RunFailure


def register(subparsers) -> None:
    web = subparsers.add_parser(
        "web",
        help="serve the ladder's web pages and JSON API from a database (read-only)",
        description=(
            "Serve the leaderboard, the games, the replay viewer and the bot pages from a ladder database and "
            "its replay folder, read-only (safe beside a running `arena serve`; for live games use "
            "`arena serve --web`). The JSON API is under /api/v1 (docs/web-api.md)."
        ),
    )
    web.add_argument("--db", default="arena.db", metavar="FILE", help="the ladder database (default arena.db)")
    web.add_argument("--replays", default="replays", metavar="DIR", help="the replay folder (default replays/)")
    web.add_argument("--listen", default="127.0.0.1:8080", metavar="[HOST:]PORT",
                     help="where to serve (default 127.0.0.1:8080; port 0 picks a free one)")
    web.set_defaults(func=run_web)


def run_web(args: argparse.Namespace) -> int:
    from arena.web import WebSource, create_app
    from arena.web.embed import bind, parse_bind, run_alone

    if not Path(args.db).is_file():
        raise CommandError(f"no ladder database at {args.db} (give --db FILE; `arena serve` creates one)")
    try:
        host, port = parse_bind(args.listen)
    except ValueError as error:
        raise CommandError(str(error)) from None
    try:
        sock = bind(host, port)
    except OSError as error:  # a taken port: the command line was fine
        raise RunFailure(str(error)) from None
    source = WebSource(args.db, args.replays)
    try:
        source.rulesets()  # opens the database now: a bad file is a clear error, not a 500 later
    except Exception as error:
        sock.close()
        raise CommandError(f"{args.db}: {error}") from None
    try:
        run_alone(create_app(source), sock, ready=lambda url: print(f"web view on {url} (Ctrl-C stops)", flush=True))
    finally:
        source.close()
    return 0
