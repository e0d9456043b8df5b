"""Playing a match's plan: against bot processes on a loopback arena (with --recover), or in-process (--local)."""

from __future__ import annotations

import io
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from arena.cli import CommandError, RunFailure

try:  # Python 3.11+; trio brings the backport on 3.10
    from builtins import BaseExceptionGroup
except ImportError:  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup
from arena.cli.match_bots import BotSpec, load_local_bot
from arena.cli.match_processes import BotProcess, begin_log, stop_all
from arena.match.outcome import GameOutcome
from arena.match.plan import PlannedGame
from arena.match.schedule import MatchRun, play_all
from arena.match.timecontrol import TimeControl
from arena.printable import printable


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


def run_served(specs: Sequence[BotSpec], match: MatchRun, setup: MatchSetup) -> None:
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

        def resign_all(name: str) -> None:
            for game_id, seats in list(playing.items()):
                if name in seats:
                    resignations.resign(game_id, name)

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
                resign_all(spec.name)
                setup.say(f"Bot {printable(spec.name)} exited with status {status}; restarting it (--recover); "
                          f"its log is {process.log_path}")
                await _wait_gone(handle, spec.name, setup.connect_timeout_s)  # the name is free again
                resign_all(spec.name)  # games that started meanwhile got the dead session too
                processes[spec.name] = BotProcess(spec, address, setup.concurrency, log_dir,
                                                  restart_note=f"restarted after exit status {status}",
                                                  section_start=process.section_start)
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
                    # A bot still computing the answer a finished game was owed has no slot until it answers
                    # (`Hub.release`): wait for it rather than fail the match (bounded by the hold itself).
                    await handle.wait_free(planned.seats)
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
        raise first_command_error(group) from None
    finally:
        stop_all(list(processes.values()))
        for name, process in processes.items():
            errors = match.stats.lines[name].errors if name in match.stats.lines else 0
            if errors:
                kept[0] = True
                setup.say(f"Bot {printable(name)}: {errors} error(s) in its own code (its SDK answered the first "
                          f"legal action each time); its log is {process.log_path}")
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


def first_of(error: BaseException, kinds: type | tuple[type, ...]) -> BaseException | None:
    """The first exception of ``kinds`` in ``error`` or in trio's exception groups around it (None: none)."""
    if isinstance(error, kinds):
        return error
    for inner in getattr(error, "exceptions", ()):
        found = first_of(inner, kinds)
        if found is not None:
            return found
    return None


def first_command_error(group: BaseException) -> BaseException:
    """Unwrap trio's exception groups so a user error prints as one line."""
    return first_of(group, (CommandError, KeyboardInterrupt)) or group


def run_local(specs: Sequence[BotSpec], match: MatchRun, setup: MatchSetup) -> None:
    """Play in-process: every seat is a `LocalSeat` around a fresh instance of the file's Bot class.

    What a bot's code prints (stdout and stderr, as it loads, is made and plays) goes where a bot process's
    output would not disturb the program's: to ``LOG_DIR/NAME.log`` with ``--log-dir`` (appended, as a
    bot process's), else to stderr; stdout carries only the program's own output (the table, ``--json``).
    """
    from contextlib import ExitStack

    from arena.match.bot_output import routed_output

    with ExitStack() as stack:
        stderr = stack.enter_context(routed_output())
        outputs: dict[str, TextIO] = {}
        for spec in specs:
            if setup.log_dir is None:
                outputs[spec.name] = stderr
                continue
            log = stack.enter_context(open(setup.log_dir / f"{spec.name}.log", "ab"))
            begin_log(log)
            outputs[spec.name] = stack.enter_context(io.TextIOWrapper(log, errors="replace", line_buffering=True))
        _play_local(specs, match, setup, outputs)


def _play_local(specs: Sequence[BotSpec], match: MatchRun, setup: MatchSetup, outputs: dict[str, TextIO]) -> None:
    import trio

    from arena.match.bot_output import bot_output
    from arena.match.local import BotExited, LocalSeat, describe_exit
    from arena.match.runner import play_game
    from arena.server import new_game_id

    factories = {}
    for spec in specs:
        with bot_output(outputs[spec.name]):
            factories[spec.name] = load_local_bot(spec)
    sources = {spec.name: spec.source for spec in specs}

    def new_bot(name: str) -> Any:
        try:
            with bot_output(outputs[name]):
                return factories[name]()
        except SystemExit as exit_:
            raise BotExited(name, exit_.code) from None
        except Exception as error:
            raise RunFailure(f"bot {printable(name)} ({printable(sources[name])}): "
                             f"{factories[name].__name__}() raised {type(error).__name__}: {error}") from None

    async def play_one(planned: PlannedGame) -> GameOutcome:
        game_id = new_game_id()
        seats = [LocalSeat(new_bot(name), name=name, output=outputs[name]) for name in planned.seats]
        return await play_game(
            setup.ruleset, setup.options, planned.seed, seats, setup.seat_controls(planned),
            game_id=game_id, recorder=_recorder(setup, game_id, planned, {}),
        )

    try:
        trio.run(play_all, match, play_one, setup.concurrency)
    except (BotExited, BaseExceptionGroup) as error:
        exited = first_of(error, BotExited)
        if exited is None:
            raise
        raise RunFailure(f"bot {printable(exited.name)} ({printable(sources[exited.name])}) exited with "
                         f"{describe_exit(exited.code)}: its code called sys.exit() (--local runs it in-process)") from None

