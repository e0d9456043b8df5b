"""`arena check-bot`: does a bot, in any language, do everything the arena asks of it?

    arena check-bot sample_bots/random_bot.py
    arena check-bot "node starter_kits/node/bot.js" --game moumou

It starts an arena on a free loopback port, launches the bot as `arena match`
does (a ``.py`` file runs with this interpreter, anything else is a command;
``--arena 127.0.0.1:PORT --name NAME --parallel 1`` are added), seats it with
random in-process opponents and prints one PASS/FAIL/SKIP line per check
(`arena.match.compliance` says what each one asks).  Exit status 1 when a
check fails.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path
from typing import Any

from arena.cli import CommandError, RunFailure
from arena.match.compliance import ComplianceOptions, ComplianceRun, failed
from arena.match.timecontrol import TimeControl


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check-bot", help="conformance checks for one bot (any language)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bot", metavar="BOT", help="a .py file or a command line, as for arena match")
    parser.add_argument("--game", action="append", default=[], metavar="RULESET",
                        help="check this ruleset (repeatable; default: every ruleset the bot's Hello claims)")
    parser.add_argument("--games", type=int, default=10, metavar="N",
                        help="at most N games per ruleset while looking for its decision kinds (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="first deal's seed (default 1)")
    parser.add_argument("--move-ms", type=int, default=2000, metavar="MS",
                        help="per-decision limit of the ordinary games (default 2000)")
    parser.set_defaults(func=run_command)


class _Launched:
    """A launched `BotProcess`, as the compliance run sees it."""

    def __init__(self, process: Any) -> None:
        self.process = process
        self.name = process.name

    def exit_status(self) -> int | None:
        return self.process.process.poll()

    async def exited(self) -> int:
        import trio

        # Its own limiter: a wait abandoned on cancel keeps its thread, and must not hold one of trio's default 40.
        return await trio.to_thread.run_sync(self.process.process.wait, abandon_on_cancel=True,
                                             limiter=trio.CapacityLimiter(1))

    def last_output(self) -> str:
        tail = self.process.tail(1)
        return tail[-200:]


def run_command(args: argparse.Namespace) -> int:
    import arena.games as games
    from arena.cli.match import CONNECT_TIMEOUT_S
    from arena.cli.match_bots import parse_bot
    from arena.cli.match_processes import BotProcess, stop_all
    from arena.server import ServerConfig
    from arena.server import run as serve

    if args.games < 1:
        raise CommandError("--games must be at least 1")
    if args.move_ms < 1:
        raise CommandError("--move-ms must be at least 1")
    known = games.rulesets()
    for ruleset in args.game:
        if ruleset not in known:
            raise CommandError(f"unknown ruleset {ruleset!r}; this arena plays: {', '.join(known)}")
    spec = parse_bot(args.bot)
    base = ComplianceOptions()
    options = ComplianceOptions(
        rulesets=tuple(dict.fromkeys(args.game)), max_games=args.games, seed=args.seed,
        time_control=TimeControl(**{**base.time_control.to_dict(), "move_ms": args.move_ms}),
        connect_timeout_s=CONNECT_TIMEOUT_S,
    )
    print(f"Checking {args.bot} as {spec.name}")
    log_dir = Path(tempfile.mkdtemp(prefix="arena-check-bot-"))  # removed below, whatever happens
    processes: list[Any] = []

    async def director(handle: Any) -> list:
        process = BotProcess(spec, f"127.0.0.1:{handle.port}", 1, log_dir)
        processes.append(process)
        return await ComplianceRun(handle, _Launched(process), options).run()

    try:
        checks = serve(ServerConfig(host="127.0.0.1", port=0), director)
    except OSError as error:
        raise RunFailure(f"cannot start the arena: {error}") from None
    finally:
        stop_all(processes)
        shutil.rmtree(log_dir, ignore_errors=True)
    for check in checks:
        print(check.line(), flush=True)
    bad = sum(check.status == "FAIL" for check in checks)
    print(f"{len(checks) - bad} of {len(checks)} checks passed or skipped, {bad} failed")
    return 1 if failed(checks) else 0
