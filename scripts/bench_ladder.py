#!/usr/bin/env python3
"""Scale check of the ladder: many connected bots, many concurrent games, on loopback.

    python scripts/bench_ladder.py                        # 200 bots (4 processes x 50), 100 games at once, 60 s
    python scripts/bench_ladder.py --processes 4 --sessions 250 --concurrency 200 --connect-at-once 50
                                                          # the scale target: 1,000 bots, 200 games at once
    python scripts/bench_ladder.py --compare-arena        # the ladder, then the bare match path, same bots and games at once
    python scripts/bench_ladder.py --db postgres          # SQLite, then a private PostgreSQL: decisions/s of both
    python scripts/bench_ladder.py --hosts 3              # 3 hosts on one private PostgreSQL, the bots spread over them

It starts `arena serve` as a subprocess (fresh temp database and replay
folder, connection and login limits sized for the run: see `capacity_flags`),
then light bot processes (`arena.ladder.loadbot`: raw grpc.aio, a random legal
answer at once, many sessions on one event loop per process, run at nice 19
so that the server is not starved on a small machine unless ``--no-nice``),
waits until every bot is connected (as the load processes say), and reports:

* games per minute and decisions per second (from the ladder database), per host;
* timeouts the arena caused: the bots answer at once, so every timeout or
  strike recorded is the arena's fault (target 0), over the whole run and
  within the measured window, from the database and as the bots were told
  (TIMEOUT notices, late answers; a notice for a turn the load process itself
  spent half the move limit on, its own time plus its event loop's lag, is
  counted apart as the load side's), with the arena's measured think time per
  decision;
* the load side's own health, so that a reader can tell who was slow: the
  bot processes' CPU (cores, µs per decision), their worst event-loop lag,
  login times, and how many bots were connected when the window began;
* the server's peak memory (VmHWM), its memory per connected bot and per
  running game, and CPU time per decision (/proc).  The bots come in two
  waves (half the load processes, then the rest) and the servers' resident
  memory is read once the games run after each: the same games with half the
  bots and with all of them tell the bots' share; what the first plateau holds
  beyond the idle servers and its bots is the games' (`memory_split`; not
  separable when every bot plays, e.g. 200 bots at 100 games: then the
  figure is KiB per bot with its share of the games, `memory_per_playing_bot`);
* the logins while the bots connect: how many wait for a login slot of their
  process, have a Hello unanswered, were retried, timed out or gave up (every
  5 s), and the load processes' stderr in the work folder's ``bots/``;
* database statements per game (the store's own count, from the line
  `arena serve` prints when it stops; on PostgreSQL also the server's
  ``pg_stat_statements``: every host's and every connection's).

``--compare-arena`` runs, in the same invocation and with the same bot
processes, the bare match path (`arena.server.run` with a director that keeps
the same number of games running among fixed pairs, no database, no replays:
what `scripts/bench_arena.py` measures; its pairs are drawn across the load processes, as the
ladder's scheduler seats them, unless ``--bare-pairs same-process``) and prints the server CPU per decision
of both and their ratio (target: ladder <= 1.15 x bare).  ``--db postgres``
runs the ladder on SQLite and then on a private PostgreSQL (started as
tests/postgres_server.py does, fsync on) and prints both decisions/s and the
ratio (target >= 0.9).  Each figure is the median of per-second samples of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def sys_cpu(pid: int) -> float:
    """CPU seconds a live process spent in the kernel (stime), from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[12]) / os.sysconf("SC_CLK_TCK")


def proc_stats(pid: int) -> tuple[float, int, int]:
    """(CPU seconds, peak resident KiB, resident KiB now) of a live process, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    peak = rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1])
            elif line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return cpu, peak, rss


TOTALS_SQL = (
    "SELECT status, COUNT(*) FROM games GROUP BY status",
    "SELECT COALESCE(SUM(decisions), 0) FROM games WHERE status = 'finished'",
    "SELECT COALESCE(SUM(timeouts), 0), COALESCE(SUM(strikes), 0), COALESCE(SUM(forfeited), 0) FROM seats",
)


def cpu_by_pid(pids: list[int]) -> dict[int, float]:
    """CPU seconds of each of these processes that is still alive."""
    found = {}
    for pid in pids:
        try:
            found[pid] = proc_stats(pid)[0]
        except OSError:
            pass
    return found


def children_of(parent: int) -> list[int]:
    """The process and its children now, from /proc (a PostgreSQL postmaster and its server processes)."""
    found = [parent]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == parent:
                        found.append(int(entry))
            except OSError:
                pass
    return found


class Totals:
    """Reads the ladder's totals from its database (a SQLite file or a PostgreSQL URL)."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.pg = db.startswith("postgresql://")
        self._connection = None

    def rows(self, sql: str) -> list[tuple]:
        if self.pg:
            import psycopg

            if self._connection is None:
                self._connection = psycopg.connect(self.db, autocommit=True)
            return self._connection.execute(sql).fetchall()
        connection = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)
        try:
            return connection.execute(sql).fetchall()
        finally:
            connection.close()

    def read(self) -> dict[str, int]:
        try:
            games = dict(self.rows(TOTALS_SQL[0]))
            decisions = self.rows(TOTALS_SQL[1])[0][0]
            timeouts, strikes, forfeits = self.rows(TOTALS_SQL[2])[0]
        except Exception:  # not created yet
            return {}
        return {
            "finished": games.get("finished", 0), "aborted": games.get("aborted", 0),
            "running": games.get("running", 0), "decisions": int(decisions), "timeouts": int(timeouts),
            "strikes": int(strikes), "forfeits": int(forfeits),
        }

    def connected(self) -> int:
        """Bots that have connected at least once (their row's last_seen)."""
        try:
            return int(self.rows("SELECT COUNT(*) FROM bots WHERE last_seen IS NOT NULL")[0][0])
        except Exception:
            return 0

    def statements(self) -> int | None:
        """Statements the PostgreSQL server ran so far (pg_stat_statements; None without it)."""
        if not self.pg:
            return None
        try:
            return int(self.rows("SELECT COALESCE(SUM(calls), 0) FROM pg_stat_statements")[0][0])
        except Exception:
            return None

    def top_statements(self, count: int = 8) -> list[dict]:
        """The PostgreSQL server's costliest statements so far (pg_stat_statements), for a look at where its time goes."""
        if not self.pg:
            return []
        try:
            rows = self.rows(
                "SELECT calls, total_exec_time, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) FROM pg_stat_statements "
                f"ORDER BY total_exec_time DESC LIMIT {int(count)}")
        except Exception:
            return []
        return [{"calls": int(calls), "total_ms": round(total, 1), "mean_ms": round(total / max(1, calls), 3),
                 "query": query} for calls, total, query in rows]

    def server_pids(self) -> list[int]:
        """The PostgreSQL server's processes (its postmaster and every child: backends, WAL writer,
        checkpointer...), found from this connection's backend; [] on SQLite."""
        if not self.pg:
            return []
        try:
            backend = int(self.rows("SELECT pg_backend_pid()")[0][0])
            with open(f"/proc/{backend}/stat") as f:
                postmaster = int(f.read().rsplit(")", 1)[1].split()[1])
        except Exception:
            return []
        return children_of(postmaster)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()


class Lines:
    """A process's output lines, read on a thread (a selector on a buffered pipe misses lines)."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self.thread.start()

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.lines.append("")  # EOF
            self.changed.notify_all()

    def wait_for(self, text: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        seen = 0
        with self.changed:
            while True:
                for line in self.lines[seen:]:
                    if text in line:
                        return line
                    if line == "":
                        raise SystemExit("the server exited:\n" + "\n".join(self.lines[-20:]))
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SystemExit(f"no {text!r} from the server within {timeout:g} s:\n" + "\n".join(self.lines[-20:]))
                self.changed.wait(left)

    def last_json(self) -> dict:
        with self.changed:
            for line in reversed(self.lines):
                if line.startswith("{"):
                    return json.loads(line)
        return {}


STOPPED = re.compile(r"(?P<finished>\d+) games finished, (?P<aborted>\d+) aborted, ")
#: `arena serve --timings`'s line of the store's counts over the run (`StatementStats.snapshot`).
STORE = re.compile(r"^store: (?P<counts>\{.*\})$")


def port_of(line: str) -> int:
    return int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])


def stop(process: subprocess.Popen, timeout: float = 60) -> str:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.communicate(timeout=timeout)[0] or ""
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate()[0] or ""


@dataclass
class Bots:
    """The load-bot processes: ``processes`` x ``sessions`` sessions named bPPxSSS, one event loop each."""

    processes: int
    sessions: int
    nice: bool = True
    connect_at_once: int = 4
    per_connection: int = 25     # sessions sharing one TCP connection (separate bots would have one each)
    log_dir: Path | None = None  # each process's stderr (Hello timeouts, give-ups, drops) goes to loadbotN.log here
    running: list[subprocess.Popen] = field(default_factory=list)
    outputs: list["Lines"] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.processes * self.sessions

    def prefix(self, process: int) -> str:
        return f"b{process:02d}x"

    def names(self, process: int) -> list[str]:
        return [f"{self.prefix(process)}{s:03d}" for s in range(self.sessions)]

    def all_names(self) -> list[str]:
        return [name for p in range(self.processes) for name in self.names(p)]

    @property
    def pids(self) -> list[int]:
        return [bot.pid for bot in self.running if bot.poll() is None]

    def start(self, ports: list[int], follow_hosts: bool = False, which: range | None = None) -> None:
        """Start processes ``which`` (default all); process p connects to ports[p % len(ports)] (several hosts: the
        bots spread over them)."""
        nice = ["nice", "-n", "19"] if self.nice and shutil.which("nice") else []
        for p in which if which is not None else range(self.processes):
            if self.log_dir is not None:
                self.log_dir.mkdir(parents=True, exist_ok=True)
            log = open(self.log_dir / f"loadbot{p}.log", "a") if self.log_dir is not None else subprocess.DEVNULL
            self.running.append(subprocess.Popen(
                nice + [sys.executable, "-m", "arena.ladder.loadbot", "--arena", f"127.0.0.1:{ports[p % len(ports)]}",
                        "--count", str(self.sessions), "--prefix", self.prefix(p), "--style", "random",
                        "--max-games", "1", "--connect-at-once", str(self.connect_at_once), "--progress-every", "0.5",
                        "--sessions-per-connection", str(self.per_connection), "--retries", "30"]
                + (["--follow-hosts"] if follow_hosts else []),
                stdout=subprocess.PIPE, stderr=log, text=True, cwd=str(ROOT),
            ))
            if log is not subprocess.DEVNULL:
                log.close()  # the child has its own descriptor
            self.outputs.append(Lines(self.running[-1]))

    def connected(self) -> int:
        """Sessions welcomed and still open now, as the load processes last said (every 0.5 s)."""
        return self.progress("connected")

    def progress(self, key: str) -> int:
        """The sum of ``key`` over the load processes' last progress lines (connected, turns, timeouts, late)."""
        return sum(lines.last_json().get(key, 0) for lines in self.outputs)

    def worst(self, key: str) -> float:
        return max((lines.last_json().get(key, 0) for lines in self.outputs), default=0)

    def stop(self) -> dict:
        """Stop them; their totals merged (counts summed; maxima and 99th percentiles: the worst process)."""
        for bot in self.running:
            if bot.poll() is None:
                bot.terminate()
        totals: dict = {}
        for bot, lines in zip(self.running, self.outputs):
            try:
                bot.wait(timeout=30)
            except subprocess.TimeoutExpired:
                bot.kill()
                bot.wait()
            lines.thread.join(timeout=5)
            final = lines.last_json()
            if final and "progress" not in final:
                merge_bot_totals(totals, final)
        self.running, self.outputs = [], []
        return totals


def merge_bot_totals(totals: dict, one: dict) -> None:
    """Adds one load-bot process's totals: counts add up; *_max and *_p99 keep the worst; *_p50 the median of
    the processes' (kept as a list under the key until `finish_bot_totals`)."""
    for key, value in one.items():
        if key.endswith(("_max", "_p99")):
            totals[key] = max(totals.get(key, 0), value)
        elif key.endswith("_p50"):
            totals.setdefault(key, []).append(value)
        elif key == "wall_s":
            totals[key] = max(totals.get(key, 0), value)
        else:
            totals[key] = totals.get(key, 0) + value


def finish_bot_totals(totals: dict) -> dict:
    return {k: (round(median(v), 3) if isinstance(v, list) else v) for k, v in totals.items()}


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def measure(sample, pids: list[int], seconds: float, warm: int, warmup_s: float = 90,
            load_pids: list[int] = (), db_pids=None) -> dict:
    """Wait until ``warm`` games finished, then sample every second for ``seconds``.

    ``sample()`` returns the totals (finished, decisions, running...).  Returns the rates
    (games/min, decisions/s) over the window, the CPU µs per decision of the ``pids`` together,
    the median running games and resident memory, and the first and last totals; the CPU of
    the load-bot processes ``load_pids`` over the same window (cores they used, and per decision);
    with ``db_pids`` (a function: the PostgreSQL server's processes now), that of the database server too.
    """
    deadline = time.monotonic() + warmup_s
    while time.monotonic() < deadline and sample().get("finished", 0) < warm:
        time.sleep(0.2)
    before = sample()
    cpu0 = sum(proc_stats(pid)[0] for pid in pids)
    sys0 = sum(sys_cpu(pid) for pid in pids)
    load0 = sum(proc_stats(pid)[0] for pid in load_pids)
    db0 = cpu_by_pid(db_pids()) if db_pids is not None else {}
    t0 = time.monotonic()
    running, rss, rates = [], [], []
    last, last_t = before, t0
    while time.monotonic() - t0 < seconds:
        time.sleep(1.0)
        now, at = sample(), time.monotonic()
        running.append(now.get("running", 0))
        rss.append(sum(proc_stats(pid)[2] for pid in pids))
        rates.append((now.get("decisions", 0) - last.get("decisions", 0)) / (at - last_t))
        last, last_t = now, at
    after = sample()
    cpu1 = sum(proc_stats(pid)[0] for pid in pids)
    sys1 = sum(sys_cpu(pid) for pid in pids)
    load1 = sum(proc_stats(pid)[0] for pid in load_pids)
    db1 = cpu_by_pid(db_pids()) if db_pids is not None else {}
    elapsed = time.monotonic() - t0
    games = after.get("finished", 0) - before.get("finished", 0)
    decisions = after.get("decisions", 0) - before.get("decisions", 0)
    # A backend that ended in the window is missed; one that began counts from 0.
    db_cpu = sum(cpu - db0.get(pid, 0.0) for pid, cpu in db1.items())
    database = {"database_cores": round(db_cpu / elapsed, 2),
                "database_cpu_us_per_decision": round(db_cpu / max(1, decisions) * 1e6, 1)} if db1 else {}
    return {
        "seconds": round(elapsed, 1),
        "games": games,
        "decisions": decisions,
        "games_per_minute": round(games / elapsed * 60, 1),
        "decisions_per_second": round(decisions / elapsed, 1),
        "median_decisions_per_second_1s": round(median(rates), 1),
        "median_running_games": median(running),
        "median_rss_kib": median(rss),
        # How fast the servers' memory grew with bots and games steady (finished games kept for ListGames and
        # Spectate, rating data, the heap): what `memory_split` takes off the growth between two plateaus.
        "rss_growth_kib_per_s": (round(statistics.linear_regression(range(len(rss)), rss).slope, 1)
                                 if len(rss) > 2 and len(set(rss)) > 1 else 0.0),
        "server_cpu_us_per_decision": round((cpu1 - cpu0) / max(1, decisions) * 1e6, 1),
        "server_sys_cpu_us_per_decision": round((sys1 - sys0) / max(1, decisions) * 1e6, 1),
        "server_cores": round((cpu1 - cpu0) / elapsed, 2),
        "load_cores": round((load1 - load0) / elapsed, 2),
        "load_cpu_us_per_decision": round((load1 - load0) / max(1, decisions) * 1e6, 1),
        **database,
        "before": before,
        "after": after,
    }


# ---------------------------------------------------------------- the ladder

def capacity_flags(bots: "Bots") -> list[str]:
    """`arena serve`'s connection and login limits sized for this run (see docs/deploy.md, "Sizing for many bots").

    Every bot is a session (room for all, plus a few); the load processes log in ``burst`` sessions
    at once, all from 127.0.0.1, so the per-address and queue bounds on logins being checked must
    admit that burst, and every bot may be held waiting once.
    """
    burst = bots.processes * bots.connect_at_once
    return ["--max-connections", str(bots.total + 16), "--acceptors", str(acceptors_for(bots.total)),
            "--max-pending-hellos", str(max(64, 2 * burst)),
            "--auth-queue", str(max(16, burst)),
            "--auth-failures-per-address", str(max(10, burst)),
            "--auth-refusals-held", str(max(256, bots.total))]


def acceptors_for(bots: int) -> int:
    """`arena serve --acceptors` for this many bots: grpc.aio takes one new stream at a time per acceptor, and a
    busy server on a shared machine took only 2-6 a second through one (see docs/deploy.md, "Sizing for many bots")."""
    return max(1, min(8, bots // 125))


def serve_command(db: str, replays: Path, args, bots: "Bots", extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "arena", "serve", "--port", "0", "--db", db, "--replays", str(replays),
            "--game", args.game, "--concurrency", str(args.concurrency), *capacity_flags(bots),
            "--move-ms", str(args.move_ms), "--plain", "--summary-every", "3600", "--drain", "5",
            "--timings", *extra]


def run_ladder(args, db: str, work: Path, hosts: int = 1, label: str = "ladder") -> dict:
    """The ladder on ``db`` with ``hosts`` `arena serve` processes; the measured figures."""
    bots = Bots(args.processes, args.sessions, nice=not args.no_nice, connect_at_once=args.connect_at_once,
                per_connection=args.sessions_per_connection,
                log_dir=work / "bots")
    servers: list[subprocess.Popen] = []
    outputs: list[Lines] = []
    ports: list[int] = []
    totals = Totals(db)
    report: dict = {"label": label, "db": "postgresql" if db.startswith("postgresql://") else "sqlite", "hosts": hosts,
                    "bots": bots.total, "load_processes": bots.processes}
    try:
        for index in range(hosts):
            extra = ["--host-name", f"h{index}"] if hosts > 1 or db.startswith("postgresql://") else []
            server = subprocess.Popen(serve_command(db, work / f"replays{index}", args, bots, extra),
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(ROOT))
            servers.append(server)
            outputs.append(Lines(server))
            ports.append(port_of(outputs[-1].wait_for("listening on", 60)))
            if extra:
                outputs[-1].wait_for("joined the ladder", 60)
        pids = [s.pid for s in servers]
        idle_rss = [proc_stats(pid)[2] for pid in pids]
        # The bots come in two waves, half the processes each, and the servers' memory is read once the games
        # run after each (see `memory_split`): the same games with half the bots, then with all of them.
        first = max(1, bots.processes // 2)
        games = args.concurrency * hosts
        ramp = time.monotonic()
        bots.start(ports, follow_hosts=args.follow_hosts, which=range(first))
        print(f"{label}: {hosts} server(s) (pids {', '.join(str(s.pid) for s in servers)}) on port(s) "
              f"{', '.join(map(str, ports))}; {bots.total} bot sessions in {bots.processes} processes "
              f"({first} first, then the rest); {args.concurrency} games at once per host; {args.game}", flush=True)
        wait_all_connected(bots, first * bots.sessions)
        plateaus = [memory_plateau(pids, totals, bots, games)]
        if first < bots.processes:
            bots.start(ports, follow_hosts=args.follow_hosts, which=range(first, bots.processes))
            wait_all_connected(bots)
            plateaus.append(memory_plateau(pids, totals, bots, games))
        report["seconds_to_connect_all"] = round(time.monotonic() - ramp, 1)
        report["bots_in_store_at_start"] = totals.connected()  # their arrival is written in the background
        statements0 = totals.statements()
        report["bots_connected_at_start"] = bots.connected()
        told0 = {key: bots.progress(key) for key in ("timeouts", "late", "timeouts_load_side")}
        figures = measure(totals.read, [s.pid for s in servers], args.seconds, warm=args.concurrency * hosts // 2,
                          load_pids=bots.pids, db_pids=totals.server_pids if totals.pg else None)
        statements1 = totals.statements()
        report["bots_connected_at_end"] = bots.connected()
        report["told_timeouts_in_window"] = bots.progress("timeouts") - told0["timeouts"]
        report["late_answers_in_window"] = bots.progress("late") - told0["late"]
        report["late_answers_before_window"] = told0["late"]
        report["told_timeouts_in_window_load_side"] = bots.progress("timeouts_load_side") - told0["timeouts_load_side"]
        per_bot, per_game = memory_split(sum(idle_rss), plateaus, figures["rss_growth_kib_per_s"])
        report["memory_plateaus"] = [{"bots": n, "running_games": g, "rss_mib": round(kib / 1024, 1),
                                      "seconds": round(at - ramp, 1)} for n, g, kib, at in plateaus]
        report.update(figures)
        after, before = figures["after"], figures["before"]
        report.update({
            "arena_caused_timeouts": after.get("timeouts", 0), "strikes": after.get("strikes", 0),
            "timeouts_in_window": after.get("timeouts", 0) - before.get("timeouts", 0),
            "aborted_games": after.get("aborted", 0),
            "server_peak_rss_mib": round(sum(proc_stats(s.pid)[1] for s in servers) / 1024, 1),
            "server_rss_idle_mib": round(sum(idle_rss) / 1024, 1),
            # None (JSON null) when every bot plays in both plateaus: bots and games grew together
            "kib_per_connected_bot": None if per_bot is None else round(per_bot, 1),
            "kib_per_running_game": None if per_game is None else round(per_game, 1),
            "kib_per_bot_with_its_games": _rounded(memory_per_playing_bot(plateaus, figures["rss_growth_kib_per_s"])),
        })
        if statements0 is not None and statements1 is not None:
            report["pg_statements_per_game"] = round((statements1 - statements0) / max(1, figures["games"]), 1)
            report["pg_top_statements"] = totals.top_statements()
        report["decisions_per_second_per_host"] = (per_host_rates(db, figures["seconds"]) if hosts > 1
                                                   else {"h0": figures["decisions_per_second"]})
    finally:
        for server in servers:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
        tails = []
        for server, lines in zip(servers, outputs):
            try:
                server.wait(timeout=90)  # 200 games draining on a loaded machine take a while
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            lines.thread.join(timeout=5)
            tails.append(lines)
        bot_totals = bots.stop()
        totals.close()
    finished = statements = writes = round_trips = 0
    for lines in tails:  # the store's own count over each host's whole run, from its last lines (--timings)
        found = [m for m in map(STOPPED.search, lines.lines) if m]
        counted = [json.loads(m["counts"]) for m in map(STORE.match, lines.lines) if m]
        if found and counted:
            finished += int(found[-1]["finished"]) + int(found[-1]["aborted"])
            statements += counted[-1]["statements"]
            writes += counted[-1]["writes"]
            round_trips += counted[-1]["round_trips"]
    gaps = [json.loads(line.split(":", 1)[1]) for lines in tails for line in lines.lines
            if line.startswith("between games: ")]
    if len(gaps) == 1:  # where the time between a game's end and its seats' next game went (arena.ladder.game_gaps)
        report["between_games"] = gaps[0]
    if finished:
        report["store_statements_per_game"] = round(statements / finished, 2)
        report["store_writes_per_game"] = round(writes / finished, 2)
        if round_trips:  # PostgreSQL: messages the store's connection waited on (a group commit's reads go as one)
            report["store_round_trips_per_game"] = round(round_trips / finished, 2)
    report.update(load_side(bot_totals))
    for key in ("before", "after"):
        report.pop(key, None)
    return report


def load_side(bot_totals: dict) -> dict:
    """What the load bots were told and how they fared, over their whole run (connecting included).

    ``told_timeouts``: the arena's TIMEOUT notices (a default was played for a late answer);
    ``late_answers``: answers that came after that (STALE_REQUEST); ``seat_timeouts``: the timeouts
    the arena recorded for the bots' seats in GameEnded.  ``think_ms_*``: the arena's measured think
    time per decision of a game (the round trip as the server saw it); ``answer_ms_*``: a turn read to
    its answer written, in the load process; ``loop_lag_ms_max``: the load processes' worst timer lag.
    """
    totals = finish_bot_totals(bot_totals)
    out = {"bot_errors": {k: v for k, v in totals.items() if k.startswith("error:")},
           "told_timeouts": totals.get("error:TIMEOUT", 0), "late_answers": totals.get("error:STALE_REQUEST", 0),
           "seat_timeouts": totals.get("seat_timeouts", 0), "bot_turns": totals.get("turns", 0),
           "bot_logins_retried": totals.get("retried", 0)}
    for key in ("think_ms_p50", "think_ms_p99", "think_ms_max", "answer_ms_p50", "answer_ms_p99", "answer_ms_max",
                "loop_lag_ms_max", "login_ms_p50", "login_ms_p99", "login_ms_max"):
        if key in totals:
            out[key] = totals[key]
    return out


#: What the load processes' progress lines say about logins, shown while the bots connect.
LOGIN_KEYS = ("queued", "opening", "waiting", "retried", "hello_timeouts", "gave_up", "dropped")


def wait_all_connected(bots: "Bots", count: int | None = None, timeout: float = 600) -> None:
    """Until every bot is connected (as the load processes say), with progress; measuring starts after.

    Every 5 s it shows where the others are: waiting for a login slot of their process (queued), with a
    stream opening (their Hello not yet taken by it), with a Hello written and not answered (waiting:
    the arena's), and how many logins were retried, timed out, given up or dropped.
    """
    count = bots.total if count is None else count
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    shown_at = -5.0
    while time.monotonic() < deadline:
        seen = bots.connected()
        if seen >= count:
            return
        if time.monotonic() - shown_at >= 5:
            shown_at = time.monotonic()
            states = ", ".join(f"{key} {bots.progress(key)}" for key in LOGIN_KEYS)
            print(f"  {time.monotonic() - started:5.0f} s: {seen} of {count} bots connected; {states}", flush=True)
        time.sleep(0.25)
    print(f"  only {bots.connected()} of {count} bots connected within {timeout:g} s", flush=True)


def memory_plateau(pids: list[int], totals: Totals, bots: "Bots", games: int, seconds: float = 4.0,
                   timeout: float = 120) -> tuple[int, float, float]:
    """(bots connected, median running games, median resident KiB of the servers) once the games run.

    Waits until as many games run as the connected bots allow (up to ``games``; two seats a game), then
    samples every 0.25 s for ``seconds``.
    """
    want = 0.95 * min(games, bots.connected() // 2)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and totals.read().get("running", 0) < want:
        time.sleep(0.25)
    running, rss = [], []
    start = time.monotonic()
    end = start + seconds
    while time.monotonic() < end:
        running.append(totals.read().get("running", 0))
        rss.append(sum(proc_stats(pid)[2] for pid in pids))
        time.sleep(0.25)
    return bots.connected(), median(running), median(rss), (start + time.monotonic()) / 2


def memory_split(idle_kib: float, plateaus: list[tuple[int, float, float, float]],
                 growth_kib_per_s: float = 0.0) -> tuple[float | None, float | None]:
    """(KiB per connected bot, KiB per running game) from the idle servers and the plateaus (bots, games, KiB,
    when), less the growth with bots and games steady (``growth_kib_per_s``, measured in the window).

    Two plateaus with the same games and different bots give the bots' share; the games' is what the
    first plateau holds beyond the idle servers and its bots.  Rough: the Python heap keeps what it once
    took.  None when the plateaus cannot tell the two apart: one plateau, or every bot playing in both
    (bots and games then grow together; `memory_per_playing_bot` is the figure then).
    """
    if len(plateaus) < 2:
        return None, None
    (n1, g1, kib1, at1), (n2, g2, kib2, at2) = plateaus[0], plateaus[-1]
    grown1, grown2 = kib1 - idle_kib, kib2 - idle_kib - max(0.0, growth_kib_per_s) * (at2 - at1)
    determinant = n1 * g2 - n2 * g1
    if abs(determinant) < 0.05 * max(1.0, n2 * g2):
        return None, None
    per_bot = (grown1 * g2 - grown2 * g1) / determinant
    per_game = (n1 * grown2 - n2 * grown1) / determinant
    return per_bot, per_game


def memory_per_playing_bot(plateaus: list[tuple[int, float, float, float]],
                           growth_kib_per_s: float = 0.0) -> float | None:
    """KiB per connected bot together with its share of the running games, from the first plateau to the
    last (less the growth with bots and games steady): what the plateaus do tell when every bot plays in
    both (200 bots at 100 games), where `memory_split` cannot separate the two.  None with one plateau."""
    if len(plateaus) < 2 or plateaus[-1][0] == plateaus[0][0]:
        return None
    (n1, _, kib1, at1), (n2, _, kib2, at2) = plateaus[0], plateaus[-1]
    return (kib2 - kib1 - max(0.0, growth_kib_per_s) * (at2 - at1)) / (n2 - n1)


def _rounded(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def per_host_rates(db: str, seconds: float) -> dict[str, float]:
    """Decisions/s per host over the last ``seconds`` (the games each host claimed)."""
    import psycopg

    with psycopg.connect(db, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT c.host, COALESCE(SUM(g.decisions), 0) FROM games g JOIN "
            "(SELECT DISTINCT game_id, host FROM seat_claims) c ON c.game_id = g.id "
            "WHERE g.status = 'finished' AND CAST(g.ended_at AS TIMESTAMPTZ) >= now() - make_interval(secs => %s) "
            "GROUP BY c.host ORDER BY c.host", (seconds,)).fetchall()
    return {host: round(int(decisions) / seconds, 1) for host, decisions in rows}


# ---------------------------------------------------------------- the bare match path

def bare_server(tables: int, names: list[str], game: str, move_ms: int) -> int:
    """The bare match path: fixed pairs of the bots, ``tables`` games at once, no store, no replays.

    Prints the listening line, then one JSON line of totals every 0.25 s (finished games,
    their decisions, running games).
    """
    import trio

    from arena.match.timecontrol import TimeControl
    from arena.server import ServerConfig, run

    control = TimeControl(move_ms=move_ms)
    totals = {"finished": 0, "decisions": 0, "running": 0, "timeouts": 0, "strikes": 0}

    async def director(handle):
        print(f"bare server listening on 127.0.0.1:{handle.port}", flush=True)
        await handle.wait_for_sessions(names, timeout_s=120)

        async def keep_playing(table: int) -> None:
            rng = random.Random(table)
            pair = [names[2 * table], names[2 * table + 1]]
            while True:
                totals["running"] += 1
                try:
                    outcome = await handle.play_game(game, {}, rng.randrange(2**63), pair, control)
                finally:
                    totals["running"] -= 1
                if outcome.status == "finished":
                    totals["finished"] += 1
                    totals["decisions"] += outcome.decisions
                    totals["timeouts"] += sum(s.timeouts for s in outcome.seats)
                    totals["strikes"] += sum(s.strikes for s in outcome.seats)

        async def report() -> None:
            while True:
                print(json.dumps(totals), flush=True)
                await trio.sleep(0.25)

        async with trio.open_nursery() as nursery:
            for table in range(tables):
                nursery.start_soon(keep_playing, table)
            nursery.start_soon(report)
            with trio.open_signal_receiver(signal.SIGTERM) as received:
                async for _ in received:
                    nursery.cancel_scope.cancel()
                    break

    run(ServerConfig(port=0, max_connections=len(names) + 16, finished_games_kept=100,
                     acceptors=acceptors_for(len(names))), director)
    return 0


def run_bare(args, tables: int) -> dict:
    bots = Bots(args.processes, args.sessions, nice=not args.no_nice, connect_at_once=args.connect_at_once,
                per_connection=args.sessions_per_connection)
    names = bots.all_names()
    if args.bare_pairs == "mixed":
        # The ladder's scheduler seats any two connected bots together, so most of its games join two
        # load processes (two HTTP/2 connections); fixed neighbours in one process would make every bare
        # game a ping-pong on one connection.  A seeded shuffle spreads the pairs as the ladder's draws do.
        random.Random(0).shuffle(names)
    if 2 * tables > len(names):
        raise SystemExit(f"{tables} games at once need {2 * tables} bots; there are {len(names)}")
    server = subprocess.Popen(
        [sys.executable, __file__, "--bare-server", str(tables), ",".join(names), args.game, str(args.move_ms)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(ROOT))
    lines = Lines(server)
    try:
        port = port_of(lines.wait_for("listening on", 60))
        bots.start([port])
        print(f"bare match path: server pid {server.pid} on port {port}; {bots.total} bot sessions, "
              f"{tables} fixed pairs playing", flush=True)
        figures = measure(lines.last_json, [server.pid], args.seconds, warm=tables // 2, load_pids=bots.pids)
        figures["server_peak_rss_mib"] = round(proc_stats(server.pid)[1] / 1024, 1)  # as the ladder's, at the end
    finally:
        stop(server)
        bot_totals = bots.stop()
    after = figures.pop("after")
    figures.pop("before")
    figures.update({"label": "bare match path", "bare_pairs": args.bare_pairs, "arena_caused_timeouts": after.get("timeouts", 0),
                    "strikes": after.get("strikes", 0)})
    figures.update(load_side(bot_totals))
    return figures


# ---------------------------------------------------------------- PostgreSQL

def start_postgres():
    """A private PostgreSQL with fsync on and pg_stat_statements, as the tests start theirs."""
    sys.path.insert(0, str(ROOT / "tests"))
    from postgres_server import start_server

    server = start_server(fsync=True, settings=("shared_preload_libraries=pg_stat_statements", "max_connections=300"))
    import psycopg

    with psycopg.connect(server.url, autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    return server


def fresh_database(server, name: str) -> str:
    """The URL of a new, empty database on the private PostgreSQL (another run of the ladder)."""
    import psycopg

    with psycopg.connect(server.url, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name} OWNER arena")
    url = server.url.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    return url


def show(report: dict) -> None:
    print(json.dumps(report, indent=2), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=4, help="load-bot processes, one event loop each (default 4)")
    parser.add_argument("--sessions", type=int, default=50, help="bot sessions per process (default 50)")
    parser.add_argument("--connect-at-once", type=int, default=4, metavar="N",
                        help="logins each load process has in flight at once (default 4)")
    parser.add_argument("--sessions-per-connection", type=int, default=25, metavar="N",
                        help="bot sessions sharing one TCP connection in a load process (default 25)")
    parser.add_argument("--concurrency", type=int, default=100, help="games at once per host (default 100)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured run length (default 60)")
    parser.add_argument("--game", default="moumou", help="ruleset (default moumou)")
    parser.add_argument("--move-ms", type=int, default=1000, help="per-decision limit (default 1000)")
    parser.add_argument("--no-nice", action="store_true", help="run the bots at normal priority")
    parser.add_argument("--keep", action="store_true", help="keep the temp database and replays")
    parser.add_argument("--compare-arena", action="store_true",
                        help="also run the bare match path with the same bots and games at once; print the ratio")
    parser.add_argument("--bare-pairs", choices=("mixed", "same-process"), default="mixed",
                        help="with --compare-arena: the bare path's fixed pairs drawn across the load processes as "
                             "the ladder seats them (mixed, the default), or neighbours in one process (same-process)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="with --compare-arena (or --db postgres): ladder and bare (or SQLite and PostgreSQL) "
                             "runs alternate this many times; the median of the pairs' ratios (default 1)")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite",
                        help="postgres: run on SQLite, then on a private PostgreSQL, and print both")
    parser.add_argument("--hosts", type=int, default=1, help="N `arena serve` hosts on one private PostgreSQL")
    parser.add_argument("--follow-hosts", action="store_true",
                        help="with --hosts: every bot opens a session to every host (Welcome.hosts), as the SDK "
                             "does, instead of staying on the one its process was given")
    parser.add_argument("--bare-server", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server:
        tables, names, game, move_ms = args.bare_server
        return bare_server(int(tables), names.split(","), game, int(move_ms))
    for flag in ("processes", "sessions", "concurrency", "hosts", "connect_at_once", "sessions_per_connection"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1")
    if args.hosts > 1 and args.processes < args.hosts:
        parser.error("--hosts N needs at least N bot processes (--processes): the bots are spread over the hosts")

    work = Path(tempfile.mkdtemp(prefix="bench-ladder-"))
    postgres = None
    reports: list[dict] = []
    try:
        if args.hosts > 1:
            postgres = start_postgres()
            reports.append(run_ladder(args, postgres.url, work, hosts=args.hosts, label=f"{args.hosts} hosts"))
            show(reports[-1])
        else:
            reports.append(run_ladder(args, str(work / "ladder.db"), work / "sqlite", label="ladder (SQLite)"))
            show(reports[-1])
            if args.db == "postgres":
                postgres = start_postgres()
                for attempt in range(args.repeat):
                    if attempt:  # SQLite and PostgreSQL alternate: each pair sees the same machine
                        reports.append(run_ladder(args, str(work / f"ladder{attempt}.db"), work / f"sqlite{attempt}",
                                                  label="ladder (SQLite)"))
                        show(reports[-1])
                    url = fresh_database(postgres, f"arena{attempt}") if attempt else postgres.url
                    reports.append(run_ladder(args, url, work / f"pg{attempt}", label="ladder (PostgreSQL)"))
                    show(reports[-1])
            if args.compare_arena:
                for attempt in range(args.repeat):
                    if attempt:  # ladder and bare alternate: each pair sees the same machine
                        reports.append(run_ladder(args, str(work / f"ladder{attempt}.db"), work / f"sqlite{attempt}",
                                                  label="ladder (SQLite)"))
                        show(reports[-1])
                    tables = max(1, round(reports[-1]["median_running_games"]))
                    reports.append(run_bare(args, tables))
                    show(reports[-1])
    finally:
        if postgres is not None:
            from postgres_server import remove

            remove(postgres)
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("summary (one run; rates over the window, medians of 1 s samples):")
    for report in reports:
        print(f"  {report['label']:<22} {report['decisions_per_second']:>8,.0f} decisions/s "
              f"(median 1 s {report['median_decisions_per_second_1s']:,.0f}), "
              f"{report['median_running_games']:g} games running (median), "
              f"{report['server_cpu_us_per_decision']:.0f} µs server CPU/decision, "
              f"timeouts {report['arena_caused_timeouts']} ({report.get('timeouts_in_window', '-')} in the "
              f"window), strikes {report['strikes']}")
        database = (f"; PostgreSQL server {report['database_cores']:.2f} cores "
                    f"({report['database_cpu_us_per_decision']:.0f} µs/decision)" if "database_cores" in report else "")
        print(f"  {'':<22} server {report['server_cores']:.2f} cores{database}; load bots {report['load_cores']:.2f} cores "
              f"({report['load_cpu_us_per_decision']:.0f} µs/decision), worst loop lag "
              f"{report.get('loop_lag_ms_max', float('nan')):.0f} ms; bots told {report['told_timeouts']} timeouts, "
              f"{report['late_answers']} late answers; arena think time/decision median "
              f"{report.get('think_ms_p50', float('nan')):.1f} ms, p99 {report.get('think_ms_p99', float('nan')):.1f} ms")
        if "kib_per_connected_bot" not in report and "server_peak_rss_mib" in report:  # the bare path
            print(f"  {'':<22} peak {report['server_peak_rss_mib']:.0f} MiB")
        if "kib_per_connected_bot" in report:
            trips = (f" ({report['store_round_trips_per_game']:.2f} round trips)"
                     if "store_round_trips_per_game" in report else "")
            if report["kib_per_connected_bot"] is not None:
                memory = (f"{report['kib_per_connected_bot']:.1f} KiB per connected bot, "
                          f"{report['kib_per_running_game']:.1f} KiB per running game")
            elif report.get("kib_per_bot_with_its_games") is not None:
                memory = (f"{report['kib_per_bot_with_its_games']:.1f} KiB per connected bot with its share of the "
                          "games (every bot plays: bots and games not separable)")
            else:
                memory = "memory per bot and per game not measured (one plateau)"
            print(f"  {'':<22} {report.get('store_statements_per_game', float('nan')):.2f} store statements/game{trips}; "
                  f"{memory}, peak {report['server_peak_rss_mib']:.0f} MiB; decisions/s per host "
                  f"{report['decisions_per_second_per_host']}")
            print(f"  {'':<22} {report['bots_connected_at_start']} of {report['bots']} bots connected when the window "
                  f"began ({report['seconds_to_connect_all']:.0f} s after the bots started; logins median "
                  f"{report.get('login_ms_p50', float('nan')) / 1000:.1f} s, p99 {report.get('login_ms_p99', float('nan')) / 1000:.1f} s), "
                  f"{report['bots_connected_at_end']} at its end; within the window the bots were told "
                  f"{report['told_timeouts_in_window']} timeouts ({report['told_timeouts_in_window_load_side']} of "
                  f"them the load side's own lag) and gave {report['late_answers_in_window']} late answers")
            if "between_games" in report:
                gaps = report["between_games"]
                means = {step: ms for step, ms in gaps["mean_ms"].items() if ms is not None and step != "in_game"}
                print(f"  {'':<22} between games (mean ms over the run): "
                      + ", ".join(f"{step} {ms:.1f}" for step, ms in means.items())
                      + f"; dead time a seat {sum(means.values()):.0f} ms against {gaps['mean_ms']['in_game'] or 0:.0f} ms "
                      f"in a game; {gaps['rounds']} planning rounds"
                      + f", {gaps['writes_per_group_commit']} writes a group commit")
            print(f"  {'':<22} memory: idle {report['server_rss_idle_mib']:.0f} MiB; "
                  + "; ".join(f"{m['bots']} bots, {m['running_games']:g} games: {m['rss_mib']:.0f} MiB at {m['seconds']:.0f} s"
                              for m in report["memory_plateaus"])
                  + f"; growing {report['rss_growth_kib_per_s']:.0f} KiB/s in the window")
    by_label = {r["label"]: r for r in reports}
    if "bare match path" in by_label:
        pairs = [(a, b) for a, b in zip(reports, reports[1:])
                 if a["label"] == "ladder (SQLite)" and b["label"] == "bare match path"]
        ratios = [a["server_cpu_us_per_decision"] / b["server_cpu_us_per_decision"] for a, b in pairs]
        spread = f" (pairs: {', '.join(f'{r:.2f}' for r in ratios)})" if len(ratios) > 1 else ""
        print(f"  server CPU per decision, ladder / bare match path: {median(ratios):.2f}{spread} (target <= 1.15)")
    if "ladder (PostgreSQL)" in by_label:
        pairs = [(a, b) for a, b in zip(reports, reports[1:])
                 if a["label"] == "ladder (SQLite)" and b["label"] == "ladder (PostgreSQL)"]
        rates = [b["decisions_per_second"] / a["decisions_per_second"] for a, b in pairs]
        cpu = [b["server_cpu_us_per_decision"] / a["server_cpu_us_per_decision"] for a, b in pairs]
        spread = f" (pairs: {', '.join(f'{r:.2f}' for r in rates)})" if len(rates) > 1 else ""
        both = [(b["server_cpu_us_per_decision"] + b.get("database_cpu_us_per_decision", 0))
                / a["server_cpu_us_per_decision"] for a, b in pairs]
        print(f"  decisions/s, PostgreSQL / SQLite: {median(rates):.2f}{spread} (target >= 0.9); "
              f"server CPU/decision PostgreSQL / SQLite: {median(cpu):.2f} "
              f"(pairs: {', '.join(f'{r:.2f}' for r in cpu)}); with the PostgreSQL server's: {median(both):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
