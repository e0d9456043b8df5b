"""Reading replays, and re-simulating them through the same engine.

A replay stores only the seed and the action texts; every state is rebuilt
by `arena.games.new_game` and `apply`, so the viewer can show any seat's
view at any step, and the verifier can tell when an engine no longer plays
a recorded game the same way.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from arena.games import GameError, GameState, PublicEvent, new_game
from arena.replay.format import (
    ABORTED,
    DECISION,
    FINISHED,
    HEADER,
    PARTIAL,
    RESULT,
    DecisionRecord,
    ReplayFormatError,
    ReplayHeader,
)


@dataclass
class Replay:
    """One game as recorded.  ``complete`` is False for a file cut off by a crash."""

    path: Path
    header: ReplayHeader
    decisions: list[DecisionRecord]
    result: dict[str, Any] | None
    torn_line: bool = False  # the last line was half-written and was dropped
    _simulation: "Simulation | None" = field(default=None, repr=False)

    @property
    def complete(self) -> bool:
        return self.result is not None

    @property
    def status(self) -> str:
        if self.result is None:
            return PARTIAL
        return str(self.result.get("status") or FINISHED)

    @property
    def ruleset(self) -> str:
        return self.header.ruleset

    @property
    def players(self) -> int:
        return self.header.players

    def new_state(self) -> GameState:
        """The deal, before any decision."""
        return new_game(self.header.ruleset, self.header.players, self.header.seed, **self.header.options)

    def simulate(self) -> "Simulation":
        """Re-simulate once and keep every state (games are short; stepping back is then free)."""
        if self._simulation is None:
            self._simulation = Simulation.run(self)
        return self._simulation

    def states(self) -> Iterator[GameState]:
        """The deal, then the state after each decision; stops early if an action no longer applies."""
        return iter(self.simulate().states)

    def state_at(self, step: int) -> GameState:
        """The state after ``step`` decisions (0 is the deal); a clear error past the end."""
        simulation = self.simulate()
        if not 0 <= step <= len(self.decisions):
            raise IndexError(f"step {step} is outside 0..{len(self.decisions)} of {self.path.name}")
        if step >= len(simulation.states):
            raise GameError(f"cannot show step {step}: {simulation.error}")
        return simulation.states[step]


@dataclass
class Simulation:
    """Every state of a re-simulated replay, and where re-simulation stopped if it did."""

    states: list[GameState]
    error: str | None = None  # why the action after the last state did not apply
    #: The public events of each step (0: the deal; i: what decision i made happen), as every seat
    #: saw them; None if the engine records none.
    events: "list[tuple[PublicEvent, ...]] | None" = None

    @classmethod
    def run(cls, replay: Replay) -> "Simulation":
        try:
            state = replay.new_state()
        except GameError as error:
            return cls([], f"cannot start {replay.ruleset}: {error}")
        try:
            log: list[PublicEvent] | None = state.record_events()
        except NotImplementedError:
            log = None
        states = [state.clone()]
        events = None if log is None else [tuple(log)]
        for record in replay.decisions:
            if state.current != record.seat:
                return cls(states, f"decision {record.i}: recorded for seat {record.seat}, "
                                   f"but seat {state.current} is to decide", events)
            before = 0 if log is None else len(log)
            try:
                state.apply(record.action)
            except GameError as error:
                return cls(states, f"decision {record.i} ({record.action!r}) does not apply: {error}", events)
            states.append(state.clone())
            if events is not None:
                events.append(tuple(log[before:]))
        return cls(states, None, events)


def load(path: "str | os.PathLike[str]") -> Replay:
    """Read a replay (``.jsonl`` or a crashed ``.jsonl.part``).

    A half-written last line is dropped (that is what a crash leaves);
    anything else that is not a replay raises `ReplayFormatError` naming
    the file and line.  Unknown keys and unknown line types are ignored.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ReplayFormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ReplayFormatError(f"{path} is a directory, not a replay file") from None
    except OSError as error:
        raise ReplayFormatError(f"{path}: cannot read ({error.strerror})") from None
    return parse(raw, path)


def parse(raw: bytes, path: "str | os.PathLike[str]") -> Replay:
    """A replay from its text (what `load` reads from a file; a ladder database keeps it too).

    ``path`` names it in messages: the file it came from, or where it would be.
    """
    path = Path(path)
    text = raw.decode("utf-8", errors="replace")
    lines = text.split("\n")
    ends_cleanly = lines[-1] == ""
    if ends_cleanly:
        lines.pop()
    records: list[dict[str, Any]] = []
    torn = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not an object")
        except ValueError:
            if number == len(lines) and (not ends_cleanly or "\x00" in line):
                torn = True  # the write a crash interrupted (or the zeros a power loss leaves)
                break
            if number == 1:
                raise ReplayFormatError(f"{path}: not a replay (the first line is not JSON)") from None
            raise ReplayFormatError(f"{path}:{number}: not a JSON object; the file is damaged") from None
        records.append(record)
    if not records and torn:
        raise ReplayFormatError(f"{path}: cut off while its header was being written; nothing was played")
    if not records or records[0].get("type", HEADER) != HEADER:
        raise ReplayFormatError(f"{path}: not a replay (no header line)")
    try:
        header = ReplayHeader.from_dict(records[0])
    except ReplayFormatError as error:
        raise ReplayFormatError(f"{path}: {error}") from None
    decisions: list[DecisionRecord] = []
    result: dict[str, Any] | None = None
    for number, record in enumerate(records[1:], start=2):
        kind = record.get("type")
        if result is not None and kind in (DECISION, RESULT):
            raise ReplayFormatError(f"{path}:{number}: a {kind} line after the result line")
        if kind == DECISION:
            decision = DecisionRecord.from_dict(record, number)
            if decision.i != len(decisions) + 1:
                raise ReplayFormatError(f"{path}:{number}: decision {decision.i} where {len(decisions) + 1} was due")
            decisions.append(decision)
        elif kind == RESULT:
            result = dict(record)
            if result.get("status") not in (FINISHED, ABORTED):
                result["status"] = FINISHED if result.get("placements") else ABORTED
    return Replay(path=path, header=header, decisions=decisions, result=result, torn_line=torn)
