"""`arena match`: a head-to-head between bots, like cutechess-cli.

    arena match new.py old.py --game moumou --games 400 --concurrency 4
    arena match new.py old.py --game moumou --games 20000 --sprt 0 10
    arena match a.py a.py b.py b.py --game maumau-online      # four seats, two bots twice each

It starts an arena on a free loopback port, launches every bot as its own
process (``BOT`` is a ``.py`` file, run with this interpreter, or a command)
with ``--arena 127.0.0.1:PORT --name NAME --parallel C``, and plays
**duplicate deals**: every seed once per seat rotation, so the luck of the
deal cancels out.  With two bots each seed is a pair of games with the seats
swapped, and the statistics count pairs (pentanomial).  ``--local`` plays
the ``.py`` bots in-process instead (no server, no processes).

Ctrl-C stops the bots and prints the partial result (exit status 130).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Sequence

from arena.cli import CommandError, RunFailure
from arena.printable import printable

try:  # Python 3.11+; trio brings the backport on 3.10
    from builtins import BaseExceptionGroup
except ImportError:  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup
from arena.ladder.elo import SPRT, EloEstimate, elo_from_pairs, elo_from_wdl, pair_bucket
from arena.match.outcome import GameOutcome
from arena.match.timecontrol import TimeControl

#: How long bots get to connect after launch (Python start-up plus the grpc import take ~1 s).
CONNECT_TIMEOUT_S = 30.0
#: How long a stopped bot gets to exit after SIGTERM before it is killed.
STOP_GRACE_S = 3.0
_NAME_OK = re.compile(r"[^A-Za-z0-9_.\-]+")


# ---------------------------------------------------------------------- bots


@dataclass
class BotSpec:
    """One BOT argument: how to start it and the name it plays under."""

    source: str
    argv: list[str]
    name: str
    path: Path | None = None  # the .py file, if it is one


def parse_bot(text: str) -> BotSpec:
    """A ``.py`` file runs with the current interpreter; anything else is a command line."""
    if text.endswith(".py") and " " not in text.strip():
        path = Path(text)
        if not path.is_file():
            raise CommandError(f"bot file {text} does not exist")
        return BotSpec(text, [sys.executable, str(path)], _clean_name(path.stem), path.resolve())
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise CommandError(f"cannot parse the bot command {text!r}: {error}") from None
    if not argv:
        raise CommandError("an empty bot command")
    if shutil.which(argv[0]) is None:
        raise CommandError(f"bot command {text!r}: {argv[0]} is not a file or a program on PATH")
    scripts = [arg for arg in argv if arg.endswith(".py")]  # `python bot.py --flag` is named bot, not python
    stem = Path(scripts[0]).stem if scripts else Path(argv[0]).name
    return BotSpec(text, argv, _clean_name(stem))


def _clean_name(stem: str) -> str:
    name = _NAME_OK.sub("-", stem).strip("-.") or "bot"
    return name[:28]


def unique_names(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """The same bot twice plays as ``name`` and ``name-2`` (the arena allows one session per name)."""
    seen: dict[str, int] = {}
    for spec in specs:
        base = spec.name
        seen[base] = seen.get(base, 0) + 1
        if seen[base] > 1:
            spec.name = f"{base}-{seen[base]}"
    return list(specs)


class BotProcess:
    """A launched bot: its process and a log file that holds its stdout and stderr."""

    def __init__(self, spec: BotSpec, arena: str, concurrency: int, log_dir: Path):
        self.spec = spec
        self.log_path = log_dir / f"{spec.name}.log"
        argv = [*spec.argv, "--arena", arena, "--name", spec.name, "--parallel", str(concurrency)]
        with open(self.log_path, "wb") as log:
            # A session of its own: Ctrl-C reaches `arena match` only, which then stops the bots in order.
            self.process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env=_bot_environment(),
            )

    @property
    def name(self) -> str:
        return self.spec.name

    def tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.rstrip().splitlines()[-lines:])

    def describe_failure(self, what: str) -> str:
        tail = self.tail()
        shown = "\n    ".join(tail.splitlines()) if tail else "(no output)"
        return f"bot {self.name} ({self.spec.source}) {what}; its last output:\n    {shown}"

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                return
            try:
                self.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _bot_environment() -> dict[str, str]:
    """The bots' environment: ours, plus this checkout on PYTHONPATH so ``import sdk`` finds the same SDK."""
    env = dict(os.environ)
    root = Path(__file__).resolve().parents[2]
    if (root / "sdk" / "__init__.py").is_file():
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    return env


def stop_all(processes: Sequence[BotProcess]) -> None:
    for process in processes:  # signal all first, so they wind down together
        if process.process.poll() is None:
            try:
                process.process.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
    for process in processes:
        process.stop()


def load_local_bot(spec: BotSpec) -> Callable[[], Any]:
    """For ``--local``: the Bot subclass a ``.py`` file defines, as a factory (one instance per game)."""
    from sdk import Bot

    if spec.path is None:
        raise CommandError(f"--local needs .py bot files; {spec.source!r} is a command")
    folder = str(spec.path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # so the bot's own helper modules import as when it runs as a script
    module_spec = importlib.util.spec_from_file_location(f"arena_match_bot_{spec.name}", spec.path)
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception as error:
        raise RunFailure(f"cannot load bot {spec.source}: {type(error).__name__}: {error}") from None
    classes = [
        value for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Bot) and value is not Bot and value.__module__ == module.__name__
    ]
    if not classes:
        raise CommandError(f"{spec.source} defines no subclass of sdk.Bot")
    return classes[-1]


# ---------------------------------------------------------------------- plan and statistics


@dataclass(frozen=True)
class PlannedGame:
    set_index: int
    seed: int
    rotation: int
    seats: tuple[str, ...]


def plan_games(names: Sequence[str], players: int, games: int, base_seed: int) -> list[PlannedGame]:
    """Duplicate sets: set ``k`` uses seed ``base+k`` and is played once per seat rotation of its table.

    With more bots than seats, tables cycle through every combination of bots.
    ``games`` is rounded up to whole sets.
    """
    tables = list(itertools.combinations(names, players))
    sets = max(1, math.ceil(games / players))
    plan = []
    for k in range(sets):
        table = tables[k % len(tables)]
        for rotation in range(players):
            seats = tuple(table[(i + rotation) % players] for i in range(players))
            plan.append(PlannedGame(k, base_seed + k, rotation, seats))
    return plan


@dataclass
class BotLine:
    """One row of the score table."""

    name: str
    games: int = 0
    firsts: int = 0
    wins: int = 0      # pairwise: against each other seat of the same game, by placement
    draws: int = 0
    losses: int = 0
    placements: int = 0
    points: int = 0
    strikes: int = 0
    timeouts: int = 0
    forfeits: int = 0
    think_ms: int = 0
    decisions: int = 0

    @property
    def ms_per_decision(self) -> float:
        return self.think_ms / self.decisions if self.decisions else 0.0

    @property
    def score(self) -> float:
        played = self.wins + self.draws + self.losses
        return (self.wins + self.draws / 2) / played if played else 0.0

    @property
    def average_place(self) -> float:
        return self.placements / self.games if self.games else 0.0


@dataclass
class MatchStats:
    """Everything the progress line and the final table show; fed one `GameOutcome` at a time."""

    names: list[str]
    lines: dict[str, BotLine] = field(default_factory=dict)
    finished: int = 0
    aborted: int = 0
    #: Two bots: the first bot's score in each game of a set, to form pairs.
    set_scores: dict[int, list[float]] = field(default_factory=dict)
    pairs: list[int] = field(default_factory=lambda: [0] * 5)

    def __post_init__(self) -> None:
        for name in self.names:
            self.lines.setdefault(name, BotLine(name))

    @property
    def head_to_head(self) -> bool:
        return len(self.names) == 2

    def add(self, planned: PlannedGame, outcome: GameOutcome) -> None:
        if outcome.status != "finished":
            self.aborted += 1
            return
        self.finished += 1
        seats = outcome.seats
        for seat in seats:
            line = self.lines.setdefault(seat.name, BotLine(seat.name))
            line.games += 1
            line.firsts += seat.placement == 1
            line.placements += seat.placement
            line.points += seat.points
            line.strikes += seat.strikes
            line.timeouts += seat.timeouts
            line.forfeits += seat.forfeited
            line.think_ms += seat.think_ms
            line.decisions += seat.decisions
        for a, b in itertools.combinations(seats, 2):
            first, second = self.lines[a.name], self.lines[b.name]
            if a.placement < b.placement:
                first.wins += 1
                second.losses += 1
            elif a.placement > b.placement:
                first.losses += 1
                second.wins += 1
            else:
                first.draws += 1
                second.draws += 1
        if self.head_to_head:
            mine = next(s for s in seats if s.name == self.names[0])
            other = next(s for s in seats if s.name != self.names[0])
            score = 1.0 if mine.placement < other.placement else 0.5 if mine.placement == other.placement else 0.0
            scores = self.set_scores.setdefault(planned.set_index, [])
            scores.append(score)
            if len(scores) == 2:
                self.pairs[pair_bucket(*scores)] += 1

    @property
    def first(self) -> BotLine:
        return self.lines[self.names[0]]

    def elo(self) -> EloEstimate | None:
        """The first bot's Elo advantage over the second (pairs when there are any)."""
        if not self.head_to_head:
            return None
        try:
            if sum(self.pairs):
                return elo_from_pairs(self.pairs)
            line = self.first
            return elo_from_wdl(line.wins, line.draws, line.losses)
        except ValueError:
            return None

    def summary(self) -> str:
        if self.head_to_head:
            line = self.first
            text = f"{self.names[0]} {line.wins}-{line.losses}-{line.draws}"
            estimate = self.elo()
            if estimate is not None and math.isfinite(estimate.elo) and math.isfinite(estimate.margin) and estimate.margin > 0:
                text += f"  Elo {estimate}"
            return text
        best = max(self.lines.values(), key=lambda line: line.score)
        return f"leader {best.name} {100 * best.score:.1f}%"


# ---------------------------------------------------------------------- playing


PlayOne = Callable[[PlannedGame], Awaitable[GameOutcome]]


@dataclass
class MatchRun:
    """The shared state of one run, readable after an interrupt for the partial result."""

    plan: list[PlannedGame]
    stats: MatchStats
    sprt: SPRT | None = None
    verdict: str | None = None
    on_progress: Callable[..., None] | None = None  # (run, planned game, its outcome)


async def play_all(run: MatchRun, play_one: PlayOne, concurrency: int) -> None:
    """Play the plan with up to ``concurrency`` games at once; stop early when the SPRT decides."""
    import trio

    slots = trio.Semaphore(concurrency)

    async def one(planned: PlannedGame, nursery: trio.Nursery) -> None:
        try:
            outcome = await play_one(planned)
        finally:
            slots.release()
        run.stats.add(planned, outcome)
        if run.sprt is not None and sum(run.stats.pairs):
            run.verdict = run.sprt.verdict(pairs=run.stats.pairs)
            if run.verdict is not None:
                nursery.cancel_scope.cancel()
        if run.on_progress is not None:
            run.on_progress(run, planned, outcome)

    async with trio.open_nursery() as nursery:
        for planned in run.plan:
            await slots.acquire()
            nursery.start_soon(one, planned, nursery)


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
        "game afresh.",
    )
    parser.add_argument("bots", nargs="+", metavar="BOT",
                        help="a bot: a .py file (run with this Python) or a command line in quotes")
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


def check_replay_folder(folder: Path) -> None:
    """A replay folder that cannot be written is an error before any bot starts, not a traceback mid-match."""
    if folder.exists() and not folder.is_dir():
        raise CommandError(f"--replays {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".arena-write-test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as error:
        raise RunFailure(f"cannot write replays to {folder}: {error.strerror or error}") from None


def run_command(args: argparse.Namespace) -> int:
    from arena import games

    info = games.ruleset_info(args.game)
    options = info.resolve_options(parse_options(args.option))
    specs = unique_names([parse_bot(text) for text in args.bots])
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
    if args.replays is not None:
        check_replay_folder(args.replays)
    base_seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    names = [s.name for s in specs]
    plan = plan_games(names, players, args.games, base_seed)
    match = MatchRun(plan, MatchStats(names), sprt)
    setup = MatchSetup(args.game, options, time_control, args.concurrency, args.replays, args.connect_timeout)

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
    interrupted = False
    failure: CommandError | None = None
    with _progress(len(plan), match, out if args.verbose else None):
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
    return ReplayWriter.create(setup.replays, header)


def _run_served(specs: Sequence[BotSpec], match: MatchRun, setup: MatchSetup) -> None:
    """Start the arena, launch the bots when it listens, play the plan, stop the bots."""
    import trio

    from arena.server import SeatUnavailable, ServerConfig, new_game_id
    from arena.server import run as serve

    processes: list[BotProcess] = []
    log_dir = Path(tempfile.mkdtemp(prefix="arena-match-"))
    names = [s.name for s in specs]

    async def director(handle: Any) -> None:
        address = f"127.0.0.1:{handle.port}"
        for spec in specs:
            processes.append(BotProcess(spec, address, setup.concurrency, log_dir))
        failure: list[CommandError] = []

        async def watch(process: BotProcess, scope: trio.CancelScope) -> None:
            status = await trio.to_thread.run_sync(process.process.wait, abandon_on_cancel=True)
            failure.append(RunFailure(process.describe_failure(f"exited with status {status}")))
            scope.cancel()

        async with trio.open_nursery() as nursery:
            for process in processes:
                nursery.start_soon(watch, process, nursery.cancel_scope)
            try:
                await handle.wait_for_sessions(names, setup.connect_timeout_s)
            except TimeoutError:
                connected = {s.name for s in handle.sessions()}
                missing = [p for p in processes if p.name not in connected]
                raise RunFailure("\n".join(
                    p.describe_failure(f"did not connect within {setup.connect_timeout_s:g} s") for p in missing
                )) from None
            versions = {s.name: s.version for s in handle.sessions()}

            async def play_one(planned: PlannedGame) -> GameOutcome:
                game_id = new_game_id()
                try:
                    return await handle.play_game(
                        setup.ruleset, setup.options, planned.seed, list(planned.seats), setup.time_control,
                        recorder=_recorder(setup, game_id, planned, versions), game_id=game_id,
                    )
                except SeatUnavailable as error:
                    raise RunFailure(f"game {game_id} could not start: {error}") from None

            await play_all(match, play_one, setup.concurrency)
            nursery.cancel_scope.cancel()
        if failure:
            raise failure[0]

    try:
        serve(ServerConfig(host="127.0.0.1", port=0, max_games_per_bot=max(64, setup.concurrency)), director)
    except BaseExceptionGroup as group:
        raise _first_command_error(group) from None
    finally:
        stop_all(processes)
        shutil.rmtree(log_dir, ignore_errors=True)


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
            setup.ruleset, setup.options, planned.seed, seats, setup.time_control,
            game_id=game_id, recorder=_recorder(setup, game_id, planned, {}),
        )

    trio.run(play_all, match, play_one, setup.concurrency)


# ---------------------------------------------------------------------- output


class _progress:
    """A rich progress bar on stderr: games done, the score so far and, for two bots, the Elo."""

    def __init__(self, total: int, match: MatchRun, verbose_out: Any = None):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.match = match
        self.progress = Progress(
            TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("{task.fields[summary]}"),
            console=Console(stderr=True, width=None if sys.stderr.isatty() else 150), transient=False,
        )
        self.task = self.progress.add_task("games", total=total, summary="")
        self.verbose_out = verbose_out

    def __enter__(self) -> "_progress":
        self.progress.start()

        def update(run: MatchRun, planned: PlannedGame | None = None, outcome: GameOutcome | None = None) -> None:
            done = run.stats.finished + run.stats.aborted
            summary = run.stats.summary()
            if run.sprt is not None:
                lower, upper = run.sprt.bounds
                summary += f"  LLR {run.sprt.llr(pairs=run.stats.pairs):.2f} ({lower:.2f}, {upper:.2f})"
            self.progress.update(self.task, completed=done, summary=summary)
            if self.verbose_out is not None and outcome is not None:
                self.verbose_out.print(describe_game(done, planned, outcome), soft_wrap=True, markup=False)
                self.verbose_out.file.flush()

        self.match.on_progress = update
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()


def describe_game(number: int, planned: PlannedGame, outcome: GameOutcome) -> str:
    """``Finished game 3 (deal 1, seed 1001): a 1st 0 pts, b 2nd 35 pts (finished)``, escaped for a terminal."""
    return printable(_game_line(number, planned, outcome))


def _game_line(number: int, planned: PlannedGame, outcome: GameOutcome) -> str:
    if outcome.status != "finished":
        return f"Finished game {number} (deal {planned.set_index}, seed {planned.seed}): aborted ({outcome.reason})"
    seats = sorted(outcome.seats, key=lambda s: (s.placement, s.seat))
    shown = ", ".join(
        f"{s.name} #{s.placement} {s.points} pts" + (" forfeited" if s.forfeited else "") for s in seats
    )
    return f"Finished game {number} (deal {planned.set_index}, seed {planned.seed}): {shown} ({outcome.reason or 'finished'})"


def _number(value: float, digits: int = 1) -> float | None:
    """JSON has no infinity: an unbounded figure is null."""
    return round(value, digits) if math.isfinite(value) else None


def result_record(match: MatchRun, ruleset: str, players: int, seed: int, interrupted: bool = False) -> dict:
    """What `print_result` shows, as JSON-ready data (``arena match --json``)."""
    stats = match.stats
    ranked = sorted(stats.lines.values(), key=lambda line: (-line.score, line.average_place, line.name))
    record: dict[str, Any] = {
        "ruleset": ruleset, "players": players, "first_seed": seed, "planned": len(match.plan),
        "finished": stats.finished, "aborted": stats.aborted, "interrupted": interrupted,
        "bots": [
            {"rank": rank, "bot": line.name, "games": line.games, "wins": line.wins, "losses": line.losses,
             "draws": line.draws, "score": round(line.score, 4), "firsts": line.firsts,
             "average_place": round(line.average_place, 3), "points": line.points,
             "ms_per_decision": round(line.ms_per_decision, 2), "strikes": line.strikes, "timeouts": line.timeouts,
             "forfeits": line.forfeits}
            for rank, line in enumerate(ranked, 1)
        ],
        "elo": None,
        "sprt": None,
    }
    estimate = stats.elo()
    if estimate is not None:
        record["elo"] = {
            "bots": list(stats.names), "elo": _number(estimate.elo), "low": _number(estimate.low),
            "high": _number(estimate.high), "los": _number(estimate.los, 4),
            "pairs": list(stats.pairs) if sum(stats.pairs) else None,
        }
    if match.sprt is not None:
        lower, upper = match.sprt.bounds
        record["sprt"] = {"elo0": match.sprt.elo0, "elo1": match.sprt.elo1, "alpha": match.sprt.alpha,
                          "beta": match.sprt.beta, "llr": _number(match.sprt.llr(pairs=stats.pairs), 3),
                          "lower": round(lower, 3), "upper": round(upper, 3), "verdict": match.verdict}
    return record


def print_result(out: Any, match: MatchRun, interrupted: bool = False) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    stats = match.stats
    title = "Partial result" if interrupted else "Result"
    extra = f", {stats.aborted} aborted" if stats.aborted else ""
    # Short headers, one space between columns, forfeits only when there are some: the
    # figures stay whole at 80 columns, and a long bot name wraps instead of squeezing them.
    ranked = sorted(stats.lines.values(), key=lambda line: (-line.score, line.average_place, line.name))
    columns = {
        "#": lambda rank, line: str(rank), "bot": lambda rank, line: Text(printable(line.name)),
        "games": lambda rank, line: str(line.games), "W": lambda rank, line: str(line.wins),
        "L": lambda rank, line: str(line.losses), "D": lambda rank, line: str(line.draws),
        "score": lambda rank, line: f"{100 * line.score:.1f}%", "1st": lambda rank, line: str(line.firsts),
        "place": lambda rank, line: f"{line.average_place:.2f}", "points": lambda rank, line: str(line.points),
        "ms": lambda rank, line: f"{line.ms_per_decision:.1f}", "strikes": lambda rank, line: str(line.strikes),
        "t/o": lambda rank, line: str(line.timeouts), "forfeits": lambda rank, line: str(line.forfeits),
    }
    if not any(line.forfeits for line in ranked):
        del columns["forfeits"]
    table = Table(title=f"{title}: {stats.finished} games{extra}", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0),
                  caption="W/L/D: pairwise results; place: mean placement; "
                  "ms: think time per decision; t/o: timeouts", caption_justify="left")
    for column in columns:
        if column == "bot":
            table.add_column(column, justify="left", overflow="fold", min_width=8)
        else:
            table.add_column(column, justify="right", no_wrap=True)
    for rank, line in enumerate(ranked, 1):
        table.add_row(*(cell(rank, line) for cell in columns.values()))
    out.print(table)
    if len(stats.names) > 2:
        out.print("Wins, losses and draws count every pair of seats in a game by placement.")
    estimate = stats.elo()
    if estimate is not None:
        a, b = stats.names
        counted = f"{sum(stats.pairs)} pairs {stats.pairs}" if sum(stats.pairs) else f"{stats.finished} games"
        if estimate.margin == 0 and estimate.games < 100:
            out.print(f"Elo difference ({a} - {b}): {estimate.elo + 0.0:+.1f}, interval not yet measurable "
                      f"(every {'pair' if sum(stats.pairs) else 'game'} scored the same; {counted})")
        elif math.isfinite(estimate.low) and math.isfinite(estimate.high):
            out.print(
                f"Elo difference ({a} - {b}): {estimate.elo + 0.0:+.1f} +/- {estimate.margin:.1f} "
                f"(95%: {estimate.low + 0.0:+.1f} .. {estimate.high + 0.0:+.1f}), LOS {100 * estimate.los:.1f}%, "
                f"from {counted}"
            )
        elif not math.isfinite(estimate.elo):
            out.print(f"Elo difference ({a} - {b}): not yet measurable ({counted}: one bot won everything)")
        else:
            out.print(f"Elo difference ({a} - {b}): {estimate.elo + 0.0:+.1f}, the 95% interval is still unbounded "
                      f"({counted}); play more games")
    if match.sprt is not None:
        sprt = match.sprt
        lower, upper = sprt.bounds
        llr = sprt.llr(pairs=stats.pairs)
        decided = {"H1": f"H1 accepted: {stats.names[0]} is stronger by at least {sprt.elo1:g} Elo",
                   "H0": f"H0 accepted: {stats.names[0]} is not stronger by more than {sprt.elo0:g} Elo"}
        out.print(
            f"SPRT ({sprt.elo0:g}, {sprt.elo1:g}), alpha {sprt.alpha:g}, beta {sprt.beta:g}: "
            f"LLR {llr:.2f} (bounds {lower:.2f}, {upper:.2f}): "
            + (decided[match.verdict] if match.verdict else "no decision yet")
        )
