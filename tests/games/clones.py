"""Test helper: a game played to its end with a clone checked at every decision.

Engines list their fields one by one in `clone()` (slotted states, for speed), so a new slot that `clone()`
forgets is a real risk: the copy would share or lack it.  `check_clones_along` catches that at every phase.
"""

from __future__ import annotations

from typing import Any, Callable


def check_clones_along(state: Any, rng: Any, check: Callable[[Any], None] = lambda state: None) -> set[str]:
    """Play ``state`` to its end, choosing with ``rng``; at every decision a clone has every slot of the state's
    class set, the same position, legal list and acting seat's observation, ``check(state)`` holds (the kept
    values the engine updates as it goes), and the clone plays on alone without changing the state.  Returns
    the decisions seen (every phase should be among them)."""
    slots = type(state).__slots__
    phases = set()
    while not state.is_over:
        phases.add(state.decision)
        copy = state.clone()
        assert all(hasattr(copy, name) for name in slots)  # a field clone() forgot is unset
        before = state.to_position()
        assert copy.to_position() == before
        assert copy.legal_actions() == state.legal_actions()
        assert copy.observation(copy.current) == state.observation(state.current)
        check(state)
        copy.apply(copy.legal_actions()[-1])  # the copy plays on alone
        assert state.to_position() == before
        state.apply(rng.choice(state.legal_actions()))
    return phases
