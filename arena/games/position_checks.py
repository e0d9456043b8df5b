"""Checks of the position keys every engine shares, so a bad position reads the same in every game."""

from __future__ import annotations

from typing import Any, Mapping

from arena.games.base import PositionError


def integer(position: Mapping[str, Any], key: str, default: Any, low: int | None = None, high: int | None = None) -> int:
    value = position.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise PositionError(f"position key {key!r} must be an integer, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise PositionError(f"position key {key!r} = {value} is out of range {low}..{high}")
    return value


def current_seat(position: Mapping[str, Any], players: int, over: bool) -> int | None:
    """The seat to decide: null once the game is over, a seat number otherwise."""
    current = position.get("current")
    if over:
        if current is not None:
            raise PositionError("a finished position has current = null")
        return None
    return integer(position, "current", 0, 0, players - 1)


def direction(position: Mapping[str, Any]) -> int:
    value = position.get("direction", 1)
    if value not in (1, -1) or isinstance(value, bool):
        raise PositionError(f"direction must be 1 or -1, not {value!r}")
    return value


def integers_by_seat(position: Mapping[str, Any], key: str, players: int, default: Any = None) -> list[int]:
    """A list of one integer per seat (scores, totals); zeros when absent."""
    value = position.get(key, [0] * players if default is None else default)
    if not isinstance(value, (list, tuple)) or len(value) != players or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise PositionError(f"{key} must be a list of {players} integers, not {value!r}")
    return list(value)
