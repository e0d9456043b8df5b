"""The frame of a game watched live: built from the public stream alone.

`arena watch` feeds it the ``SpectatorEvent`` messages of the server's
``Spectate`` call: each event is one decision in public form and the
spectator observation after it.  Nothing else reaches it, so it can show no
more than any spectator at the table could see; the drawing (cards, the
table's facts in the game's own terms, the seat rows) is the replay
viewer's, so a live game and its replay look alike.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from arena.replay.cards import ordinal, safe, seat_name
from arena.replay.render import SeatRow, action_text, seat_table, table_facts

#: Keys of the SDK's observation that the seat rows already show.
_SEAT_KEYS = ("seats", "statuses", "players", "names", "seat_count")


@dataclass
class Played:
    index: int
    seat: int
    action: str


@dataclass
class WatchedGame:
    """What a spectator knows of one game so far: the latest public view and the decisions seen."""

    game_id: str
    observation: dict[str, Any] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    played: deque = field(default_factory=lambda: deque(maxlen=200))
    decisions: int = 0
    results: list[Mapping[str, Any]] | None = None
    reason: str = ""

    def add(self, index: int, seat: int, action: str, observation: Mapping[str, Any],
            names: Sequence[str]) -> Played | None:
        """Take one event; returns the decision it carried (None for the start position)."""
        self.observation = {k: v for k, v in observation.items() if k not in _SEAT_KEYS}
        if names:
            self.names = [safe(n) for n in names]
        if index <= 0 or seat < 0:
            return None
        self.decisions = index
        played = Played(index, seat, action)
        self.played.append(played)
        return played

    def end(self, results: Sequence[Mapping[str, Any]], reason: str) -> None:
        self.results, self.reason = list(results), reason

    # ------------------------------------------------------------ text

    def heading(self, address: str) -> str:
        """Which game this is, for the first line of the plain output: its ruleset, id, arena and seats."""
        ruleset = safe(str(self.observation.get("ruleset") or "?"))
        seats = f": {', '.join(self.names)}" if self.names else ""
        return f"watching {ruleset} game {safe(self.game_id)} on {safe(address)}{seats}"

    def line(self, played: Played) -> str:
        return f"{played.index}. {seat_name(self.names, played.seat)}: {action_text(played.action.split(), self.names).plain}"

    def result_line(self) -> Text:
        if self.results is None:
            return Text("")
        ranked = sorted(self.results, key=lambda r: (r.get("placement") or 99, r.get("seat", 0)))
        if not ranked or not any(r.get("placement") for r in ranked):
            return Text(f"game aborted: {safe(self.reason) or 'no result'}", style="bold red")
        text = Text("game over: ", style="bold green")
        first = ranked[0]
        text.append(f"{safe(first['name'])} wins with {first.get('points', 0)} points", style="bold green")
        rest = [f"{ordinal(r.get('placement'))} {safe(r['name'])} {r.get('points', 0)}"
                + (" (forfeit)" if r.get("forfeited") else "") for r in ranked[1:]]
        if rest:
            text.append("; " + ", ".join(rest))
        return text

    def frame(self, address: str, log_rows: int = 6) -> RenderableType:
        obs = self.observation
        title = Text(f"{obs.get('ruleset', '?')}", style="bold")
        title.append(f" · live from {address} · decision {self.decisions} · public view")
        title.append(f" · {self.game_id}", style="dim")
        if self.results is not None:
            status = self.result_line()
        elif obs.get("current") is not None:
            status = Text(f"next: {seat_name(self.names, obs['current'])} ({obs.get('decision', '')})",
                          style="bold yellow")
        else:
            status = Text("")
        sizes = list(obs.get("hand_sizes") or [])
        scores = list(obs.get("scores") or [])
        placements = {r.get("seat"): r.get("placement") for r in self.results or []}
        rows = [SeatRow(seat, self.names[seat] if seat < len(self.names) else f"seat {seat}", None,
                        sizes[seat] if seat < len(sizes) else None, scores[seat] if seat < len(scores) else None,
                        obs.get("current") == seat and self.results is None, "",
                        placements.get(seat) or None)
                for seat in range(max(len(sizes), len(self.names)))]
        log = Table(box=None, padding=(0, 1), show_header=False, show_edge=False)
        log.add_column(justify="right", style="dim", no_wrap=True)
        log.add_column(overflow="fold")
        log.add_column(overflow="fold")
        for played in list(self.played)[-log_rows:]:
            log.add_row(str(played.index), seat_name(self.names, played.seat),
                        action_text(played.action.split(), self.names))
        return Group(title, status, Rule(style="grey50"), table_facts(obs, self.names), seat_table(rows),
                     Rule("decisions", style="grey50", align="left"), log)
