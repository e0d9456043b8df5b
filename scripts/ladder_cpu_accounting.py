#!/usr/bin/env python3
"""Where the ladder's extra server CPU goes: its own functions' thread CPU, per decision, inside `arena serve`.

    python scripts/ladder_cpu_accounting.py                  # bench_ladder --compare-arena, 20 s windows
    python scripts/ladder_cpu_accounting.py --seconds 30
    python scripts/ladder_cpu_accounting.py --db postgres    # bench_ladder --db postgres: SQLite's ladder, then PostgreSQL's

`scripts/bench_ladder.py --compare-arena` gives one number, the ratio of the two servers' CPU per
decision, and on a shared machine its pairs swing by ±0.3.  This runs the same comparison with
both servers started through this script (``--inside``), which wraps the functions only the ladder
runs (`FUNCTIONS`: the store's commit thread, the replay's lines and its packing, the rating refits, the
planning rounds...; a name a tree does not have is skipped and named in the report, so one list serves an older tree too and a renamed function is not lost in silence) and adds up each one's calls and CPU time (`time.thread_time`, on whatever
thread calls it), plus garbage collection by generation, over the measured window only (SIGUSR1
starts it, SIGUSR2 writes it out).  It prints, for the ladder and for the bare path, the server's
CPU per decision and each function's µs per decision: what the ladder adds is there by name, in
the same process and window, however loaded the machine is.  Nested functions count in both (the
replay's packing runs inside the commit thread's call).  The wrappers cost a few µs per call,
so the totals are a little above `bench_ladder.py`'s.

``--db postgres`` accounts the two ladders instead (`bench_ladder.py --db postgres`: SQLite's, then
one host on a private PostgreSQL), with the PostgreSQL path's own functions (`PG_FUNCTIONS`: the
seat claims' cluster view, heartbeats, the backend's binding and round trips...), and counts, by
kind, the database statements and round trips (messages the server answered) per game: game starts
(the starts' group commits, on their own connection), results (the main connection's group commits,
with the other writes that joined them), the cluster view read before planning, releases apart,
heartbeats (lease, live hosts, sweeps), rating refits, and the NOTIFYs received.  A kind is the
outermost counted call on the thread that sends the statement; ``other`` is what none of them
covers.  The counts are the client's: psycopg's ``Cursor.execute`` (a script of several statements
as one message counts each statement and one round trip) and its transaction commands
(``BEGIN``/``COMMIT`` of ``connection.transaction()``).  It also splits the PostgreSQL server's own
CPU over the window by process: each connection by its ``application_name`` (the store's, the
host's registry, its claims connection, its listener, the benchmark's reader) and the server's own
processes (WAL writer, checkpointer, autovacuum...).
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
    ("arena.ladder.start_commit", "GameStarts.new_replay"),
    ("arena.ladder.commit_closed", "CommitClosedRecorder.packed"),
    ("arena.replay.buffer", "ReplayBuffer.decision"),
    ("arena.replay.buffer", "ReplayBuffer.write_decisions"),  # the game's lines, written at its end
    ("arena.games.base", "GameState.state_hash"),
    ("arena.ladder.fits", "_timed"),
    ("arena.ladder.fits", "standings_from"),
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

#: The PostgreSQL path's own functions (with ``--db postgres``; SQLite's ladder calls none of them).
PG_FUNCTIONS = [
    ("arena.ladder.store.postgres", "PostgresBackend.execute"),
    ("arena.ladder.store.postgres", "PostgresBackend.send"),
    ("arena.ladder.store.postgres", "PostgresBackend.defer"),
    ("arena.ladder.store.postgres", "PostgresBackend.flush"),
    ("arena.ladder.store.postgres", "Binder.__call__"),
    ("arena.ladder.store.postgres", "run_script"),
    ("arena.ladder.store.postgres", "counted_results"),
    ("arena.ladder.store.fit_totals", "add_game"),
    ("arena.ladder.store.fit_totals", "read"),
    ("arena.ladder.store.fit_totals", "changes"),
    ("arena.ladder.store.fit_totals", "RunningTotals.put"),
    ("arena.ladder.store.game_end", "call"),
    ("arena.ladder.store.ladder_store", "LadderStore.fit_changes"),
    ("arena.ladder.store.ladder_store", "LadderStore.pair_table"),
    ("arena.ladder.store.ladder_store", "LadderStore.totals"),
    ("arena.ladder.store.ladder_store", "LadderStore.save_ratings"),
    ("arena.ladder.store.claims", "SeatClaims.load"),
    ("arena.ladder.store.claims", "SeatClaims.ensure_bots"),
    ("arena.ladder.store.claims", "SeatClaims.release"),
    ("arena.ladder.store.claims", "ClaimTally.add"),
    ("arena.ladder.store.hosts", "HostRegistry.heartbeat"),
    ("arena.ladder.store.hosts", "HostRegistry.live_hosts"),
    ("arena.ladder.store.hosts", "HostRegistry.sweep_dead"),
    ("arena.ladder.membership", "Membership.adjust"),
    ("arena.ladder.membership", "Membership.take_view"),
    ("arena.ladder.membership", "Membership.start_claim"),
    ("arena.ladder.membership", "Membership._sync_counts"),
]

#: The calls that decide which kind a statement sent under them counts as (`Meter`); the outermost wins.
KINDS = {
    "LadderStore.run_together": None,  # "starts" on a starts' sibling store, else "results"
    "LadderStore.pair_table": "refits", "LadderStore.totals": "refits", "LadderStore.save_ratings": "refits",
    "LadderStore.fit_changes": "refits",
    "SeatClaims.load": "cluster view", "SeatClaims.ensure_bots": "cluster view",
    "SeatClaims.release": "releases apart",
    "HostRegistry.heartbeat": "heartbeats", "HostRegistry.live_hosts": "heartbeats",
    "HostRegistry.sweep_dead": "heartbeats",
}


class Meter:
    """Statements and round trips sent to PostgreSQL, by kind (`KINDS`), counted on the client (psycopg)."""

    def __init__(self) -> None:
        import threading

        self.local = threading.local()
        self.counts: dict[str, list] = {}  # kind -> [statements, round trips, calls]

    def kind(self) -> str:
        stack = getattr(self.local, "stack", None)
        return stack[0] if stack else "other"

    def enter(self, kind: str) -> None:
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
        stack.append(kind)
        if len(stack) == 1:
            self.box(kind)[2] += 1

    def leave(self) -> None:
        self.local.stack.pop()

    def box(self, kind: str) -> list:
        return self.counts.setdefault(kind, [0, 0, 0])

    def sent(self, statements: int) -> None:
        box = self.box(self.kind())
        box[0] += statements
        box[1] += 1

    def install(self) -> None:
        """Count psycopg's executes (a script's statements from `postgres._sent`) and transaction commands."""
        import psycopg
        from psycopg import _connection_base
        from arena.ladder.store import postgres

        meter, local = self, self.local
        plain_execute = psycopg.Cursor.execute

        def execute(cursor, query, *args, **kwargs):
            meter.sent(getattr(local, "script", 0) or 1)
            local.script = 0
            return plain_execute(cursor, query, *args, **kwargs)

        psycopg.Cursor.execute = execute
        plain_sent = postgres._sent

        def sent(db, statements):
            local.script = len(statements)
            return plain_sent(db, statements)

        postgres._sent = sent
        base = _connection_base.BaseConnection
        plain_command = getattr(base, "_exec_command", None)
        if plain_command is not None:  # BEGIN/COMMIT/ROLLBACK of psycopg's `transaction()`
            def command(connection, *args, **kwargs):
                meter.sent(1)
                return plain_command(connection, *args, **kwargs)

            base._exec_command = command
        from arena.ladder.store import hosts

        plain_listen = hosts.HostRegistry.listen

        def listen(registry, wake, stopped):
            def counted_wake():
                meter.box("NOTIFY received (wakes)")[2] += 1
                wake()

            return plain_listen(registry, counted_wake, stopped)

        hosts.HostRegistry.listen = listen

    def reset(self) -> None:
        for box in self.counts.values():
            box[0] = box[1] = box[2] = 0


class Accounts:
    """Calls and thread CPU seconds per wrapped function, and garbage collection by generation."""

    def __init__(self, meter: Meter | None = None) -> None:
        self.functions: dict[str, list] = {}
        self.gc: dict[int, list] = {generation: [0, 0.0] for generation in range(3)}
        self._gc_began = 0.0
        self.meter = meter
        self.missing: list[str] = []   # names this tree does not have: said in the report, never counted

    def wrap(self, module_name: str, qualname: str) -> None:
        """Replace ``module.qualname`` (a function or a method) by a wrapper that counts it."""
        owner = importlib.import_module(module_name)
        *path, name = qualname.split(".")
        for part in path:
            owner = getattr(owner, part)
        function = getattr(owner, name, None)
        if function is None:  # not in this tree (an older or newer one, or renamed): said in the report
            self.missing.append(f"{module_name.rsplit('.', 1)[-1]}.{qualname}")
            return
        label = f"{module_name.rsplit('.', 1)[-1]}.{qualname}"
        box = self.functions.setdefault(label, [0, 0.0])
        clock = time.thread_time
        meter = self.meter if qualname in KINDS else None
        kind = KINDS.get(qualname)
        if qualname == "LadderStore.run_together":  # the starts' group commits apart from the results'
            starts_box = self.functions.setdefault(label + " (starts)", [0, 0.0])

        @functools.wraps(function)
        def counted(*args, **kwargs):
            here, named = box, kind
            if qualname == "LadderStore.run_together" and getattr(args[0], "sibling_of", None) is not None:
                here, named = starts_box, "starts"
            if meter is not None:
                meter.enter(named or "results")
            began = clock()
            try:
                return function(*args, **kwargs)
            finally:
                here[0] += 1
                here[1] += clock() - began
                if meter is not None:
                    meter.leave()

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
        if self.meter is not None:
            self.meter.reset()

    def to_dict(self) -> dict:
        return {"functions": self.functions, "gc": {str(k): v for k, v in self.gc.items()},
                "database": self.meter.counts if self.meter is not None else {}, "missing": self.missing}


def inside(argv: list[str]) -> None:
    """Run a server (``-m arena serve ...`` or the bare server's script) with the accounts installed."""
    postgres = any(part.startswith(("postgresql://", "postgres://")) for part in argv)
    meter = Meter() if postgres else None
    accounts = Accounts(meter)
    for module_name, qualname in FUNCTIONS + (PG_FUNCTIONS if postgres else []):
        accounts.wrap(module_name, qualname)
    if meter is not None:
        meter.install()
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


def show(label: str, accounts: dict, decisions: int, cpu_us: float, games: int = 0,
         database: dict | None = None) -> None:
    print(f"{label}: {cpu_us:.0f} µs of server CPU a decision ({decisions} decisions, {games} games in the window)")
    collections = ", ".join(f"gen{g} {n} x {t / max(1, n) * 1e3:.2f} ms = {t / decisions * 1e6:.1f} µs"
                            for g, (n, t) in accounts["gc"].items())
    print(f"  garbage collection a decision: {collections}")
    for name, (calls, seconds) in sorted(accounts["functions"].items(), key=lambda item: -item[1][1]):
        if calls:
            print(f"  {name:<48} {seconds / decisions * 1e6:7.1f} µs a decision, {calls / decisions:7.3f} calls "
                  f"({seconds / calls * 1e6:8.1f} µs a call)")
    if accounts.get("missing"):
        print(f"  not in this tree, not counted: {', '.join(accounts['missing'])}")
    counts = accounts.get("database") or {}
    if counts and games:
        statements = sum(box[0] for box in counts.values())
        trips = sum(box[1] for box in counts.values())
        print(f"  database, client side, a game: {statements / games:.2f} statements, {trips / games:.2f} round trips")
        for kind, (n, rt, calls) in sorted(counts.items(), key=lambda item: -item[1][1]):
            print(f"    {kind:<30} {n / games:6.2f} statements, {rt / games:6.2f} round trips, {calls / games:6.3f} calls a game"
                  f" ({calls} calls)")
    if database:
        total = sum(database.values())
        print(f"  the PostgreSQL server's own CPU: {total / decisions * 1e6:.1f} µs a decision, by process:")
        for name, seconds in sorted(database.items(), key=lambda item: -item[1]):
            print(f"    {name:<44} {seconds / decisions * 1e6:7.1f} µs a decision")


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window of each run (default 20)")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite",
                        help="postgres: account SQLite's ladder and PostgreSQL's (bench_ladder --db postgres) "
                             "instead of the ladder and the bare path")
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
        db_pids = kwargs.get("db_pids")
        os.kill(pids[0], signal.SIGUSR1)
        db0 = bench.cpu_by_pid(db_pids()) if db_pids is not None else {}
        figures = measured(sample, pids, seconds, **kwargs)
        db1 = bench.cpu_by_pid(db_pids()) if db_pids is not None else {}
        os.kill(pids[0], signal.SIGUSR2)
        database = by_process(getattr(sample, "__self__", None), db0, db1) if db1 else None
        out = started[pids[0]]
        for _ in range(100):
            if out.exists():
                break
            time.sleep(0.1)
        results.append((json.loads(out.read_text()), figures["decisions"], figures["server_cpu_us_per_decision"],
                        figures["games"], database))
        return figures

    bench.subprocess.Popen = Popen
    bench.measure = measure
    compare = ["--db", "postgres"] if args.db == "postgres" else ["--compare-arena"]
    sys.argv = ["bench_ladder.py", *compare, "--seconds", str(args.seconds), *rest]
    bench.main()
    print(f"\nthe functions' own CPU, measured window only (load average {os.getloadavg()[0]:.1f} now):")
    labels = ["ladder (SQLite)", "ladder (PostgreSQL)" if args.db == "postgres" else "bare match path"]
    for (accounts, decisions, cpu_us, games, database), label in zip(results, labels * len(results)):
        show(label, accounts, max(1, decisions), cpu_us, games, database)
    return 0


def by_process(totals, before: dict[int, float], after: dict[int, float]) -> dict[str, float]:
    """The PostgreSQL server's CPU seconds between two reads of its processes, by what each process is: a
    connection by its ``application_name`` (the pid in the store's made general), else its backend type."""
    names: dict[int, str] = {}
    if totals is not None:
        try:
            for pid, application, kind in totals.rows(
                    "SELECT pid, application_name, backend_type FROM pg_stat_activity"):
                if kind == "client backend":
                    application = application or "(no name: the benchmark's reader)"
                    if application.startswith("mau-arena pid"):
                        application = "store connections (results, starts)"
                    elif application.startswith("mau-arena host"):  # the registry's, its claims' and listener's
                        application = "host " + (application.split("(", 1)[1].rstrip(")") if "(" in application
                                                 else "registry (heartbeats)")
                    names[int(pid)] = application
                else:
                    names[int(pid)] = kind
        except Exception:  # noqa: BLE001 - the split is a detail: the total stands without it
            pass
    spent: dict[str, float] = {}
    for pid, cpu in after.items():
        name = names.get(pid, "postmaster or gone")
        spent[name] = spent.get(name, 0.0) + cpu - before.get(pid, 0.0)
    return spent


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        inside(sys.argv[2:])
    else:
        sys.exit(main())
