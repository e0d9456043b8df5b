"""The duplicate-deal plan of a match: which seed is played with which seating."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class PlannedGame:
    set_index: int
    seed: int
    rotation: int
    seats: tuple[str, ...]


def plan_games(names: Sequence[str], players: int, games: int, base_seed: int) -> list[PlannedGame]:
    """Duplicate sets: set ``k`` uses seed ``base+k`` and is played once per seat rotation of its table.

    With more bots than seats, tables cycle through every combination of bots.
    ``games`` is rounded up to whole sets.
    """
    tables = list(itertools.combinations(names, players))
    sets = max(1, math.ceil(games / players))
    plan = []
    for k in range(sets):
        table = tables[k % len(tables)]
        for rotation in range(players):
            seats = tuple(table[(i + rotation) % players] for i in range(players))
            plan.append(PlannedGame(k, base_seed + k, rotation, seats))
    return plan
