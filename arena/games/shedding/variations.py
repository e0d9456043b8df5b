"""Variations that apply to every shedding ruleset: Quick and Blind (seed 002, RULES.md 5.1).

They are options of each ruleset (``quick=true``, ``blind=true``) rather
than rulesets of their own, because S2 states them generally.  Each turns
into `Ruleset` fields that the core interprets:

* Quick (C-11): same-rank cards may be played together, the bottom card
  legal.  Power cards of one rank count as one card, except sevens, whose
  draws add up per card.  A ruleset that already plays combos (Moumou,
  Faraón) keeps its own aggregation.
* Blind (C-13): plays in an ordinary turn go face down with a claimed
  identity (``blind REAL CLAIM``); the next seat may ``believe`` or
  ``challenge``.  See `blind.py` for the flow and the penalties.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from arena.games.base import OptionError
from arena.games.registry import OptionSpec
from arena.games.shedding.rules import Ruleset

OPTIONS = {
    "quick": OptionSpec(False, "Quick: play several cards of one rank at once, the first one legal; power "
                        "cards count once, sevens add up per card (C-11)"),
    "blind": OptionSpec(False, "Blind: cards are played face down as a claimed card ('blind REAL CLAIM'); the "
                        "next player believes or challenges it, and the loser draws 1 (C-13)"),
    "decision_limit": OptionSpec(20000, "decisions after which the game ends, its last hand scored as it stands "
                                 "like a blocked hand (not a seed rule: a safeguard so every game ends; 0 = none)",
                                 minimum=0),
}

#: Ranks whose effects add up per card in a Quick combo (C-11: "The exception is sevens").
QUICK_PER_CARD = frozenset({"7"})


def split(options: Mapping[str, Any]) -> tuple[dict, dict]:
    """(the ruleset's own options, the variation options)."""
    own = {k: v for k, v in options.items() if k not in OPTIONS}
    return own, {k: options.get(k, spec.default) for k, spec in OPTIONS.items()}


def apply(rules: Ruleset, variations: Mapping[str, Any]) -> Ruleset:
    if variations.get("quick") and not rules.combos:
        rules = replace(rules, combos=True, combo_aggregation="once", combo_per_card=QUICK_PER_CARD)
    if variations.get("blind"):
        rules = replace(rules, blind=True)
    limit = variations.get("decision_limit", 0)
    if limit < 0:
        raise OptionError(f"option decision_limit: {limit} is negative; 0 means no limit")
    if limit != rules.decision_limit:
        rules = replace(rules, decision_limit=limit)
    return rules
