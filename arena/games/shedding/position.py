"""Positions: the whole state as plain JSON data, and back, with clear errors.

Required keys: ``hands``, ``discard`` (bottom to top), ``stock`` (top
first), ``current``, ``direction``; ``scores`` defaults to zeros.  Every
other key is optional with the default of a fresh turn (no pending effect,
no active suit, hand 1, dealer 0, seed 0 and chance counter 0).
"""

from __future__ import annotations

from collections import Counter
from sys import intern
from typing import Any, Mapping

from arena.games.base import PositionError
from arena.games import position_checks as checks
from arena.games.cards import is_card_code
from arena.games.shedding import turns
from arena.games.shedding.rules import Ruleset

PHASES = (
    "turn", "combo", "suit", "cover", "follow", "target", "challenge", "call", "accuse", "finish-bonus", "rescue",
    "over",
)


def to_position(state) -> dict[str, Any]:
    window = state.window
    position = {
        "hands": [list(h) for h in state.hands],
        "discard": list(state.discard),
        "stock": state.stock[::-1],
        "current": None if state.is_over else state.current,
        "direction": state.direction,
        "scores": list(state.scores),
        "phase": "over" if state.is_over else state.phase,
        "active_suit": state.active_suit,
        "suit_kind": state.suit_kind,
        "pending": {"draw": state.pending_draw, "skip": state.pending_skip},
        "drawn": state.drawn,
        "called": state.called,
        "placed": state.placed,
        "forced": state.forced,
        "combo": list(state.combo),
        "advance": state.advance,
        "opening": state.opening,
        "offender": state.offender,
        "window": None if window is None else {**window, "queue": list(window["queue"])},
        "next_seat": state.next_seat,
        "idle": state.idle,
        "decisions": state.decisions,
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "reason": state.reason,
        "last_hand": None if state.last_hand is None else dict(state.last_hand),
        "seed": state.seed,
        "counter": state.counter,
    }
    if state.rules.blind:  # the real cards on the pile, and what the face-down ones were claimed to be
        masks = state.masks
        position["discard"] = [masks.get(i, card) for i, card in enumerate(state.discard)]
        position["claims"] = [[i, state.discard[i]] for i in sorted(masks)]
        position["blind_play"] = None if state.blind_play is None else dict(state.blind_play)
        position["blind_skip"] = state.blind_skip
    if state.rules.return_window:  # P28: a finisher waiting for the round to pass
        position["returning"] = state.returning
        position["return_wait"] = state.return_wait
    if state.rules.previous_seat == "discarder":  # B-14 alternative: who a 9 makes draw
        position["last_discarder"] = state.last_discarder
    if state.rules.follow_fail == "pass":  # C-8 alternative: a follow obligation waiting out a window
        position["carry_follow"] = state.carry_follow
    if state.rules.call is not None and state.rules.call.finish_word:  # a finish waiting for its word
        position["going_out"] = state.going_out
    if state.rules.call is not None and state.rules.call.accuse_in_next_turn:  # B-8: [offender, guilty]
        position["accusable"] = None if state.accusable is None else list(state.accusable)
    if state.rules.has_rescue:  # cards drawn so far paying a debt that can be rescued
        position["paying"] = state.paying
    if state.rules.ladder:
        position["losses"] = list(state.losses)
        position["finished"] = list(state.finished)
    return position


def _accusable(position: Mapping[str, Any], rules: Ruleset, phase: str, current, players: int):
    """B-8: the accusation window open in the next player's turn, as [offender, guilty]."""
    value = position.get("accusable")
    if value is None:
        return None
    if rules.call is None or not rules.call.accuse_in_next_turn:
        raise PositionError(f"{rules.name} has no accusation in the next turn: 'accusable' does not apply")
    if (
        phase != "turn"
        or not isinstance(value, (list, tuple))
        or len(value) != 2
        or not isinstance(value[0], int)
        or isinstance(value[0], bool)
        or not 0 <= value[0] < players
        or value[0] == current
        or not isinstance(value[1], bool)
    ):
        raise PositionError(f"'accusable' must be [offender seat (not the current one), guilty true/false] "
                            f"in the turn phase, not {value!r}")
    return (value[0], value[1])


_int = checks.integer


def _cards(position: Mapping, key: str, deck: Counter, required: bool = True) -> list[str]:
    if key not in position:
        if required:
            raise PositionError(f"the position lacks {key!r}")
        return []
    value = position[key]
    if not isinstance(value, (list, tuple)):
        raise PositionError(f"position key {key!r} must be a list of card codes, not {value!r}")
    for card in value:
        if not isinstance(card, str) or not is_card_code(card) or card not in deck:
            raise PositionError(f"{card!r} in {key!r} is not a card of this deck")
    return [intern(str(card)) for card in value]  # one object per card code, as the engine's own (`Ruleset.deck`)


def from_position(rules: Ruleset, options: dict[str, Any], position: Mapping[str, Any]):
    from arena.games.shedding.state import SheddingState

    deck = Counter(rules.deck_cards())
    hands_value = position.get("hands")
    if not isinstance(hands_value, (list, tuple)):
        raise PositionError("the position needs 'hands': a list with one list of cards per seat")
    players = len(hands_value)
    if not rules.min_players <= players <= rules.max_players:
        raise PositionError(
            f"{rules.name} is for {rules.min_players}-{rules.max_players} players; the position has {players} hands"
        )
    hands = [_cards({"hand": h}, "hand", deck) for h in hands_value]
    discard = _cards(position, "discard", deck)
    stock = _cards(position, "stock", deck)
    counts = Counter(discard) + Counter(stock)
    for hand in hands:
        counts.update(hand)
    for card, count in counts.items():
        if count > deck[card]:
            raise PositionError(f"card {card} appears {count} times; the deck has {deck[card]}")
    masks = _apply_claims(rules, position, discard, deck)
    phase = position.get("phase", "turn")
    if phase not in PHASES:
        raise PositionError(f"unknown phase {phase!r}; one of {', '.join(PHASES)}")
    over = phase == "over"
    if not discard and not over:
        raise PositionError("the discard pile is empty: a game in progress needs a top card")
    current = checks.current_seat(position, players, over)
    direction = checks.direction(position)
    scores = checks.integers_by_seat(position, "scores", players)
    active_suit = position.get("active_suit")
    if active_suit not in (None, "s", "h", "d", "c"):
        raise PositionError(f"active_suit must be one of s h d c or null, not {active_suit!r}")
    suit_kind = position.get("suit_kind")
    if active_suit is not None and suit_kind is None:
        suit_kind = rules.rule(discard[-1]).suit_choice or "wish"
    if suit_kind not in (None, "wish", "demand"):
        raise PositionError(f"suit_kind must be wish, demand or null, not {suit_kind!r}")
    pending = position.get("pending") or {}
    if not isinstance(pending, Mapping) or set(pending) - {"draw", "skip"}:
        raise PositionError(f"pending must be an object like {{'draw': 4}}, not {pending!r}")
    combo = _cards(position, "combo", deck, required=False)
    if phase == "combo" and (not combo or discard[-len(combo):] != combo):
        raise PositionError("a combo position needs 'combo': the cards of the play so far, on top of the discard")
    if not combo and phase == "finish-bonus":
        combo = [discard[-1]]
    forced = position.get("forced")
    if forced is not None and (forced not in hands[current] if current is not None else True):
        raise PositionError(f"forced card {forced!r} is not in the current seat's hand")
    window = position.get("window")
    if phase == "accuse":
        if not isinstance(window, Mapping) or not {"offender", "queue", "next", "called"} <= set(window):
            raise PositionError("an accuse position needs 'window': {offender, queue, next, called}")
        window = {
            "offender": window["offender"],
            "queue": list(window["queue"]),
            "next": window["next"],
            "called": bool(window["called"]),
        }
        if not window["queue"] or window["queue"][0] != current:
            raise PositionError("the window's queue must start with the current seat")
    elif window is not None:
        raise PositionError("'window' is only valid in the accuse phase")
    going_out = bool(position.get("going_out", False))
    if going_out and (phase not in ("call", "accuse") or rules.call is None or not rules.call.finish_word):
        raise PositionError("'going_out' needs a ruleset with a finishing word, in the call or accuse phase")
    finisher = current if phase == "call" else window["offender"] if going_out else None
    if going_out and (not isinstance(finisher, int) or not 0 <= finisher < players or hands[finisher]):
        raise PositionError("'going_out' needs the finishing seat (a seat number) to hold no cards")
    if phase == "call" and (rules.call is None or len(hands[current]) != (0 if going_out else 1)):
        raise PositionError("a call position needs a ruleset with calls and a one-card hand (empty when going out)")
    paying = _int(position, "paying", 0, 0)
    if paying and not rules.has_rescue:
        raise PositionError(f"{rules.name} has no rescue while paying a debt: 'paying' does not apply")
    if phase == "rescue" and (not paying or forced is None):
        raise PositionError("a rescue position needs 'paying' (cards drawn so far) and 'forced' (the drawn answer)")
    if phase == "suit" and not rules.rule(discard[-1]).suit_choice:
        raise PositionError(f"a suit choice needs a suit-choosing card on top, not {discard[-1]}")
    if phase == "cover" and not rules.rule(discard[-1]).covers:
        raise PositionError(f"a cover obligation needs a card to cover on top, not {discard[-1]}")

    state = object.__new__(SheddingState)
    state.rules = rules
    state.ruleset = rules.name
    state.options = options
    state.players = players
    state.seed = _int(position, "seed", 0, 0)
    state.counter = _int(position, "counter", 0, 0)
    state.hands = hands
    state.sizes = [*map(len, hands)]
    state.discard = discard
    state.stock = stock[::-1]
    state.current = current
    state.direction = direction
    state.scores = list(scores)
    state.phase = "over" if over else phase
    state.is_over = over
    state.active_suit = active_suit
    state.suit_kind = suit_kind if active_suit is not None else None
    state.pending_draw = _int(pending, "draw", 0, 0)
    state.pending_skip = _int(pending, "skip", 0, 0, 1)
    state.drawn = bool(position.get("drawn", False))
    state.called = _int(position, "called", 0, 0, 2)
    state.placed = _int(position, "placed", 0, 0)
    state.forced = forced
    state.combo = combo
    state.advance = _int(position, "advance", 1, 0, 2)
    state.opening = bool(position.get("opening", False))
    offender = position.get("offender")
    if offender is not None:
        offender = _int(position, "offender", 0, 0, players - 1)
    state.offender = offender
    state.window = window
    next_seat = position.get("next_seat")
    if phase == "call":
        next_seat = _int(position, "next_seat", (current + direction) % players, 0, players - 1)
    state.next_seat = next_seat
    state.idle = _int(position, "idle", 0, 0)
    state.decisions = _int(position, "decisions", 0, 0)
    state.hand_number = _int(position, "hand_number", 1, 1)
    state.dealer = _int(position, "dealer", 0, 0, players - 1)
    state.reason = str(position.get("reason", ""))
    last = position.get("last_hand")
    state.last_hand = dict(last) if isinstance(last, Mapping) else None
    losses = position.get("losses", [0] * players)
    if not isinstance(losses, (list, tuple)) or len(losses) != players or not all(
        isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in losses
    ):
        raise PositionError(f"losses must be a list of {players} non-negative integers, not {losses!r}")
    finished = position.get("finished", [])
    if not isinstance(finished, (list, tuple)) or not all(
        isinstance(x, int) and not isinstance(x, bool) and 0 <= x < players for x in finished
    ) or len(set(finished)) != len(finished):
        raise PositionError(f"finished must list distinct seats, not {finished!r}")
    if (losses != [0] * players or finished) and not rules.ladder:
        raise PositionError(f"{rules.name} has no seats leaving a hand: 'losses' and 'finished' do not apply")
    state.losses = list(losses)
    state.finished = list(finished)
    returning = position.get("returning")
    if returning is not None:
        if not rules.return_window:
            raise PositionError(f"{rules.name} has no return to the game: 'returning' does not apply")
        returning = _int(position, "returning", 0, 0, players - 1)
        # The seat that went out names the suit of its last card (a Queen) before the others' turns.
        if hands[returning] or (returning == current and phase != "suit"):
            raise PositionError("the returning seat must have an empty hand and not be the current seat "
                                "(except to name the suit of the card it went out with)")
    state.returning = returning
    last_discarder = position.get("last_discarder")
    if last_discarder is not None:
        last_discarder = _int(position, "last_discarder", 0, 0, players - 1)
    state.last_discarder = last_discarder
    state.carry_follow = bool(position.get("carry_follow", False))
    state.going_out = going_out
    state.accusable = _accusable(position, rules, phase, current, players)
    state.paying = paying
    state.return_wait = _int(position, "return_wait", 0, 0, players)
    turns.refresh_gone(state)
    _restore_blind(state, rules, position, phase, masks)
    if phase == "target" and not rules.rule(discard[-1]).draw_chosen:
        raise PositionError(f"a target decision needs a chosen-player draw card on top, not {discard[-1]}")
    state.legal_cache = None
    state.log = None  # a restored state records nothing until asked (`record_events`), from a `start` event
    state.fresh = False
    state.refresh_match_view()
    if not over:
        turns.settle(state)
        state.legal_cache = None
    return state


def _apply_claims(rules: Ruleset, position: Mapping[str, Any], discard: list[str], deck: Counter) -> dict:
    """Blind (C-13): put the claims on the pile (in place); returns pile index -> the real card."""
    masks: dict[int, str] = {}
    if not rules.blind:
        if position.get("claims") or position.get("blind_play") or position.get("blind_skip"):
            raise PositionError("claims, blind_play and blind_skip are only valid with the blind option")
        return masks
    claims = position.get("claims") or []
    if not isinstance(claims, (list, tuple)):
        raise PositionError(f"claims must be a list of [pile index, claimed card], not {claims!r}")
    for entry in claims:
        if (
            not isinstance(entry, (list, tuple)) or len(entry) != 2
            or not isinstance(entry[0], int) or isinstance(entry[0], bool)
            or not 0 <= entry[0] < len(discard) or entry[0] in masks
            or not isinstance(entry[1], str) or entry[1] not in deck
        ):
            raise PositionError(f"bad claim {entry!r}: [pile index, a card of this deck]")
        index, claim = entry
        masks[index] = discard[index]
        discard[index] = claim
    return masks


def _restore_blind(state, rules: Ruleset, position: Mapping[str, Any], phase: str, masks: dict) -> None:
    """Blind (C-13): the face-down cards, an open challenge and a pending lost turn."""
    state.masks = masks
    state.blind_play = None
    state.blind_skip = 0
    if not rules.blind:
        if phase == "challenge":
            raise PositionError("a challenge decision needs the blind option")
        return
    state.blind_skip = _int(position, "blind_skip", 0, 0, 1)
    record = position.get("blind_play")
    if phase == "challenge":
        top = len(state.discard) - 1
        if not isinstance(record, Mapping) or not {"seat", "card", "claim"} <= set(record):
            raise PositionError("a challenge position needs 'blind_play': {seat, card, claim, ...}")
        if top not in state.masks or state.masks[top] != record["card"] or state.discard[top] != record["claim"]:
            raise PositionError("the challenged card must be the top of the pile, with its claim in 'claims'")
        seat = record["seat"]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players or seat == state.current:
            raise PositionError(f"blind_play seat must be another seat than the challenger, not {seat!r}")
        suit = record.get("active_suit")
        kind = record.get("suit_kind")
        if suit not in (None, "s", "h", "d", "c") or kind not in (None, "wish", "demand"):
            raise PositionError("blind_play active_suit / suit_kind are a suit and wish/demand or null")
        state.blind_play = {
            "seat": seat, "card": record["card"], "claim": record["claim"], "active_suit": suit, "suit_kind": kind,
        }
    elif record is not None:
        raise PositionError("'blind_play' is only valid in the challenge phase")
