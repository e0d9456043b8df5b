"""The time model: a per-decision limit, a bank that covers overruns, an increment, a first-move allowance."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class TimeControl:
    move_ms: int = 1000          # per-decision limit
    bank_ms: int = 10_000        # covers overruns of the per-decision limit
    increment_ms: int = 100      # added to the bank after every answered decision
    first_move_ms: int = 5000    # extra allowance on a seat's first decision (start-up)
    max_strikes: int = 3         # strikes that forfeit the game
    reconnect_ms: int = 5000     # how long a disconnected seat may take to come back

    def to_dict(self) -> dict[str, int]:
        return asdict(self)
