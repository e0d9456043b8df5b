"""Frames of a replay as rich renderables: the seats, the table's middle, the log, the whole frame.

Everything here is generic over the engine contract: it reads observation
dicts, never engine internals, so every ruleset renders.  Cards and values
are drawn by ``arena.replay.cards``; the table's middle is told in each
game's own terms by ``arena.replay.facts``; bots appear by name, in the
status line, the log and the seat arguments of actions.  A seat's view and the spectator view are built *only* from
``state.observation(seat)``; only the omniscient view looks at every
seat's observation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from arena.games import GameError, GameState, PublicEvent
from arena.games.cards import is_card_code
from arena.printable import printable
from arena.replay.cards import card, hand, hidden_hand, ordinal, safe, seat_name, value, wild_token
from arena.replay.facts import describe
from arena.replay.format import DecisionRecord
from arena.replay.reader import Replay

MASKED = "??"
#: Verbs whose argument is a seat number: shown with the bot's name (``accuse greedy``).
SEAT_VERBS = frozenset({"accuse", "target", "catch"})


@dataclass(frozen=True)
class View:
    """Whose eyes the frame uses: everyone's (``omniscient``), one seat's, or a spectator's."""

    kind: str  # "omniscient" | "seat" | "spectator"
    seat: int | None = None

    @classmethod
    def omniscient(cls) -> "View":
        return cls("omniscient")

    @classmethod
    def spectator(cls) -> "View":
        return cls("spectator")

    @classmethod
    def of_seat(cls, seat: int) -> "View":
        return cls("seat", seat)

    def next(self, players: int) -> "View":
        """omniscient -> seat 0 .. seat n-1 -> spectator -> omniscient."""
        if self.kind == "omniscient":
            return View.of_seat(0)
        if self.kind == "seat" and self.seat is not None and self.seat + 1 < players:
            return View.of_seat(self.seat + 1)
        if self.kind == "seat":
            return View.spectator()
        return View.omniscient()

    def __str__(self) -> str:
        return f"seat {self.seat}" if self.kind == "seat" else self.kind


# ---------------------------------------------------------------- seats and table


@dataclass
class SeatRow:
    """One seat as a frame shows it: its bot, its hand (face up when the view may see it), its standing."""

    seat: int
    name: str
    cards: Sequence[str] | None
    size: int | None
    score: Any = None
    to_decide: bool = False
    marks: str = ""
    placement: Any = None


def seat_table(rows: Sequence[SeatRow]) -> Table:
    """Every seat on one line each (a long hand wraps), the seat to decide marked with ▶."""
    table = Table(box=None, padding=(0, 1), show_header=False, expand=False, show_edge=False)
    table.add_column(no_wrap=True)               # ▶ and the seat number
    table.add_column(overflow="fold")  # the bot
    table.add_column(overflow="fold", ratio=1)   # the cards
    table.add_column(no_wrap=True, justify="right")  # score, place, strikes
    for row in rows:
        if row.cards is not None:
            body = hand(row.cards) + (Text(f" ({len(row.cards)})", style="dim") if row.cards else Text())
        elif row.size is not None:
            body = hidden_hand(row.size)
        else:
            body = Text("?", style="dim")
        facts = [f"{ordinal(row.placement)}" if row.placement is not None else "",
                 f"score {value(row.score).plain}" if row.score is not None else "", row.marks]
        style = "bold yellow" if row.to_decide else ""
        table.add_row(Text(f"{'▶' if row.to_decide else ' '}{row.seat}", style=style),
                      Text(safe(row.name), style=style or "bold"),
                      body, Text(" · ".join(f for f in facts if f), style="dim"))
    return table


def table_facts(observation: Mapping[str, Any], names: Sequence[str] = ()) -> Table:
    """The middle of the table in the game's own terms (see ``arena.replay.facts``)."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", justify="right", no_wrap=True)
    grid.add_column(overflow="fold")
    for label, text in describe(observation, names):
        grid.add_row(label, text)
    return grid


# ---------------------------------------------------------------- the log


def public_tokens(state: GameState) -> set[str]:
    """Every text anyone at the table can see right now (strings in the spectator observation)."""
    found: set[str] = set()

    def walk(item: Any) -> None:
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            for v in item.values():
                walk(v)
        elif isinstance(item, (list, tuple)):
            for v in item:
                walk(v)

    walk(state.observation(None).to_dict())
    return found


def action_text(words: Sequence[str], names: Sequence[str] = ()) -> Text:
    """An action's words with cards drawn as cards and seat arguments as bot names (``accuse greedy``)."""
    out = Text()
    for n, word in enumerate(words):
        if n:
            out.append(" ")
        if n == 1 and words[0] in SEAT_VERBS and word.isdigit() and names:
            out.append(seat_name(names, int(word)), style="italic")
        else:
            out.append_text(card(word) if is_card_code(word) else wild_token(word) if ":" in word else Text(word))
    return out


def public_text(events: Sequence[PublicEvent], actor: int, names: Sequence[str] = ()) -> Text:
    """One decision's public events in a line: the actor's own plainly, another seat's as ``sN: ...``."""
    out = Text()
    for n, event in enumerate(events):
        if n:
            out.append(" · ", style="dim")
        if event.seat is not None and event.seat != actor:
            out.append(f"s{event.seat}: ", style="dim")
        out.append_text(action_text(event.text.split(), names))
    return out


ActionShower = Callable[[DecisionRecord], Text]


def decision_log(decisions: Sequence[DecisionRecord], step: int, view: View, show: ActionShower,
                 rows: int = 14, names: Sequence[str] = (), ahead: bool = False) -> Table:
    """The decisions up to ``step`` (the latest ``rows``), with think times and flags.

    Decisions after the current step are listed only when ``ahead`` is asked
    for, and only in the omniscient view: a seat or a spectator cannot know
    what comes next, and a reader stepping through a game should not have it
    spoiled.
    """
    last = len(decisions) if ahead and view.kind == "omniscient" else step
    start = max(0, min(step - rows // 2, last - rows)) if last > step else max(0, step - rows)
    table = Table(box=None, padding=(0, 1), expand=False, show_edge=False)
    table.add_column("#", justify="right", style="dim", no_wrap=True)
    table.add_column("bot", overflow="fold")
    table.add_column("action", overflow="fold")
    table.add_column("ms", justify="right", style="dim", no_wrap=True)
    for record in decisions[start:last][:rows]:
        flags = " ".join(f for f, on in (("TIMEOUT", record.timeout), ("STRIKE", record.strike),
                                          ("ERROR", bool(record.bot_error))) if on)
        style = "reverse" if record.i == step else ("dim" if record.i > step else "")
        shown = show(record)
        if flags:
            shown = shown + Text(f" {flags}", style="bold red")
        table.add_row(str(record.i), seat_name(names, record.seat), shown, str(record.think_ms), style=style)
    return table


# ---------------------------------------------------------------- the whole frame


class FrameBuilder:
    """Builds frames for one replay; keeps the re-simulated states and what each step revealed."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.names = [safe(n) for n in replay.header.names]
        self.simulation = replay.simulate()
        self.states = self.simulation.states
        # what the table could see after each step, and what each actor held before acting:
        # together they decide which of another seat's action words a seat or spectator may read
        self.revealed_after = [public_tokens(s) for s in self.states]
        self.held_before = [
            set(self.states[record.i - 1].observation(record.seat).to_dict().get("hand") or [])
            for record in replay.decisions[: self.last_step]  # none when not even the deal re-simulates
        ]
        # each seat's (strikes, timeouts, bot errors) before each step, counted on when first asked for
        self._marks_before: list[tuple[tuple[int, int, int], ...]] = [((0, 0, 0),) * replay.players]

    def shown_action(self, record: DecisionRecord, view: View) -> Text:
        """An action as ``view`` may read it: the engine's public events of that decision (what the
        table saw happen: the play, the count drawn, a Blind claim...), the seat's own action as it
        was for its own view and the omniscient one.  Engines without public events: another seat's
        cards that did not become public are ``??``."""
        words = record.action.split()
        if view.kind == "omniscient" or (view.kind == "seat" and view.seat == record.seat):
            return action_text(words, self.names)
        events = self.simulation.events
        if events is not None and record.i < len(events):
            return public_text(events[record.i], record.seat, self.names)
        if record.i >= len(self.revealed_after):  # past where re-simulation stopped: show nothing secret
            return action_text([MASKED if is_card_code(w) else w for w in words], self.names)
        public, held = self.revealed_after[record.i], self.held_before[record.i - 1]
        return action_text([MASKED if (is_card_code(w) or w in held) and w not in public else w for w in words],
                           self.names)

    @property
    def last_step(self) -> int:
        """The furthest step that re-simulates (normally the number of decisions)."""
        return max(0, len(self.states) - 1)

    def title(self, step: int, view: View) -> Text:
        header = self.replay.header
        text = Text(f"{header.ruleset}", style="bold")
        text.append(f" · {header.players} players · step {step}/{len(self.replay.decisions)} · view: {view}")
        text.append(f" · {header.game_id}", style="dim")
        if not self.replay.complete:
            text.append(" · PARTIAL (cut off)", style="bold red")
        elif self.replay.status != "finished":
            text.append(f" · {self.replay.status.upper()}", style="bold red")
        return text

    def status(self, step: int, view: View) -> Text:
        state = self.states[step]
        text = Text()
        if step == 0:
            text.append("the deal")
        else:
            record = self.replay.decisions[step - 1]
            text.append(f"{record.i}. {seat_name(self.names, record.seat)}: ", style="bold")
            text.append_text(self.shown_action(record, view))
            if record.timeout:
                text.append(" · TIMEOUT", style="bold red")
            if record.strike:
                text.append(" · STRIKE", style="bold red")
            if record.bot_error:
                # The bot's own text may name its cards: only its own seat's view and the omniscient
                # one show it, escaped (never raw); other views only see that there was an error.
                own = view.kind == "omniscient" or (view.kind == "seat" and view.seat == record.seat)
                detail = f" in the bot's code: {printable(record.bot_error)}" if own else ""
                text.append(f" · ERROR{detail}", style="bold red")
        text.append("\n")
        if state.is_over:
            text.append_text(self.result_line(state))
        elif state.current is not None:
            text.append(f"next: {seat_name(self.names, state.current)} ({state.decision})", style="bold yellow")
        if step == self.last_step and self.simulation.error:
            text.append(f"\nre-simulation stops here: {self.simulation.error}", style="bold red")
        return text

    def result_line(self, state: GameState) -> Text:
        """``game over: greedy wins with 15 points; 2nd random 105`` (placements and points by bot name)."""
        try:
            result = state.result()
        except GameError:
            return Text("game over", style="bold green")
        order = sorted(range(len(result.placements)), key=lambda seat: (result.placements[seat], seat))
        winners = [seat for seat in order if result.placements[seat] == 1]
        text = Text("game over: ", style="bold green")
        points = list(result.points)
        if len(winners) == 1:
            text.append(f"{seat_name(self.names, winners[0])} wins", style="bold green")
            if points:
                text.append(f" with {points[winners[0]]} points", style="green")
        else:
            shared = " and ".join(seat_name(self.names, s) for s in winners)
            text.append(f"{shared} share 1st" + (f" with {points[winners[0]]} points" if points else ""),
                        style="bold green")
        rest = [f"{ordinal(result.placements[s])} {seat_name(self.names, s)}"
                + (f" {points[s]}" if points else "") for s in order if s not in winners]
        if rest:
            text.append("; " + ", ".join(rest))
        if result.reason:
            text.append(f" ({result.reason})", style="dim")
        return text

    def seats(self, step: int, view: View) -> Table:
        return seat_table(self.seat_rows(step, view))

    def seat_rows(self, step: int, view: View) -> list[SeatRow]:
        """Every seat at ``step`` as ``view`` may see it: hands face up only where the view may look."""
        state = self.states[step]
        observation = state.observation(None if view.kind != "seat" else view.seat).to_dict()
        sizes = observation.get("hand_sizes") or []
        scores = observation.get("scores") or []
        counted = self.marks_before(step)
        placements = state.result().placements if state.is_over else None
        rows = []
        for seat in range(self.replay.players):
            if view.kind == "omniscient":
                cards = state.observation(seat).to_dict().get("hand")
            elif view.kind == "seat" and seat == view.seat:
                cards = observation.get("hand")
            else:
                cards = None
            strikes, timeouts, errors = counted[seat]
            marks = " · ".join(m for m in (_count(strikes, "strike"), _count(timeouts, "timeout"),
                                           _count(errors, "error")) if m)
            rows.append(SeatRow(
                seat, self.names[seat] if seat < len(self.names) else f"seat {seat}", cards,
                sizes[seat] if seat < len(sizes) else None,
                scores[seat] if seat < len(scores) else None,
                state.current == seat, marks,
                placements[seat] if placements else None,
            ))
        return rows

    def marks_before(self, step: int) -> tuple[tuple[int, int, int], ...]:
        """Each seat's strikes, timeouts and bot errors in the decisions before ``step`` (0 or more; beyond the
        last, all of them).  Counted once, on from the last step asked for: every frame of a game asks, and
        counting from the start each time made a view's frames quadratic in the game's length (a 9,000-decision
        game's spectator view took 12.8 s)."""
        counted, decisions = self._marks_before, self.replay.decisions
        step = min(step, len(decisions))
        while len(counted) <= step:
            record, row = decisions[len(counted) - 1], counted[-1]
            if 0 <= record.seat < len(row):
                strikes, timeouts, errors = row[record.seat]
                mark = (strikes + record.strike, timeouts + record.timeout, errors + bool(record.bot_error))
                row = row[:record.seat] + (mark,) + row[record.seat + 1:]
            counted.append(row)
        return counted[step]

    def table(self, step: int, view: View, compact: bool = False) -> RenderableType:
        """Everything but the log: title, status, the table's middle, the seats.

        ``compact`` drops the panels' borders, for a terminal of 24 lines.
        """
        step = max(0, min(step, self.last_step))
        if not self.states:
            return Text(f"cannot re-simulate: {self.simulation.error}", style="bold red")
        seat = view.seat if view.kind == "seat" else None
        observation = self.states[step].observation(seat).to_dict()
        facts, seats = table_facts(observation, self.names), self.seats(step, view)
        if compact:
            return Group(self.title(step, view), self.status(step, view), Rule(style="grey50"), facts, seats)
        middle = Panel(facts, title="table", title_align="left", border_style="grey50", padding=(0, 1))
        seats_panel = Panel(seats, title="seats", title_align="left", border_style="grey50", padding=(0, 1))
        return Group(self.title(step, view), self.status(step, view), middle, seats_panel)

    def log(self, step: int, view: View, rows: int = 14, ahead: bool = False, compact: bool = False) -> RenderableType:
        log = decision_log(self.replay.decisions, step, view, lambda record: self.shown_action(record, view), rows,
                           self.names, ahead)
        if compact:
            return log
        title = "decisions" + (" (and what comes next)" if ahead and view.kind == "omniscient" else "")
        return Panel(log, title=title, title_align="left", border_style="grey50", padding=(0, 1))

    def frame(self, step: int, view: View, rows: int = 14, ahead: bool = False) -> RenderableType:
        return Group(self.table(step, view), self.log(step, view, rows, ahead))


def _count(n: int, noun: str) -> str:
    return "" if not n else f"{n} {noun}" if n == 1 else f"{n} {noun}s"
