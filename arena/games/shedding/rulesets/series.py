"""The ``hands`` option that most seed-002 rulesets share: one hand, or a scored series of N."""

from __future__ import annotations

from typing import Any, Mapping

from arena.games.base import OptionError
from arena.games.registry import OptionSpec

HANDS = OptionSpec(1, "hands in one game: 1 plays a single hand, more play a scored series", minimum=1)


def match_of(options: Mapping[str, Any]) -> dict[str, Any]:
    """The `Ruleset` fields for the chosen ``hands``: ``match`` and ``hands``."""
    hands = options["hands"]
    if hands < 1:
        raise OptionError("option hands: at least 1")
    return {"match": "series" if hands > 1 else "single", "hands": hands}
