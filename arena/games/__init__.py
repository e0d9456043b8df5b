"""The rules engines and their public contract.

    >>> from arena import games
    >>> games.rulesets()                       # names
    >>> state = games.new_game("moumou", players=2, seed=7)
    >>> state.current, [str(a) for a in state.legal_actions()]
    >>> state.apply("play 7h")
    >>> state.observation(0).to_dict()
    >>> games.from_position("moumou", state.to_position())

See `arena/games/base.py` for the state, action, observation and result
types and `arena/games/README.md` for how each game family maps onto them.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from arena.games.base import (
    Action,
    ActionError,
    ActionParseError,
    GameError,
    GameState,
    IllegalActionError,
    Observation,
    OptionError,
    PositionError,
    PublicEvent,
    Result,
    UnknownRulesetError,
)
from arena.games.registry import OptionSpec, RulesetInfo

# Each engine package registers its rulesets when imported.
_ENGINE_PACKAGES = ("arena.games.shedding", "arena.games.mose", "arena.games.ddmau")
for _package in _ENGINE_PACKAGES:
    importlib.import_module(_package)

from arena.games import registry as _registry  # noqa: E402
from arena.games.facts import option_schema, ruleset_facts  # noqa: E402
from arena.games.worlds import WorldError, sample_world  # noqa: E402


def rulesets() -> list[str]:
    """The names of every playable ruleset, sorted."""
    return _registry.names()


def ruleset_info(ruleset: str) -> RulesetInfo:
    return _registry.get(ruleset)


def new_game(ruleset: str, players: int, seed: int, **options: Any) -> GameState:
    """Start a game; all of its chance is determined by ``seed``."""
    info = _registry.get(ruleset)
    info.check_players(players)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise OptionError(f"seed must be a non-negative integer, not {seed!r}")
    return info.new_game(players=players, seed=seed, options=info.resolve_options(options))


def from_position(ruleset: str, position: Mapping[str, Any], **options: Any) -> GameState:
    """Restore a state from `state.to_position()` output or a hand-written position."""
    info = _registry.get(ruleset)
    if not isinstance(position, Mapping):
        raise PositionError(f"a position is a JSON object, not {type(position).__name__}")
    return info.from_position(position=position, options=info.resolve_options(options))


__all__ = [
    "Action",
    "ActionError",
    "ActionParseError",
    "GameError",
    "GameState",
    "IllegalActionError",
    "Observation",
    "OptionError",
    "OptionSpec",
    "PositionError",
    "PublicEvent",
    "Result",
    "RulesetInfo",
    "UnknownRulesetError",
    "WorldError",
    "from_position",
    "new_game",
    "option_schema",
    "ruleset_info",
    "ruleset_facts",
    "rulesets",
    "sample_world",
]
