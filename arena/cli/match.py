"""`arena match`: a head-to-head between bots, like cutechess-cli.

    arena match new.py old.py --game moumou --games 400 --concurrency 4
    arena match new.py old.py --game moumou --games 20000 --sprt 0 10
    arena match a.py a.py b.py b.py --game maumau-online      # four seats, two bots twice each
    arena match new=v2/bot.py "old=python v1/bot.py" --game moumou --tc old:move_ms=200 --recover --log-dir logs

It starts an arena on a free loopback port, launches every bot as its own
process (``BOT`` is a ``.py`` file, run with this interpreter, or a command)
with ``--arena 127.0.0.1:PORT --name NAME --parallel C``, and plays
**duplicate deals**: every seed once per seat rotation, so the luck of the
deal cancels out.  With two bots each seed is a pair of games with the seats
swapped, and the statistics count pairs (pentanomial).  ``--local`` plays
the ``.py`` bots in-process instead (no server, no processes).  Bots are
named ``NAME=BOT`` or ``--name``, ``--tc`` gives one its own time control,
``--recover`` restarts a crashed bot (it loses the games it was in) and
``--log-dir`` keeps every bot's output.

Ctrl-C stops the bots and prints the partial result (exit status 130).
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from arena.cli import CommandError, RunFailure

try:  # Python 3.11+; trio brings the backport on 3.10
    from builtins import BaseExceptionGroup
except ImportError:  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup
from arena.cli.match_bots import BotSpec, load_local_bot, name_bots, parse_bot, time_controls, unique_names
from arena.cli.match_processes import BotProcess, stop_all
from arena.cli.match_result import describe_game, print_result, progress, result_record
from arena.ladder.elo import SPRT
from arena.match.outcome import GameOutcome
from arena.match.plan import PlannedGame, plan_games
from arena.match.schedule import MatchRun, play_all
from arena.match.stats import BotLine, MatchStats
from arena.match.timecontrol import TimeControl
from arena.printable import printable

__all__ = ["BotLine", "BotSpec", "MatchRun", "MatchStats", "PlannedGame", "choose_players", "describe_game",
           "parse_bot", "plan_games", "play_all", "print_result", "result_record", "unique_names"]

#: How long bots get to connect after launch (Python start-up plus the grpc import take ~1 s).
CONNECT_TIMEOUT_S = 30.0


# ---------------------------------------------------------------------- the command


def register(subparsers) -> None:
    defaults = TimeControl()
    parser = subparsers.add_parser(
        "match",
        help="play bots against each other (duplicate deals, Elo, SPRT), like cutechess-cli",
        description="Start an arena on a free loopback port, launch the bots as processes, play duplicate deals "
        "and print the score table; for two bots also the Elo difference with its 95% interval and, "
        "with --sprt, an early-stopping test. Duplicate deals replay one seed with the seats rotated, so a "
        "bot that remembers its hands knows, in the next rotation, the cards its opponent holds: harmless "
        "here, where you run every bot, but not where strangers meet, so `arena serve` deals every ladder "
        "game afresh. Example: arena match new=v2/bot.py \"old=python v1/bot.py --style x\" --game moumou "
        "--tc old:move_ms=200,bank_ms=1000 --recover --log-dir logs",
    )
    parser.add_argument("bots", nargs="+", metavar="BOT",
                        help="a bot: a .py file (run with this Python) or a command line in quotes, optionally "
                        "named: NAME=BOT, e.g. new=v2/bot.py \"old=python v1/bot.py --style x\" (default name: "
                        "the file's name, with -2, -3... when it repeats)")
    parser.add_argument("--name", action="append", default=[], metavar="NAME",
                        help="name the bots in order (repeatable: the first --name names the first BOT...); "
                        "names are 1-32 letters, digits, '_', '.' or '-' and unique")
    parser.add_argument("--game", required=True, metavar="RULESET", help="the ruleset (see `arena rules`)")
    parser.add_argument("--games", type=_positive, default=100, metavar="N",
                        help="games to play, rounded up to whole duplicate sets (default 100)")
    parser.add_argument("--concurrency", type=_positive, default=1, metavar="C", help="games at once (default 1)")
    parser.add_argument("--players", type=_positive, metavar="P",
                        help="seats per game (default: the number of bots, within the ruleset's range)")
    parser.add_argument("--seed", type=_non_negative, metavar="S", help="seed of the first deal; deal k uses S+k (default: random)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a ruleset option (repeatable)")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                        help="stop as soon as the SPRT accepts H0 (elo <= ELO0) or H1 (elo >= ELO1); two bots only")
    parser.add_argument("--alpha", metavar="P", type=float, default=0.05, help="SPRT false-positive rate (default 0.05)")
    parser.add_argument("--beta", metavar="P", type=float, default=0.05, help="SPRT false-negative rate (default 0.05)")
    parser.add_argument("--move-ms", metavar="MS", type=_positive, default=defaults.move_ms, help=f"per-decision limit (default {defaults.move_ms})")
    parser.add_argument("--bank-ms", metavar="MS", type=_non_negative, default=defaults.bank_ms, help=f"time bank (default {defaults.bank_ms})")
    parser.add_argument("--increment-ms", metavar="MS", type=_non_negative, default=defaults.increment_ms, help=f"bank increment per decision (default {defaults.increment_ms})")
    parser.add_argument("--first-move-ms", metavar="MS", type=_non_negative, default=defaults.first_move_ms, help=f"first-move allowance (default {defaults.first_move_ms})")
    parser.add_argument("--max-strikes", metavar="N", type=_positive, default=defaults.max_strikes, help=f"strikes that forfeit a game (default {defaults.max_strikes})")
    parser.add_argument("--tc", action="append", default=[], metavar="[NAME:]KEY=VALUE,...",
                        help="one bot's time control, changed from the one above (repeatable), e.g. "
                        "--tc new:move_ms=200,bank_ms=1000; KEY: move_ms, bank_ms, increment_ms, first_move_ms, "
                        "max_strikes, reconnect_ms (the _ms may be left out); without NAME: every bot")
    parser.add_argument("--recover", action="store_true",
                        help="restart a bot whose process dies and go on: it resigns the games it was in (each "
                        "counts as its loss, a forfeit); without it the match stops at the first crash")
    parser.add_argument("--log-dir", type=Path, metavar="DIR",
                        help="keep every bot's output (stdout and stderr) in DIR/NAME.log (default: a temporary "
                        "folder, deleted after the match unless a bot failed)")
    parser.add_argument("--replays", type=Path, metavar="DIR", help="write a replay of every game under DIR")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print a line per finished game (as cutechess-cli does)")
    parser.add_argument("--local", action="store_true", help="play .py bots in-process: no server, no processes")
    parser.add_argument("--json", action="store_true",
                        help="print only the result as JSON on stdout (the score table, Elo and SPRT); "
                        "progress still goes to stderr")
    parser.add_argument("--connect-timeout", type=_positive_seconds, default=CONNECT_TIMEOUT_S, metavar="SECONDS",
                        help=f"how long bots get to connect (default {CONNECT_TIMEOUT_S:g})")
    parser.set_defaults(func=run_command)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _positive_seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CommandError(f"--option takes KEY=VALUE, not {pair!r}")
        options[key.strip()] = value.strip()
    return options


def choose_players(ruleset_info: Any, bots: int, requested: int | None) -> int:
    low, high = ruleset_info.min_players, ruleset_info.max_players
    span = str(low) if low == high else f"{low}-{high}"
    if requested is not None:
        ruleset_info.check_players(requested)
        if requested > bots:
            raise CommandError(
                f"{requested} seats need {requested} bots; give a bot file several times to seat it more than once"
            )
        return requested
    if bots < low:
        raise CommandError(
            f"{ruleset_info.name} is for {span} players but only {bots} bot(s) were given; "
            "give a bot file several times to seat it more than once"
        )
    return min(bots, high)


def check_replay_folder(folder: Path, option: str = "--replays") -> None:
    """A replay (or log) folder that cannot be written is an error before any bot starts, not a traceback mid-match."""
    what = "logs" if option == "--log-dir" else "replays"
    if folder.exists() and not folder.is_dir():
        raise CommandError(f"{option} {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".arena-write-test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as error:
        raise RunFailure(f"cannot write {what} to {folder}: {error.strerror or error}") from None


def run_command(args: argparse.Namespace) -> int:
    from arena import games

    info = games.ruleset_info(args.game)
    options = info.resolve_options(parse_options(args.option))
    specs = name_bots([parse_bot(text) for text in args.bots], args.name)
    if len(specs) < 2:
        raise CommandError("a match needs at least two bots")
    players = choose_players(info, len(specs), args.players)
    sprt = None
    if args.sprt:
        if len(specs) != 2:
            raise CommandError("--sprt compares exactly two bots")
        try:
            sprt = SPRT(args.sprt[0], args.sprt[1], args.alpha, args.beta)
        except ValueError as error:
            raise CommandError(str(error)) from None
    time_control = TimeControl(
        move_ms=args.move_ms, bank_ms=args.bank_ms, increment_ms=args.increment_ms,
        first_move_ms=args.first_move_ms, max_strikes=args.max_strikes,
    )
    controls = time_controls(specs, time_control, args.tc)
    if args.replays is not None:
        check_replay_folder(args.replays, "--replays")
    if args.log_dir is not None:
        if args.local:
            raise CommandError("--log-dir keeps the output of bot processes; --local starts none")
        check_replay_folder(args.log_dir, "--log-dir")
    if args.recover and args.local:
        raise CommandError("--recover restarts bot processes; --local starts none")
    base_seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    names = [s.name for s in specs]
    plan = plan_games(names, players, args.games, base_seed)
    match = MatchRun(plan, MatchStats(names), sprt)
    setup = MatchSetup(args.game, options, time_control, args.concurrency, args.replays, args.connect_timeout,
                       controls, args.recover, args.log_dir)

    from rich.console import Console

    out = Console(width=None if sys.stdout.isatty() else 150, highlight=False,
                  stderr=args.json)  # with --json, stdout holds the JSON alone
    sets = plan[-1].set_index + 1
    out.print(
        f"Match: {args.game}, {players} players, {len(plan)} games ({sets} duplicate deal(s)), "
        f"seeds {base_seed}..{base_seed + sets - 1}"
        + (f" (--games {args.games} rounded up to whole deals)" if len(plan) != args.games else ""),
        soft_wrap=True, markup=False,
    )
    out.print(
        f"Bots: {', '.join(f'{printable(s.name)} ({printable(s.source)})' for s in specs)}; time control: move {time_control.move_ms} ms, "
        f"bank {time_control.bank_ms} ms, +{time_control.increment_ms} ms, first move +{time_control.first_move_ms} ms, "
        f"{time_control.max_strikes} strikes",
        soft_wrap=True, markup=False,  # header lines stay whole in logs and pipes, whatever the paths' length
    )
    for name, control in controls.items():
        if control != time_control:
            changed = ", ".join(f"{key} {value}" for key, value in control.to_dict().items()
                                if value != getattr(time_control, key))
            out.print(f"Time control of {printable(name)}: {changed}", soft_wrap=True, markup=False)
    setup.say = lambda text: out.print(text, soft_wrap=True, markup=False)
    interrupted = False
    failure: CommandError | None = None
    with progress(len(plan), match, out if args.verbose else None):
        try:
            if args.local:
                _run_local(specs, match, setup)
            else:
                _run_served(specs, match, setup)
        except KeyboardInterrupt:
            interrupted = True
        except CommandError as error:
            failure = error
        except BaseExceptionGroup as group:
            found = _first_command_error(group)
            if isinstance(found, KeyboardInterrupt):
                interrupted = True
            elif isinstance(found, CommandError):
                failure = found
            else:
                raise
    if args.json:
        print(json.dumps(result_record(match, args.game, players, base_seed,
                                       interrupted=interrupted or failure is not None), indent=2))
    else:
        print_result(out, match, interrupted=interrupted or failure is not None)
    if failure is not None:
        raise failure
    return 130 if interrupted else 0


@dataclass
class MatchSetup:
    ruleset: str
    options: dict[str, Any]
    time_control: TimeControl
    concurrency: int
    replays: Path | None
    connect_timeout_s: float
    controls: dict[str, TimeControl] = field(default_factory=dict)  # each bot's, by name
    recover: bool = False
    log_dir: Path | None = None
    say: Callable[[str], None] = print  # a line for the user (the console `run_command` prints on)

    def seat_controls(self, planned: PlannedGame) -> TimeControl | list[TimeControl]:
        """What the runner gets: the shared control, or one per seat when a bot has its own."""
        seated = [self.controls.get(name, self.time_control) for name in planned.seats]
        return self.time_control if all(c == self.time_control for c in seated) else seated


def _recorder(setup: MatchSetup, game_id: str, planned: PlannedGame, versions: dict[str, str]) -> Any:
    if setup.replays is None:
        return None
    from arena.replay.writer import ReplayWriter

    header = {
        "game_id": game_id,
        "ruleset": setup.ruleset,
        "players": len(planned.seats),
        "seed": planned.seed,
        "seats": [{"seat": i, "name": n, "version": versions.get(n, "")} for i, n in enumerate(planned.seats)],
        "options": setup.options,
        "time_control": setup.time_control.to_dict(),
        "match": {"deal": planned.set_index, "rotation": planned.rotation},
    }
    controls = setup.seat_controls(planned)
    if not isinstance(controls, TimeControl):  # a bot with a time control of its own: every seat's, in order
        header["seat_time_controls"] = [c.to_dict() for c in controls]
    return ReplayWriter.create(setup.replays, header)


def _run_served(specs: Sequence[BotSpec], match: MatchRun, setup: MatchSetup) -> None:
    """Start the arena, launch the bots when it listens, play the plan, stop the bots.

    A bot process that exits mid-match ends the match (`RunFailure` naming it
    and its log) or, with ``setup.recover``, is restarted under the same name:
    it resigns the games it was seated in (they go on, and it forfeits them,
    as cutechess scores a crash as a loss) and later games wait for it to
    reconnect.
    """
    import trio

    from arena.match.runner import Resignations
    from arena.server import SeatUnavailable, ServerConfig, new_game_id
    from arena.server import run as serve

    resignations = Resignations()
    playing: dict[str, tuple[str, ...]] = {}  # game id -> its seats, while it is played

    processes: dict[str, BotProcess] = {}
    log_dir = setup.log_dir or Path(tempfile.mkdtemp(prefix="arena-match-"))
    kept = [setup.log_dir is not None]  # a temporary log folder is kept when a bot failed
    names = [s.name for s in specs]

    async def director(handle: Any) -> None:
        address = f"127.0.0.1:{handle.port}"
        for spec in specs:
            processes[spec.name] = BotProcess(spec, address, setup.concurrency, log_dir)
        failure: list[CommandError] = []

        async def watch(spec: BotSpec, scope: trio.CancelScope) -> None:
            while True:
                process = processes[spec.name]
                status = await trio.to_thread.run_sync(process.process.wait, abandon_on_cancel=True)
                kept[0] = True
                if not setup.recover:
                    failure.append(RunFailure(process.describe_failure(f"exited with status {status}")))
                    scope.cancel()
                    return
                match.stats.lines[spec.name].crashes += 1
                for game_id, seats in list(playing.items()):
                    if spec.name in seats:
                        resignations.resign(game_id, spec.name)
                setup.say(f"Bot {printable(spec.name)} exited with status {status}; restarting it (--recover); "
                          f"its log is {process.log_path}")
                await _wait_gone(handle, spec.name, setup.connect_timeout_s)  # the name is free again
                processes[spec.name] = BotProcess(spec, address, setup.concurrency, log_dir,
                                                  restart_note=f"restarted after exit status {status}")
                if not await _connects(handle, processes[spec.name], setup.connect_timeout_s):
                    failure.append(RunFailure(processes[spec.name].describe_failure(
                        f"was restarted (--recover) but did not connect again within {setup.connect_timeout_s:g} s")))
                    scope.cancel()
                    return

        async with trio.open_nursery() as nursery:
            for spec in specs:
                nursery.start_soon(watch, spec, nursery.cancel_scope)
            try:
                await handle.wait_for_sessions(names, setup.connect_timeout_s)
            except TimeoutError:
                kept[0] = True
                connected = {s.name for s in handle.sessions()}
                missing = [p for p in processes.values() if p.name not in connected]
                raise RunFailure("\n".join(
                    p.describe_failure(f"did not connect within {setup.connect_timeout_s:g} s") for p in missing
                )) from None
            versions = {s.name: s.version for s in handle.sessions()}

            async def play_one(planned: PlannedGame) -> GameOutcome:
                for attempt in range(4):
                    game_id = new_game_id()
                    playing[game_id] = planned.seats
                    try:
                        return await handle.play_game(
                            setup.ruleset, setup.options, planned.seed, list(planned.seats),
                            setup.seat_controls(planned), recorder=_recorder(setup, game_id, planned, versions),
                            game_id=game_id, resignations=resignations,
                        )
                    except SeatUnavailable as error:
                        if not setup.recover or attempt == 3:
                            raise RunFailure(f"game {game_id} could not start: {error}") from None
                    finally:
                        del playing[game_id]
                        resignations.forget(game_id)
                    try:  # a restarted bot: wait until it is back
                        await handle.wait_for_sessions(list(planned.seats), setup.connect_timeout_s)
                    except TimeoutError as error:
                        raise RunFailure(f"a game could not start: {error}") from None
                raise AssertionError("unreachable")  # pragma: no cover

            await play_all(match, play_one, setup.concurrency)
            nursery.cancel_scope.cancel()
        if failure:
            raise failure[0]

    try:
        serve(ServerConfig(host="127.0.0.1", port=0, max_games_per_bot=max(64, setup.concurrency),
                           rulesets=[setup.ruleset]), director)
    except BaseExceptionGroup as group:
        raise _first_command_error(group) from None
    finally:
        stop_all(list(processes.values()))
        if not kept[0]:
            shutil.rmtree(log_dir, ignore_errors=True)
        elif setup.log_dir is None:
            setup.say(f"Bot logs kept in {log_dir}")


async def _wait_gone(handle: Any, name: str, timeout_s: float) -> None:
    """Until the arena has noticed that bot ``name`` is gone (bounded): a new process may then take the name."""
    import trio

    with trio.move_on_after(timeout_s):
        while any(session.name == name for session in handle.sessions()):
            await handle.session_event()


async def _connects(handle: Any, process: BotProcess, timeout_s: float) -> bool:
    """Whether a (re)started bot connects before it exits or ``timeout_s`` passes."""
    import trio

    connected = False
    async with trio.open_nursery() as nursery:
        async def session() -> None:
            nonlocal connected
            try:
                await handle.wait_for_sessions([process.name], timeout_s)
                connected = True
            except TimeoutError:
                pass
            nursery.cancel_scope.cancel()

        async def exited() -> None:
            await trio.to_thread.run_sync(process.process.wait, abandon_on_cancel=True)
            nursery.cancel_scope.cancel()

        nursery.start_soon(session)
        nursery.start_soon(exited)
    return connected


def _first_command_error(group: BaseException) -> BaseException:
    """Unwrap trio's exception groups so a user error prints as one line."""
    for error in getattr(group, "exceptions", ()):
        found = _first_command_error(error)
        if isinstance(found, (CommandError, KeyboardInterrupt)):
            return found
    return group


def _run_local(specs: Sequence[BotSpec], match: MatchRun, setup: MatchSetup) -> None:
    """Play in-process: every seat is a `LocalSeat` around a fresh instance of the file's Bot class."""
    import trio

    from arena.match.local import LocalSeat
    from arena.match.runner import play_game
    from arena.server import new_game_id

    factories = {spec.name: load_local_bot(spec) for spec in specs}

    async def play_one(planned: PlannedGame) -> GameOutcome:
        game_id = new_game_id()
        seats = [LocalSeat(factories[name](), name=name) for name in planned.seats]
        return await play_game(
            setup.ruleset, setup.options, planned.seed, seats, setup.seat_controls(planned),
            game_id=game_id, recorder=_recorder(setup, game_id, planned, {}),
        )

    trio.run(play_all, match, play_one, setup.concurrency)
