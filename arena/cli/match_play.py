"""Playing a match's plan: against bot processes on a loopback arena (with --recover), or in-process (--local)."""

from __future__ import annotations

import io
import shutil
import tempfile
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from arena.cli import CommandError, RunFailure

try:  # Python 3.11+; trio brings the backport on 3.10
    from builtins import BaseExceptionGroup
except ImportError:  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup
from arena.cli.match_bots import BotSpec, load_local_bot
from arena.cli.match_processes import STOP_GRACE_S, BotProcess, begin_log, stop_all
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
    #: How long a bot may still owe an answer after its game ended, or stay away with its process alive, before
    #: it is taken to hang and stopped (`run_served`).
    hang_timeout_s: float = 30.0  # `arena.cli.match.HANG_TIMEOUT_S`
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

    A bot that hangs, its process alive but answering nothing (stopped, in an
    endless loop), loses the game it hangs in on time, as any late bot does,
    and the other games go on.  It is then found out, within
    ``setup.hang_timeout_s``, in one of two ways: it still owes the answer to
    its last request that long after that game ended (`Handle.on_hold_expired`:
    the arena holds its slot that long), or its connection dropped (the arena's
    keepalive gets no answer from a stopped process) and it did not come back
    within that long when a game needs it.  Such a bot is stopped (SIGTERM,
    SIGKILL after `STOP_GRACE_S`) and then handled as a crash: the match ends
    naming it, or with ``setup.recover`` it is restarted.  Waiting for it
    instead held every later game of the bot for the arena's whole hold (60 s
    a game: a 6-game match took 4 minutes) or ended the match with "bot X is
    not connected".
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
    hang_s = setup.hang_timeout_s

    async def director(handle: Any) -> None:
        address = f"127.0.0.1:{handle.port}"
        for spec in specs:
            processes[spec.name] = BotProcess(spec, address, setup.concurrency, log_dir)
        failure: list[CommandError] = []
        #: Each bot's process: 0 the first, one more at each restart; and the one each game seated.
        generation = dict.fromkeys(names, 0)
        seated: dict[str, dict[str, int]] = {}
        #: Bots whose process is being stopped because it hangs: why (until the process has exited).
        hung: dict[str, str] = {}
        #: Bots being restarted (--recover): set once the new process is connected; games wait for it.
        restarting: dict[str, trio.Event] = {}

        def resign_all(name: str) -> None:
            for game_id, seats in list(playing.items()):
                if name in seats:
                    resignations.resign(game_id, name)

        def stop_hung(name: str, why: str) -> None:
            """Stop a bot whose process is alive but answers nothing; `watch` then sees it exit, as a crash.  Its
            next games wait (`restarting`): for the restarted process with --recover, else until the match ends."""
            process = processes[name]
            if name in hung or name in restarting or process.process.poll() is not None:
                return
            hung[name] = why
            restarting[name] = trio.Event()
            setup.say(f"Bot {printable(name)} hangs: {why}; stopping it (SIGTERM, SIGKILL after {STOP_GRACE_S:g} s)")
            nursery.start_soon(partial(trio.to_thread.run_sync, process.stop, abandon_on_cancel=True))

        def hold_expired(name: str, game_id: str, request: int) -> None:
            if name in generation and seated.get(game_id, {}).get(name) == generation[name]:  # not restarted since
                stop_hung(name, f"no answer to request {request} of game {game_id} within {hang_s:g} s of the "
                                "game's end, its process still running")

        async def watch(spec: BotSpec, scope: trio.CancelScope) -> None:
            while True:
                process = processes[spec.name]
                status = await trio.to_thread.run_sync(process.process.wait, abandon_on_cancel=True)
                kept[0] = True
                why = hung.pop(spec.name, None)
                stopped = f"killed (no exit within {STOP_GRACE_S:g} s of its SIGTERM)" if process.killed else "stopped"
                what = f"hung ({why}) and was {stopped}" if why else f"exited with status {status}"
                if not setup.recover:
                    failure.append(RunFailure(process.describe_failure(what)))
                    scope.cancel()
                    return
                done = restarting.setdefault(spec.name, trio.Event())
                line = match.stats.lines[spec.name]
                if why:
                    line.hangs += 1
                else:
                    line.crashes += 1
                resign_all(spec.name)
                setup.say(f"Bot {printable(spec.name)} {what}; restarting it (--recover); its log is {process.log_path}")
                await _wait_gone(handle, spec.name, setup.connect_timeout_s)  # the name is free again
                resign_all(spec.name)  # games that started meanwhile got the dead session too
                note = f"restarted after it hung ({why})" if why else f"restarted after exit status {status}"
                processes[spec.name] = BotProcess(spec, address, setup.concurrency, log_dir, restart_note=note,
                                                  section_start=process.section_start)
                generation[spec.name] += 1
                if not await _connects(handle, processes[spec.name], setup.connect_timeout_s):
                    failure.append(RunFailure(processes[spec.name].describe_failure(
                        f"was restarted (--recover) but did not connect again within {setup.connect_timeout_s:g} s")))
                    scope.cancel()
                    return
                del restarting[spec.name]
                done.set()

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
            handle.on_hold_expired(hold_expired)

            async def come_back(seats: list[str], refusal: str) -> None:
                """After a game could not start: wait for a bot that is away (its SDK reconnects by itself) at most
                the hang limit; one still away then, its process alive, hangs (a stopped process drops its
                connection: it answers no keepalive).  Returns once every seat is connected again (a restarted
                bot's too); a bot that crashed or was stopped without --recover ends the match meanwhile."""
                away = [name for name in seats if not handle.is_connected(name)]
                if not away:  # connected but busy: a slot still held
                    if not setup.recover:
                        raise RunFailure(refusal)
                    return
                for name in away:
                    if name in restarting:  # stopped or crashed: restarted with --recover (or the match ends)
                        await restarting[name].wait()
                try:
                    await handle.wait_for_sessions(seats, hang_s)
                    return
                except TimeoutError:
                    pass
                for name in away:
                    if not handle.is_connected(name):
                        stop_hung(name, f"its connection to the arena dropped and it did not come back within "
                                        f"{hang_s:g} s, its process still running")
                try:
                    await handle.wait_for_sessions(seats, STOP_GRACE_S + setup.connect_timeout_s + hang_s)
                except TimeoutError as error:
                    raise RunFailure(f"a game could not start: {error}") from None

            async def play_one(planned: PlannedGame) -> GameOutcome:
                seats = list(dict.fromkeys(planned.seats))
                for attempt in range(4):
                    # A bot still computing the answer a finished game was owed has no slot until it answers
                    # (`Hub.release`): wait for it rather than fail the match (bounded by the hold itself, after
                    # which a bot still silent is stopped as hung, and restarted with --recover: wait for that).
                    await handle.wait_free(planned.seats)
                    for name in seats:
                        if name in restarting:
                            await restarting[name].wait()
                    game_id = new_game_id()
                    playing[game_id] = planned.seats
                    seated[game_id] = {name: generation[name] for name in seats}
                    try:
                        return await handle.play_game(
                            setup.ruleset, setup.options, planned.seed, list(planned.seats),
                            setup.seat_controls(planned), recorder=_recorder(setup, game_id, planned, versions),
                            game_id=game_id, resignations=resignations,
                        )
                    except SeatUnavailable as error:
                        refusal = f"game {game_id} could not start: {error}"
                    finally:
                        del playing[game_id]
                        resignations.forget(game_id)
                    if attempt == 3:
                        raise RunFailure(refusal)
                    await come_back(seats, refusal)
                raise AssertionError("unreachable")  # pragma: no cover

            await play_all(match, play_one, setup.concurrency)
            nursery.cancel_scope.cancel()
        if failure:
            raise failure[0]

    try:
        serve(ServerConfig(host="127.0.0.1", port=0, max_games_per_bot=max(64, setup.concurrency),
                           rulesets=[setup.ruleset], owed_answer_hold_s=hang_s), director)
    except BaseExceptionGroup as group:
        raise first_command_error(group) from None
    finally:
        for process in stop_all(list(processes.values())):
            setup.say(f"Bot {printable(process.name)} did not exit within {STOP_GRACE_S:g} s of SIGTERM: killed")
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

