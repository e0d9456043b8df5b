"""The verifier: re-simulate a replay and check the state hash after every decision.

An engine change that alters how a recorded game plays out (a rule fix, a
shuffle change, a hashing change) shows up here as the first divergent
decision, named with what was expected and what was found.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from arena.games import GameError
from arena.replay.format import FINISHED, ReplayFormatError
from arena.replay.reader import load


@dataclass(frozen=True)
class Divergence:
    """The first decision that no longer re-simulates as recorded."""

    index: int  # the decision's ``i`` (from 1)
    seat: int
    action: str
    expected: str | None  # the recorded hash
    actual: str | None  # the re-simulated hash; None when the action did not apply
    problem: str
    #: The last decision whose recorded hash matched (0: the deal).  A replay that keeps the hash at
    #: checkpoints only (the ladder's) diverged somewhere after it, up to ``index``.
    matched: int = 0

    def __str__(self) -> str:
        if self.actual is None:
            return f"decision {self.index} (seat {self.seat}, {self.action!r}): {self.problem}"
        since = (f" (the last recorded hash before it, at decision {self.matched}, matched: the game diverged "
                 f"within decisions {self.matched + 1}-{self.index})") if self.index - self.matched > 1 else ""
        return (f"decision {self.index} (seat {self.seat}, {self.action!r}): state hash {self.actual}, "
                f"recorded {self.expected}{since}")


@dataclass
class VerifyReport:
    path: Path
    ok: bool
    decisions: int = 0  # decisions in the file
    checked: int = 0  # hashes compared
    complete: bool = False
    status: str = ""
    divergence: Divergence | None = None
    error: str | None = None  # the file could not be read at all
    notes: list[str] = field(default_factory=list)  # not failures, but worth a look

    def summary(self) -> str:
        if self.error:
            error = self.error.removeprefix(f"{self.path}:").removeprefix(str(self.path)).strip()
            return f"FAIL {self.path}: {error}"
        if self.divergence:
            return f"FAIL {self.path}: {self.divergence}"
        state = "" if self.complete else f", {self.status} (cut off, no result line)"
        return f"OK   {self.path}: {self.decisions} decisions, {self.checked} hashes checked{state}"


def verify(path: "str | os.PathLike[str]") -> VerifyReport:
    """Re-simulate ``path`` and compare every recorded state hash; never raises on a bad file."""
    path = Path(path)
    try:
        replay = load(path)
    except ReplayFormatError as error:
        return VerifyReport(path, ok=False, error=str(error))
    report = VerifyReport(path, ok=True, decisions=len(replay.decisions), complete=replay.complete,
                          status=replay.status)
    try:
        state = replay.new_state()
    except GameError as error:
        report.ok = False
        report.error = f"cannot start the game ({replay.ruleset}): {error}"
        return report
    matched = 0
    for record in replay.decisions:
        problem = None
        if state.current != record.seat:
            problem = f"recorded for seat {record.seat}, but seat {state.current} is to decide"
        else:
            try:
                state.apply(record.action)
            except GameError as error:
                problem = f"the action no longer applies: {error}"
        if problem:
            report.ok = False
            report.divergence = Divergence(record.i, record.seat, record.action, record.hash, None, problem, matched)
            _note_engine_change(report, replay)
            return report
        if record.hash is not None:
            actual = state.state_hash()
            report.checked += 1
            if actual != record.hash:
                report.ok = False
                report.divergence = Divergence(record.i, record.seat, record.action, record.hash, actual,
                                               "state hash differs", matched)
                _note_engine_change(report, replay)
                return report
            matched = record.i
    result = replay.result
    if result and result.get("status") == FINISHED and not any(result.get("forfeits") or []):
        if not state.is_over:
            report.notes.append("the result line says finished, but the re-simulated game is not over")
        elif result.get("placements") and list(state.result().placements) != list(result["placements"]):
            report.notes.append(f"recorded placements {result['placements']} differ from the engine's "
                                f"{list(state.result().placements)}")
    return report


def _note_engine_change(report: VerifyReport, replay) -> None:
    """Say so when the replay was recorded by another version: a divergence may be a rules change, not tampering."""
    from arena.replay.format import engine_version

    recorded, current = replay.header.engine, engine_version()
    if recorded != current:
        report.notes.append(f"recorded with {recorded or 'an unversioned engine'}, verified with {current}")
