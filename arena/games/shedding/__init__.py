"""The shedding core: one engine for every match-the-top-card ruleset.

Layout: `rules.py` (a ruleset as data), `state.py` (the pipeline),
`legal.py` (legal actions), `effects.py` (drawing, recycling, dealing),
`observation.py`, `position.py`, `actions.py` (interned actions) and
`rulesets/` (one module per ruleset: options → `Ruleset`, plus its
documentation).  Importing this package registers every ruleset.
"""

from __future__ import annotations

from typing import Any, Mapping

from arena.games.registry import RulesetInfo, register
from arena.games.shedding.position import from_position as _from_position
from arena.games.shedding.rules import Ruleset
from arena.games.shedding.rulesets import (
    evil_seven,
    faraon,
    maumau,
    maumau_online,
    moumou,
    neuner,
    pesten,
    pharaoh_101,
    prsi,
    puque,
    tschau_sepp,
)
from arena.games.shedding import variations
from arena.games.shedding.state import SheddingState

RULESET_MODULES = (moumou, maumau_online, maumau, puque, evil_seven, pharaoh_101, neuner, tschau_sepp, prsi, faraon, pesten)

_CACHE: dict[tuple, Ruleset] = {}


def ruleset_for(module, options: Mapping[str, Any]) -> Ruleset:
    """The `Ruleset` for these options, built once and shared (it is immutable)."""
    key = (module.NAME, tuple(options.items()))  # resolved options come in the spec's order: no sort needed
    rules = _CACHE.get(key)
    if rules is None:
        own, chosen = variations.split(options)
        rules = _CACHE[key] = variations.apply(module.build(own), chosen)
    return rules


def _register(module) -> None:
    def new_game(players: int, seed: int, options: dict[str, Any]) -> SheddingState:
        return SheddingState(ruleset_for(module, options).for_players(players), options, players, seed)

    def from_position(position: Mapping[str, Any], options: dict[str, Any]) -> SheddingState:
        rules = ruleset_for(module, options)
        hands = position.get("hands")
        if isinstance(hands, (list, tuple)):  # a table beyond one pack's players holds more packs (C-14)
            rules = rules.for_players(len(hands))
        return _from_position(rules, dict(options), position)

    register(
        RulesetInfo(
            name=module.NAME,
            title=module.TITLE,
            seed_document=module.SEED,
            min_players=module.MIN_PLAYERS,
            max_players=module.MAX_PLAYERS,
            summary=module.SUMMARY,
            new_game=new_game,
            from_position=from_position,
            options={**module.OPTIONS, **variations.OPTIONS},
            resolutions=module.__doc__ or "",
            default_players=module.MIN_PLAYERS,
        )
    )


for _module in RULESET_MODULES:
    _register(_module)

__all__ = ["SheddingState", "Ruleset", "ruleset_for", "RULESET_MODULES"]
