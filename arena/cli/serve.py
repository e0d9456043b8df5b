"""`arena serve`: run a local ladder (server, scheduler, ratings, live dashboard).

``arena serve --demo`` is the README's first command: it also starts the
sample bots as separate processes, so games and ratings appear within
seconds without any setup.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from arena.cli import CommandError, RunFailure
from arena.cli.db import add_db_argument, open_db
from arena.samples import sample_bot, samples_dir

log = logging.getLogger("arena.serve")

#: (sample bot, ladder name).  Four, because Online Mau-Mau needs four seats: with three
#: bots its leaderboard stayed empty for ever.
DEMO_BOTS = (("random_bot", "random"), ("greedy_bot", "greedy"), ("tactician", "tactician"), ("random_bot", "random-2"),
             ("searcher", "searcher"))


def register(subparsers) -> None:
    from arena.match.timecontrol import TimeControl
    from arena.server.config import ServerConfig

    from arena.web import pace as web_defaults

    tc = TimeControl()
    defaults = ServerConfig()
    parser = subparsers.add_parser(
        "serve",
        help="run a ladder: bots connect, games flow, ratings update (try --demo)",
        description="Run the arena server with the ladder: connected bots are scheduled in games on fresh deals, "
        "results and replays are stored, Bradley-Terry ratings with 95% intervals are shown live.",
    )
    net = parser.add_argument_group("network")
    net.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    net.add_argument("--port", type=int, default=50051, help="port (default 50051; 0 picks a free one)")
    net.add_argument("--web", metavar="[HOST:]PORT",
                     help="also serve the web pages and JSON API here (loopback unless a host is named; 0 picks "
                          "a free port), from this process: live standings and games, replays, bot pages")
    net.add_argument("--web-advertise", metavar="URL",
                     help="on a shared ladder, the URL readers open for this host's web view (behind a proxy, say), "
                          "recorded in the hosts table for `arena hosts` and the other hosts' pages (default the "
                          "web view's own address; with --web)")
    net.add_argument("--web-proxy-hops", type=int, default=0, metavar="N",
                     help="the web view is behind N reverse proxies: a reader's address comes from X-Forwarded-For, "
                          "for its share of the replay rebuilds (default 0: the peer's)")
    net.add_argument("--tls-cert", type=Path, metavar="PEM", help="PEM certificate chain (with --tls-key)")
    net.add_argument("--tls-key", type=Path, metavar="PEM", help="PEM private key")
    net.add_argument(
        "--registered-only",
        action="store_true",
        help="admit only bots registered with `arena bots add` (required off loopback)",
    )
    net.add_argument("--max-connections", type=int, metavar="N", default=256, help="bot connections at once (default 256)")
    net.add_argument("--max-games-per-bot", type=int, metavar="N", default=64, help="games at once per bot (default 64)")
    logins = parser.add_argument_group(
        "logins (for large ladders, see docs/deploy.md \"Sizing for many bots\"; the defaults suit a few hundred bots)")
    logins.add_argument("--acceptors", type=int, metavar="N", default=defaults.acceptors,
                        help="gRPC servers sharing the port (Linux SO_REUSEPORT), each taking one new stream at a "
                             "time: a busy server with one admits only a few logins a second; 8 for 1,000 bots "
                             f"(default {defaults.acceptors})")
    logins.add_argument("--max-pending-hellos", type=int, metavar="N", default=defaults.max_pending_hellos,
                        help="new streams that have not said Hello yet; beyond this the oldest is dropped "
                             f"(default {defaults.max_pending_hellos})")
    logins.add_argument("--auth-workers", type=int, metavar="N", default=defaults.auth_workers,
                        help="threads checking tokens (a registered bot's first login costs ~40 ms of scrypt on "
                             f"one; default {defaults.auth_workers})")
    logins.add_argument("--auth-queue", type=int, metavar="N", default=defaults.auth_queue,
                        help="logins waiting for a checking thread; beyond this a Hello is refused with "
                             f"\"try again in a few seconds\" (default {defaults.auth_queue})")
    logins.add_argument("--auth-failures-per-address", type=int, metavar="N", default=defaults.auth_failures_per_address,
                        help="refused tokens (and checks running at once) per client address within a minute before "
                             "its logins are refused unchecked; many bots behind one address (NAT, one test "
                             f"machine) log in at most this many at a time (default {defaults.auth_failures_per_address})")
    logins.add_argument("--auth-refusals-held", type=int, metavar="N", default=defaults.auth_refusals_held,
                        help="logins held waiting (over the per-address limit only by checks still running, or "
                             f"refused and answered late); beyond this they are refused at once (default "
                             f"{defaults.auth_refusals_held})")
    shared = parser.add_argument_group(
        "clients sharing one address (a lab or an office behind NAT, a proxy): these budgets count per client "
        "address, so raise them where many people or bots come from one (docs/deploy.md \"Clients behind one "
        "address\")")
    shared.add_argument("--refused-hellos-per-address", type=int, metavar="N", default=defaults.refused_hellos_burst,
                        help="bot connections refused before any token check (a bad name or SDK version, no Hello) "
                             "per address at once; beyond, that address's new connections, good bots' too, wait "
                             "up to 1/R s each before they are read (default "
                             f"{defaults.refused_hellos_burst})")
    shared.add_argument("--refused-hellos-per-second", type=float, metavar="R",
                        default=defaults.refused_hellos_per_second,
                        help="then this many a second: a lab where some students' bots are still broken wants "
                             f"more (default {defaults.refused_hellos_per_second:g})")
    shared.add_argument("--spectators-per-address", type=int, metavar="N", default=defaults.spectators_per_address,
                        help="games watched at once per address (`arena watch`, the web view's live games); "
                             f"beyond, refused until one ends (default {defaults.spectators_per_address})")
    shared.add_argument("--max-spectators", type=int, metavar="N", default=defaults.max_spectators,
                        help="games watched at once in all: each costs the games' loop a write per move "
                             f"(default {defaults.max_spectators})")
    shared.add_argument("--web-reads-per-second", type=float, metavar="R", default=None,
                        help="with --web: requests per reader's address a second, after --web-reads-burst at once; "
                             "beyond, a request waits its turn or gets 429 (a page asks about 1.6 a second, up to "
                             f"20 at once; default {web_defaults.PER_SECOND:g})")
    shared.add_argument("--web-reads-burst", type=int, metavar="N", default=None,
                        help=f"with --web: requests per reader's address at once (default {web_defaults.BURST})")
    cluster = parser.add_argument_group(
        "several hosts (with --db postgresql://...: any number of `arena serve` share one ladder)")
    cluster.add_argument("--host-name", metavar="NAME",
                         help="this host's name in the ladder (default HOSTNAME:PORT); a restart under the same "
                              "name aborts the games it left running")
    cluster.add_argument("--advertise", metavar="HOST:PORT",
                         help="the address bots should use to reach this host, sent to every bot in Welcome "
                              "(default the listening address)")
    cluster.add_argument("--host-lease", type=float, default=10.0, metavar="SECONDS",
                         help="a host silent this long whose database session is gone is dead: its running games "
                              "are aborted by the others (default 10)")
    cluster.add_argument("--allow-mixed-settings", action="store_true",
                         help="start even if a live host of the ladder has another time control, --max-strikes, "
                         "table size or ruleset options (refused otherwise: its games would be rated by other rules)")
    cluster.add_argument("--host-hold", type=float, default=2.0, metavar="SECONDS",
                         help="the longest a game this host planned waits for a host far below its share of the "
                              "games to take its seats, so a host that joins later gets games from few bots "
                              "(default 2; 0: never)")
    operations = parser.add_argument_group("operations")
    operations.add_argument("--log-format", choices=("text", "json"), default="text",
                            help="log lines as text (default) or one JSON object each, with the host's name "
                                 "(for a log collector); `arena health HOST:PORT` checks a running arena")
    operations.add_argument("--log-level", type=str.lower, choices=("debug", "info", "warning", "error"),
                            default="warning", help="the least severe log records shown, in any case (default warning)")
    operations.add_argument("--timings", action="store_true",
                            help="when it stops, also print two developer's lines: `store: {JSON}`, the database "
                                 "work of the run (statements sent, by kind; write transactions; round trips), and "
                                 "`between games: {JSON}`, where the time between a game's end and its seats' next "
                                 "game went (both read by scripts/bench_ladder.py)")
    ladder = parser.add_argument_group("ladder")
    add_db_argument(ladder)
    ladder.add_argument("--replays", default="replays", metavar="DIR", help="folder for replay files left by older versions (closed at start) and the demo bots' log "
                        "(default replays/); new games' replays are kept in the database, with their results")
    ladder.add_argument(
        "--game",
        action="append",
        metavar="RULESET",
        help="ruleset to schedule; repeat or comma-separate (default: every ruleset)",
    )
    ladder.add_argument(
        "--players",
        action="append",
        metavar="[RULESET=]N",
        help="table size (default: each ruleset's minimum); N for all, or RULESET=N",
    )
    ladder.add_argument(
        "--option",
        action="append",
        metavar="RULESET:KEY=VALUE",
        help="a ruleset option for the ladder's games, repeatable (see `arena rules show RULESET`)",
    )
    ladder.add_argument("--concurrency", type=int, metavar="N", default=8, help="games at once on this host (default 8; on a shared ladder each host runs its own)")
    ladder.add_argument("--duration", type=float, metavar="SECONDS", help="stop scheduling after this long")
    ladder.add_argument("--max-games", type=int, metavar="N", help="stop after N finished games on this host (each host of a shared ladder counts its own; how many games a "
                        "bot plays at once is its own --parallel)")
    ladder.add_argument("--drain", type=float, default=10.0, metavar="SECONDS",
                        help="on stop, let running games finish this long (default 10; 0 aborts them at once); a "
                             "Ctrl-C or SIGTERM meanwhile aborts them")
    time_model = parser.add_argument_group("time model (milliseconds)")
    time_model.add_argument("--move-ms", type=int, metavar="MS", default=tc.move_ms, help=f"per-decision limit (default {tc.move_ms})")
    time_model.add_argument("--bank-ms", type=int, metavar="MS", default=tc.bank_ms, help=f"time bank (default {tc.bank_ms})")
    time_model.add_argument("--increment-ms", type=int, metavar="MS", default=tc.increment_ms, help=f"bank increment (default {tc.increment_ms})")
    time_model.add_argument("--first-move-ms", type=int, metavar="MS", default=tc.first_move_ms, help=f"first-move allowance (default {tc.first_move_ms})")
    time_model.add_argument("--max-strikes", type=int, metavar="N", default=tc.max_strikes, help=f"strikes that forfeit (default {tc.max_strikes})")
    show = parser.add_argument_group("display")
    show.add_argument("--demo", action="store_true", help="also start the sample bots as local processes")
    show.add_argument("--plain", action="store_true",
                      help="periodic text summaries instead of the live view, and its notes (stopping, the database "
                           "away and back, a demo bot gone) as lines when they happen")
    show.add_argument("--show", action="append", metavar="RULESET",
                      help="rulesets the live view shows first, as full tables (repeat or comma-separate); "
                      "the others page through every 10 s")
    show.add_argument("--summary-every", type=float, default=10.0, metavar="SECONDS",
                      help="seconds between text summaries (default 10)")
    parser.set_defaults(func=run)


def _rulesets(args) -> dict[str, int]:
    """Chosen rulesets and their table sizes, with clear errors."""
    from arena import games

    known = games.rulesets()
    if not known:
        raise CommandError("no rulesets are installed")
    chosen: list[str] = []
    for item in args.game or []:
        chosen += [name.strip() for name in item.split(",") if name.strip()]
    chosen = list(dict.fromkeys(chosen)) or known
    for name in chosen:
        games.ruleset_info(name)  # raises UnknownRulesetError with the known names
    sizes = {name: games.ruleset_info(name).min_players for name in chosen}
    for item in args.players or []:
        target, _, value = item.rpartition("=")
        try:
            count = int(value)
        except ValueError:
            raise CommandError(f"--players {item!r}: expected N or RULESET=N") from None
        names = [target] if target else chosen
        for name in names:
            if name not in sizes:
                raise CommandError(f"--players {item!r}: {name} is not among the scheduled rulesets ({', '.join(chosen)})")
            games.ruleset_info(name).check_players(count)
            sizes[name] = count
    return sizes


#: --demo plays DD MAU one hand a game: a whole match to 505 is some 12,000 decisions (minutes
#: each), and the fair scheduler soon filled every table with it, so the demo's other rulesets
#: all but stopped.  An explicit --option ddmau:max_hands=N wins.
DEMO_OPTIONS = {"ddmau": {"max_hands": 1}}


def _options(args, players: dict[str, int]) -> dict[str, dict]:
    """Per-ruleset options from --option RULESET:KEY=VALUE, checked and typed by the ruleset; refused (one line)
    when they leave a ruleset's games no bound below the runner's abort (`arena.match.bound`)."""
    from arena import games
    from arena.match.bound import require_bound

    given: dict[str, dict] = {}
    if args.demo:
        for ruleset, defaults in DEMO_OPTIONS.items():
            if ruleset in players and set(defaults) <= set(games.ruleset_info(ruleset).options):
                given[ruleset] = dict(defaults)
    for item in args.option or []:
        ruleset, colon, pair = item.partition(":")
        key, equals, value = pair.partition("=")
        if not colon or not equals or not ruleset.strip() or not key.strip():
            raise CommandError(f"--option takes RULESET:KEY=VALUE, not {item!r}")
        ruleset, key = ruleset.strip(), key.strip()
        if ruleset not in players:
            raise CommandError(f"--option {item!r}: {ruleset} is not among the scheduled rulesets ({', '.join(players)})")
        given.setdefault(ruleset, {})[key] = value.strip()
    typed = {}
    for ruleset, pairs in given.items():
        resolved = games.ruleset_info(ruleset).resolve_options(pairs)  # OptionError names the known options
        typed[ruleset] = {key: resolved[key] for key in pairs}
    for ruleset, size in players.items():  # a rated game ends by its own bound, never by the runner's abort
        require_bound(ruleset, size, typed.get(ruleset))
    return typed


def _shown(args, players: dict[str, int]) -> list[str]:
    """--show: rulesets the live view puts first; each must be scheduled."""
    chosen = [name.strip() for item in args.show or [] for name in item.split(",") if name.strip()]
    for name in chosen:
        if name not in players:
            raise CommandError(f"--show {name}: not among the scheduled rulesets ({', '.join(players)})")
    return list(dict.fromkeys(chosen))


def _check_numbers(args) -> None:
    for flag, value, low in (
        ("--concurrency", args.concurrency, 1), ("--max-connections", args.max_connections, 1),
        ("--max-games-per-bot", args.max_games_per_bot, 1), ("--move-ms", args.move_ms, 1),
        ("--max-pending-hellos", args.max_pending_hellos, 1), ("--auth-workers", args.auth_workers, 1),
        ("--acceptors", args.acceptors, 1),
        ("--auth-queue", args.auth_queue, 0), ("--auth-failures-per-address", args.auth_failures_per_address, 1),
        ("--auth-refusals-held", args.auth_refusals_held, 0),
        ("--bank-ms", args.bank_ms, 0), ("--increment-ms", args.increment_ms, 0),
        ("--first-move-ms", args.first_move_ms, 0), ("--max-strikes", args.max_strikes, 1),
        ("--web-proxy-hops", args.web_proxy_hops, 0),
    ):
        if value < low:
            raise CommandError(f"{flag} must be at least {low}, not {value}")
    if args.web_proxy_hops and not args.web:
        raise CommandError("--web-proxy-hops needs --web (the web view it is about)")
    if args.web_advertise is not None:
        if not args.web:
            raise CommandError("--web-advertise needs --web (the web view it is about)")
        if not _WEB_URL.fullmatch(args.web_advertise):
            raise CommandError(f"--web-advertise takes an http:// or https:// URL of at most 200 printable characters, "
                               f"not {args.web_advertise[:60]!r}")
    given = [flag for flag, value in (("--web-reads-per-second", args.web_reads_per_second),
                                      ("--web-reads-burst", args.web_reads_burst)) if value is not None]
    if given and not args.web:
        raise CommandError(f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} --web (the web view "
                           "they pace)")
    if args.max_games is not None and args.max_games < 1:
        raise CommandError(f"--max-games must be at least 1, not {args.max_games}")
    # Written as `not value > 0` so that NaN, which every comparison refuses, is refused too (it reached trio's
    # timeouts, which raised it as a traceback once the run was over and its games aborted).
    if args.duration is not None and not args.duration > 0:
        raise CommandError(f"--duration must be positive, not {args.duration}")
    if not args.drain >= 0:  # 0: abort the running games at once; inf: wait for every one
        raise CommandError(f"--drain must be zero or more, not {args.drain}")
    if not args.summary_every > 0:  # 0 would print a summary on every turn of the loop, thousands a second
        raise CommandError(f"--summary-every must be positive, not {args.summary_every}")
    if not args.host_lease > 0:
        raise CommandError(f"--host-lease must be positive, not {args.host_lease}")
    if not args.host_hold >= 0:
        raise CommandError(f"--host-hold must be zero or more, not {args.host_hold}")
    if args.advertise is not None:
        host, colon, port = args.advertise.rpartition(":")
        if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise CommandError(f"--advertise takes HOST:PORT, not {args.advertise!r}")
    if args.host_name is not None and not (0 < len(args.host_name) <= 64 and args.host_name.isprintable()):
        raise CommandError("--host-name must be 1-64 printable characters")


#: The `ServerConfig` fields `arena serve` sets from a flag that only `ServerConfig.validate` checks: its
#: refusals name the flag.
CONFIG_FLAGS = {
    "acceptors": "--acceptors", "refused_hellos_burst": "--refused-hellos-per-address",
    "refused_hellos_per_second": "--refused-hellos-per-second", "spectators_per_address": "--spectators-per-address",
    "max_spectators": "--max-spectators",
}


def _web_pace(args) -> Any:
    """--web's pace per reader's address (`arena.web.pace.web_pace`), checked with the other flags."""
    from arena.web import pace

    try:
        return pace.web_pace(pace.PER_SECOND if args.web_reads_per_second is None else args.web_reads_per_second,
                             pace.BURST if args.web_reads_burst is None else args.web_reads_burst)
    except pace.PaceSettingError as error:
        flag = {"per_second": "--web-reads-per-second", "burst": "--web-reads-burst"}[error.setting]
        raise CommandError(f"{flag} {error.rule}") from None


def _check_port_free(host: str, port: int) -> None:
    """Refuse a taken port before touching the database, in one line.

    grpcio would find out too, but only after recovery has run and with a
    C-level log line on stderr first.
    """
    import socket

    from arena.server.host import port_in_use

    try:
        taken = port_in_use(host, port)
    except socket.gaierror as error:
        raise CommandError(f"cannot listen on {host}: {error.strerror}") from None
    except (OSError, UnicodeError):
        return  # the server reports it as it binds
    if taken:
        raise RunFailure(
            f"port {port} on {host} is in use (another arena serve?): stop it, or pick another --port "
            "(--port 0 picks a free one)"
        )


def _reason(error: Exception) -> str:
    """An OSError's plain reason and file ("Permission denied: '/sys/x'"), without the errno prefix."""
    if isinstance(error, OSError) and error.strerror:
        return f"{error.strerror}: {error.filename!r}" if error.filename else error.strerror
    return str(error)


def run(args) -> int:
    from arena.ladder.auth import LadderAuthenticator
    from arena.ladder.store import is_postgres_url
    from arena.match.timecontrol import TimeControl
    from arena.server.config import ConfigError, ServerConfig, is_loopback

    _check_numbers(args)
    players = _rulesets(args)
    options = _options(args, players)
    _shown(args, players)
    loopback = is_loopback(args.host)
    if not loopback and not args.registered_only:
        raise CommandError(
            f"refusing to serve on {args.host} with open registration: anyone could connect under any name. "
            "Register bots with `arena bots add NAME` and add --registered-only (and --tls-cert/--tls-key)"
        )
    if args.demo and args.registered_only:
        raise CommandError("--demo starts unregistered sample bots: it cannot be combined with --registered-only")
    if args.demo and args.tls_cert:
        raise CommandError("--demo's sample bots connect on loopback without TLS: leave out --tls-cert/--tls-key")
    if args.demo:
        missing = sorted({script for script, _ in DEMO_BOTS if not sample_bot(script).is_file()})
        if missing:
            raise CommandError(f"--demo needs the sample bots, missing: {', '.join(missing)} in {samples_dir()}")
    if Path(args.replays).exists() and not Path(args.replays).is_dir():
        raise CommandError(f"--replays {args.replays} is a file, not a folder")
    if not is_postgres_url(args.db) and Path(args.db).is_dir():
        raise CommandError(f"--db {args.db} is a directory, not a ladder database file")
    shared = is_postgres_url(args.db)
    if not shared and (args.host_name or args.advertise or args.allow_mixed_settings or args.web_advertise):
        given = [flag for flag, value in (("--host-name", args.host_name), ("--advertise", args.advertise),
                                          ("--allow-mixed-settings", args.allow_mixed_settings),
                                          ("--web-advertise", args.web_advertise)) if value]
        raise CommandError(f"{' and '.join(given)} {'is' if len(given) == 1 else 'are'} for several hosts on one "
                           "PostgreSQL database: give --db postgresql://...")
    # Everything that can be checked is checked before a file or the database is touched: a bad flag (a port
    # out of range, a missing TLS file) leaves no new ladder, lock file or replays folder behind.
    config = ServerConfig(
        host=args.host,
        port=args.port,
        serving_at_start=False,  # the ladder says SERVING once it schedules games and drains on SIGTERM
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        open_registration=not args.registered_only,
        authenticator=None,  # the ladder's, set once the database is open
        rulesets=list(players),  # what Welcome and GetStandings report: this ladder's --game selection
        max_connections=args.max_connections,
        max_games_per_bot=args.max_games_per_bot,
        max_pending_hellos=args.max_pending_hellos,
        acceptors=args.acceptors,
        auth_workers=args.auth_workers,
        auth_queue=args.auth_queue,
        auth_failures_per_address=args.auth_failures_per_address,
        auth_refusals_held=args.auth_refusals_held,
        refused_hellos_burst=args.refused_hellos_per_address,
        refused_hellos_per_second=args.refused_hellos_per_second,
        spectators_per_address=args.spectators_per_address,
        max_spectators=args.max_spectators,
    )
    try:
        config.validate(authenticator_pending=True)  # the ladder's, set once the database is open
    except ConfigError as error:
        flag = CONFIG_FLAGS.get(error.field or "")
        raise CommandError(f"{flag} {error.rule}" if flag else str(error)) from None
    args.web_pace = _web_pace(args)
    _check_port_free(args.host, args.port)  # a runtime failure (exit 1): after every usage error (exit 2)
    time_control = TimeControl(
        move_ms=args.move_ms, bank_ms=args.bank_ms, increment_ms=args.increment_ms,
        first_move_ms=args.first_move_ms, max_strikes=args.max_strikes,
    )
    web_socket = _web_socket(args)  # a bad --web is refused, a taken one fails, before the database is opened
    try:
        store = open_db(args.db, recover=True, shared=shared)
    except BaseException:
        if web_socket is not None:
            web_socket.close()
        raise
    try:
        Path(args.replays).mkdir(parents=True, exist_ok=True)
        probe = Path(args.replays) / ".arena-write-test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as error:
        store.close()
        if web_socket is not None:
            web_socket.close()
        raise RunFailure(f"cannot write replays to {args.replays}: {_reason(error)}") from None
    if not shared:  # a host of a shared ladder recovers its own games once it has joined (see _serve)
        from arena.ladder.recovery import recover_replays

        _report_recovery(store.recovered, recover_replays(store, args.replays))
    config.authenticator = LadderAuthenticator(store, open_registration=not args.registered_only)
    return _serve(args, store, config, players, options, time_control, web_socket)


def _raise_open_files_limit() -> None:
    """Every connection is an open file: take what the hard limit allows (arena/server/filelimit.py), and
    say so in the log (`--log-level info`) when that changed anything; warn when it stays low."""
    from arena.server.filelimit import LOW, open_files_limit, raise_open_files_limit

    raised = raise_open_files_limit()
    if raised is not None:
        log.info("open files: soft limit raised from %d to %d (the hard limit)", *raised)
    limit = open_files_limit()
    if limit is not None and limit < LOW:
        log.warning("open files: limited to %d; every connection takes one, so a few hundred idle ones can lock "
                    "new bots out: raise the hard limit (systemd: LimitNOFILE=65536; docs/deploy.md)", limit)


def _report_recovery(recovered, recovery) -> None:
    if recovered:
        print(f"{len(recovered)} games cut off by the last shutdown were marked aborted (not rated)", flush=True)
    if recovery.renamed:
        print(f"{recovery.renamed} finished games' replays left unsealed by the last shutdown were sealed", flush=True)
    for line in recovery.problems:
        print(f"warning: {line}", flush=True)


def _serve(args, store, config, players, options, time_control, web_socket) -> int:
    import trio
    from rich.console import Console
    from rich.live import Live

    from arena.ladder.dashboard import DashboardView, leaderboard_table, output_console, plain_summary, render_dashboard
    from arena.ladder.director import LadderDirector, LadderSettings, LadderSummary
    from arena.ladder.ratings import single_threaded_linear_algebra
    from arena.ladder.store import StoreError, is_postgres_url
    from arena.server import host

    single_threaded_linear_algebra()  # the rating fits share the cores with the games (see its doc)

    console = Console()
    live_view = console.is_terminal and not args.plain
    import socket

    from arena.cli.logformat import configure

    configure(args.log_format, args.host_name or socket.gethostname(),
              getattr(logging, args.log_level.upper()))
    _raise_open_files_limit()
    view = DashboardView(address=args.host, show=_shown(args, players))  # its port once bound (`director`)
    settings = LadderSettings(
        players=players,
        options=options,
        time_control=time_control,
        replays=Path(args.replays),
        concurrency=args.concurrency,
        max_games_per_bot=args.max_games_per_bot,
        max_games=args.max_games,
        duration_s=args.duration,
        drain_s=args.drain,
        handle_signals=False,  # `director` below owns SIGINT and SIGTERM from the start, and hands them to the ladder
    )
    if is_postgres_url(args.db):
        from arena.ladder.membership import ClusterSettings
        from arena.ladder.name_holds import NameHolds

        from arena.ladder.store.host_settings import HostSettings

        host_settings = HostSettings(
            time_control={key: getattr(time_control, key) for key in
                          ("move_ms", "bank_ms", "increment_ms", "first_move_ms", "max_strikes")},
            rulesets={name: (count, dict(options.get(name, {}))) for name, count in players.items()},
            lease_s=args.host_lease, hold_s=args.host_hold)
        settings.cluster = ClusterSettings(url=args.db, host_name=args.host_name, advertise=args.advertise,
                                           lease_s=args.host_lease, heartbeat_s=min(2.0, args.host_lease / 3),
                                           hold_s=args.host_hold, host_settings=host_settings,
                                           allow_mixed=args.allow_mixed_settings,
                                           web=_web_address(args, web_socket), names=NameHolds())
        config.names = settings.cluster.names  # every Hello's check of where else its name is connected
    ladder = LadderDirector(store, settings, view, owners=config.authenticator.owners)
    live = Live(console=console, auto_refresh=False, redirect_stderr=False) if live_view else None

    def joined(recovered, recovery) -> None:
        _report_recovery(recovered, recovery)
        others = [address for address in ladder.membership.hosts[1:]]
        print(f"joined the ladder as host {ladder.membership.name} ({ladder.membership.hosts[0]}); other live hosts: "
              f"{', '.join(others) or 'none'}", flush=True)

    ladder.on_joined = joined
    if live is None:  # what the live view shows on its note line (stopping, the database away and back, a demo bot
        # gone), plain output says at once: not after the drain, nor only in the log
        view.on_note = lambda note: print(note, flush=True)
    bots: list[subprocess.Popen] = []

    async def show() -> None:
        if live is not None:
            while True:
                live.update(render_dashboard(view), refresh=True)
                await trio.sleep(0.5)
        while True:
            await trio.sleep(args.summary_every)
            print(plain_summary(view), flush=True)

    async def watch_bots() -> None:
        """A demo bot that dies is reported, not silently missing from the ladder."""
        reported: set[int] = set()
        while True:
            await trio.sleep(1.0)
            for process in bots:
                code = process.poll()
                if code is not None and process.pid not in reported:
                    reported.add(process.pid)
                    name = process.args[process.args.index("--name") + 1]
                    view.tell(f"demo bot {name} exited with status {code}: see {_demo_log(Path(args.replays))}")

    async def start_up(handle, nursery) -> None:
        """What comes before the ladder runs, cancelled by a signal: the web view's address, the demo's bots
        started and connected, the live view."""
        await trio.lowlevel.checkpoint()  # a signal that came while joining the ladder: no bots started for nothing
        if web_socket is not None:
            from arena.web.embed import url

            print(f"web view on {url(web_socket)}", flush=True)
        if args.demo:
            bots.extend(_start_demo_bots(handle.port, Path(args.replays), min(4, args.max_games_per_bot)))
        nursery.start_soon(show)
        nursery.start_soon(watch_bots)
        if args.demo:
            await _await_demo_bots(handle)

    async def director(handle) -> object:
        began = time.monotonic()
        view.address = handle.address  # the port bound (--port 0: a free one), shown from the first frame on
        starting = trio.CancelScope()
        refused: BaseException | None = None
        async with trio.open_nursery() as nursery:
            # From here on SIGINT and SIGTERM stop the process cleanly: during start-up they end it (the demo's
            # bots stopped, a shared ladder left), later the ladder drains (`LadderDirector.on_signal`).
            await nursery.start(_route_signals, ladder, starting)
            host = f", host {args.host_name or f'{socket.gethostname()}:{handle.port}'}" if settings.cluster else ""
            print(f"arena listening on {handle.address} (db {store.path}{host}, replays in the database, "
                  f"rulesets {', '.join(f'{r} x{n}' for r, n in players.items())})", flush=True)
            for ruleset, chosen in options.items():
                print(f"{ruleset} is played with {', '.join(f'{k}={v}' for k, v in chosen.items())}"
                      + (" (the demo's default; give --option to change it)" if args.demo and ruleset in DEMO_OPTIONS
                         and chosen == DEMO_OPTIONS[ruleset] else ""), flush=True)
            try:
                if settings.cluster is not None:  # never cancelled half-way: a host that joined leaves below
                    with trio.CancelScope(shield=True):
                        await ladder.join(handle)
            except (OSError, StoreError) as error:  # a host name in use, the database gone: one plain error below
                refused = error
            else:
                with starting:
                    await start_up(handle, nursery)
                if starting.cancel_called:  # a signal during start-up: no game, the bots stopped by `_serve`
                    if ladder.membership is not None:
                        await ladder.membership.leave()
                    summary = LadderSummary(finished=0, aborted=0, decisions=0, seconds=time.monotonic() - began,
                                            stopped_because=ladder.stop_reason, interrupted=ladder.interrupted)
                else:
                    summary = await ladder(handle)
            nursery.cancel_scope.cancel()
        if refused is not None:
            raise refused
        return summary

    try:
        if live is not None:
            live.start()
        summary = host.run(config, director if web_socket is None else _with_web(director, ladder, args, web_socket))
    except OSError as error:
        raise RunFailure(_reason(error)) from None
    except StoreError as error:  # a shared ladder's host name in use, its database gone at start
        raise RunFailure(str(error)) from None
    finally:
        if live is not None:
            live.update(render_dashboard(view), refresh=True)
            live.stop()
        _stop_processes(bots)
        store.close()
    printed = output_console()
    for ruleset in players:
        rows = view.standings.get(ruleset)
        if rows and live is None:
            printed.print(leaderboard_table(ruleset, rows))
    print(
        f"stopped ({summary.stopped_because}): {summary.finished} games finished, {summary.aborted} aborted, "
        f"{summary.decisions} decisions in {summary.seconds:.0f} s",
        flush=True,
    )
    if args.timings:  # the database work of the whole run, by statement kind (test_store_statements, bench_ladder)
        print(f"store: {json.dumps(store.stats.snapshot(), sort_keys=True)}", flush=True)
    if args.timings and summary.gaps:  # where the time between games went (arena.ladder.game_gaps; bench_ladder reads it)
        print(f"between games: {json.dumps(summary.gaps)}", flush=True)
    # 130 once a Ctrl-C stopped the ladder or aborted its drain, whatever stopped it first (`LadderSummary.interrupted`);
    # 1 when another process took over this host's name on a shared ladder (`LadderSummary.host_replaced`)
    return 130 if summary.interrupted else 1 if summary.host_replaced else 0


async def _route_signals(ladder: Any, starting: Any, task_status: Any) -> None:
    """`arena serve`'s one receiver of SIGINT and SIGTERM, open for the whole run: each goes to the ladder
    (`LadderDirector.on_signal`: before it runs, a stop as soon as it does; then a drain, and an abort on the
    second), and a signal during start-up also cancels `starting`.  Without it a SIGTERM before the ladder's own
    receiver opened killed the process outright, and the demo's bots, each in a session of its own, were left
    running."""
    import signal

    import trio

    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
        task_status.started()
        async for signum in received:
            ladder.on_signal(signum)
            starting.cancel()  # a no-op once the start-up is over


#: What --web-advertise takes: a URL readers can open (printable ASCII, no spaces).
_WEB_URL = re.compile(r"https?://[!-~]{1,192}")


def _web_address(args, web_socket) -> str | None:
    """Where readers find this host's web view, for the hosts table: --web-advertise, else the web view's own
    address; on a wildcard address (0.0.0.0, ::) the host of --advertise, or else this machine's name, in its place."""
    if web_socket is None:
        return None
    if args.web_advertise:
        return args.web_advertise
    import socket

    from arena.web.embed import url

    host, port = web_socket.getsockname()[:2]
    if host not in ("0.0.0.0", "::"):
        return url(web_socket)
    named = args.advertise.rpartition(":")[0].strip("[]") if args.advertise else socket.gethostname()
    return f"http://{'[' + named + ']' if ':' in named else named}:{port}/"


def _web_socket(args):
    """Bind the web view's port before anything starts, so a taken port is a clear error at once."""
    if not args.web:
        return None
    from arena.web.embed import bind, parse_bind

    try:
        address = parse_bind(args.web)
    except ValueError as error:
        raise CommandError(str(error)) from None
    try:
        return bind(*address)
    except OSError as error:  # a taken port: a runtime failure, as for --port
        raise RunFailure(str(error)) from None


def _with_web(director, ladder, args, sock):
    """The web pages on the arena's own loop, reading the ladder's live state (no second copy)."""
    from arena.web import LiveFeed, WebSource, create_app
    from arena.web.embed import beside

    def make_app(handle):
        feed = LiveFeed(handle.hub.live, connected=lambda: [s.name for s in handle.sessions()])
        return create_app(WebSource(args.db, args.replays, live=feed, standings=lambda r: ladder.standings.get(r, []),
                                    rulesets=lambda: list(ladder.settings.players), rebuilds=handle.rebuilds),
                          args.web_proxy_hops, args.web_pace)

    return beside(director, make_app, sock)


def _demo_log(replays: Path) -> Path:
    """The demo bots' output: in the replay folder, which `arena serve` owns (not the working directory)."""
    return replays / "demo-bots.log"


#: How long --demo waits for its sample bots to connect before the ladder plans its first games.
DEMO_CONNECT_S = 20.0


async def _await_demo_bots(handle: Any, timeout_s: float = DEMO_CONNECT_S) -> None:
    """--demo: let every sample bot it started connect before the first planning round.

    The first round fills every game slot of the bots already there (each plays several games at
    once), so a sample bot a moment slower to start sat out the first games, and a short demo
    (``--max-games``) could end without it on the board.  Bounded: a bot that dies or never
    connects is reported by the bot watcher, and the ladder starts without it.
    """
    try:
        await handle.wait_for_sessions([name for _, name in DEMO_BOTS], timeout_s)
    except TimeoutError as error:
        log.warning("--demo starts without every sample bot: %s", error)


def _start_demo_bots(port: int, replays: Path, games_at_once: int) -> list[subprocess.Popen]:
    """The sample bots, each its own process; their output goes to a log in the replay folder.

    Each runs in a session of its own, as `arena match` starts its bots: Ctrl-C on the
    terminal reaches `arena serve` only, which lets the running games finish (``--drain``)
    before it stops the bots.  Sharing the terminal's process group, the bots died with the
    server's first Ctrl-C and every running game was aborted.
    """
    log_path = _demo_log(replays)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_file = open(log_path, "ab")
    processes = []
    for script, name in DEMO_BOTS:
        processes.append(
            subprocess.Popen(
                [sys.executable, str(sample_bot(script)), "--arena", f"127.0.0.1:{port}",
                 "--name", name, "--parallel", str(games_at_once)],
                stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, start_new_session=True,
            )
        )
    log_file.close()
    return processes


def _stop_processes(processes: list[subprocess.Popen], timeout_s: float = 5.0) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + timeout_s
    for process in processes:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
