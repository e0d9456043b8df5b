"""The fair-play battery: the control alone, then the control beside every attack at once.

Both runs use a fresh `arena serve` process (127.0.0.1, port 0 unless told
otherwise) scheduling the same two rulesets with the same time model: the
control bots play only ``control_ruleset``, every attacker names only
``attack_ruleset`` in its Hello, so no attacker ever sits at a control table
and whatever the control loses under attack is the server's disturbance.
`run_battery` returns a `Report`; `Report.targets()` says which targets
were met.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable, Optional

from arena.match.timecontrol import TimeControl

from . import attacks
from .measure import LadderRecord, ProgressWatch, percentile
from .players import CrossGame, EndedGame, HandMemory, Hanging, Ledger, Player, Slow, Staller
from .relay import Relay
from .server import ROOT, ArenaProcess, python_env, register_bot


@dataclass
class BatterySettings:
    seconds: float = 60.0                 # each run's measured window
    port: int = 0
    control_ruleset: str = "prsi"
    attack_ruleset: str = "maumau"
    control_bots: int = 4
    think_ms: float = 20.0                # honest bots' think time per decision
    move_ms: int = 500
    bank_ms: int = 2000
    first_move_ms: int = 1000
    increment_ms: int = 50
    max_strikes: int = 3
    concurrency: int = 8
    drain_s: float = 5.0
    silent_streams: int = 300
    flood_hellos: int = 200
    flood_in_flight: int = 6
    churn_names: int = 300
    churn_per_s: float = 20.0
    garbage_tries: int = 5
    cross_tries: int = 30
    stall_down_s: float = 4.0             # below the arena's reconnect window, so every drop is resumed
    stall_per_decision: int = 3
    stall_max_drops: int = 12
    workdir: Optional[Path] = None        # kept when given; a temporary folder otherwise
    progress: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)

    def serve_args(self, db: Path, replays: Path) -> list[str]:
        return [
            "--port", str(self.port), "--db", str(db), "--replays", str(replays),
            "--game", f"{self.control_ruleset},{self.attack_ruleset}",
            "--concurrency", str(self.concurrency), "--drain", str(self.drain_s),
            "--move-ms", str(self.move_ms), "--bank-ms", str(self.bank_ms),
            "--first-move-ms", str(self.first_move_ms), "--increment-ms", str(self.increment_ms),
            "--max-strikes", str(self.max_strikes),
            "--summary-every", "3600",
            # A safety net: the server stops by itself even if this process dies.
            "--duration", str(self.seconds + 120),
        ]

    @property
    def stuck_after_s(self) -> float:
        """The longest one decision may stand still under this time model (first move, bank and one
        reconnection window), plus 2 s of slack: a game that stands still longer is stuck."""
        reconnect_ms = TimeControl().reconnect_ms
        return (self.move_ms + self.first_move_ms + self.bank_ms + reconnect_ms) / 1000 + 2.0

    @property
    def control_names(self) -> list[str]:
        return [f"ctl-{i + 1}" for i in range(self.control_bots)]


@dataclass
class RunResult:
    """One run (baseline or attacked)."""

    label: str
    seconds: float
    crashed: bool = False
    exit_code: Optional[int] = None
    error_lines: list[str] = field(default_factory=list)
    rss_before_mb: Optional[float] = None
    rss_after_mb: Optional[float] = None
    server_cpu_s: Optional[float] = None         # the server's CPU time within the window
    clients_cpu_s: Optional[float] = None        # this process's (the attack clients') CPU time within the window
    control_games: int = 0                       # control games told finished within the window
    control_strikes: int = 0
    control_refusals: dict = field(default_factory=dict)
    think_ms: list = field(default_factory=list)   # every control decision's think time (ms), from the replays
    stuck: list = field(default_factory=list)    # measure.Stall
    lost: list = field(default_factory=list)     # (game id, problem)
    told_finished: int = 0

    @property
    def think_p99_ms(self) -> Optional[float]:
        return percentile([float(t) for t in self.think_ms], 0.99)

    @property
    def games_per_minute(self) -> float:
        return self.control_games * 60 / self.seconds if self.seconds else 0.0

    @property
    def rss_growth_mb(self) -> Optional[float]:
        if self.rss_before_mb is None or self.rss_after_mb is None:
            return None
        return self.rss_after_mb - self.rss_before_mb

    @classmethod
    def combined(cls, label: str, parts: list["RunResult"]) -> "RunResult":
        """Runs taken together (the baseline's halves): sums, unions, and the RSS of the part that grew most."""
        grown = max(parts, key=lambda p: p.rss_growth_mb if p.rss_growth_mb is not None else float("-inf"))
        return cls(
            label=label,
            seconds=sum(p.seconds for p in parts),
            crashed=any(p.crashed for p in parts),
            exit_code=next((p.exit_code for p in parts if p.exit_code), parts[-1].exit_code),
            error_lines=[line for p in parts for line in p.error_lines],
            rss_before_mb=grown.rss_before_mb,
            rss_after_mb=grown.rss_after_mb,
            server_cpu_s=_sum_known(p.server_cpu_s for p in parts),
            clients_cpu_s=_sum_known(p.clients_cpu_s for p in parts),
            control_games=sum(p.control_games for p in parts),
            control_strikes=sum(p.control_strikes for p in parts),
            control_refusals=dict(sum((Counter(p.control_refusals) for p in parts), Counter())),
            think_ms=[t for p in parts for t in p.think_ms],
            stuck=[s for p in parts for s in p.stuck],
            lost=[x for p in parts for x in p.lost],
            told_finished=sum(p.told_finished for p in parts),
        )


@dataclass
class AttackResults:
    takeover: attacks.TakeoverOutcome = field(default_factory=attacks.TakeoverOutcome)
    flood: attacks.FloodOutcome = field(default_factory=attacks.FloodOutcome)
    tricks: attacks.TrickOutcome = field(default_factory=attacks.TrickOutcome)
    silent: attacks.SilentOutcome = field(default_factory=attacks.SilentOutcome)
    garbage: attacks.GarbageOutcome = field(default_factory=attacks.GarbageOutcome)
    churn: attacks.ChurnOutcome = field(default_factory=attacks.ChurnOutcome)
    deal_hits: int = 0
    memory_games: int = 0
    cross: dict = field(default_factory=dict)
    cross_tries: int = 0
    stall_drops: int = 0
    stall_resumes: int = 0
    stall_longest_decision_s: float = 0.0
    stall_longest_still_s: float = 0.0
    stall_strikes: int = 0
    stall_forfeits: int = 0
    stall_refused: dict = field(default_factory=dict)
    throttlers: dict = field(default_factory=dict)   # bot -> (games told ended, strikes)
    honest_games: dict = field(default_factory=dict)  # honest attack-side bot -> games told finished
    stored_control_characters: list = field(default_factory=list)


@dataclass
class Target:
    name: str
    value: str
    goal: Optional[str]   # None: a figure shown for reference, not a target
    met: Optional[bool]   # None: could not be measured (counts as missed)


@dataclass
class Report:
    settings: BatterySettings
    baseline: RunResult
    attacked: RunResult
    attacks: AttackResults

    @property
    def ratio(self) -> Optional[float]:
        if not self.baseline.games_per_minute:
            return None
        return self.attacked.games_per_minute / self.baseline.games_per_minute

    def targets(self) -> list[Target]:
        b, a, x, s = self.baseline, self.attacked, self.attacks, self.settings
        crashes = int(b.crashed) + int(a.crashed)
        growth = a.rss_growth_mb
        ratio = self.ratio
        return [
            Target("server crashes", str(crashes), "0", crashes == 0),
            Target(f"stuck games (still > {s.stuck_after_s:.1f} s)", _stuck_text(b.stuck + a.stuck), "0",
                   not (b.stuck or a.stuck)),
            Target("lost games (told finished, not in DB/replay)", f"{len(b.lost) + len(a.lost)}"
                   f" of {b.told_finished + a.told_finished}", "0", not (b.lost or a.lost)),
            Target("control strikes", f"{a.control_strikes} (baseline {b.control_strikes})", "0",
                   a.control_strikes == 0 and b.control_strikes == 0),
            Target("control think time p99", f"{_ms(a.think_p99_ms)} (baseline {_ms(b.think_p99_ms)})", None, None),
            Target("control games per minute", f"{a.games_per_minute:.0f} vs {b.games_per_minute:.0f} baseline"
                   + (f" = {ratio:.2f}" if ratio is not None else ""), ">= 0.80 of baseline",
                   None if ratio is None else ratio >= 0.8),
            Target("server RSS", f"{_mb(a.rss_before_mb)} -> {_mb(a.rss_after_mb)} MB"
                   + (f" ({growth:+.1f})" if growth is not None else "")
                   + (f"; baseline {b.rss_growth_mb:+.1f}" if b.rss_growth_mb is not None else ""),
                   "growth <= 30 MB", None if growth is None else growth <= 30),
            Target("session takeovers", f"{x.takeover.successes} ({x.takeover.played} of {x.takeover.attempts} rounds"
                   f" played, {x.takeover.leaked_ids} session id(s) leaked)", "0",
                   x.takeover.successes == 0 if x.takeover.played else None),
            Target("deal-leak hits", f"{x.deal_hits} in {x.memory_games} games of the hand-memory bot", "0",
                   x.deal_hits == 0 if x.memory_games >= 2 else None),
            Target("honest bot admitted under the silent flood",
                   _yes_no(x.silent.honest_admitted) + (f" ({', '.join(x.silent.honest_replies)})"
                                                        if x.silent.honest_replies else ""),
                   "yes", x.silent.honest_admitted),
        ]

    def missed(self) -> list[Target]:
        return [t for t in self.targets() if t.goal is not None and t.met is not True]

    def lines(self) -> list[str]:
        s, x = self.settings, self.attacks
        out = [f"fair-play battery: {s.seconds:g} s under attack, against {s.seconds:g} s of the control alone "
               f"(half before, half after) "
               f"(control: {s.control_bots} bots on {s.control_ruleset}, {s.think_ms:g} ms per decision; "
               f"attackers on {s.attack_ruleset})", ""]
        width = max(len(t.name) for t in self.targets())
        vwidth = max(len(t.value) for t in self.targets())
        for t in self.targets():
            if t.goal is None:
                out.append(f"{t.name:<{width}}  {t.value}")
                continue
            verdict = "ok" if t.met else ("not measured" if t.met is None else "MISSED")
            out.append(f"{t.name:<{width}}  {t.value:<{vwidth}}  target {t.goal:<20} {verdict}")
        out += ["", "attacks:"]
        out.append(f"  1 takeover: {'; '.join(x.takeover.notes) or '-'}")
        out.append(f"  2 stalling: {x.stall_drops} drops, {x.stall_resumes} resumed; longest decision "
                   f"{x.stall_longest_decision_s:.1f} s (from its first turn to its answer, across drops), longest still "
                   f"game {x.stall_longest_still_s:.1f} s; {x.stall_strikes} strikes, {x.stall_forfeits} forfeits" + (f"; reconnections refused: {_counts(x.stall_refused)}"
                                                   if x.stall_refused else ""))
        out.append("  3 hanging/slow: " + ", ".join(f"{bot} {games} games, {strikes} strikes"
                                                    for bot, (games, strikes) in x.throttlers.items())
                   + "; honest bots beside them: "
                   + ", ".join(f"{bot} {games} games" for bot, games in x.honest_games.items()))
        out.append(f"  4 hand memory: {x.deal_hits} of {x.memory_games} games dealt an opponent a hand it had held")
        flood = x.flood
        out.append(f"  6 wrong-token flood: {flood.sent} Hellos in {flood.seconds:.1f} s: {_counts(flood.replies)}; "
                   f"the registered bot admitted half-way: {_yes_no(flood.owner_admitted)}"
                   + (f" after {flood.owner_wait_s:.2f} s" if flood.owner_wait_s is not None else "")
                   + (f" ({flood.owner_refusal})" if flood.owner_refusal else ""))
        out.append(f"  7 name tricks: admitted {len(x.tricks.admitted)} of {len(x.tricks.tried)}"
                   + (f" ({'; '.join(x.tricks.admitted)})" if x.tricks.admitted else "")
                   + "; control characters stored in the ladder DB: "
                   + (", ".join(x.stored_control_characters) or "none"))
        silent = x.silent
        out.append(f"  8 silent streams: {silent.streams} opened, {silent.ended_by_server} ended by the arena; "
                   f"honest bot: {', '.join(silent.honest_replies) or 'not tried'}")
        out.append(f"  9 answers naming another game: {x.cross_tries} sent: {_counts(x.cross) or 'no verdict'}")
        out.append(f" 10 undecodable bytes: {x.garbage.sent} sent: {_counts(x.garbage.replies)}")
        out.append(f" 11 name churn: {x.churn.tried} new names: {_counts(x.churn.replies)}")
        b, a = self.baseline, self.attacked
        out.append(f"CPU within the window: server {_s(a.server_cpu_s)} (baseline {_s(b.server_cpu_s)} over the same "
                   f"length), the attack clients in this process {_s(a.clients_cpu_s)} (they share the machine)")
        for run in (self.baseline, self.attacked):
            if run.error_lines:
                out.append(f"server errors logged in the {run.label} run: {len(run.error_lines)}, first: "
                           f"{run.error_lines[0][:120]}")
            if run.control_refusals:
                out.append(f"control Hellos refused in the {run.label} run: {_counts(run.control_refusals)}")
        return out


def _sum_known(values) -> Optional[float]:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _stuck_text(stuck: list) -> str:
    if not stuck:
        return "0"
    worst = max(stuck, key=lambda s: s.seconds)
    return f"{len(stuck)} (longest {worst.seconds:.1f} s: {', '.join(_shown(p) for p in worst.players)})"


def _shown(name: str) -> str:
    """A bot name as it can be printed: quoted and escaped when it carries control characters."""
    return name if name.isprintable() else repr(name)


def _s(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1f} s"


def _ms(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def _mb(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1f}"


def _yes_no(value: Optional[bool]) -> str:
    return "not tried" if value is None else ("yes" if value else "no")


def _counts(counter) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(dict(counter).items(), key=lambda kv: -kv[1]))


# ---------------------------------------------------------------- one run

class _Run:
    """One server, the control process and (when attacked) every attacker, for ``seconds``."""

    def __init__(self, settings: BatterySettings, workdir: Path, label: str, attacked: bool, seconds: float) -> None:
        self.s = settings
        self.seconds = seconds
        self.dir = workdir / label
        self.dir.mkdir(parents=True, exist_ok=True)
        self.label = label
        self.attacked = attacked
        self.result = RunResult(label, seconds)
        self.attack = AttackResults()
        self.ledger = Ledger()

    async def run(self) -> None:
        s = self.s
        db, replays = self.dir / "arena.db", self.dir / "replays"
        token = await asyncio.to_thread(register_bot, db, "regbot") if self.attacked else ""
        server = ArenaProcess(s.serve_args(db, replays), self.dir / "server.log")
        control: Optional[subprocess.Popen] = None
        bursts: list[asyncio.Task] = []   # attacks that send requests: cancelled when the window ends
        seated: list[asyncio.Task] = []   # players (and the progress watch): they leave with their streams
        players: list[Player] = []
        relay: Optional[Relay] = None
        stop = asyncio.Event()
        try:
            address = await asyncio.to_thread(server.start)
            self.result.rss_before_mb = server.rss_mb()
            server_cpu, clients_cpu = server.cpu_s(), time.process_time()
            s.progress(f"{self.label}: arena on {address}, {self.seconds:g} s")
            started_wall, started = time.time(), time.monotonic()
            until = started + self.seconds
            with open(self.dir / "control.log", "w") as control_log:
                control = subprocess.Popen(
                    [sys.executable, "-m", "scripts.hostile.control", "--arena", address,
                     "--names", ",".join(s.control_names), "--games", s.control_ruleset,
                     "--think-ms", str(s.think_ms), "--duration", str(self.seconds + 120)],
                    stdout=subprocess.PIPE, stderr=control_log, stdin=subprocess.DEVNULL,
                    text=True, cwd=ROOT, env=python_env(),
                )
            watch = ProgressWatch(address)
            seated.append(asyncio.create_task(watch.run(stop)))
            if self.attacked:
                relay = await Relay.start(address)
                players = self._attack(address, relay.address, token, stop, until, bursts, seated)
            while time.monotonic() < until and server.alive():
                await asyncio.sleep(0.25)
            self.result.rss_after_mb = server.rss_mb()
            server_cpu_after = server.cpu_s()
            if server_cpu is not None and server_cpu_after is not None:
                self.result.server_cpu_s = server_cpu_after - server_cpu
            self.result.clients_cpu_s = time.process_time() - clients_cpu
            died_early = server.crashed
            for task in bursts:
                task.cancel()
            await asyncio.gather(*bursts, return_exceptions=True)
            # Seated players keep answering while the ladder drains, and leave when the arena ends
            # their streams (stop keeps them from coming back).
            s.progress(f"{self.label}: window over, stopping the arena")
            stop_task = asyncio.create_task(asyncio.to_thread(server.stop, s.drain_s + 15))
            while not stop_task.done() and server.alive():
                await asyncio.sleep(0.1)
            stop.set()
            self.result.exit_code = await stop_task
            self.result.crashed = died_early or server.crashed
            _, pending = await asyncio.wait(seated, timeout=10)
            for task in pending:
                task.cancel()
            await asyncio.gather(*seated, return_exceptions=True)
            control_out = await asyncio.to_thread(_finish_control, control)
            control = None
            self._collect(watch, control_out, players, started_wall, db)
            self.result.error_lines = server.error_lines()
        finally:
            stop.set()
            for task in bursts + seated:
                task.cancel()
            await asyncio.gather(*bursts, *seated, return_exceptions=True)
            if control is not None:
                _kill(control)
            if relay is not None:
                await relay.close()
            server.close()

    def _attack(self, honest: str, hostile: str, token: str, stop: asyncio.Event, until: float,
                bursts: list[asyncio.Task], seated: list[asyncio.Task]) -> list[Player]:
        """Start every attacker; returns the players whose behaviour is read afterwards.

        Honest bots connect to ``honest`` (the arena itself), attackers to ``hostile`` (the relay:
        another source address, as attackers would have).
        """
        s, x = self.s, self.attack
        games = (s.attack_ruleset,)
        seats = dict(games=games, think_ms=s.think_ms)
        players: list[Player] = [
            Player("hon-1", ledger=self.ledger, seed=1, **seats),
            Player("hon-2", ledger=self.ledger, seed=2, **seats),
        ]
        for player in players:
            seated.append(asyncio.create_task(player.run(honest, stop)))
        hostiles: list[Player] = [
            Hanging("hang", ledger=self.ledger, **seats),
            Slow("slowpoke", ledger=self.ledger, **seats),
            Staller("staller", ledger=self.ledger, per_decision=s.stall_per_decision, down_s=s.stall_down_s,
                    max_drops=s.stall_max_drops, **seats),
            HandMemory("memory", ledger=self.ledger, max_games=2, **seats),
            CrossGame("crossgame", ledger=self.ledger, max_games=2, max_tries=s.cross_tries, **seats),
        ]
        for player in hostiles:
            seated.append(asyncio.create_task(player.run(hostile, stop)))
        victim = Player("victim", ledger=self.ledger, **seats)
        owner = Player("regbot", ledger=self.ledger, token=token, **seats)
        players += hostiles + [victim, owner]

        def later(delay_s: float, attack: Callable[[], Awaitable[object]], into: list[asyncio.Task]) -> None:
            async def go() -> None:
                await asyncio.sleep(delay_s)
                await attack()
            into.append(asyncio.create_task(go()))

        w = self.seconds
        # The takeover's victim and the flooded name's owner become seated players.  The silent
        # streams come last: against an arena they fill, nobody else gets in while they stand, and
        # the staller's first decision (three drops of 4 s) is over by then.
        later(0, lambda: attacks.session_takeover(hostile, honest, victim, games, stop, 0.4 * w, x.takeover), seated)
        later(0.1 * w, lambda: attacks.token_flood(hostile, honest, "regbot", games, s.flood_hellos,
                                                   s.flood_in_flight, owner, 0.2 * w, stop, until, x.flood), seated)
        later(0, lambda: attacks.name_tricks(hostile, "regbot", "hon-1", games, x.tricks), bursts)
        later(0.5, lambda: attacks.undecodable(hostile, "garbler", games, s.garbage_tries, x.garbage, stop), bursts)
        later(0.1 * w, lambda: attacks.name_churn(hostile, "churn-", games, s.churn_names, s.churn_per_s, stop,
                                                  x.churn), bursts)
        later(0.6 * w, lambda: attacks.silent_flood(hostile, honest, s.silent_streams, "latecomer", games, until,
                                                    x.silent), bursts)
        return players

    def _collect(self, watch: ProgressWatch, control_out: dict, players: list[Player], started_wall: float,
                 db: Path) -> None:
        s, r, x = self.s, self.result, self.attack
        control_ended = [EndedGame.from_list(row) for row in control_out.get("ended", [])]
        window_end = started_wall + self.seconds
        r.control_games = len({e.game_id for e in control_ended
                               if e.finished and started_wall <= e.at <= window_end})
        r.control_strikes = sum(e.strikes for e in control_ended)
        r.control_refusals = control_out.get("refusals", {})
        r.stuck = watch.stuck(s.stuck_after_s)
        record = LadderRecord.read(db)
        told = control_ended + self.ledger.ended
        r.told_finished = len({e.game_id for e in told if e.finished})
        r.lost = record.lost(told)
        r.think_ms = record.think_ms(set(s.control_names))
        if not self.attacked:
            return
        by_name = {p.name: p for p in players}
        memory = by_name["memory"]
        x.deal_hits, x.memory_games = record.deal_hits("memory", memory.first_hands)
        cross = by_name["crossgame"]
        x.cross, x.cross_tries = dict(cross.outcomes), cross.tries
        staller = by_name["staller"]
        x.stall_drops, x.stall_resumes = staller.drops, staller.resumes
        x.stall_longest_decision_s = staller.longest_decision_s
        x.stall_forfeits = record.strikes("staller")[1]
        x.stall_refused = dict(staller.refused)
        x.stall_longest_still_s = watch.longest_involving("staller")
        ended = self.ledger.ended
        x.stall_strikes = record.strikes("staller")[0]  # from the database: the staller is often away at the end
        for bot in ("hang", "slowpoke"):
            mine = [e for e in ended if e.bot == bot]
            x.throttlers[bot] = (len(mine), sum(e.strikes for e in mine))
        for bot in ("hon-1", "hon-2", "regbot", "victim"):
            x.honest_games[bot] = len({e.game_id for e in ended if e.bot == bot and e.finished})
        x.stored_control_characters = record.control_characters()


def _finish_control(control: subprocess.Popen) -> dict:
    """SIGTERM the control process and read its JSON line ({} if it has none)."""
    if control.poll() is None:
        control.send_signal(signal.SIGTERM)
    try:
        out, _ = control.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        _kill(control)
        return {}
    for line in reversed((out or "").splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    return {}


def _kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        pass


# ---------------------------------------------------------------- both runs

async def _all_runs(settings: BatterySettings, workdir: Path) -> Report:
    """The baseline brackets the attacked run (half before, half after), so that a load on the
    machine that drifts during the battery weighs on both sides alike."""
    half = settings.seconds / 2
    before = _Run(settings, workdir, "baseline-before", attacked=False, seconds=half)
    await before.run()
    attacked = _Run(settings, workdir, "attacked", attacked=True, seconds=settings.seconds)
    await attacked.run()
    after = _Run(settings, workdir, "baseline-after", attacked=False, seconds=half)
    await after.run()
    baseline = RunResult.combined("baseline", [before.result, after.result])
    return Report(settings, baseline, attacked.result, attacked.attack)


def run_battery(settings: BatterySettings) -> Report:
    """The baseline run, then the attacked run; every process it started is gone when it returns."""
    workdir = settings.workdir
    temporary = workdir is None
    if temporary:
        workdir = Path(tempfile.mkdtemp(prefix="arena-battery-"))
    try:
        return asyncio.run(_all_runs(settings, workdir))
    finally:
        if temporary:
            shutil.rmtree(workdir, ignore_errors=True)
