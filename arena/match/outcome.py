"""What one played game returns, for the ladder, the replay and the match table."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


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

    @property
    def players(self) -> list[str]:
        return [s.name for s in self.seats]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
