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
``--log-dir`` keeps every bot's output.  A bot that hangs loses its game on
time, and is then stopped and handled as a crash (``--hang-timeout``).

Ctrl-C stops the bots and prints the partial result (exit status 130); a bot
still running 3 s after its SIGTERM is killed (`arena.cli.match_processes`).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path
from typing import Any, Sequence

from arena.cli import CommandError, RunFailure

try:  # Python 3.11+; trio brings the backport on 3.10
    from builtins import BaseExceptionGroup
except ImportError:  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup
from arena.cli.match_bots import BotSpec, name_bots, parse_bot, time_controls, unique_names
from arena.cli.match_play import MatchSetup, first_command_error, run_local, run_served
from arena.cli.match_processes import STOP_GRACE_S
from arena.cli.match_result import describe_game, print_result, progress, result_record
from arena.ladder.elo import SPRT
from arena.match.plan import PlannedGame, plan_games
from arena.match.schedule import MatchRun, play_all
from arena.match.stats import BotLine, MatchStats
from arena.match.timecontrol import TimeControl
from arena.printable import printable

__all__ = ["BotLine", "BotSpec", "MatchRun", "MatchStats", "PlannedGame", "choose_players", "describe_game",
           "parse_bot", "plan_games", "play_all", "print_result", "result_record", "unique_names"]

#: How long bots get to connect after launch (Python start-up plus the grpc import take ~1 s).
CONNECT_TIMEOUT_S = 30.0
#: How long a bot may owe an answer past its game's end, or stay away with its process alive, before it is taken
#: to hang and stopped (--hang-timeout): far beyond any time control's overrun, far below a match's length.
HANG_TIMEOUT_S = 30.0


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
                        "folder, deleted after the match unless a bot failed); a NAME.log from an earlier match is "
                        "kept: the new output is appended after a '--- arena match DATE: a new match ---' line. With "
                        "--local too: what the bots print goes to DIR/NAME.log (without --log-dir: to stderr)")
    parser.add_argument("--replays", type=Path, metavar="DIR", help="write a replay of every game under DIR")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print a line per finished game (as cutechess-cli does)")
    parser.add_argument("--local", action="store_true",
                        help="play .py bots in-process: no server, no processes; what the bots print goes to "
                        "stderr (or DIR/NAME.log with --log-dir), never onto stdout")
    parser.add_argument("--json", action="store_true",
                        help="print only the result as JSON on stdout (the score table, Elo and SPRT); "
                        "progress still goes to stderr")
    parser.add_argument("--connect-timeout", type=_positive_seconds, default=CONNECT_TIMEOUT_S, metavar="SECONDS",
                        help=f"how long bots get to connect (default {CONNECT_TIMEOUT_S:g})")
    parser.add_argument("--hang-timeout", type=_positive_seconds, default=None, metavar="SECONDS",
                        help="a bot that hangs (its process alive but answering nothing: stopped, in an endless "
                        "loop) loses the game it hangs in on time and the match goes on; once it still owes an "
                        "answer this long after that game ended, or its connection dropped and it has not come "
                        f"back this long, it is stopped (SIGTERM, SIGKILL after {STOP_GRACE_S:g} s) and handled "
                        "as a crash: the match ends naming it, or --recover restarts it "
                        f"(default {HANG_TIMEOUT_S:g}; not with --local)")
    parser.set_defaults(func=run_command)


def _number(text: str, kind: type, expected: str) -> Any:
    """``kind(text)``, or the error argparse shows as ``argument --FLAG: expected ..., not 'TEXT'`` (a
    ValueError would show this function's name instead: ``invalid _positive value``)."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}") from None


def _positive(text: str) -> int:
    value = _number(text, int, "a positive whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _positive_seconds(text: str) -> float:
    value = _number(text, float, "a number of seconds above 0")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0 and finite, not {text}")
    return value


def _non_negative(text: str) -> int:
    value = _number(text, int, "a whole number, 0 or more")
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
    from arena.match.bound import require_bound

    info = games.ruleset_info(args.game)
    options = info.resolve_options(parse_options(args.option))
    specs = name_bots([parse_bot(text) for text in args.bots], args.name)
    if len(specs) < 2:
        raise CommandError("a match needs at least two bots")
    players = choose_players(info, len(specs), args.players)
    require_bound(args.game, players, options)  # every game ends by its own bound, never by the runner's abort
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
        check_replay_folder(args.log_dir, "--log-dir")
    if args.recover and args.local:
        raise CommandError("--recover restarts bot processes; --local starts none")
    if args.hang_timeout is not None and args.local:
        raise CommandError("--hang-timeout stops bot processes that hang; --local starts none")
    commands = [spec.source for spec in specs if spec.path is None]
    if args.local and commands:  # refused here, before the header: not after an empty "Partial result" table
        raise CommandError(f"--local needs .py bot files; {printable(commands[0])!r} is a command")
    base_seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    names = [s.name for s in specs]
    plan = plan_games(names, players, args.games, base_seed)
    match = MatchRun(plan, MatchStats(names), sprt)
    setup = MatchSetup(args.game, options, time_control, args.concurrency, args.replays, args.connect_timeout,
                       controls, args.recover, args.log_dir,
                       hang_timeout_s=HANG_TIMEOUT_S if args.hang_timeout is None else args.hang_timeout)

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
                run_local(specs, match, setup)
            else:
                run_served(specs, match, setup)
        except KeyboardInterrupt:
            interrupted = True
        except CommandError as error:
            failure = error
        except BaseExceptionGroup as group:
            found = first_command_error(group)
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
