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
from typing import Callable, Deque, Sequence

from rich import box
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from arena.ladder.ranking import PROVISIONAL_GAMES
from arena.ladder.standings import Standing, format_ci
from arena.printable import printable


def output_console() -> "Console":
    """A console for printed tables: the terminal's width, or a wide one for pipes and files
    (rich assumes 80 columns there and would cut bot names short)."""
    import sys

    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=160)


#: How the tables are ordered (`arena.ladder.ranking`), said under `arena leaderboard`'s tables; the live
#: dashboard's legend says it shorter.
RANKING_LEGEND = "ranked by 95% low, the lower end of the 95% interval (rating − 1.96 standard errors)"
PROVISIONAL_LEGEND = f"*: provisional, fewer than {PROVISIONAL_GAMES} games"


def leaderboard_table(
    ruleset: str, rows: Sequence[Standing], *, live_elo: dict[str, float] | None = None, compact: bool = False,
    limit: int | None = None,
) -> Table:
    """rank, bot, rating, -/+ 95%, 95% low (what the rows are ranked by: `arena.ladder.ranking`), games
    (marked * while provisional), score %, wins, timeouts, strikes, errors (and the live Elo).

    compact: lighter borders and short headers, so the live view fits 80 columns; a long
    bot name wraps rather than being cut, the errors column appears only when a bot has
    some, and the 95% low column and the caption give way to the dashboard's legend, which
    says the ranking rule.
    limit: show the first rows only (and say so).
    """
    show_errors = not compact or any(row.errors for row in rows[:limit])
    table = Table(
        title=f"{ruleset} — Bradley-Terry ratings (95% interval)",
        title_justify="left",
        box=box.SIMPLE_HEAD if compact else box.HEAVY_HEAD,
        show_edge=not compact,
        padding=(0, 1, 0, 0) if compact else (0, 1),
    )
    table.add_column("#", justify="right")
    table.add_column("bot", overflow="fold", min_width=8)
    table.add_column("rating", justify="right", no_wrap=True)
    table.add_column("±95%" if compact else "−/+ 95%", justify="right", no_wrap=True)
    if not compact:  # the live view has no room at 60 columns: its legend says the rule
        table.add_column("95% low", justify="right", no_wrap=True)
    if live_elo is not None:
        table.add_column("live", justify="right", no_wrap=True)
    table.add_column("games", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("wins", justify="right", no_wrap=True)
    table.add_column("t/o" if compact else "timeouts", justify="right", no_wrap=True)
    table.add_column("strikes", justify="right", no_wrap=True)
    if show_errors:
        table.add_column("err" if compact else "errors", justify="right", no_wrap=True)
    for row in rows[:limit]:
        name = _safe(row.bot, style="bold" if row.connected else "")
        cells = [str(row.rank), name, f"{row.rating:.0f}", format_ci(row.ci) if math.isfinite(row.ci) else "±?"]
        if not compact:
            cells.append(_low(row))
        if live_elo is not None:
            cells.append(f"{live_elo.get(row.bot, 1500.0):.0f}")
        cells += [f"{row.games}*" if row.provisional else str(row.games), f"{100 * row.score:.1f}%", str(row.wins),
                  str(row.timeouts), str(row.strikes)]
        if show_errors:
            cells.append(str(row.errors))
        table.add_row(*cells)
    captions = []
    if not rows:
        captions.append("no finished games yet")
    elif limit is not None and len(rows) > limit:
        captions.append(f"and {len(rows) - limit} more (arena leaderboard --game {ruleset})")
    if rows and not compact:
        captions.append(RANKING_LEGEND)
        if any(row.provisional for row in rows[:limit]):
            captions.append(PROVISIONAL_LEGEND)
    table.caption = "\n".join(captions) or None
    return table


def _low(row: Standing) -> str:
    """The rank score as the tables show it ("?" while the interval is unbounded)."""
    return f"{row.rank_score:.0f}" if math.isfinite(row.rank_score) else "?"


@dataclass
class RunningGame:
    game_id: str
    ruleset: str
    players: tuple[str, ...]
    rotation: str  # "-" since the ladder plays one game per deal (kept for callers; not shown)
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
    #: The live view's line under its header (yellow): what the ladder wants the operator to know now (it is
    #: stopping, the database is away, a demo bot died).  Set it with `tell`, take a problem's down with `take_down`.
    note: str = ""
    #: rulesets shown first as full tables (`arena serve --show`); the others page through
    show: list[str] = field(default_factory=list)
    #: Hears each note as it is told, for an output without the live view (`arena serve --plain` prints them):
    #: a text once until its problem is taken down (a note told again every round is not said every round),
    #: then what `take_down` says of its end.
    on_note: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    _told: set[str] = field(default_factory=set, repr=False, compare=False)

    def tell(self, note: str) -> None:
        """Show ``note`` on the live view, and say it to `on_note` unless it was said already."""
        self.note = note
        if note and note not in self._told:
            self._told.add(note)
            if self.on_note is not None:
                self.on_note(note)

    def take_down(self, prefix: str, ended: str) -> None:
        """A problem is over: the notes that start with ``prefix`` go (from the live view, if one is shown), and
        `on_note`, which had been told of it, hears ``ended``.  Nothing happens when none was told."""
        if self.note.startswith(prefix):
            self.note = ""
        over = {told for told in self._told if told.startswith(prefix)}
        if over:
            self._told -= over
            if self.on_note is not None:
                self.on_note(ended)

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


#: At most this many rulesets get full tables on the live view, and at most this many
#: running games and latest results are listed; fewer when the terminal is short.
FULL_TABLES = 2
RUNNING_SHOWN = 5
LATEST_SHOWN = 6
#: With more rulesets than fit, the full tables page through them, one step this often.
PAGE_S = 10.0


def _short_id(game_id: str) -> str:
    """The random tail of a game id (the date part is the same for every game of a run)."""
    return game_id.rsplit("-", 1)[-1]


def _safe(value: object, style: str = "") -> Text:
    """What a bot sent (names, versions, reasons), escaped and never read as markup."""
    return Text(printable(value), style=style)


def render_dashboard(view: DashboardView, now: float | None = None) -> RenderableType:
    """The live view: fits the console it is rendered on (width and height), nothing cut to "…"."""
    return Dashboard(view, now if now is not None else time.monotonic())


@dataclass
class Dashboard:
    """Lays the parts out for the console's size: the header, then as many rating tables as fit
    (the chosen rulesets first, paging through the rest), then running games and latest results
    with as many rows as are left."""

    view: DashboardView
    now: float

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        view, now = self.view, self.now
        free = options.update(height=None)
        left = options.height or options.max_height or 10**6

        def lines(part: RenderableType) -> int:
            return len(console.render_lines(part, free, pad=False))

        head: list[RenderableType] = [Text.assemble(
            ("Mau Arena ladder ", "bold"), f"{view.address}  up {_duration(view.uptime(now))}  ",
            f"bots {len(view.connected)}  running {len(view.running)}  finished {view.finished}  "
            f"aborted {view.aborted}  ", (f"{view.games_per_minute(now):.1f} games/min", "bold"),
        )]
        if view.note:
            head.append(Text(view.note, style="yellow"))
        if not view.standings:
            head.append(Text("waiting for the first finished game…", style="dim"))
        left -= sum(lines(part) for part in head)
        yield from head

        running_games = sorted(view.running.values(), key=lambda g: g.started)
        latest_games = list(reversed(view.latest))
        # The first rating table comes before all else but the notes under the tables (measured at
        # their longest) and a line each for the running games and the latest results; further
        # tables and one-line summaries leave room for a row of each.
        ordered = self.ruleset_order()
        notes_at_most = (lines(_hidden_note(ordered[1:])) if len(ordered) > 1 else 0) + (
            lines(_legend(view, ordered)) if view.standings else 0)
        latest_line = 1 if latest_games else 0
        floor = notes_at_most + 1 + latest_line
        reserve = notes_at_most + (lines(_running_table(running_games, now, 1)) if running_games else 1) + (
            lines(_latest_table(latest_games, 1)) if latest_games else 0)
        parts: list[RenderableType] = []
        shown: list[str] = []
        for ruleset in ordered[:FULL_TABLES]:
            rows = view.standings[ruleset]

            def build(n: int, ruleset: str = ruleset, rows: Sequence[Standing] = rows) -> Table:
                return leaderboard_table(ruleset, rows, live_elo=view.live_elo.get(ruleset, {}), compact=True, limit=n)

            if shown:  # a further table is shown whole or becomes a one-line summary below
                table = build(len(rows))
                table = table if lines(table) <= left - reserve else None
            else:
                table = _fitting_table(build, len(rows), lines, left - floor)
            if table is None:
                break
            parts.append(table)
            shown.append(ruleset)
            left -= lines(table)
        for ruleset in ordered[len(shown):]:
            line = Text.assemble((f"{ruleset}: ", "bold"), _one_line(view.standings[ruleset]))
            if lines(line) > left - reserve:
                break
            parts.append(line)
            shown.append(ruleset)
            left -= lines(line)
        hidden = [r for r in ordered if r not in shown]
        notes = [_hidden_note(hidden)] if hidden else []
        notes += [_legend(view, shown)] if view.standings else []
        left -= sum(lines(part) for part in notes)
        yield from parts + notes

        if not running_games:
            running = Text("games running now: none", style="dim") if left - latest_line >= 1 else None
        else:
            running = _fitting_table(lambda n: _running_table(running_games, now, n),
                                     min(len(running_games), RUNNING_SHOWN), lines, left - latest_line)
        if running is None and left - latest_line >= 1:
            running = Text(f"games running now: {len(running_games)} (a taller terminal lists them)", style="bold")
        if running is not None:
            left -= lines(running)
            yield running
        latest = _fitting_table(lambda n: _latest_table(latest_games, n), min(len(latest_games), LATEST_SHOWN),
                                lines, left)
        if latest is None and latest_games:
            newest = latest_games[0]
            latest = Text.assemble(("latest: ", "bold"), f"{newest.ruleset} ", _safe(newest.result))
            latest = latest if lines(latest) <= left else None
        if latest is not None:
            yield latest

    def ruleset_order(self) -> list[str]:
        """The chosen rulesets (``serve --show``) first; the others by games played, paged in turn."""
        view = self.view
        chosen = [r for r in view.show if r in view.standings]
        others = sorted((r for r in view.standings if r not in chosen),
                        key=lambda r: (-sum(row.games for row in view.standings[r]), r))
        if others and len(chosen) + len(others) > FULL_TABLES:
            step = int(view.uptime(self.now) // PAGE_S) % len(others)
            others = others[step:] + others[:step]
        return chosen + others


def _fitting_table(build, rows: int, lines, room: int) -> RenderableType | None:
    """``build(n)`` with the most rows (down to one) that fits ``room`` lines, or None.

    Every row takes a line at least, so a table ``excess`` lines too tall drops at least
    ``excess`` rows: one or two renders instead of one per row.
    """
    count = rows
    while count > 0:
        table = build(count)
        excess = lines(table) - room
        if excess <= 0:
            return table
        count -= excess
    if rows == 0:
        table = build(0)
        return table if lines(table) <= room else None
    return None


def _hidden_note(hidden: Sequence[str]) -> Text:
    return Text(f"also rated: {', '.join(hidden)} (pages every {PAGE_S:g} s; `arena serve --show` picks, "
                "`arena leaderboard` prints all)", style="dim")


def _legend(view: DashboardView, shown: Sequence[str]) -> Text:
    rows = [row for ruleset in shown for row in view.standings[ruleset]]
    unsure = any(not math.isfinite(row.ci) for row in rows)
    return Text("ranked by rating − ±95%; " + ("±?: too few games to bound the rating yet; " if unsure else "")
                + (f"*: provisional (<{PROVISIONAL_GAMES} games); " if any(row.provisional for row in rows) else "")
                + "live: Elo after each game; bold: connected", style="dim")


def _running_table(games: Sequence[RunningGame], now: float, count: int) -> Table:
    table = Table(title="games running now", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                  padding=(0, 1))
    for column in ("game", "ruleset", "seats", "for"):  # the ladder plays no rotations: no "set" column
        table.add_column(column, overflow="fold", no_wrap=column == "for")
    for game in games[:count]:
        table.add_row(_short_id(game.game_id), game.ruleset, _safe(", ".join(game.players)),
                      _duration(now - game.started))
    if len(games) > count:
        table.caption = f"and {len(games) - count} more"
    return table


def _latest_table(games: Sequence[FinishedGame], count: int) -> Table:
    table = Table(title="latest results", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                  padding=(0, 1))
    for column in ("game", "ruleset", "result", "decisions", "s"):
        table.add_column(column, overflow="fold", no_wrap=column in ("decisions", "s"))
    for game in games[:count]:
        table.add_row(_short_id(game.game_id), game.ruleset, _safe(game.result), str(game.decisions),
                      f"{game.seconds:.1f}")
    return table


def _one_line(rows: Sequence[Standing], shown: int = 6) -> str:
    """The first rows, in the leaderboard's order (by 95% low: the rating minus the ±)."""
    return printable(", ".join(
        f"{r.rank}. {r.bot} {r.rating:.0f}{format_ci(r.ci) if math.isfinite(r.ci) else '±?'} "
        f"({_games(r.games)}{', provisional' if r.provisional else ''})"
        for r in rows[:shown]
    ))


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
        lines.append(f"  {ruleset} (ranked by 95% low): {_one_line(rows, shown=8)}")
    return "\n".join(lines)
