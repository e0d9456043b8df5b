"""Scenario helper: a hand-written position, a list of action texts, the expected outcome.

    state = run("moumou", position(hands=[["7h"], ["9c"]], discard=["7s"], stock=["6d"]), ["play 7h"])

Positions name the stock top first, so every draw is deterministic.
"""

from __future__ import annotations

from typing import Any, Iterable

from arena import games


def position(hands, discard, stock=(), current=0, direction=1, scores=None, **extra: Any) -> dict[str, Any]:
    data = {
        "hands": [list(h) for h in hands],
        "discard": list(discard),
        "stock": list(stock),
        "current": current,
        "direction": direction,
        "scores": list(scores) if scores is not None else [0] * len(hands),
    }
    data.update(extra)
    return data


def run(ruleset: str, pos: dict[str, Any], actions: Iterable[str] = (), **options: Any):
    """Restore `pos` and apply each action text in order; returns the state."""
    state = games.from_position(ruleset, pos, **options)
    for text in actions:
        state.apply(text)
    return state


def legal(state) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def hands(state) -> list[list[str]]:
    return state.to_position()["hands"]


def top(state) -> str:
    return state.to_position()["discard"][-1]
