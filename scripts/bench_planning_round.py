#!/usr/bin/env python3
"""What one planning round of a ladder host costs, in this tree and (alternating) in another.

    python scripts/bench_planning_round.py                                  # this tree: 200 bots, 100 games
    python scripts/bench_planning_round.py --against /tmp/old               # and an older tree, alternating
    python scripts/bench_planning_round.py --bots 1000 --concurrency 200
    python scripts/bench_planning_round.py --owners 4                       # and with every 4 bots of one owner

A round is what `LadderDirector._schedule` does on a host alone between two games: the connected
bots' slots from the server (`Handle.slots`, or the `SlotView` the server keeps up to date), the
candidates (`CandidatePool`), the scheduler's plan and its next wake-up.  Measured on one thread, its CPU time per
round, over a simulated ladder: real sessions in a real `Hub` (admitted with a Hello's terms, their
game slots taken and given back through it, as the games do), every bot with one slot, games that
last 2-5 time units, and a round after every game's end and again when the director lets go of its
seats (``--result-delay`` later: the result's commit), as the director plans on each.  Nothing
else (no sockets, no store) is timed.

With ``--against TREE`` (another checkout, e.g. ``git archive OLD | tar -x -C /tmp/old``) each tree
runs in its own process, in turn, ``--repeat`` times, so a drift of the machine's speed falls on
both; it prints each tree's µs a round (the median of its runs) and the ratio.  The same seeds
give the same events, so both trees must plan the same tables: each run prints a digest of every
table it planned (the ruleset, the seats, the round), and the script says whether they agree.

With ``--owners K`` this tree also runs, in turn with the others, with every K bots in a row of one
owner (`Scheduler(owners=...)`: no table seats two of them), so the cost of that rule shows as a ratio
in the same run; its tables differ, of course.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULESET = "moumou"


def simulate(bots: int, concurrency: int, rounds: int, warm: int, seed: int, result_delay: float = 0.0,
             owners: int = 0) -> dict:
    """Run the ladder's rounds with the code importable as ``arena`` (the tree on sys.path first)."""
    from arena.ladder.candidates import CandidatePool
    from arena.ladder.scheduler import Scheduler, slot_share
    from arena.server.config import ServerConfig
    from arena.server.hello import HelloTerms
    from arena.server.host import Handle
    from arena.server.connection import Connection
    from arena.server.sessions import Hub

    hub = Hub(ServerConfig(max_connections=bots + 10), [RULESET])
    names = [f"bot{i:04d}" for i in range(bots)]
    for name in names:
        hub.admit(HelloTerms(name, "", "1", "1", (RULESET,), 1, ""), Connection("bench"))
    handle = Handle(hub, 0)
    incremental = hasattr(handle, "slot_view")  # this tree keeps the slots up to date (else: `Handle.slots`)
    view = handle.slot_view() if incremental else None
    if owners:  # every `owners` bots in a row belong to one owner
        owned = {name: f"owner{i // owners}" for i, name in enumerate(names)}
        scheduler = Scheduler({RULESET: 2}, rng=random.Random(seed), owners=owned)
    else:
        scheduler = Scheduler({RULESET: 2}, rng=random.Random(seed))
    pool = CandidatePool()
    reserved: dict[str, int] = {}
    reserved_changed: set[str] = set()
    rng = random.Random(seed + 1)
    running: list[tuple[float, int, tuple[str, ...], list, float]] = []  # (end, tie-break, seats, tokens, length)
    committing: list[tuple[float, int, tuple[str, ...]]] = []  # (when the director lets go, tie-break, seats)
    now, started, spent, timed = 0.0, 0, 0.0, 0
    digest = hashlib.sha256()
    clock = time.thread_time
    for round_ in range(warm + rounds):
        began = clock()
        if incremental:
            assert view is not None
            changed = view.take_changed() | reserved_changed
            reserved_changed = set()
            share = slot_share(concurrency, len(view.slots), 2)
            tables = scheduler.plan_pool(pool.refresh(view.slots, changed, reserved, min(64, share)),
                                         concurrency - len(running), now=now)
        else:
            slots = handle.slots()
            share = slot_share(concurrency, len(slots), 2)
            tables = scheduler.plan(pool.update(slots, reserved, min(64, share)), concurrency - len(running), now=now)
        for table in tables:  # the director's side of a planned table, in the round
            for bot in table.bots:
                reserved[bot] = reserved.get(bot, 0) + 1
            reserved_changed.update(table.bots)
        scheduler.next_wakeup(now)  # when to plan again if no game ends first
        ended = clock()
        if round_ >= warm:
            spent += ended - began
            timed += 1
        for table in tables:  # the game takes its seats on the server, then plays
            tokens = []
            for bot in table.bots:
                session = hub.reserve(bot, RULESET)
                token = object()
                session.seats.add(token)  # as a `RemoteSeat` does
                tokens.append((session, token))
            length = rng.uniform(2.0, 5.0)
            heapq.heappush(running, (now + length, started, table.bots, tokens, length))
            started += 1
            digest.update(repr((round_, table.ruleset, table.bots)).encode())
        # The next event, then the round: a game ends (its seats freed on the server), or, ``result_delay``
        # later (its result committed, its bots told), the director lets go of its seats.
        if not running and not committing:
            raise SystemExit("no game running: the simulation is stuck")
        if committing and (not running or committing[0][0] <= running[0][0]):
            now, _, seats = heapq.heappop(committing)
            for bot in seats:
                reserved[bot] -= 1
            reserved_changed.update(seats)
            continue
        now, tie, seats, tokens, length = heapq.heappop(running)
        scheduler.game_finished(length)
        for session, token in tokens:
            hub.release(session, token)  # type: ignore[arg-type]
        heapq.heappush(committing, (now + result_delay, tie, seats))
    return {"us_per_round": spent / max(1, timed) * 1e6, "rounds": timed, "games": started,
            "running": len(running), "digest": digest.hexdigest()[:16], "incremental": incremental}


def run_tree(tree: Path, args: argparse.Namespace, owners: int = 0) -> dict:
    """One run in its own process, importing ``arena`` from ``tree``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--inside", str(tree), "--bots", str(args.bots),
               "--concurrency", str(args.concurrency), "--rounds", str(args.rounds), "--warm", str(args.warm),
               "--seed", str(args.seed), "--result-delay", str(args.result_delay), "--owners", str(owners)]
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=str(tree)).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=200, help="connected bots, one slot each (default 200)")
    parser.add_argument("--concurrency", type=int, default=100, help="games at once (default 100)")
    parser.add_argument("--rounds", type=int, default=3000, help="rounds timed per run (default 3,000)")
    parser.add_argument("--warm", type=int, default=500, help="rounds before the timing starts (default 500)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--result-delay", type=float, default=0.1,
                        help="from a game's end to the director letting go of its seats (its result's commit), in "
                             "the games' time units (default 0.1; a game lasts 2-5)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tree (default 3)")
    parser.add_argument("--against", type=Path, help="another tree to run alternately with this one")
    parser.add_argument("--owners", type=int, default=0,
                        help="also run this tree with every K bots in a row of one owner (default 0: not)")
    parser.add_argument("--inside", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside is not None:  # a run in its own process, with that tree's arena
        sys.path.insert(0, str(args.inside.resolve()))
        print(json.dumps(simulate(args.bots, args.concurrency, args.rounds, args.warm, args.seed, args.result_delay,
                                  args.owners)))
        return 0
    if args.bots < 4 or not 1 <= args.concurrency or args.rounds < 1:
        raise SystemExit("--bots must be at least 4, --concurrency and --rounds at least 1")
    if not 0 <= args.owners < args.bots:
        raise SystemExit("--owners must be 0 (none) or fewer than --bots")
    trees = [("this tree", ROOT, 0)] + ([("against", args.against.resolve(), 0)] if args.against else [])
    if args.owners:
        trees.append((f"owners {args.owners}", ROOT, args.owners))
    runs: dict[str, list[dict]] = {label: [] for label, _, _ in trees}
    for _ in range(args.repeat):  # alternating
        for label, tree, owners in trees:
            runs[label].append(run_tree(tree, args, owners))
    print(f"{args.bots} bots (one slot each), {args.concurrency} games at once, result delay {args.result_delay:g}, "
          f"{args.rounds:,} rounds a run "
          f"after {args.warm:,}, {args.repeat} runs a tree, alternating (thread CPU a round):")
    medians = {}
    for label, tree, _ in trees:
        figures = runs[label]
        medians[label] = statistics.median(f["us_per_round"] for f in figures)
        kind = "slot view, pool by changes" if figures[0]["incremental"] else "Handle.slots, pool over every bot"
        each = ", ".join(f"{f['us_per_round']:.1f}" for f in figures)
        print(f"  {label:<9} ({tree}; {kind}): {medians[label]:7.1f} µs a round "
              f"({each}); {figures[0]['games']:,} games, "
              f"{figures[0]['running']} running at the end, tables digest {figures[0]['digest']}")
    if args.owners:
        print(f"  owners {args.owners} / this tree: {medians[f'owners {args.owners}'] / medians['this tree']:.2f}")
    if args.against:
        digests = {f["digest"] for label in ("this tree", "against") for f in runs[label]}
        print(f"  against / this tree: {medians['against'] / medians['this tree']:.2f}; "
              f"the same tables in every run: {'yes' if len(digests) == 1 else 'NO: ' + ', '.join(sorted(digests))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
