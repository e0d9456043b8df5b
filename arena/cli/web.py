"""`arena web`: the ladder's web pages and JSON API from a database and a replay folder (read-only)."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli import CommandError, RunFailure
from arena.cli.db import add_db_argument


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
    add_db_argument(web)
    web.add_argument("--replays", default="replays", metavar="DIR", help="the replay folder (default replays/)")
    web.add_argument("--listen", default="127.0.0.1:8080", metavar="[HOST:]PORT",
                     help="where to serve (default 127.0.0.1:8080; port 0 picks a free one)")
    web.add_argument("--proxy-hops", type=int, default=0, metavar="N",
                     help="behind N reverse proxies (1: one nginx): a reader's address comes from "
                          "X-Forwarded-For, for its share of the replay rebuilds (default 0: the peer's)")
    from arena.web.pace import BURST, PER_SECOND

    web.add_argument("--reads-per-second", type=float, default=PER_SECOND, metavar="R",
                     help="requests per reader's address a second, after --reads-burst at once; beyond, a request "
                          "waits its turn, or gets 429 when that is more than 5 s away.  Raise both when many "
                          "people read from one address (a school's or an office's NAT: a page asks about 1.6 a "
                          f"second, up to 20 at once), or behind a proxy without --proxy-hops (default {PER_SECOND:g})")
    web.add_argument("--reads-burst", type=int, default=BURST, metavar="N",
                     help=f"requests per reader's address at once (default {BURST})")
    web.set_defaults(func=run_web)


#: `arena web`'s flags for the pace's settings (`arena.web.pace.web_pace`), in its refusals.
PACE_FLAGS = {"per_second": "--reads-per-second", "burst": "--reads-burst"}


def run_web(args: argparse.Namespace) -> int:
    from arena.ladder.store import NoLadder, StoreError, is_postgres_url
    from arena.web import WebSource, create_app
    from arena.web.embed import bind, parse_bind, run_alone

    from arena.web.pace import PaceSettingError, web_pace

    if args.proxy_hops < 0:
        raise CommandError(f"--proxy-hops must be 0 or more, not {args.proxy_hops}")
    try:
        pace = web_pace(args.reads_per_second, args.reads_burst)
    except PaceSettingError as error:
        raise CommandError(f"{PACE_FLAGS[error.setting]} {error.rule}") from None
    try:  # the command line first, then what it names
        host, port = parse_bind(args.listen)
    except ValueError as error:
        raise CommandError(str(error)) from None
    if not is_postgres_url(args.db) and not Path(args.db).is_file():
        raise CommandError(f"no ladder database at {args.db} (give --db FILE; `arena serve` creates one)")
    try:
        sock = bind(host, port)
    except OSError as error:  # a taken port: the command line was fine
        raise RunFailure(str(error)) from None
    source = WebSource(args.db, args.replays)
    try:
        source.rulesets()  # opens the database now: a bad file is a clear error, not a 500 later
    except NoLadder as error:  # an empty PostgreSQL database: as for a SQLite file that is not there
        sock.close()
        raise CommandError(f"{error} (`arena serve` creates one)") from None
    except StoreError as error:  # an unreachable server, an older or newer schema...
        sock.close()
        raise RunFailure(str(error)) from None
    except Exception as error:
        sock.close()
        raise CommandError(f"{args.db}: {error}") from None
    try:
        run_alone(create_app(source, args.proxy_hops, pace), sock, ready=lambda url: print(f"web view on {url} (Ctrl-C stops)", flush=True))
    finally:
        source.close()
    return 0
