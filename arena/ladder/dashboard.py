"""The live dashboard of `arena serve`, and the leaderboard table `arena leaderboard` prints.

Everything here builds rich renderables from plain snapshots (`DashboardView`),
so it can be rendered into a recording console in tests, shown with
`rich.live.Live` on a terminal, or turned into plain text when stdout is not
a tty.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Deque, Sequence

from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.ladder.standings import Standing, format_ci


def output_console() -> "Console":
    """A console for printed tables: the terminal's width, or a wide one for pipes and files
    (rich assumes 80 columns there and would cut bot names short)."""
    import sys

    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=160)


def leaderboard_table(
    ruleset: str, rows: Sequence[Standing], *, live_elo: dict[str, float] | None = None, compact: bool = False
) -> Table:
    """rank, bot, rating, -/+ 95%, games, score %, wins, timeouts, strikes (and the live Elo).

    compact: lighter borders and short headers, so the live view fits 80 columns.
    """
    table = Table(
        title=f"{ruleset} — Bradley-Terry ratings (95% interval)",
        title_justify="left",
        box=box.SIMPLE_HEAD if compact else box.HEAVY_HEAD,
        show_edge=not compact,
        padding=(0, 1),
    )
    table.add_column("#", justify="right")
    table.add_column("bot", no_wrap=True, min_width=8)
    table.add_column("rating", justify="right", no_wrap=True)
    table.add_column("±95%" if compact else "−/+ 95%", justify="right", no_wrap=True)
    if live_elo is not None:
        table.add_column("live", justify="right", no_wrap=True)
    table.add_column("games", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("wins", justify="right", no_wrap=True)
    table.add_column("t/o" if compact else "timeouts", justify="right", no_wrap=True)
    table.add_column("strikes", justify="right", no_wrap=True)
    for row in rows:
        name = Text(row.bot, style="bold" if row.connected else "")
        cells = [str(row.rank), name, f"{row.rating:.0f}", format_ci(row.ci)]
        if live_elo is not None:
            cells.append(f"{live_elo.get(row.bot, 1500.0):.0f}")
        cells += [str(row.games), f"{100 * row.score:.1f}%", str(row.wins), str(row.timeouts), str(row.strikes)]
        table.add_row(*cells)
    if not rows:
        table.caption = "no finished games yet"
    return table


@dataclass
class RunningGame:
    game_id: str
    ruleset: str
    players: tuple[str, ...]
    rotation: str  # e.g. "2/3"
    started: float  # time.monotonic()


@dataclass
class FinishedGame:
    game_id: str
    ruleset: str
    result: str  # "a 1st, b 2nd" or "aborted: reason"
    decisions: int
    seconds: float


@dataclass
class DashboardView:
    """A snapshot of what the ladder is doing; the director keeps it up to date."""

    address: str
    started: float = field(default_factory=time.monotonic)
    connected: list[str] = field(default_factory=list)
    finished: int = 0
    aborted: int = 0
    decisions: int = 0
    running: dict[str, RunningGame] = field(default_factory=dict)
    latest: Deque[FinishedGame] = field(default_factory=lambda: deque(maxlen=8))
    standings: dict[str, list[Standing]] = field(default_factory=dict)
    live_elo: dict[str, dict[str, float]] = field(default_factory=dict)
    note: str = ""

    def uptime(self, now: float | None = None) -> float:
        return max(0.0, (now if now is not None else time.monotonic()) - self.started)

    def games_per_minute(self, now: float | None = None) -> float:
        minutes = self.uptime(now) / 60.0
        return self.finished / minutes if minutes > 0 else 0.0


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


#: Rulesets shown as full tables on the live view; the rest get one line each, so the
#: view fits a terminal even when a ladder plays every ruleset.
FULL_TABLES = 2
RUNNING_SHOWN = 5
LATEST_SHOWN = 6


def _short_id(game_id: str) -> str:
    """The random tail of a game id (the date part is the same for every game of a run)."""
    return game_id.rsplit("-", 1)[-1]


def render_dashboard(view: DashboardView, now: float | None = None) -> RenderableType:
    now = now if now is not None else time.monotonic()
    header = Text.assemble(
        ("Mau Arena ladder ", "bold"),
        f"at {view.address}   up {_duration(view.uptime(now))}   ",
        f"bots {len(view.connected)}   running {len(view.running)}   ",
        f"finished {view.finished}   aborted {view.aborted}   ",
        (f"{view.games_per_minute(now):.1f} games/min", "bold"),
    )
    parts: list[RenderableType] = [Panel(header)]
    if view.note:
        parts.append(Text(view.note, style="yellow"))
    if not view.standings:
        parts.append(Text("waiting for the first finished game…", style="dim"))
    by_games = sorted(view.standings.items(), key=lambda item: (-sum(r.games for r in item[1]), item[0]))
    for ruleset, rows in by_games[:FULL_TABLES]:
        parts.append(leaderboard_table(ruleset, rows, live_elo=view.live_elo.get(ruleset, {}), compact=True))
    for ruleset, rows in by_games[FULL_TABLES:]:
        parts.append(Text.assemble((f"{ruleset}: ", "bold"), _one_line(rows)))
    if view.standings:
        parts.append(Text("rating: maximum-likelihood fit ±95%; live: Elo updated after every game; "
                          "bold: connected", style="dim"))

    running = Table(title="games running now", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                    padding=(0, 1))
    for column in ("game", "ruleset", "set", "seats", "for"):
        running.add_column(column, no_wrap=True)
    for game in sorted(view.running.values(), key=lambda g: g.started)[:RUNNING_SHOWN]:
        running.add_row(
            _short_id(game.game_id), game.ruleset, game.rotation, ", ".join(game.players), _duration(now - game.started)
        )
    if len(view.running) > RUNNING_SHOWN:
        running.caption = f"and {len(view.running) - RUNNING_SHOWN} more"
    parts.append(running)

    latest = Table(title="latest results", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                   padding=(0, 1))
    for column in ("game", "ruleset", "result", "decisions", "s"):
        latest.add_column(column, no_wrap=column != "result")
    for game in list(reversed(view.latest))[:LATEST_SHOWN]:
        latest.add_row(_short_id(game.game_id), game.ruleset, game.result, str(game.decisions), f"{game.seconds:.1f}")
    parts.append(latest)
    return Group(*parts)


def _one_line(rows: Sequence[Standing], shown: int = 6) -> str:
    return ", ".join(
        f"{r.rank}. {r.bot} {r.rating:.0f}{format_ci(r.ci) if math.isfinite(r.ci) else ' ±?'} ({_games(r.games)})"
        for r in rows[:shown]
    )


def _games(count: int) -> str:
    return f"{count} game" if count == 1 else f"{count} games"


def plain_summary(view: DashboardView, now: float | None = None) -> str:
    """A few lines for logs and pipes, when a live view makes no sense."""
    now = now if now is not None else time.monotonic()
    lines = [
        f"[{_duration(view.uptime(now))}] {view.address}: bots {len(view.connected)}, running {len(view.running)}, "
        f"finished {view.finished}, aborted {view.aborted}, {view.games_per_minute(now):.1f} games/min"
    ]
    for ruleset, rows in view.standings.items():
        lines.append(f"  {ruleset}: {_one_line(rows, shown=8)}")
    return "\n".join(lines)
