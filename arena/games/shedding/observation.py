"""Per-seat observations: public facts plus the seat's own hand, nothing else.

Built from plain lists on every decision (the benchmark calls it each
time), so no copying beyond the few short lists a seat may keep.  Only the
top `visible_discard` cards are shown (Moumou 4, others 1, A-24).  Never
the seed, the chance counter, the stock order or another seat's cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.games.shedding import blind

if TYPE_CHECKING:
    from arena.games.shedding.state import SheddingState


#: Every key in its order, copied then filled: a copy and stores cost less than a 22-key literal.
_TEMPLATE = dict.fromkeys((
    "ruleset", "seat", "players", "current", "decision", "hand", "hand_sizes", "discard", "discard_size",
    "stock_size", "direction", "scores", "active_suit", "suit_kind", "pending", "obligation", "drawn",
    "called", "window", "hand_number", "dealer", "last_hand",
))


def build(state: "SheddingState", seat: int | None) -> dict[str, Any]:
    rules = state.rules
    hands = state.hands
    phase = state.phase
    over = state.over
    discard = state.discard
    data = _TEMPLATE.copy()
    data["ruleset"] = state.ruleset
    data["seat"] = seat
    data["players"] = state.players
    data["current"] = None if over else state.cur
    data["decision"] = "over" if over else phase
    data["hand"] = None if seat is None else hands[seat][:]
    data["hand_sizes"] = [len(hand) for hand in hands]
    data["discard"] = discard[rules._visible_from :]
    data["discard_size"] = len(discard)
    data["stock_size"] = len(state.stock)
    data["direction"] = state.direction
    data["scores"] = state.scores[:]
    data["active_suit"] = state.active_suit
    data["suit_kind"] = state.suit_kind
    pending_draw = state.pending_draw
    pending_skip = state.pending_skip
    if pending_draw or pending_skip:
        pending = {}
        if pending_draw:
            pending["draw"] = pending_draw
        if pending_skip:
            pending["skip"] = pending_skip
        data["pending"] = pending
    else:
        data["pending"] = {}
    if phase == "cover" or phase == "follow":
        data["obligation"] = phase
    data["drawn"] = state.drawn
    data["called"] = state.called == 1
    window = state.window
    if window is not None:
        data["window"] = {"offender": window["offender"], "called": window["called"]}
    data["hand_number"] = state.hand_number
    data["dealer"] = state.dealer
    data["last_hand"] = state.last_hand
    if rules.blind:  # face-down cards as ?? and the top's claim, never the real card
        data["discard"] = blind.shown_discard(state)
        data["claim"] = blind.claim_view(state)
    if rules.return_window:  # a seat out of cards that can still be brought back (Prší 7♥)
        data["returning"] = state.returning
    if rules._ladder:  # seats out of this hand (in order) and lost hands (Faraón)
        data["finished"] = list(state.finished)
        data["losses"] = list(state.losses)
    return data
