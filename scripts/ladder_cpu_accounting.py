#!/usr/bin/env python3
"""Where the ladder's extra server CPU goes: its own functions' thread CPU, per decision, inside `arena serve`.

    python scripts/ladder_cpu_accounting.py                  # bench_ladder --compare-arena, 20 s windows
    python scripts/ladder_cpu_accounting.py --seconds 30

`scripts/bench_ladder.py --compare-arena` gives one number, the ratio of the two servers' CPU per
decision, and on a shared machine its pairs swing by ±0.3.  This runs the same comparison with
both servers started through this script (``--inside``), which wraps the functions only the ladder
runs (`FUNCTIONS`: the store's commit thread, the replay's lines and its packing, the rating refits, the
planning rounds...; a name a tree does not have is skipped, so one list serves an older tree too) and adds up each one's calls and CPU time (`time.thread_time`, on whatever
thread calls it), plus garbage collection by generation, over the measured window only (SIGUSR1
starts it, SIGUSR2 writes it out).  It prints, for the ladder and for the bare path, the server's
CPU per decision and each function's µs per decision: what the ladder adds is there by name, in
the same process and window, however loaded the machine is.  Nested functions count in both (the
replay's packing runs inside the commit thread's call).  The wrappers cost a few µs per call,
so the totals are a little above `bench_ladder.py`'s.
"""

from __future__ import annotations

import functools
import gc
import importlib
import json
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (module, qualified name) of what is timed; a name a server never calls shows no line.
FUNCTIONS = [
    ("arena.ladder.store.ladder_store", "LadderStore.run_together"),
    ("arena.ladder.director", "LadderDirector._new_replay"),
    ("arena.ladder.commit_closed", "CommitClosedRecorder.packed"),
    ("arena.replay.buffer", "ReplayBuffer.decision"),
    ("arena.replay.buffer", "ReplayBuffer.write_decisions"),  # the game's lines, written at its end
    ("arena.games.base", "GameState.state_hash"),
    ("arena.ladder.director", "_timed"),
    ("arena.ladder.director", "standings_from"),
    ("arena.ladder.store.fit_totals", "RunningTotals.table"),
    ("arena.ladder.store.fit_totals", "RunningTotals.add_game"),
    ("arena.ladder.scheduler", "Scheduler.plan"),
    ("arena.ladder.scheduler", "Scheduler.plan_pool"),
    ("arena.ladder.scheduler", "Scheduler.next_wakeup"),
    ("arena.ladder.candidates", "CandidatePool.update"),
    ("arena.ladder.candidates", "CandidatePool.refresh"),
    ("arena.server.host", "Handle.slots"),
    ("arena.server.sessions", "Hub._slots_changed"),  # the server's slot views kept up to date, per seat
    ("arena.ladder.director", "LadderDirector._record"),
    ("arena.match.runner", "_finish_record"),
    ("arena.server.live", "LiveGames.record"),
    ("arena.server.live", "LiveGames.finish"),
]


class Accounts:
    """Calls and thread CPU seconds per wrapped function, and garbage collection by generation."""

    def __init__(self) -> None:
        self.functions: dict[str, list] = {}
        self.gc: dict[int, list] = {generation: [0, 0.0] for generation in range(3)}
        self._gc_began = 0.0

    def wrap(self, module_name: str, qualname: str) -> None:
        """Replace ``module.qualname`` (a function or a method) by a wrapper that counts it."""
        owner = importlib.import_module(module_name)
        *path, name = qualname.split(".")
        for part in path:
            owner = getattr(owner, part)
        function = getattr(owner, name, None)
        if function is None:  # not in this tree (an older or newer one): nothing to count
            return
        box = self.functions.setdefault(f"{module_name.rsplit('.', 1)[-1]}.{qualname}", [0, 0.0])
        clock = time.thread_time

        @functools.wraps(function)
        def counted(*args, **kwargs):
            began = clock()
            try:
                return function(*args, **kwargs)
            finally:
                box[0] += 1
                box[1] += clock() - began

        setattr(owner, name, counted)

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_began = time.thread_time()
        else:
            box = self.gc[info["generation"]]
            box[0] += 1
            box[1] += time.thread_time() - self._gc_began

    def reset(self) -> None:
        for box in [*self.functions.values(), *self.gc.values()]:
            box[0], box[1] = 0, 0.0

    def to_dict(self) -> dict:
        return {"functions": self.functions, "gc": {str(k): v for k, v in self.gc.items()}}


def inside(argv: list[str]) -> None:
    """Run a server (``-m arena serve ...`` or the bare server's script) with the accounts installed."""
    accounts = Accounts()
    for module_name, qualname in FUNCTIONS:
        accounts.wrap(module_name, qualname)
    gc.callbacks.append(accounts.on_gc)
    out = os.environ["LADDER_ACCOUNTS_OUT"]
    signal.signal(signal.SIGUSR1, lambda *_: accounts.reset())
    signal.signal(signal.SIGUSR2, lambda *_: Path(out).write_text(json.dumps(accounts.to_dict())))
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")


def show(label: str, accounts: dict, decisions: int, cpu_us: float) -> None:
    print(f"{label}: {cpu_us:.0f} µs of server CPU a decision ({decisions} decisions in the window)")
    collections = ", ".join(f"gen{g} {n} x {t / max(1, n) * 1e3:.2f} ms = {t / decisions * 1e6:.1f} µs"
                            for g, (n, t) in accounts["gc"].items())
    print(f"  garbage collection a decision: {collections}")
    for name, (calls, seconds) in sorted(accounts["functions"].items(), key=lambda item: -item[1][1]):
        if calls:
            print(f"  {name:<48} {seconds / decisions * 1e6:7.1f} µs a decision, {calls / decisions:7.3f} calls "
                  f"({seconds / calls * 1e6:8.1f} µs a call)")


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window of each run (default 20)")
    args, rest = parser.parse_known_args()
    sys.path.insert(0, str(ROOT / "scripts"))
    bench = importlib.import_module("bench_ladder")
    folder = Path(tempfile.mkdtemp(prefix="ladder-accounts-"))
    started: dict[int, Path] = {}
    plain_popen = subprocess.Popen

    class Popen(plain_popen):  # the servers start through `inside`; everything else as it was
        def __init__(self, command, *popen_args, **popen_kwargs):
            if isinstance(command, list) and ("serve" in command or "--bare-server" in command):
                out = folder / f"{len(started)}.json"
                popen_kwargs["env"] = {**(popen_kwargs.get("env") or os.environ), "LADDER_ACCOUNTS_OUT": str(out)}
                command = [command[0], __file__, "--inside", *command[1:]]
                super().__init__(command, *popen_args, **popen_kwargs)
                started[self.pid] = out
            else:
                super().__init__(command, *popen_args, **popen_kwargs)

    measured = bench.measure
    results = []

    def measure(sample, pids, seconds, **kwargs):
        deadline = time.monotonic() + 90  # the same warm-up as `measure`, then the window is accounted
        while time.monotonic() < deadline and sample().get("finished", 0) < kwargs.get("warm", 0):
            time.sleep(0.2)
        os.kill(pids[0], signal.SIGUSR1)
        figures = measured(sample, pids, seconds, **kwargs)
        os.kill(pids[0], signal.SIGUSR2)
        out = started[pids[0]]
        for _ in range(100):
            if out.exists():
                break
            time.sleep(0.1)
        results.append((json.loads(out.read_text()), figures["decisions"], figures["server_cpu_us_per_decision"]))
        return figures

    bench.subprocess.Popen = Popen
    bench.measure = measure
    sys.argv = ["bench_ladder.py", "--compare-arena", "--seconds", str(args.seconds), *rest]
    bench.main()
    print(f"\nthe functions' own CPU, measured window only (load average {os.getloadavg()[0]:.1f} now):")
    for (accounts, decisions, cpu_us), label in zip(results, ["ladder (SQLite)", "bare match path"] * len(results)):
        show(label, accounts, max(1, decisions), cpu_us)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        inside(sys.argv[2:])
    else:
        sys.exit(main())
