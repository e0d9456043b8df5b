"""The control: honest bots in a process of their own, on a ruleset no attacker plays.

    python -m scripts.hostile.control --arena 127.0.0.1:PORT --names ctl-1,ctl-2 --games prsi --think-ms 20

Each bot answers every turn with a random legal action after ``--think-ms``
(so the control measures how promptly the arena serves it, not how much CPU
it can grab on a shared machine).  It runs until SIGTERM/SIGINT or
``--duration`` and then prints one JSON line: the games it was told had
ended (`EndedGame.to_list` rows), errors by code, refused Hellos, turns.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scripts.hostile.players import Ledger, Player  # noqa: E402


async def play(address: str, names: list[str], games: tuple[str, ...], think_ms: float, duration_s: float) -> Ledger:
    ledger = Ledger()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    players = [Player(name, games, ledger, think_ms=think_ms, bot_version="control", seed=i)
               for i, name in enumerate(names)]
    tasks = [asyncio.create_task(p.run(address, stop)) for p in players]
    try:
        await asyncio.wait_for(stop.wait(), duration_s)
    except asyncio.TimeoutError:
        stop.set()
    # Streams end when the arena stops; whatever still runs a moment later is cut off.
    _, pending = await asyncio.wait(tasks, timeout=2.0)
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return ledger


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.hostile.control", description=__doc__.split("\n\n")[0])
    parser.add_argument("--arena", required=True, metavar="HOST:PORT")
    parser.add_argument("--names", required=True, help="comma-separated bot names")
    parser.add_argument("--games", required=True, help="comma-separated rulesets (only these)")
    parser.add_argument("--think-ms", type=float, default=20.0)
    parser.add_argument("--duration", type=float, default=600.0, help="seconds before stopping by itself")
    args = parser.parse_args(argv)
    names = [n for n in args.names.split(",") if n]
    games = tuple(g for g in args.games.split(",") if g)
    ledger = asyncio.run(play(args.arena, names, games, args.think_ms, args.duration))
    print(json.dumps({
        "ended": [e.to_list() for e in ledger.ended],
        "errors": dict(ledger.errors),
        "refusals": dict(ledger.refusals),
        "turns": ledger.turns,
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
