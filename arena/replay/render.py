"""Rich renderables for the table: one per concept (card, hand, pile, seat panel, log, frame).

Everything here is generic over the engine contract: it reads observation
dicts, never engine internals, so every ruleset renders, including keys it
has never heard of (shown as ``key: value`` with card codes drawn as
cards).  A seat's view and the spectator view are built *only* from
``state.observation(seat)``; only the omniscient view looks at every
seat's observation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.games import GameError, GameState, PublicEvent
from arena.games.cards import is_card_code
from arena.replay.format import DecisionRecord
from arena.replay.reader import Replay

SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
OTHER_DECK_COLOURS = {"r": "red", "y": "yellow", "b": "dodger_blue1", "g": "green"}  # DD MAU's colour letters
_FRENCH = re.compile(r"^[2-9TJQKA][shdc]$")
_JOKER = re.compile(r"^X[1-9]$")
RED_SUITS = frozenset("hd")
RANK_LABELS = {"T": "10"}
HIDDEN_CARD = "▮"
MASKED = "??"
MAX_RECORDS = 12  # rows shown of a list of records in an observation (the latest ones)

# Keys drawn in their own place; everything else an engine adds goes to "more".
STANDARD_KEYS = frozenset({
    "ruleset", "seat", "seat_count", "players", "current", "decision", "hand", "hand_sizes", "discard",
    "stock_size", "direction", "scores", "active_suit", "pending", "obligation",
})


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


# ---------------------------------------------------------------- cards


def card(code: str) -> Text:
    """One card: rank and suit symbol, red or black on a light face; jokers as a star.

    Other decks' codes (DD MAU's ``R7``, ``PT-r``, ``JTT``...) keep their text,
    coloured by the colour letter they carry.
    """
    if not isinstance(code, str) or not is_card_code(code):
        return Text(str(code), style="bold cyan")
    if _FRENCH.match(code):
        colour = "red" if code[1] in RED_SUITS else "black"
        return Text(f"{RANK_LABELS.get(code[0], code[0])}{SUIT_SYMBOLS[code[1]]}", style=f"bold {colour} on grey93")
    if _JOKER.match(code):
        return Text(f"★{code[1]}", style="bold magenta on grey93")
    letter = code[-1] if "-" in code else code[0].lower() if code[1:].isdigit() else ""
    return Text(code, style=f"bold {OTHER_DECK_COLOURS.get(letter, 'white')} on grey23")


def suit_symbol(letter: str) -> Text:
    colour = "red" if letter in RED_SUITS else "default"
    return Text(f"{SUIT_SYMBOLS[letter]} ({letter})", style=f"bold {colour}")


def hand(cards: Iterable[str]) -> Text:
    cards = list(cards)
    if not cards:
        return Text("(empty)", style="dim")
    return Text(" ").join(card(c) for c in cards)


def hidden_hand(size: int) -> Text:
    return Text(HIDDEN_CARD * min(size, 30) + ("…" if size > 30 else ""), style="blue") + Text(f" {size}", style="dim")


def pile(discard: Sequence[str]) -> Text:
    """The visible discard pile, bottom to top; the top card stands out."""
    if not discard:
        return Text("(empty)", style="dim")
    parts = [card(c) for c in discard]
    parts[-1].stylize("underline")
    return Text(" ").join(parts) + Text("  ← top", style="dim")


def value(data: Any, key: str = "") -> Text:
    """Any JSON value an engine put in an observation, with card codes as cards."""
    if data is None:
        return Text("—", style="dim")
    if isinstance(data, bool):
        return Text("yes" if data else "no")
    if isinstance(data, str):
        if is_card_code(data):
            return card(data)
        if "suit" in key.lower() and data in SUIT_SYMBOLS:
            return suit_symbol(data)
        return Text(data)
    if isinstance(data, (list, tuple)):
        if not data:
            return Text("—", style="dim")
        if any(isinstance(item, dict) for item in data):  # records (melds, past rounds): one a line
            shown = list(data)[-MAX_RECORDS:]
            lines = [value(item, key) for item in shown]
            if len(data) > len(shown):
                lines.insert(0, Text(f"… {len(data) - len(shown)} earlier", style="dim"))
            return Text("\n").join(lines)
        return Text(" ").join(value(item, key) for item in data)
    if isinstance(data, dict):
        if not data:
            return Text("—", style="dim")
        parts = [Text(f"{k}=", style="dim") + value(v, str(k)) for k, v in data.items()]
        return Text(", ").join(parts)
    return Text(str(data))


def direction(data: Any) -> Text:
    if data in (1, "cw", "clockwise"):
        return Text("clockwise ↻")
    if data in (-1, "ccw", "counterclockwise", "counter-clockwise"):
        return Text("counter-clockwise ↺")
    return value(data)


# ---------------------------------------------------------------- seats and table


def seat_panel(
    seat: int,
    name: str,
    cards: Sequence[str] | None,
    size: int | None,
    score: Any,
    to_decide: bool,
    marks: str = "",
    placement: Any = None,
) -> Panel:
    """One seat: its bot, its hand (face up when the view may see it); score and strikes underneath."""
    if cards is not None:
        body = hand(cards) + (Text(f"  ({len(cards)})", style="dim") if cards else Text())
    elif size is not None:
        body = hidden_hand(size)
    else:
        body = Text("?", style="dim")
    facts = [f"place {placement}" if placement is not None else "",
             f"score {value(score).plain}" if score is not None else "", marks]
    facts_text = " · ".join(f for f in facts if f)
    title = Text(f"{'▶ ' if to_decide else ''}seat {seat} · {name}", style="bold yellow" if to_decide else "bold")
    return Panel(body, title=title, title_align="left", subtitle=facts_text or None, subtitle_align="right",
                 border_style="yellow" if to_decide else "grey50")


def _facts_grid() -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", justify="right", no_wrap=True)
    grid.add_column()
    return grid


def table_facts(observation: dict[str, Any]) -> Table:
    """The middle of the table: pile, stock, direction, suit, pending effects; beside them any other keys."""
    known = _facts_grid()
    known.add_row("discard", pile(list(observation.get("discard") or [])))
    known.add_row("stock", Text(str(observation.get("stock_size", "?"))))
    known.add_row("direction", direction(observation.get("direction")))
    for key in ("active_suit", "pending", "obligation"):
        if key in observation:
            shown = value(observation[key], key)
            if key == "active_suit" and observation[key] and observation.get("suit_kind"):
                shown.append(f" {observation['suit_kind']}", style="dim")  # wished or demanded
            known.add_row(key.replace("_", " "), shown)
    extras = _facts_grid()
    for key in sorted(k for k in observation if k not in STANDARD_KEYS and k != "suit_kind"):
        extras.add_row(key.replace("_", " "), value(observation[key], key))
    both = Table.grid(padding=(0, 4))
    both.add_column()
    both.add_column()
    both.add_row(known, extras)
    return both


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


def action_text(words: Sequence[str]) -> Text:
    out = Text()
    for n, word in enumerate(words):
        if n:
            out.append(" ")
        out.append_text(card(word) if is_card_code(word) else Text(word))
    return out


def public_text(events: Sequence[PublicEvent], actor: int) -> Text:
    """One decision's public events in a line: the actor's own plainly, another seat's as ``sN: ...``."""
    out = Text()
    for n, event in enumerate(events):
        if n:
            out.append(" · ", style="dim")
        if event.seat is not None and event.seat != actor:
            out.append(f"s{event.seat}: ", style="dim")
        out.append_text(action_text(event.text.split()))
    return out


ActionShower = Callable[[DecisionRecord], Text]


def decision_log(decisions: Sequence[DecisionRecord], step: int, view: View, show: ActionShower,
                 rows: int = 14) -> Table:
    """The decisions around ``step``, with think times and flags.

    Only the omniscient view shows decisions after the current step: a
    seat or a spectator cannot know what comes next.
    """
    last = len(decisions) if view.kind == "omniscient" else step
    start = max(0, min(step - rows // 2, last - rows))
    table = Table(box=None, padding=(0, 1), expand=False, show_edge=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("seat", justify="right")
    table.add_column("action")
    table.add_column("ms", justify="right", style="dim")
    table.add_column("")
    for record in decisions[start:last][:rows]:
        flags = " ".join(f for f, on in (("TIMEOUT", record.timeout), ("STRIKE", record.strike)) if on)
        style = "reverse" if record.i == step else ("dim" if record.i > step else "")
        table.add_row(str(record.i), str(record.seat), show(record), str(record.think_ms),
                      Text(flags, style="bold red"), style=style)
    return table


# ---------------------------------------------------------------- the whole frame


class FrameBuilder:
    """Builds frames for one replay; keeps the re-simulated states and what each step revealed."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.simulation = replay.simulate()
        self.states = self.simulation.states
        # what the table could see after each step, and what each actor held before acting:
        # together they decide which of another seat's action words a seat or spectator may read
        self.revealed_after = [public_tokens(s) for s in self.states]
        self.held_before = [
            set(self.states[record.i - 1].observation(record.seat).to_dict().get("hand") or [])
            for record in replay.decisions[: len(self.states) - 1]
        ]

    def shown_action(self, record: DecisionRecord, view: View) -> Text:
        """An action as ``view`` may read it: the engine's public events of that decision (what the
        table saw happen: the play, the count drawn, a Blind claim...), the seat's own action as it
        was for its own view and the omniscient one.  Engines without public events: another seat's
        cards that did not become public are ``??``."""
        words = record.action.split()
        if view.kind == "omniscient" or (view.kind == "seat" and view.seat == record.seat):
            return action_text(words)
        events = self.simulation.events
        if events is not None and record.i < len(events):
            return public_text(events[record.i], record.seat)
        if record.i >= len(self.revealed_after):  # past where re-simulation stopped: show nothing secret
            return action_text([MASKED if is_card_code(w) else w for w in words])
        public, held = self.revealed_after[record.i], self.held_before[record.i - 1]
        return action_text([MASKED if (is_card_code(w) or w in held) and w not in public else w for w in words])

    @property
    def last_step(self) -> int:
        """The furthest step that re-simulates (normally the number of decisions)."""
        return max(0, len(self.states) - 1)

    def title(self, step: int, view: View) -> Text:
        header = self.replay.header
        text = Text(f"{header.game_id}", style="bold")
        text.append(f" · {header.ruleset} · {header.players} players · step {step}/{len(self.replay.decisions)}"
                    f" · view: {view}")
        if not self.replay.complete:
            text.append(" · PARTIAL (cut off)", style="bold red")
        elif self.replay.status != "finished":
            text.append(f" · {self.replay.status.upper()}", style="bold red")
        return text

    def status(self, step: int, view: View) -> Text:
        state = self.states[step]
        names = self.replay.header.names
        text = Text()
        if step == 0:
            text.append("the deal")
        else:
            record = self.replay.decisions[step - 1]
            text.append(f"decision {record.i}: seat {record.seat} ({names[record.seat]}) ")
            text.append_text(self.shown_action(record, view))
            text.append(f" · {record.think_ms} ms")
            if record.timeout:
                text.append(" · TIMEOUT", style="bold red")
            if record.strike:
                text.append(" · STRIKE", style="bold red")
        text.append("   ")
        if state.is_over:
            try:
                result = state.result()
                text.append(f"game over: placements {list(result.placements)}, points {list(result.points)}",
                            style="bold green")
            except GameError:
                text.append("game over", style="bold green")
        elif state.current is not None:
            text.append(f"next: seat {state.current} ({names[state.current]}) · {state.decision}", style="bold yellow")
        if step == self.last_step and self.simulation.error:
            text.append(f"\nre-simulation stops here: {self.simulation.error}", style="bold red")
        return text

    def seats(self, step: int, view: View) -> list[Panel]:
        state = self.states[step]
        observation = state.observation(None if view.kind != "seat" else view.seat).to_dict()
        sizes = observation.get("hand_sizes") or []
        scores = observation.get("scores") or []
        strikes = [0] * self.replay.players
        timeouts = [0] * self.replay.players
        for record in self.replay.decisions[:step]:
            if 0 <= record.seat < self.replay.players:
                strikes[record.seat] += record.strike
                timeouts[record.seat] += record.timeout
        placements = state.result().placements if state.is_over else None
        panels = []
        for seat in range(self.replay.players):
            if view.kind == "omniscient":
                cards = state.observation(seat).to_dict().get("hand")
            elif view.kind == "seat" and seat == view.seat:
                cards = observation.get("hand")
            else:
                cards = None
            marks = " · ".join(m for m in (_count(strikes[seat], "strike"), _count(timeouts[seat], "timeout")) if m)
            panels.append(seat_panel(
                seat, self.replay.header.names[seat], cards,
                sizes[seat] if seat < len(sizes) else None,
                scores[seat] if seat < len(scores) else None,
                state.current == seat, marks,
                placements[seat] if placements else None,
            ))
        return panels

    def table(self, step: int, view: View) -> RenderableType:
        """Everything but the log: title, status, the table's middle, the seats."""
        step = max(0, min(step, self.last_step))
        if not self.states:
            return Text(f"cannot re-simulate: {self.simulation.error}", style="bold red")
        seat = view.seat if view.kind == "seat" else None
        observation = self.states[step].observation(seat).to_dict()
        middle = Panel(table_facts(observation), title="table", title_align="left", border_style="grey50")
        return Group(self.title(step, view), self.status(step, view), middle, *self.seats(step, view))

    def log(self, step: int, view: View, rows: int = 14) -> RenderableType:
        log = decision_log(self.replay.decisions, step, view, lambda record: self.shown_action(record, view), rows)
        return Panel(log, title="decisions", title_align="left", border_style="grey50")

    def frame(self, step: int, view: View, rows: int = 14) -> RenderableType:
        return Group(self.table(step, view), self.log(step, view, rows))


def _count(n: int, noun: str) -> str:
    return "" if not n else f"{n} {noun}" if n == 1 else f"{n} {noun}s"
