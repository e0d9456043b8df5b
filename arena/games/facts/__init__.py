"""Ruleset facts for bots: the deck, card points and the roles of special and wild cards.

`ruleset_facts(ruleset, players, **options)` is pure and returns plain JSON
data, the same for a bot in any language (the arena sends it in
`GameStarted.facts_json`):

    >>> from arena import games
    >>> facts = games.ruleset_facts("moumou", 2)
    >>> facts["cards"]["Js"]
    {'points': 20, 'roles': ['wild', 'suit', 'finish-bonus'], 'rule': {...}}

Keys:

* ``ruleset``, ``players``, ``family`` (``shedding``, ``mose``, ``ddmau``);
* ``options``: every option's value as its type (resolved: defaults filled
  in), and ``option_schema``: each option's ``type`` (bool, int, float,
  str), ``default``, ``choices`` (or null) and ``help``;
* ``deck``: every card of the deck for this table, copies repeated, in the
  engine's pack order (the unseen cards are this less what a seat saw);
* ``hand_size``: cards dealt to each seat at the start of a hand;
* ``cards``: each distinct card with its ``points`` (what it costs left in
  a hand when the hand is scored), its ``roles`` (short names, below) and,
  for the shedding rulesets, ``rule``: the engine's own card rule, the
  fields that differ from a plain card;
* family keys: Mose ``wild_by_round`` (the wild rank of each round) and
  ``wild_points``; the shedding rulesets ``call`` (the announcement rule or
  null) and ``visible_discard``.

Roles: ``wild`` (may go on any card), ``suit`` (names a suit; ``color`` in
DD MAU), ``draw`` (makes a seat draw), ``skip``, ``reverse``, ``counter``
(answers a pending draw or skip), ``cover`` (its player must cover it),
``follow`` (its player must play again), ``no-finish`` (may not be the
last card), ``finish-bonus``, ``finish-multiplier``, ``cancel`` (wipes a
pending draw), ``open`` (anything may follow it), ``again`` (its player
plays again), ``transparent`` (looked through on the pile), ``link``
(enables runs), ``block`` (stops a hit).
"""

from __future__ import annotations

from typing import Any

from arena.games import registry
from arena.games.facts import ddmau as _ddmau
from arena.games.facts import mose as _mose
from arena.games.facts import shedding as _shedding

_CACHE: dict[tuple, dict[str, Any]] = {}
_TYPES = {bool: "bool", int: "int", float: "float", str: "str"}


def family_of(ruleset: str) -> str | None:
    """The engine family a ruleset belongs to (``shedding``, ``mose``, ``ddmau``); None for one registered
    from outside the three engines (tests).  Per-family code elsewhere (world sampling) dispatches on it."""
    family = _family(ruleset)
    return None if family is None else family.FAMILY


def _family(ruleset: str):
    """The family's facts module of a ruleset, or None."""
    if ruleset == _mose.RULESET:
        return _mose
    if ruleset == _ddmau.RULESET:
        return _ddmau
    if ruleset in _shedding.RULESETS:
        return _shedding
    return None


def option_schema(ruleset: str) -> dict[str, dict[str, Any]]:
    """Each option's type, default, choices and help, as JSON data."""
    return {
        name: {
            "type": _TYPES.get(type(spec.default), "str"),
            "default": spec.default,
            "choices": None if spec.choices is None else list(spec.choices),
            "help": spec.help,
        }
        for name, spec in registry.get(ruleset).options.items()
    }


def ruleset_facts(ruleset: str, players: int, **options: Any) -> dict[str, Any]:
    """The facts of `ruleset` for a table of `players` with these options (JSON data; a fresh copy)."""
    info = registry.get(ruleset)
    info.check_players(players)
    resolved = info.resolve_options(options)
    key = (ruleset, players, tuple(sorted(resolved.items())))
    facts = _CACHE.get(key)
    if facts is None:
        family = _family(ruleset)
        facts = {
            "ruleset": ruleset,
            "players": players,
            "family": "" if family is None else family.FAMILY,
            "options": resolved,
            "option_schema": option_schema(ruleset),
            **({} if family is None else family.facts(ruleset, players, resolved)),
        }
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[key] = facts
    return _copy(facts)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


__all__ = ["option_schema", "ruleset_facts"]
