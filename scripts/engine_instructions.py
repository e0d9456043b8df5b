#!/usr/bin/env python3
"""Instructions per decision of the engine benchmark's loop, counted by callgrind: a load-independent figure.

    .venv/bin/python scripts/engine_instructions.py ddmau --players 4
    .venv/bin/python scripts/engine_instructions.py moumou --players 2 --warm 15000 --decisions 10000

The loop is `scripts/bench_engine.py`'s (observation of the acting seat, legal
list, one random legal action), games with seeds 1, 2, ... and one action
picker, as there.  The script runs itself under ``valgrind --tool=callgrind``
with instrumentation off, switches it on (``callgrind_control -i on``) after
``--warm`` decisions, which fill the engines' caches (DD MAU's validator
nodes), and off again ``--decisions`` later, so start-up, imports and the
warm-up are not counted.  ``PYTHONHASHSEED=0`` makes the count repeat to the
instruction.  It needs valgrind; a run of 25,000 DD MAU decisions takes
about a minute and a half on a quiet core.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _instrument(on: bool) -> None:
    subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(os.getpid())], check=True,
                   stdout=subprocess.DEVNULL)


def play(ruleset: str, players: int, warm: int, decisions: int) -> None:
    """The benchmark's loop, counted from decision ``warm`` on (runs under callgrind)."""
    from arena import games
    from arena.games.selfplay import chooser

    rng = chooser(1)
    done = 0
    seed = 1
    while done < warm + decisions:
        state = games.new_game(ruleset, players=players, seed=seed)
        seed += 1
        while not state.is_over and done < warm + decisions:
            if done == warm:
                _instrument(True)
            state.observation(state.current)
            state.apply(rng.choice(state.legal_actions()))
            done += 1
    _instrument(False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ruleset")
    parser.add_argument("--players", type=int, default=None, help="seats (default: the ruleset's default)")
    parser.add_argument("--warm", type=int, default=15_000, help="decisions before counting (default 15000)")
    parser.add_argument("--decisions", type=int, default=10_000, help="decisions counted (default 10000)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # the run under valgrind
    args = parser.parse_args(argv)
    if args.warm < 0 or args.decisions < 1:
        parser.error("--warm must be at least 0 and --decisions at least 1")
    from arena import games

    if args.ruleset not in games.rulesets():
        parser.error(f"unknown ruleset {args.ruleset!r}; known: {', '.join(games.rulesets())}")
    info = games.ruleset_info(args.ruleset)
    players = args.players or info.default_players or info.min_players
    if args.child:
        play(args.ruleset, players, args.warm, args.decisions)
        return 0
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        parser.error("valgrind (with callgrind_control) is not installed")
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=/dev/null",
               sys.executable, __file__, args.ruleset, "--players", str(players), "--warm", str(args.warm),
               "--decisions", str(args.decisions), "--child"]
    print(f"{args.ruleset}, {players} players: counting decisions {args.warm:,}..{args.warm + args.decisions:,} "
          "under callgrind...", file=sys.stderr, flush=True)
    run = subprocess.run(command, env={**os.environ, "PYTHONHASHSEED": "0"}, capture_output=True, text=True)
    found = re.search(r"Collected\s*:\s*([\d,]+)", run.stderr)
    if run.returncode != 0 or found is None:
        print(run.stderr[-2000:], file=sys.stderr)
        print("the run under callgrind failed", file=sys.stderr)
        return 1
    total = int(found.group(1).replace(",", ""))
    print(f"{args.ruleset} players={players} warm={args.warm} decisions={args.decisions} "
          f"instructions={total:,} per decision={total / args.decisions:,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
