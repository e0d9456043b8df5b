"""`arena replay FILE --seat S --from N --bot CMD`: let a bot play on from decision N of a logged game.

The state after the replay's first N decisions is rebuilt exactly (the engines are pure); a private
arena on loopback then seats the bot at S (a command or a .py file, started as `arena match` starts
bots), the other seats repeat their logged actions while they stay legal and then hand over to
``--others CMD`` (one process per seat) or play the first legal action.  It prints every decision
played, marks the first one that departs from the log, and compares the result with the logged one.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from arena.cli import CommandError, RunFailure
from arena.printable import printable

CONNECT_TIMEOUT_S = 30.0


def check(replay: Any, seat: int, start: int) -> None:
    """One clear line for a takeover that cannot be: a bad seat, N past the game, a game over at N."""
    if not 0 <= seat < replay.players:
        raise CommandError(f"--seat {seat}: this game has seats 0..{replay.players - 1}")
    if not 0 <= start <= len(replay.decisions):
        raise CommandError(f"--from {start}: this replay has decisions 0..{len(replay.decisions)}")
    state = replay.state_at(start)
    if state.is_over:
        raise CommandError(f"--from {start}: the game is over after decision {start}; nothing is left to play")


def run_takeover(replay: Any, seat: int, start: int, bot: str, others: str | None, out: Any,
                 log_dir: Path | None = None) -> int:
    """Play it; print the course and the result.  Returns the exit status (0: it ran)."""
    from arena.cli.match_bots import name_bots, parse_bot
    from arena.cli.match_play import first_command_error
    from arena.cli.match_processes import BotProcess, stop_all
    from arena.match.runner import play_game
    from arena.match.takeover import Course, LoggedSeat
    from arena.match.timecontrol import TimeControl
    from arena.server import SeatUnavailable, ServerConfig, new_game_id
    from arena.server import run as serve

    check(replay, seat, start)
    header = replay.header
    names = list(header.names)
    others_at = [s for s in range(replay.players) if s != seat]
    specs = name_bots([parse_bot(bot)] + ([parse_bot(others)] * len(others_at) if others else []))
    time_control = TimeControl(**{k: v for k, v in (header.time_control or {}).items()
                                  if k in TimeControl.__dataclass_fields__})
    log = [(d.seat, d.action) for d in replay.decisions]
    course = Course(start, log)
    logs = log_dir or Path(tempfile.mkdtemp(prefix="arena-takeover-"))
    processes: list[BotProcess] = []
    outcome: list[Any] = []
    logged_seats: dict[int, LoggedSeat] = {}
    number = lambda: start + len(course.played) + 1  # noqa: E731 (the decision being asked)

    async def director(handle: Any) -> None:
        address = f"127.0.0.1:{handle.port}"
        processes.extend(BotProcess(spec, address, 1, logs) for spec in specs)
        try:
            await handle.wait_for_sessions([spec.name for spec in specs], CONNECT_TIMEOUT_S)
        except TimeoutError:
            connected = {s.name for s in handle.sessions()}
            raise RunFailure("\n".join(p.describe_failure(f"did not connect within {CONNECT_TIMEOUT_S:g} s")
                                       for p in processes if p.name not in connected)) from None
        game_id = new_game_id()
        seats: list[Any] = []
        try:
            bot_seat = handle.seat(specs[0].name, header.ruleset, game_id)
            helpers = iter(specs[1:])
            for index in range(replay.players):
                if index == seat:
                    seats.append(bot_seat)
                    continue
                inner = handle.seat(next(helpers).name, header.ruleset, game_id) if others else None
                mine = [action for who, action in log[start:] if who == index]
                logged_seats[index] = LoggedSeat(names[index] if index < len(names) else f"seat{index}", mine, inner,
                                                 number=number)
                seats.append(logged_seats[index])
            outcome.append(await play_game(header.ruleset, header.options, header.seed, seats, time_control,
                                           game_id=game_id, recorder=course, prelude=[a for _, a in log[:start]]))
        except SeatUnavailable as error:
            raise RunFailure(f"the bot could not be seated: {error}") from None
        finally:
            for item in seats:
                release = getattr(item, "release", None) or getattr(getattr(item, "_inner", None), "release", None)
                if release is not None:
                    release()

    try:
        serve(ServerConfig(host="127.0.0.1", port=0, rulesets=[header.ruleset]), director)
    except BaseExceptionGroup as group:
        raise first_command_error(group) from None
    finally:
        stop_all(processes)
    _report(out, replay, seat, start, specs[0].name, course, outcome[0] if outcome else None, logged_seats,
            specs[1].name if others else None)
    if log_dir is None:
        failing = bool(outcome and outcome[0].seats[seat].errors)
        if failing:
            out.print(f"the bot's log is kept in {logs / (specs[0].name + '.log')}", markup=False)
        else:
            shutil.rmtree(logs, ignore_errors=True)
    return 0


def _report(out: Any, replay: Any, seat: int, start: int, bot_name: str, course: Any, outcome: Any,
            logged_seats: dict[int, Any], others: str | None) -> None:
    names = list(replay.header.names)
    names[seat] = bot_name  # the bot that plays it now

    def who(index: int) -> str:
        return f"seat {index} ({printable(names[index])})" if index < len(names) else f"seat {index}"

    replayed = f"decisions 1..{start} replayed" if start else "from the deal"
    out.print(f"{replay.path.name}: {replay.ruleset}, {replay.players} seats; {replayed}, then {printable(bot_name)} "
              f"plays seat {seat} (logged as {printable(replay.header.names[seat])})", markup=False)
    for played in course.played:
        marks = []
        if played is course.departure:
            logged = "the log ends here" if played.logged is None else (
                f"logged: {played.logged}" + (f" by seat {played.logged_seat}" if played.logged_seat != played.seat else ""))
            marks.append(f"<- departs from the log ({logged})")
        if played.timeout:
            marks.append("TIMEOUT")
        elif played.strike:
            marks.append("STRIKE")
        if played.bot_error:
            marks.append(f"ERROR in the bot's code: {printable(played.bot_error)}")
        line = f"{played.number:>4}  {who(played.seat)}: {printable(played.action)}"
        out.print("  ".join([line, *marks]), markup=False)
    for index, logged_seat in sorted(logged_seats.items()):
        if not logged_seat.on_log:
            out.print(f"{who(index)} had no legal logged action left at decision {logged_seat.left_log_at}: "
                      f"{'bot ' + printable(others) if others else 'the first legal action'} played it from there",
                      markup=False)
    if course.departure is None:
        out.print("the bot played exactly the logged moves", markup=False)
    else:
        d = course.departure
        out.print(f"first departure at decision {d.number}: {who(d.seat)} played {printable(d.action)}"
                  + ("" if d.logged is None else f" where the log has {printable(d.logged)}"), markup=False)
    if outcome is None:
        return
    if outcome.status != "finished":
        out.print(f"the game was aborted: {printable(outcome.reason)}", markup=False)
        return
    now = [s.placement for s in outcome.seats]
    logged = (replay.result or {}).get("placements")
    out.print(f"result: placements {now}" + (f" (logged: {logged})" if logged else "")
              + f"; {who(seat)} placed {now[seat]}" + (f" (logged: {logged[seat]})" if logged else ""), markup=False)
