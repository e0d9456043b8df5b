"""`arena replay` (view, print one frame, verify) and `arena replays` (list)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from arena.cli import CommandError, RunFailure
from arena.cli.db import DEFAULT_DB


def register(subparsers) -> None:
    replay = subparsers.add_parser(
        "replay",
        help="view a replay in the terminal, print one frame, or verify replays",
        description=(
            "Open a replay in the interactive viewer (arrows/n/p step, Home/End or g/G, ':' or j jumps, "
            "space plays, +/- speed, v switches the view, a lists the moves ahead, q quits); --step N prints one "
            "frame instead; "
            "--verify re-simulates each file and checks every state hash; "
            "--bot CMD --seat S --from N rebuilds the state at decision N and lets a bot play seat S from there."
        ),
    )
    replay.add_argument("files", nargs="+", metavar="FILE",
                        help="a replay (.jsonl, or a cut-off .jsonl.part), or a game id (also the short one the "
                        "dashboard shows), looked up in --db and under --replays")
    replay.add_argument("--verify", action="store_true", help="re-simulate each FILE and check every state hash")
    replay.add_argument("--save", type=Path, metavar="OUT",
                        help="write the replay to OUT (.jsonl) and exit: a ladder game's replay is kept in its "
                        "database (--db), this gives it as a file (an existing OUT is not overwritten)")
    replay.add_argument("--step", type=int, metavar="N", help="print the table after decision N (0 is the deal) and exit")
    views = replay.add_mutually_exclusive_group()
    views.add_argument("--seat", type=int, metavar="N",
                       help="show only what seat N could see (with --bot: the seat the bot takes over)")
    views.add_argument("--spectator", action="store_true", help="show only the public view")
    replay.add_argument("--ahead", action="store_true",
                        help="also list the decisions after the shown step (omniscient view; a spoiler, so off by default)")
    replay.add_argument("--color", action="store_true", help="colours even when the output is not a terminal")
    replay.add_argument("--width", type=_width, default=None, metavar="COLUMNS",
                        help=f"output width for --step (only with it), at least {MIN_WIDTH} (default: the terminal's)")
    replay.add_argument("--db", default="arena.db", metavar="FILE|URL",
                        help="ladder database to look game ids up in: a SQLite file (default arena.db) or a "
                        "postgresql:// URL")
    replay.add_argument("--replays", type=Path, default=Path("replays"), metavar="DIR",
                        help="replay folder to look game ids up in (default replays/)")
    takeover = replay.add_argument_group(
        "playing on from a logged position",
        "the other seats repeat their logged actions while they stay legal, then --others plays them "
        "(or the first legal action); prints each decision, where the game departs from the log, and the result",
    )
    takeover.add_argument("--bot", metavar="CMD",
                          help="a bot (a .py file or a command, as for `arena match`) to play --seat from --from on")
    takeover.add_argument("--from", dest="start", type=int, default=None, metavar="N",
                          help="with --bot: replay the first N decisions exactly, then play (default 0: the deal)")
    takeover.add_argument("--others", metavar="CMD",
                          help="with --bot: the bot for the other seats once their logged actions no longer apply "
                          "(one process per seat)")
    takeover.add_argument("--log-dir", type=Path, metavar="DIR", help="with --bot: keep the bots' output in DIR/NAME.log")
    replay.set_defaults(func=run_replay)

    listing = subparsers.add_parser(
        "replays", help="list the replays in a directory or a ladder database, newest first",
        description=(
            "List replays (finished, aborted and cut-off ones) under DIR, newest first (with no DIR: those the "
            "ladder database ./arena.db keeps, when it exists); with --db URL, the "
            "replays a ladder keeps in its database (every game since replays went there; every host's on PostgreSQL), "
            "and the aborted games that have no replay (cut off when their host died or was killed), marked "
            "'no replay' with the abort's reason (in --json: has_replay false); with DIR --db URL "
            "--import, store DIR's replays of that ladder's games in its database."
        ),
    )
    listing.add_argument("directory", nargs="?", default=None, metavar="DIR",
                         help="default: the replays kept in ./arena.db when it exists (where `arena serve` keeps "
                         "them), else replays/")
    listing.add_argument("--db", metavar="FILE|URL",
                         help="list the replays kept in this ladder database instead (a ladder keeps every game's "
                         "there; games from older versions are files until --import stores them), and its aborted "
                         "games that have none")
    listing.add_argument("--import", dest="import_", action="store_true",
                         help="with DIR and --db: store DIR's sealed replays of the database's games that it "
                         "has no replay of yet (games from before replays were kept there), then stop")
    listing.add_argument("--bot", metavar="NAME",
                         help="only games this bot played (a name that no replay under DIR, or the database, knows "
                         "is an error, exit 2)")
    listing.add_argument("--game", metavar="RULESET", help="only this ruleset")
    listing.add_argument("--limit", type=int, metavar="N", help="at most N replays")
    listing.add_argument("--json", action="store_true",
                         help="print a JSON list (one object per replay, or per game with --db) instead")
    listing.set_defaults(func=run_replays)


#: The narrowest --width a frame stays readable at (its tables fold words into letters below).
MIN_WIDTH = 40


def _width(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of columns, not {text!r}") from None
    if value < MIN_WIDTH:
        raise argparse.ArgumentTypeError(f"must be at least {MIN_WIDTH} columns, not {value}")
    return value


def _resolve(names: list[str], args: argparse.Namespace) -> list[str]:
    """Each FILE as given, or the replay a game id names."""
    from arena.cli.find_replay import find_replay, looks_like_game_id

    return [
        name if Path(name).exists() or not looks_like_game_id(name) else str(find_replay(name, args.db, args.replays))
        for name in names
    ]


def run_replay(args: argparse.Namespace) -> int:
    if args.width is not None and args.step is None:  # the viewer fills its terminal; --verify and --bot print lines
        raise CommandError("--width sets the width of the frame --step N prints: give --step N (the viewer takes "
                           "the terminal's width)")
    if args.save is not None and (args.verify or args.step is not None or args.bot is not None or args.seat is not None
                                  or args.spectator or args.ahead):
        raise CommandError("--save OUT only writes the replay to a file: it does not combine with viewing, "
                           "--verify or --bot")
    if args.save is not None and len(args.files) != 1:
        raise CommandError(f"--save writes one replay, got {len(args.files)}")
    args.files = _resolve(args.files, args)
    if args.save is not None:
        return _save(Path(args.files[0]), args.save)
    if args.bot is None and (args.start is not None or args.others or args.log_dir):
        raise CommandError("--from, --others and --log-dir go with --bot CMD (the bot that plays on)")
    if args.bot is not None and (args.verify or args.step is not None or args.spectator or args.ahead):
        raise CommandError("--bot plays on from a logged position: it does not combine with --verify, --step, "
                           "--spectator or --ahead")
    if args.bot is not None and args.seat is None:
        raise CommandError("--bot needs --seat S: the seat the bot takes over")
    if args.verify:
        if args.step is not None or args.seat is not None or args.spectator:
            raise CommandError("--verify takes only files; --step/--seat/--spectator are for viewing")
        return _verify(args.files)
    if len(args.files) != 1:
        raise CommandError(f"the viewer opens one replay at a time, got {len(args.files)} files (to check several: --verify)")
    from arena.replay import ReplayFormatError, load
    from arena.replay.render import View

    from arena import games

    try:
        replay = load(args.files[0])
    except ReplayFormatError as error:
        raise CommandError(str(error)) from None
    if replay.ruleset not in games.rulesets():
        raise CommandError(
            f"{args.files[0]}: unknown ruleset {replay.ruleset!r}: this version of mau-arena cannot replay it "
            f"(known: {', '.join(games.rulesets())})"
        )
    simulation = replay.simulate()
    if not simulation.states:  # the header names options or a player count the ruleset refuses: a bad file
        raise CommandError(f"{args.files[0]}: {simulation.error}")
    if args.bot is not None:
        return _take_over(replay, args)
    view = View.omniscient()
    if args.seat is not None:
        if not 0 <= args.seat < replay.players:
            raise CommandError(f"--seat {args.seat}: this game has seats 0..{replay.players - 1}")
        view = View.of_seat(args.seat)
    elif args.spectator:
        view = View.spectator()
    if args.step is not None:
        return _print_step(replay, args.step, view, args.color, args.width, args.ahead)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CommandError("the viewer needs a terminal; to print one frame use --step N")
    from arena.replay.viewer import ReplayViewer

    ReplayViewer(replay, view=view, ahead=args.ahead).run()
    return 0


def _save(source: Path, out: Path) -> int:
    """`arena replay GAME_ID --save OUT`: the replay's bytes as they are stored (checked), to a new file."""
    try:
        data = source.read_bytes()
    except OSError as error:
        raise RunFailure(f"cannot read {source}: {error.strerror or error}") from None
    try:
        with open(out, "xb") as handle:
            handle.write(data)
    except FileExistsError:
        raise CommandError(f"--save {out}: the file exists (not overwritten)") from None
    except OSError as error:
        raise RunFailure(f"cannot write {out}: {error.strerror or error}") from None
    print(f"wrote {out} ({len(data)} bytes)")
    return 0


def _take_over(replay, args: argparse.Namespace) -> int:
    from rich.console import Console

    from arena.cli.replay_takeover import run_takeover

    if replay.simulate().error and len(replay.simulate().states) <= (args.start or 0):
        raise RunFailure(f"{replay.path}: {replay.simulate().error}")
    return run_takeover(replay, args.seat, args.start or 0, args.bot, args.others,
                        Console(highlight=False, soft_wrap=True), args.log_dir)


def _print_step(replay, step: int, view, color: bool, width: int | None, ahead: bool = False) -> int:
    from rich.console import Console

    from arena.replay.render import FrameBuilder

    if not 0 <= step <= len(replay.decisions):
        raise CommandError(f"--step {step}: {replay.path.name} has steps 0..{len(replay.decisions)} (0 is the deal)")
    builder = FrameBuilder(replay)
    if step > builder.last_step:
        raise RunFailure(f"--step {step}: the replay re-simulates only to step {builder.last_step}: "
                           f"{builder.simulation.error}")
    console = Console(force_terminal=True if color else None, width=width, highlight=False)
    console.print(builder.frame(step, view, ahead=ahead))
    return 0


def _verify(files: list[str]) -> int:
    from rich.console import Console

    from arena.replay import verify

    for name in files:  # a file argument that is no file is a usage error (exit 2), as for the viewer: not a FAIL
        if Path(name).is_dir():
            raise CommandError(f"{name} is a directory, not a replay file (its replays: {Path(name) / '*.jsonl'})")
        if not Path(name).exists():
            raise CommandError(f"{name}: no such file")
    console = Console(highlight=False)
    failed = 0
    for name in files:
        report = verify(name)
        failed += not report.ok
        console.print(report.summary(), style=None if report.ok else "bold red", markup=False, soft_wrap=True)
        for note in report.notes:
            console.print(f"     note: {note}", markup=False, soft_wrap=True)
    if len(files) > 1:
        console.print(f"{len(files) - failed} OK, {failed} FAIL", markup=False)
    return 1 if failed else 0


def run_replays(args: argparse.Namespace) -> int:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from arena.replay import ReplayFormatError
    from arena.replay.format import show_time
    from arena.replay.listing import scan

    if args.limit is not None and args.limit < 1:
        raise CommandError("--limit must be at least 1")
    if args.import_:
        if args.db is None or args.directory is None:
            raise CommandError("--import stores DIR's replays in a database: give both DIR and --db URL")
        return _import_replays(Path(args.directory), args.db)
    if args.db is not None:
        if args.directory is not None:
            raise CommandError("give DIR (replay files) or --db (replays kept in a database), not both "
                               "(to store DIR's replays in the database: --import)")
        return _list_stored(args, args.db)
    if args.directory is None and Path(DEFAULT_DB).is_file():
        # `arena serve` keeps its games' replays in its database: a plain `arena replays` after it lists them (as
        # `arena replay GAME_ID` finds them there); only with none kept there are files under replays/ listed
        listed = _list_stored(args, DEFAULT_DB, folder=Path("replays"))
        if listed is not None:
            return listed
    defaulted, args.directory = args.directory is None, args.directory or "replays"
    if defaulted and not Path(args.directory).is_dir() and not Path(DEFAULT_DB).is_file():
        raise CommandError(f"no replays here: no ladder database {DEFAULT_DB} (where `arena serve` keeps them) and no "
                           f"{args.directory}/ folder; give DIR or --db FILE|URL")
    from rich.progress import Progress

    with Progress(transient=True, console=Console(stderr=True), disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task("reading replays", total=None)
        try:
            summaries, problems, bot_seen = scan(
                Path(args.directory), bot=args.bot, ruleset=args.game, limit=args.limit,
                progress=lambda done, total: bar.update(task, completed=done, total=total))
        except ReplayFormatError as error:
            raise CommandError(str(error)) from None
    from arena.printable import printable

    for problem in problems:
        print(f"arena replays: skipped {printable(problem)}", file=sys.stderr)
    if not summaries:
        _refuse_unknown_game(args.game)
        if not bot_seen:  # as with --db: a name nothing here knows is a usage error, not an empty list
            _refuse_unknown_bot(args.bot, args.directory, len(problems), DEFAULT_DB if defaulted else None)
    if args.json:
        print(json.dumps([
            {"path": str(s.path), "game_id": s.game_id, "started_at": s.started_at, "ruleset": s.ruleset,
             "bots": list(s.bots), "status": s.status, "outcome": s.outcome, "decisions": s.decisions}
            for s in summaries
        ], indent=2))
        return 0
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = 200  # a pipe or a file: one row per replay, for grep and friends
    if not summaries:
        where = "" if not defaulted or Path(DEFAULT_DB).is_file() else (
            f"; there is no ladder database {DEFAULT_DB} here either (a ladder keeps its games' replays in its "
            "database: arena replays --db FILE|URL)")
        console.print(f"no replays under {args.directory}" + (" match the filters" if args.bot or args.game else "")
                      + where, markup=False)
        return 0
    table = Table(title=f"replays in {args.directory}", title_justify="left", box=box.SIMPLE_HEAD,
                  pad_edge=False)
    # everything may wrap (a narrow terminal folds names and ids rather than cropping the table)
    # the file's name is the game id: `arena replay` takes either
    for column in ("started (UTC)", "file", "ruleset", "bots", "result", "decisions", "status"):
        table.add_column(column, justify="right" if column == "decisions" else "left", overflow="fold")
    for s in summaries:
        status_style = {"finished": "green", "aborted": "yellow"}.get(s.status, "red")
        status = "complete" if s.status == "finished" else s.status
        cells = (show_time(s.started_at)[:16], str(s.path), s.ruleset, ", ".join(s.bots), s.outcome, str(s.decisions))
        table.add_row(*(Text(printable(c)) for c in cells), Text(status, style=status_style))
    console.print(table)
    console.print("open one with `arena replay FILE` or `arena replay GAME_ID`", style="dim", markup=False)
    return 0


def _refuse_unknown_game(ruleset: str | None) -> None:
    """When no replay matched: a --game that names no ruleset either is a usage error, as for `arena leaderboard`
    (checked only then, so that replays of a ruleset an older version played can still be listed)."""
    from arena import games

    if ruleset and ruleset not in games.rulesets():
        raise CommandError(f"unknown ruleset {ruleset!r}; known rulesets: {', '.join(games.rulesets())}")


def _refuse_unknown_bot(name: str, directory: str, unreadable: int, db: str | None) -> None:
    """`arena replays DIR --bot NAME` where no replay under DIR has a seat of NAME: a usage error (exit 2), as
    `--db` treats a name its database does not know (a known bot with no replay matching the other filters
    is an empty list).  ``db``: the ladder database beside the folder (plain `arena replays` in a ladder's
    folder whose database keeps no replay): a bot it knows is no error."""
    from arena.printable import printable

    if db is not None and Path(db).is_file() and _db_knows_bot(db, name):
        return
    beside = f" nor in {db}" if db is not None and Path(db).is_file() else ""
    skipped = f" ({unreadable} unreadable file{'' if unreadable == 1 else 's'} skipped)" if unreadable else ""
    raise CommandError(f"no bot named {printable(name)!r} in the replays under {directory}{beside}{skipped}")


def _db_knows_bot(db: str, name: str) -> bool:
    from arena.cli.db import open_db
    from arena.ladder.store import driver_errors

    store = open_db(db, must_exist="give a ladder database file or a postgresql:// URL")
    try:
        return store.bot_access(name)[0]
    except driver_errors() as error:
        raise RunFailure(f"cannot read {store.path}: {' '.join(str(error).split())}") from None
    finally:
        store.close()


def _list_stored(args: argparse.Namespace, db: str, folder: Path | None = None) -> int | None:
    """`arena replays --db URL`: the games whose replay the database keeps, and the aborted games that have no
    replay (cut off by a crash: a dead host's), newest first.

    folder: the replay folder also there (plain `arena replays` in a ladder's folder): its files are pointed to
    after the list, or listed instead (None returned) when the database keeps none."""
    from rich.console import Console

    from arena.cli.db import open_db
    from arena.ladder.store import driver_errors
    from arena.replay.listing import replay_files

    store = open_db(db, must_exist="give a ladder database file or a postgresql:// URL")
    try:
        games = store.games(ruleset=args.game or None, bot=args.bot or None, limit=args.limit, stored_replay=True,
                            lost_replay=True)
        sizes = store.stored_replay_sizes([g.id for g in games])
        bot_known = bool(games) or not args.bot or store.bot_access(args.bot)[0]
    except driver_errors() as error:
        raise RunFailure(f"cannot read {store.path}: {' '.join(str(error).split())}") from None
    finally:
        store.close()
    rows = [_stored_row(g, sizes.get(g.id)) for g in games]
    files = folder is not None and folder.is_dir() and next(iter(replay_files(folder)), None) is not None
    if files and not any(row["has_replay"] for row in rows):
        return None
    if not rows:
        _refuse_unknown_game(args.game)
        if not bot_known and not files:  # a name the database does not know (nor a replay file beside it)
            from arena.printable import printable

            raise CommandError(f"no bot named {printable(args.bot)!r} in {store.path}")
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = 200
    if not rows:
        filtered = " match the filters" if args.bot or args.game else ""
        console.print(f"no replays kept in {store.path}{filtered} (games from older versions are files: "
                      "arena replays DIR)", markup=False)
        return 0
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from arena.printable import printable
    from arena.replay.format import show_time

    table = Table(title=f"replays in {store.path}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for column in ("started (UTC)", "game", "ruleset", "bots", "result", "decisions", "status", "bytes (packed)"):
        table.add_column(column, justify="right" if column in ("decisions", "bytes (packed)") else "left",
                         overflow="fold")
    for row in rows:
        style = {"finished": "green", "aborted": "yellow"}.get(row["status"], "red")
        cells = (show_time(row["started_at"])[:16], row["game_id"], row["ruleset"], ", ".join(row["bots"]),
                 row["outcome"], str(row["decisions"]))
        size = f"{row['bytes']} ({row['stored_bytes']})" if row["has_replay"] else Text("no replay", style="dim")
        table.add_row(*(Text(printable(c)) for c in cells), Text(row["status"], style=style), size)
    console.print(table)
    console.print(f"open one with `arena replay GAME_ID --db {db}` (from any machine)", style="dim",
                  markup=False)
    if not all(row["has_replay"] for row in rows):
        console.print("'no replay': a game cut off by a crash (its host died or was killed) keeps none", style="dim",
                      markup=False)
    if files:
        console.print(f"replay files under {folder}/ too (older versions' games): arena replays {folder}", style="dim",
                      markup=False)
    return 0


def _stored_row(game, sizes: tuple[int, int] | None) -> dict:
    """A listed game: ``sizes`` (bytes of its replay text, bytes stored) when the database keeps its replay,
    None for an aborted game that has none (``has_replay`` false, ``bytes`` null; ``outcome`` its reason)."""
    winners = [s.bot for s in game.seats if s.placement == 1]
    if game.status == "finished" and winners:
        outcome = ("winner " if len(winners) == 1 else "tied ") + ", ".join(winners)
    else:
        outcome = game.reason or game.status
    return {"game_id": game.id, "started_at": game.started_at, "ruleset": game.ruleset,
            "bots": [s.bot for s in game.seats], "status": game.status, "outcome": outcome,
            "decisions": game.decisions, "has_replay": sizes is not None,
            "bytes": sizes[0] if sizes else None, "stored_bytes": sizes[1] if sizes else None}


def _import_replays(directory: Path, db: str) -> int:
    """`arena replays DIR --db URL --import`: store DIR's sealed replays of the database's games."""
    from rich.console import Console
    from rich.progress import Progress

    from arena.cli.db import open_db
    from arena.ladder.store import PackedReplay, driver_errors
    from arena.replay.format import SUFFIX

    if not directory.is_dir():
        raise CommandError(f"{directory}: no such directory")
    files = {p.name[: -len(SUFFIX)]: p for p in sorted(directory.glob(f"*/*{SUFFIX}"))}
    store = open_db(db, must_exist="give a ladder database file or a postgresql:// URL")
    stored = skipped = 0
    try:
        statuses = store.statuses(list(files))
        have = store.stored_replays(list(statuses))
        todo = [game_id for game_id, status in statuses.items() if status != "running" and game_id not in have]
        with Progress(transient=True, console=Console(stderr=True), disable=not sys.stderr.isatty()) as bar:
            task = bar.add_task("storing replays", total=len(todo))
            for game_id in sorted(todo):
                packed = PackedReplay.read(files[game_id])
                if packed is not None and store.store_replay(game_id, packed):
                    stored += 1
                bar.advance(task)
        skipped = len(files) - len(statuses)
    except driver_errors() as error:
        raise RunFailure(f"cannot write to {store.path}: {' '.join(str(error).split())}") from None
    except OSError as error:
        raise RunFailure(f"cannot read a replay under {directory}: {error}") from None
    finally:
        store.close()
    print(f"stored {stored} replays in {store.path} ({len(files) - skipped - stored} already there or still "
          f"running; {skipped} files name no game of this ladder)")
    return 0
