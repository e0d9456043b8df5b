"""Positions: the whole DD MAU state as plain JSON data, and back, with clear errors.

Required keys: ``hands`` (one list per seat), ``discard`` (bottom to top;
may be empty: a hand starts with no upcard), ``stock`` (top first),
``current``, ``direction``; ``scores`` defaults to zeros (with teams each seat
holds its team's total; ``individual`` keeps each seat's own, default the
scores).  The rest
defaults to a fresh turn of hand 1: ``phase`` (turn, chain, declare,
color, hit, catch, over), ``marks`` (beside each discard: null, an MM's
declaration ``"PT:r"``/``"LM"``/``"JTT"``..., an SM's colour ``"SM:g"``, a
block ``"BLOCK:y"``), ``chain`` (cards of the play in progress on top of
the pile), ``last_play`` (cards of the last finished play; 1 if the pile is
not empty), ``drawn``, ``optional``, ``called``, ``hit`` (``{target,
count, kind, by}``), ``next_seat``, ``window`` (``{offender, queue}``),
``final`` (the going-out play while its hit is pending), ``dealer``,
``hand_number``, ``active``, ``eliminated``, ``idle``, ``stall``,
``turn_open`` (``[seat, cards at its start, draw pile empty then]``),
``turns`` (turns started this hand), ``decisions`` (decisions applied in the
game, against option ``decision_limit``; 0 when absent), ``seed``, ``chance``.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from typing import Any, Mapping

from arena.games.base import GameError, PositionError
from arena.games import position_checks as checks
from arena.games.ddmau.cards import deck, mask

PHASES = ("turn", "chain", "declare", "color", "hit", "catch", "over")
_MARK = re.compile(r"^(?:(?:PT|SK|OWM|SM|BLOCK)(?::[rybg])?|JTT|LM)$")


def to_position(state) -> dict[str, Any]:
    window = state.window
    copy = (lambda d: None if d is None else {k: (list(v) if isinstance(v, list) else v) for k, v in d.items()})
    return {
        "hands": [list(h) for h in state.hands],
        "discard": list(state.discard),
        "marks": list(state.marks),
        "stock": state.stock[::-1],
        "current": None if state.is_over else state.current,
        "direction": state.direction,
        "scores": list(state.scores),
        "individual": list(state.individual),
        "phase": "over" if state.is_over else state.phase,
        "chain": state.chain,
        "last_play": state.last_play,
        "drawn": state.drawn,
        "optional": state.optional,
        "called": state.called,
        "hit": copy(state.hit),
        "next_seat": state.next_seat,
        "window": None if window is None else {"offender": window["offender"], "queue": list(window["queue"])},
        "final": copy(state.final),
        "dealer": state.dealer,
        "hand_number": state.hand_number,
        "active": list(state.active),
        "eliminated": [list(e) for e in state.eliminated],
        "idle": state.idle,
        "stall": state.stall,
        "turn_open": None if state.turn_open is None else list(state.turn_open),
        "turns": state.turns,
        "decisions": state.decisions,
        "reason": state.reason,
        "last_hand": copy(state.last_hand),
        "seed": state.seed,
        "chance": state.chance,
    }


_int = checks.integer


def _cards(value: Any, key: str, known: Counter) -> list[str]:
    if not isinstance(value, (list, tuple)):
        raise PositionError(f"position key {key!r} must be a list of card codes, not {value!r}")
    for card in value:  # (every card of the deck is a card code)
        if not isinstance(card, str) or card not in known:
            raise PositionError(f"{card!r} in {key!r} is not a card of this DD MAU deck")
    return list(map(sys.intern, value))  # (the very objects of `cards.CODES`, as a dealt game holds)


def from_position(position: Mapping[str, Any], options: dict[str, Any], counts: dict[str, int]):
    from arena.games.ddmau.state import DDMauState

    known = Counter(deck(counts))
    hands_value = position.get("hands")
    if not isinstance(hands_value, (list, tuple)):
        raise PositionError("the position needs 'hands': a list with one list of cards per seat")
    players = len(hands_value)
    if not 2 <= players <= 10:
        raise PositionError(f"ddmau is for 2-10 players; the position has {players} hands")
    if options["teams"] != "off" and players not in (4, 6):
        raise PositionError("teams need a position with 4 or 6 hands")
    hands = [_cards(h, "hands", known) for h in hands_value]
    for key in ("discard", "stock"):
        if key not in position:
            raise PositionError(f"the position lacks {key!r}")
    discard = _cards(position["discard"], "discard", known)
    stock = _cards(position["stock"], "stock", known)
    held = Counter(discard) + Counter(stock)
    for hand in hands:
        held.update(hand)
    for card, count in held.items():
        if count > known[card]:
            raise PositionError(f"card {card} appears {count} times; the deck has {known[card]}")
    marks = position.get("marks")
    if marks is None:
        marks = [None] * len(discard)
    if not isinstance(marks, (list, tuple)) or len(marks) != len(discard):
        raise PositionError("'marks' must be a list beside 'discard' (one entry per card, null for none)")
    for card, mark in zip(discard, marks):
        if mark is None:
            continue
        if not isinstance(mark, str) or not _MARK.match(mark):
            raise PositionError(f"bad mark {mark!r}; e.g. 'PT:r', 'LM', 'SM:g', 'BLOCK:y'")
        if card not in ("MM", "SM") or (card == "SM" and not mark.startswith("SM")):
            raise PositionError(f"mark {mark!r} is for an MM (or an SM's colour), not for {card}")
    phase = position.get("phase", "turn")
    if phase not in PHASES:
        raise PositionError(f"unknown phase {phase!r}; one of {', '.join(PHASES)}")
    over = phase == "over"
    current = checks.current_seat(position, players, over)
    direction = checks.direction(position)
    scores = checks.integers_by_seat(position, "scores", players)
    individual = position.get("individual", list(scores))
    if not isinstance(individual, (list, tuple)) or len(individual) != players or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in individual
    ):
        raise PositionError(f"individual must be a list of {players} integers, not {individual!r}")
    active = position.get("active", [True] * players)
    if not isinstance(active, (list, tuple)) or len(active) != players or not all(isinstance(a, bool) for a in active):
        raise PositionError(f"active must be a list of {players} booleans")
    if not over and sum(active) < 2:  # (over, every seat may be out: a tournament cut by decision_limit)
        raise PositionError("a game in progress needs at least two active seats")

    state = DDMauState.blank(players, options, counts)
    state.log = None  # a restored state records nothing until asked, from a `start` event
    state.fresh = False
    state.seed = _int(position, "seed", 0, 0)
    state.chance = _int(position, "chance", 0, 0)
    state.hands = hands
    state.sizes = [*map(len, hands)]
    state.held = [*map(mask, hands)]
    state.discard = discard
    state.marks = list(marks)
    state.stock = stock[::-1]
    state.direction = direction
    state.scores = list(scores)
    state.individual = list(individual)
    state.active = list(active)
    state.is_over = over
    state.current = current
    state.phase = phase
    state.chain = _int(position, "chain", 0, 0, len(discard))
    state.last_play = _int(position, "last_play", 1 if discard else 0, 0, len(discard) - state.chain)
    state.drawn = _int(position, "drawn", 0, 0, 3)
    state.optional = bool(position.get("optional", False))
    state.called = bool(position.get("called", False))
    state.dealer = _int(position, "dealer", 0, 0, players - 1)
    state.hand_number = _int(position, "hand_number", 1, 1)
    state.idle = _int(position, "idle", 0, 0)
    state.stall = _int(position, "stall", 0, 0)
    state.turns = _int(position, "turns", 0, 0)
    state.decisions = _int(position, "decisions", 0, 0)
    state.turn_open = _turn_open(position.get("turn_open"), players, hands)
    if "turn_open" not in position and phase == "turn":  # a fresh turn (its digs so far came from the stock)
        state.turn_open = (current, max(0, len(hands[current]) - state.drawn), not stock)
    state.reason = str(position.get("reason", ""))
    eliminated = position.get("eliminated", [])
    if not isinstance(eliminated, (list, tuple)) or not all(
        isinstance(e, (list, tuple)) and len(e) == 2 and all(isinstance(x, int) for x in e) for e in eliminated
    ):
        raise PositionError("eliminated must be a list of [seat, hand] pairs")
    state.eliminated = [list(e) for e in eliminated]
    last = position.get("last_hand")
    state.last_hand = dict(last) if isinstance(last, Mapping) else None
    next_seat = position.get("next_seat")
    if next_seat is not None:
        next_seat = _int(position, "next_seat", 0, 0, players - 1)
    state.next_seat = next_seat
    state.hit = _hit(position.get("hit"), players, phase)
    state.final = _final(position.get("final"), players, known)
    state.window = _window(position.get("window"), players, phase, current)
    if not over:
        _check_phase(state, phase)
    state.legal_cache = None
    return state


def _turn_open(value: Any, players: int, hands: list) -> tuple | None:
    """The turn under way for the stall rule: [seat, cards it began with, draw pile empty then]."""
    if value is None:
        return None
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 3
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value[:2])
        or not 0 <= value[0] < players
        or value[1] < 0
        or not isinstance(value[2], bool)
    ):
        raise PositionError(f"'turn_open' must be [seat, hand size, stock empty true/false], not {value!r}")
    return tuple(value)


def _hit(value: Any, players: int, phase: str) -> dict | None:
    if value is None:
        if phase == "hit":
            raise PositionError("a hit position needs 'hit': {target, count, kind}")
        return None
    if not isinstance(value, Mapping) or not {"target", "count", "kind"} <= set(value):
        raise PositionError("'hit' must be {target, count, kind, by}")
    if value["kind"] not in ("PT", "JTT"):
        raise PositionError(f"hit kind must be PT or JTT, not {value['kind']!r}")
    return {
        "target": _int(value, "target", 0, 0, players - 1),
        "count": _int(value, "count", 0, 0),
        "kind": value["kind"],
        "by": _int(value, "by", 0, 0, players - 1),
    }


def _final(value: Any, players: int, known: Counter) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or not {"seat", "cards", "sm"} <= set(value):
        raise PositionError("'final' must be {seat, cards, sm}")
    return {"seat": _int(value, "seat", 0, 0, players - 1), "cards": _cards(value["cards"], "final", known),
            "sm": _int(value, "sm", 0, 0)}


def _window(value: Any, players: int, phase: str, current: int | None) -> dict | None:
    if phase != "catch":
        if value is not None:
            raise PositionError("'window' is only valid in the catch phase")
        return None
    if not isinstance(value, Mapping) or not {"offender", "queue"} <= set(value):
        raise PositionError("a catch position needs 'window': {offender, queue}")
    queue = value["queue"]
    if not isinstance(queue, (list, tuple)) or not queue or queue[0] != current:
        raise PositionError("the window's queue must start with the current seat")
    return {"offender": _int(value, "offender", 0, 0, players - 1), "queue": [int(q) for q in queue]}


def _check_phase(state, phase: str) -> None:
    cur = state.current
    if not state.active[cur]:
        raise PositionError(f"seat {cur} is eliminated and cannot be current")
    if phase in ("chain", "declare", "color") and state.chain < 1:
        raise PositionError(f"a {phase} position needs 'chain' >= 1: the play so far, on top of the pile")
    if phase == "turn" and state.chain:
        raise PositionError("a turn position has no play in progress (chain = 0)")
    top = state.discard[-1] if state.discard else None
    if phase == "declare" and (top != "MM" or state.marks[-1] is not None):
        raise PositionError("a declare position needs an undeclared MM on top of the pile")
    if phase == "color" and not (top in ("SM", "MM") and state.marks[-1] in (None, "SM")):
        raise PositionError("a color position needs a Shadow Master without a colour on top of the pile")
    if phase == "hit" and state.hit["target"] != cur:
        raise PositionError("in a hit position the current seat is the hit's target")
    if phase in ("hit", "catch") and state.next_seat is None and state.final is None:
        raise PositionError(f"a {phase} position needs 'next_seat' (or 'final' when the hitter went out)")
    if phase == "chain" or phase == "declare" or phase == "color":
        upto = state.chain - (0 if phase == "chain" else 1)
        try:
            state.summary(upto)
        except GameError:
            raise PositionError("the play in progress ('chain' cards on top) is not a legal chain") from None
    for i, (card, mark) in enumerate(zip(state.discard, state.marks)):
        if card == "MM" and mark is None and i < len(state.discard) - 1:
            raise PositionError(f"the MM at pile index {i} needs a mark (its declaration or BLOCK)")
    if not state.legal_actions():
        raise PositionError(f"no legal action for seat {cur} in this position")
