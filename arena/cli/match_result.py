"""What `arena match` shows: the progress bar, the per-game lines, the result table and its JSON."""

from __future__ import annotations

import math
import re
import sys
from typing import Any, Iterable

from arena.match.outcome import GameOutcome
from arena.match.plan import PlannedGame
from arena.match.schedule import MatchRun
from arena.printable import printable


class progress:
    """A rich progress bar on stderr: games done, the score so far and, for two bots, the Elo."""

    def __init__(self, total: int, match: MatchRun, verbose_out: Any = None):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.match = match
        self.progress = Progress(
            TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("{task.fields[summary]}"),
            console=Console(stderr=True, width=None if sys.stderr.isatty() else 150), transient=False,
        )
        self.task = self.progress.add_task("games", total=total, summary="")
        self.verbose_out = verbose_out

    def __enter__(self) -> "progress":
        self.progress.start()

        def update(run: MatchRun, planned: PlannedGame | None = None, outcome: GameOutcome | None = None) -> None:
            done = run.stats.finished + run.stats.aborted
            summary = run.stats.summary()
            if run.sprt is not None:
                lower, upper = run.sprt.bounds
                summary += f"  LLR {run.sprt.llr(pairs=run.stats.pairs):.2f} ({lower:.2f}, {upper:.2f})"
            self.progress.update(self.task, completed=done, summary=summary)
            if self.verbose_out is not None and outcome is not None:
                self.verbose_out.print(describe_game(done, planned, outcome), soft_wrap=True, markup=False)
                self.verbose_out.file.flush()

        self.match.on_progress = update
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()


def describe_game(number: int, planned: PlannedGame, outcome: GameOutcome) -> str:
    """``Finished game 3 (deal 1, seed 1001): a 1st 0 pts, b 2nd 35 pts (finished)``, escaped for a terminal."""
    return printable(_game_line(number, planned, outcome))


def _game_line(number: int, planned: PlannedGame, outcome: GameOutcome) -> str:
    if outcome.status != "finished":
        return f"Finished game {number} (deal {planned.set_index}, seed {planned.seed}): aborted ({outcome.reason})"
    seats = sorted(outcome.seats, key=lambda s: (s.placement, s.seat))
    shown = ", ".join(
        f"{s.name} #{s.placement} {s.points} pts" + (" forfeited" if s.forfeited else "") for s in seats
    )
    return f"Finished game {number} (deal {planned.set_index}, seed {planned.seed}): {shown} ({outcome.reason or 'finished'})"


_GAME_LINE = re.compile(r"Finished game \d+ \(deal \d+, seed (\d+)\): (.*)$")
_SEAT_PART = re.compile(r"^(\S+) #(\d+) (-?\d+) pts")


def parse_game_lines(lines: Iterable[str]) -> tuple[list[tuple[int, dict[str, int]]], int]:
    """The games of `describe_game`'s lines (``arena match -v``): ``(seed, {bot: placement})`` for each
    finished game, in order, and the number of aborted ones.  Other output may share a line (a
    progress bar's carriage returns); lines that are not game lines are skipped.  The seed names a
    deal across runs (each run counts its deals from 0), so the scripts that combine runs key on it."""
    found: list[tuple[int, dict[str, int]]] = []
    aborted = 0
    for raw in lines:
        for line in raw.split("\r"):
            match = _GAME_LINE.search(line.strip())
            if not match:
                continue
            if match.group(2).startswith("aborted"):
                aborted += 1
                continue
            places = {}
            for part in re.sub(r" \([^()]*\)$", "", match.group(2)).split(", "):
                seat = _SEAT_PART.match(part.strip())
                if seat:
                    places[seat.group(1)] = int(seat.group(2))
            if places:
                found.append((int(match.group(1)), places))
    return found, aborted


def _number(value: float, digits: int = 1) -> float | None:
    """JSON has no infinity: an unbounded figure is null."""
    return round(value, digits) if math.isfinite(value) else None


def result_record(match: MatchRun, ruleset: str, players: int, seed: int, interrupted: bool = False) -> dict:
    """What `print_result` shows, as JSON-ready data (``arena match --json``)."""
    stats = match.stats
    ranked = sorted(stats.lines.values(), key=lambda line: (-line.score, line.average_place, line.name))
    record: dict[str, Any] = {
        "ruleset": ruleset, "players": players, "first_seed": seed, "planned": len(match.plan),
        "finished": stats.finished, "aborted": stats.aborted, "interrupted": interrupted,
        "bots": [
            {"rank": rank, "bot": line.name, "games": line.games, "wins": line.wins, "losses": line.losses,
             "draws": line.draws, "score": round(line.score, 4), "firsts": line.firsts,
             "average_place": round(line.average_place, 3), "points": line.points,
             "ms_per_decision": round(line.ms_per_decision, 2), "strikes": line.strikes, "timeouts": line.timeouts,
             "forfeits": line.forfeits, "crashes": line.crashes, "hangs": line.hangs,
             "errors": line.errors}
            for rank, line in enumerate(ranked, 1)
        ],
        "elo": None,
        "sprt": None,
    }
    estimate = stats.elo()
    if estimate is not None:
        record["elo"] = {
            "bots": list(stats.names), "elo": _number(estimate.elo), "low": _number(estimate.low),
            "high": _number(estimate.high), "los": _number(estimate.los, 4),
            "pairs": list(stats.pairs) if sum(stats.pairs) else None,
        }
    if match.sprt is not None:
        lower, upper = match.sprt.bounds
        record["sprt"] = {"elo0": match.sprt.elo0, "elo1": match.sprt.elo1, "alpha": match.sprt.alpha,
                          "beta": match.sprt.beta, "llr": _number(match.sprt.llr(pairs=stats.pairs), 3),
                          "lower": round(lower, 3), "upper": round(upper, 3), "verdict": match.verdict}
    return record


def print_result(out: Any, match: MatchRun, interrupted: bool = False) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    stats = match.stats
    title = "Partial result" if interrupted else "Result"
    extra = f", {stats.aborted} aborted" if stats.aborted else ""
    # Short headers, one space between columns, forfeits only when there are some: the
    # figures stay whole at 80 columns, and a long bot name wraps instead of squeezing them.
    ranked = sorted(stats.lines.values(), key=lambda line: (-line.score, line.average_place, line.name))
    columns = {
        "#": lambda rank, line: str(rank), "bot": lambda rank, line: Text(printable(line.name)),
        "games": lambda rank, line: str(line.games), "W": lambda rank, line: str(line.wins),
        "L": lambda rank, line: str(line.losses), "D": lambda rank, line: str(line.draws),
        "score": lambda rank, line: f"{100 * line.score:.1f}%", "1st": lambda rank, line: str(line.firsts),
        "place": lambda rank, line: f"{line.average_place:.2f}", "points": lambda rank, line: str(line.points),
        "ms": lambda rank, line: f"{line.ms_per_decision:.1f}", "strikes": lambda rank, line: str(line.strikes),
        "t/o": lambda rank, line: str(line.timeouts), "forfeits": lambda rank, line: str(line.forfeits),
        "crashes": lambda rank, line: str(line.crashes), "hangs": lambda rank, line: str(line.hangs),
        "errors": lambda rank, line: str(line.errors),
    }
    if not any(line.forfeits for line in ranked):
        del columns["forfeits"]
    if not any(line.errors for line in ranked):
        del columns["errors"]
    if not any(line.crashes for line in ranked):
        del columns["crashes"]
    if not any(line.hangs for line in ranked):
        del columns["hangs"]
    table = Table(title=f"{title}: {stats.finished} games{extra}", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0),
                  caption="W/L/D: pairwise results; place: mean placement; "
                  "ms: think time per decision; t/o: timeouts"
                  + ("; errors: the bot's own code failed and its SDK played the first legal action"
                     if "errors" in columns else ""), caption_justify="left")
    for column in columns:
        if column == "bot":
            table.add_column(column, justify="left", overflow="fold", min_width=8)
        else:
            table.add_column(column, justify="right", no_wrap=True)
    for rank, line in enumerate(ranked, 1):
        table.add_row(*(cell(rank, line) for cell in columns.values()))
    out.print(table)
    if len(stats.names) > 2:
        out.print("Wins, losses and draws count every pair of seats in a game by placement.")
    estimate = stats.elo()
    if estimate is not None:
        a, b = stats.names
        counted = f"{sum(stats.pairs)} pairs {stats.pairs}" if sum(stats.pairs) else f"{stats.finished} games"
        if estimate.margin == 0 and estimate.games < 100:
            out.print(f"Elo difference ({a} - {b}): {estimate.elo + 0.0:+.1f}, interval not yet measurable "
                      f"(every {'pair' if sum(stats.pairs) else 'game'} scored the same; {counted})")
        elif math.isfinite(estimate.low) and math.isfinite(estimate.high):
            out.print(
                f"Elo difference ({a} - {b}): {estimate.elo + 0.0:+.1f} +/- {estimate.margin:.1f} "
                f"(95%: {estimate.low + 0.0:+.1f} .. {estimate.high + 0.0:+.1f}), LOS {100 * estimate.los:.1f}%, "
                f"from {counted}"
            )
        elif not math.isfinite(estimate.elo):
            out.print(f"Elo difference ({a} - {b}): not yet measurable ({counted}: one bot won everything)")
        else:
            out.print(f"Elo difference ({a} - {b}): {estimate.elo + 0.0:+.1f}, the 95% interval is still unbounded "
                      f"({counted}); play more games")
    if match.sprt is not None:
        sprt = match.sprt
        lower, upper = sprt.bounds
        llr = sprt.llr(pairs=stats.pairs)
        decided = {"H1": f"H1 accepted: {stats.names[0]} is stronger by at least {sprt.elo1:g} Elo",
                   "H0": f"H0 accepted: {stats.names[0]} is not stronger by more than {sprt.elo0:g} Elo"}
        out.print(
            f"SPRT ({sprt.elo0:g}, {sprt.elo1:g}), alpha {sprt.alpha:g}, beta {sprt.beta:g}: "
            f"LLR {llr:.2f} (bounds {lower:.2f}, {upper:.2f}): "
            + (decided[match.verdict] if match.verdict else "no decision yet")
        )
