"""Restoring a Mose state from a position (`arena.games.from_position`), every key checked.

A position is the JSON form `MoseState.to_position` writes; only ``hands``,
``discard``, ``stock`` and ``current`` are required, the rest defaults to a
fresh round.  Bad input raises `PositionError` saying which key is wrong.
"""

from __future__ import annotations

from collections import Counter
from sys import intern
from typing import Any, Mapping

from arena.games.base import GameError, PositionError
from arena.games.mose.melds import CARD_ORDER, MeldError, meld_from_dict, wild_rank
from arena.games.mose import public
from arena.games.mose.public import Pickup
from arena.games.mose.state import MAX_FALSE_PLAYS, PHASES, RULESET, MoseState

_order = CARD_ORDER.__getitem__  # the hand order (rank, then suit)


def _int(position: Mapping[str, Any], key: str, default: Any = None, low: int = 0, high: int | None = None) -> int:
    value = position.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise PositionError(f"position key {key!r} must be an integer {span}, not {value!r}")
    return value


def _cards(value: Any, key: str) -> list[str]:
    """The cards of a position key, each one of the 52 (`CARD_ORDER` has them: a lookup, not a pattern), as
    the engine's own interned strings (see `melds.CARD_ORDER`)."""
    if not isinstance(value, list) or not all(isinstance(c, str) and c in CARD_ORDER for c in value):
        raise PositionError(f"position key {key!r} must be a list of card codes like '7h', not {value!r}")
    return [*map(intern, value)]


def _int_list(position: Mapping[str, Any], key: str, players: int) -> list[int]:
    value = position.get(key, [0] * players)
    if not isinstance(value, list) or len(value) != players or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise PositionError(f"position key {key!r} must be a list of {players} integers, not {value!r}")
    return list(value)


def restore(position: Mapping[str, Any], options: Mapping[str, Any]) -> MoseState:
    """A state from a position; only hands, discard, stock, current, direction, scores are required."""
    for key in ("hands", "discard", "stock", "current"):
        if key not in position:
            raise PositionError(f"a Mose position needs {key!r} (and hands, discard, stock, current)")
    if position.get("ruleset", RULESET) != RULESET:
        raise PositionError(f"this is a {position.get('ruleset')!r} position, not a Mose one")
    hands = position["hands"]
    if not isinstance(hands, list) or not 2 <= len(hands) <= 10:
        raise PositionError(f"'hands' must be a list of 2 to 10 hands, not {hands!r}")
    players = len(hands)
    try:
        state = MoseState(players, _int(position, "seed", 0), options)
    except GameError as error:
        raise PositionError(str(error)) from None
    state.hands = [tuple(sorted(_cards(h, f"hands[{i}]"), key=_order)) for i, h in enumerate(hands)]
    state.discard = (*_cards(position["discard"], "discard"),)
    state.stock = _cards(position["stock"], "stock")
    state.table = (*_cards(position.get("table", []), "table"),)
    if position.get("direction", 1) != 1:
        raise PositionError("Mose is played clockwise: 'direction' must be 1")
    state.scores = _int_list(position, "scores", players)
    state.penalties = _int_list(position, "penalties", players)
    state.chance = _int(position, "chance", 0)
    state.round = _int(position, "round", 1, 1, state.rounds)
    state.wild = wild_rank(state.round)
    current = position["current"]
    phase = position.get("phase", "draw")
    if phase not in PHASES:
        raise PositionError(f"'phase' must be one of {', '.join(PHASES)}, not {phase!r}")
    state.phase = phase
    if phase == "over":
        if current is not None:
            raise PositionError("a finished match has 'current' None")
        current = 0
    elif not isinstance(current, int) or isinstance(current, bool) or current not in range(players):
        raise PositionError(f"'current' must be a seat 0..{players - 1}, not {current!r}")
    state.turn = _int(position, "turn", current, 0, players - 1)
    state.decider = current
    state.dealer = _int(position, "dealer", (state.turn - 1) % players, 0, players - 1)
    state.exhaustions = _int(position, "exhaustions", 0, 0, 2)
    state.next_meld = _int(position, "next_meld", 1, 1)
    state.mistake = bool(position.get("mistake", False))
    state.false_plays = _int(position, "false_plays", 0, 0, MAX_FALSE_PLAYS)
    state.turns = _int(position, "turns", 1)
    state.decisions = _int(position, "decisions", 0, 0)
    melds = position.get("melds", [])
    if not isinstance(melds, list):
        raise PositionError("'melds' must be a list")
    try:
        state.melds = [meld_from_dict(m, state.wild, state.decks) for m in melds]
    except (MeldError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise PositionError(f"bad meld in position: {error}") from None
    ids = [m.id for m in state.melds]
    if len(set(ids)) != len(ids) or any(m.owner not in range(players) for m in state.melds):
        raise PositionError("meld ids must be unique and owners must be seats")
    state.next_meld = max([state.next_meld, *(i + 1 for i in ids)])
    state.round_started = bool(position.get("round_started", bool(state.melds)))
    if not state.round_started and (state.melds or phase != "draw"):
        raise PositionError("before the first draw (round not started) there are no melds and the phase is 'draw'")
    _restore_flow(state, position, current)
    counts = Counter(c for h in state.hands for c in h)
    counts.update([*state.stock, *state.discard, *state.table])
    counts.update(c for m in state.melds for c in m.cards)
    over = sorted(c for c, n in counts.items() if n > state.decks)
    if over:
        raise PositionError(f"cards appear more often than {state.decks} deck(s) hold: {', '.join(over)}")
    history = position.get("history", [])
    if not isinstance(history, list):
        raise PositionError("'history' must be a list")
    state.history = [dict(h, points=list(h["points"])) for h in history]
    if state.phase == "draw" and not (state.stock or state.discard):  # nothing to draw or take
        raise PositionError("the turn's seat has nothing to draw (empty stock and pile)")
    if state.phase in ("play", "react", "place") and not state.round_started:
        raise PositionError("plays need a started round")
    state.restored()
    return state


def _restore_flow(state: MoseState, position: Mapping[str, Any], current: int) -> None:
    """Window, pending placement and the pickup record, checked against the phase."""
    players = state.players
    window = position.get("window")
    if window is not None:
        queue = window.get("queue") if isinstance(window, Mapping) else None
        if (
            not isinstance(queue, list)
            or not all(isinstance(s, int) and s in range(players) for s in queue)
            or len(set(queue)) != len(queue)
        ):
            raise PositionError(f"'window' must be {{'queue': [distinct seats], 'acted': bool}}, not {window!r}")
        state.window = public.window((*queue,), bool(window.get("acted", False)))
    pending = position.get("pending")
    if pending is not None:
        if not isinstance(pending, Mapping) or pending.get("card") not in state.table or pending.get("back") not in (
            "play",
            "react",
        ):
            raise PositionError(f"'pending' must name a wild on the 'table' and back 'play'/'react', not {pending!r}")
        state.pending = {"seat": current, "card": pending["card"], "back": pending["back"]}
    if state.phase in ("draw", "play") and current != state.turn:
        raise PositionError("in the draw and play phases 'current' is the turn's seat")
    if state.phase == "react" and (state.window is None or current == state.turn):
        raise PositionError("a 'react' phase needs a 'window' and a seat other than the turn's")
    if state.phase == "place" and state.pending is None:
        raise PositionError("a 'place' phase needs 'pending' (the freed wild) and the wild on the 'table'")
    if state.phase != "place" and state.table:
        raise PositionError("cards lie on the 'table' only while a freed wild waits to be placed")
    if state.pending is not None and state.pending["back"] == "react" and state.window is None:
        raise PositionError("a placement inside a window needs the 'window'")
    pickup = position.get("last_pickup")
    if pickup is not None:
        if (
            not isinstance(pickup, Mapping)
            or pickup.get("seat") not in range(players)
            or pickup.get("source") not in ("stock", "pile")
            or pickup.get("by") not in (None, *range(players))
        ):
            raise PositionError(f"bad 'last_pickup' {pickup!r}")
        cards = _cards(pickup.get("cards"), "last_pickup.cards")
        if Counter(cards) - Counter(state.hands[pickup["seat"]]):
            raise PositionError("'last_pickup' names cards the seat does not hold")
        state.last_pickup = Pickup(pickup["seat"], pickup["source"], (*cards,), pickup["by"])
