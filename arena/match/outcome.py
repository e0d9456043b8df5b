"""What one played game returns, for the ladder, the replay and the match table."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

_ATOMIC = (str, int, float, bool, type(None))


def _plain(value: Any) -> Any:
    """A copy of ``value`` as `dataclasses.asdict` copies a field's value (containers rebuilt, the rest deep-copied)."""
    if isinstance(value, _ATOMIC):
        return value
    if isinstance(value, dict):
        return type(value)((_plain(k), _plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_plain(v) for v in value)
    return copy.deepcopy(value)


@dataclass
class SeatOutcome:
    seat: int
    name: str
    placement: int = 0
    points: int = 0
    strikes: int = 0
    timeouts: int = 0
    forfeited: bool = False
    think_ms: int = 0            # total measured think time
    decisions: int = 0           # decisions this seat was asked (not those defaulted after a forfeit)
    max_think_ms: int = 0        # its slowest single decision
    stale: int = 0               # answers naming an old request id (dropped, not struck)
    disconnects: int = 0
    strike_reasons: list[str] = field(default_factory=list)  # "timeout", "illegal", "malformed", ...
    errors: int = 0              # decisions where the bot's own code failed and its client answered a fallback

    def to_dict(self) -> dict[str, Any]:
        """`dataclasses.asdict` of it, without its generic walk (a replay's result line holds every seat's)."""
        return {"seat": self.seat, "name": self.name, "placement": self.placement, "points": self.points,
                "strikes": self.strikes, "timeouts": self.timeouts, "forfeited": self.forfeited,
                "think_ms": self.think_ms, "decisions": self.decisions, "max_think_ms": self.max_think_ms,
                "stale": self.stale, "disconnects": self.disconnects,
                "strike_reasons": _plain(self.strike_reasons), "errors": self.errors}


@dataclass
class GameOutcome:
    game_id: str
    ruleset: str
    options: dict[str, Any]
    seed: int
    status: str                  # "finished" or "aborted"
    seats: list[SeatOutcome] = field(default_factory=list)
    decisions: int = 0
    reason: str = ""
    started_at: str = ""         # ISO 8601 UTC
    ended_at: str = ""
    replay_path: str | None = None
    #: Time the arena process could not run during the game (`arena.match.stalls`): charged to no seat.
    stalled_ms: int = 0

    @property
    def players(self) -> list[str]:
        return [s.name for s in self.seats]

    def to_dict(self) -> dict[str, Any]:
        """`dataclasses.asdict` of it (the same dict, tests/match/test_outcome.py), built field by field: every
        ladder game's result line takes one, and the generic walk deep-copied each value in turn."""
        return {"game_id": self.game_id, "ruleset": self.ruleset, "options": _plain(self.options), "seed": self.seed,
                "status": self.status,
                "seats": [s.to_dict() if type(s) is SeatOutcome else _plain(s) for s in self.seats],
                "decisions": self.decisions, "reason": self.reason, "started_at": self.started_at,
                "ended_at": self.ended_at, "replay_path": self.replay_path, "stalled_ms": self.stalled_ms}
