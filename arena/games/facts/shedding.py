"""Facts of the shedding rulesets, read from the `Ruleset` the engine plays (deck, points, card rules)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping

from arena.games.shedding import RULESET_MODULES, ruleset_for
from arena.games.shedding.rules import CardRule, Ruleset

FAMILY = "shedding"
_MODULES = {module.NAME: module for module in RULESET_MODULES}
RULESETS = frozenset(_MODULES)


def rules(ruleset: str, players: int, options: Mapping[str, Any]) -> Ruleset:
    """The engine's `Ruleset` for these (resolved) options and this table (more packs for more players)."""
    return ruleset_for(_MODULES[ruleset], options).for_players(players)


def deck(ruleset: str, players: int, options: Mapping[str, Any]) -> list[str]:
    return list(rules(ruleset, players, options).deck)


def facts(ruleset: str, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    table = rules(ruleset, players, options)
    counters = _counters(table)
    cards = {}
    for card in dict.fromkeys(table.deck):
        rule = table.rule(card)
        cards[card] = {
            "points": table.points.get(card[0], 0),
            "roles": roles(rule, card in counters),
            "rule": rule_data(rule),
        }
    call = table.call
    return {
        "deck": list(table.deck),
        "hand_size": table.hand_size,
        "visible_discard": table.visible_discard,
        "call": None if call is None else {
            "timing": call.timing, "word": call.word, "special_word": call.special_word,
            "special_rank": call.special_rank or None, "finish_word": call.finish_word or None,
            "penalty": call.penalty,
        },
        "cards": cards,
    }


def _counters(rules: Ruleset) -> set[str]:
    """Cards that answer some card's pending draw or skip (`stack_with` holds ranks and card codes)."""
    answers = set()
    for rule in rules.rules_by_card.values():
        answers |= set(rule.stack_with)
    return {card for card in rules.deck if card in answers or card[0] in answers}


def roles(rule: CardRule, counter: bool) -> list[str]:
    out = []
    if rule.placement != "match":
        out.append("wild")
    if rule.suit_choice:
        out.append("suit")
    if rule.draw_next or rule.pending_draw or rule.draw_previous or rule.draw_others or rule.draw_chosen:
        out.append("draw")
    if rule.skip:
        out.append("skip")
    if rule.reverse:
        out.append("reverse")
    if counter:
        out.append("counter")
    if rule.cover_ranks:
        out.append("cover")
    if rule.follow:
        out.append("follow")
    if rule.cannot_finish:
        out.append("no-finish")
    if rule.finish_bonus:
        out.append("finish-bonus")
    if rule.finish_multiplier != 1:
        out.append("finish-multiplier")
    if rule.cancel_pending:
        out.append("cancel")
    if rule.open_top:
        out.append("open")
    return out


def rule_data(rule: CardRule) -> dict[str, Any]:
    """The fields of the card's rule that differ from a plain card, as JSON data."""
    out = {}
    for f in fields(CardRule):
        value = getattr(rule, f.name)
        if value == f.default:
            continue
        if isinstance(value, CardRule):
            value = rule_data(value)
        elif isinstance(value, frozenset):
            value = sorted(value)
        out[f.name] = value
    return out
