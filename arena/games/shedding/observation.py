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


def build(state: "SheddingState", seat: int | None) -> dict[str, Any]:
    over = state.over
    phase = state.phase
    window = state.window
    if state.pending_draw or state.pending_skip:
        pending = {}
        if state.pending_draw:
            pending["draw"] = state.pending_draw
        if state.pending_skip:
            pending["skip"] = state.pending_skip
    else:
        pending = {}
    data = {
        "ruleset": state.ruleset,
        "seat": seat,
        "players": state.players,
        "current": None if over else state.cur,
        "decision": "over" if over else phase,
        "hand": None if seat is None else state.hands[seat][:],
        "hand_sizes": list(map(len, state.hands)),
        "discard": state.discard[-state.rules.visible_discard :],
        "discard_size": len(state.discard),
        "stock_size": len(state.stock),
        "direction": state.direction,
        "scores": state.scores[:],
        "active_suit": state.active_suit,
        "suit_kind": state.suit_kind,
        "pending": pending,
        "obligation": phase if (phase == "cover" or phase == "follow") else None,
        "drawn": state.drawn,
        "called": state.called == 1,
        "window": None if window is None else {"offender": window["offender"], "called": window["called"]},
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "last_hand": state.last_hand,
    }
    if state.rules.blind:  # face-down cards as ?? and the top's claim, never the real card
        data["discard"] = blind.shown_discard(state)
        data["claim"] = blind.claim_view(state)
    if state.rules.return_window:  # a seat out of cards that can still be brought back (Prší 7♥)
        data["returning"] = state.returning
    if state.rules.ladder:  # seats out of this hand (in order) and lost hands (Faraón)
        data["finished"] = list(state.finished)
        data["losses"] = list(state.losses)
    return data
