"""Per-seat observations: public facts plus the seat's own hand, nothing else.

The pile is shown from the lowest of: the effective top, the start of the
last play (or of the play in progress) and the start of the hit run, so a
bot sees everything that still matters for matching and hits, with the
marks (MM declarations, SM colours, blocks) beside the cards.  Cards are
named once only: ``effective_top`` is an index into the shown ``discard``
(with its kind, ``N`` for a numbered card), the play in progress is its
top ``play_size`` cards.  Kinds and marks are lower case here (``pt``,
``jtt``, ``sm:g``, ``block:y``, ``n``), so no text of the observation
reads as a card code except the cards themselves.  Never the
seed, the chance counter, the stock order or another seat's cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.games.ddmau.cards import HIT_KINDS, ident

if TYPE_CHECKING:
    from arena.games.ddmau.state import DDMauState


def visible_from(state: "DDMauState") -> int:
    from arena.games.ddmau.state import effective_top

    discard, marks = state.discard, state.marks
    low = len(discard) - state.last_play - state.chain
    top = effective_top(discard, marks)
    if top is not None:
        low = min(low, top[0])
    i = len(discard) - 1
    while i >= 0 and ident(discard[i], marks[i]).kind in HIT_KINDS | {"LM", "DM"}:
        i -= 1
    return max(0, min(low, i + 1))


def build(state: "DDMauState", seat: int | None) -> dict[str, Any]:
    from arena.games.ddmau.state import effective_top, hit_run

    over = state.over
    discard, marks = state.discard, state.marks
    low = visible_from(state)
    top = effective_top(discard, marks)
    hit = state.hit
    window = state.window
    chain = state.chain
    return {
        "ruleset": state.ruleset,
        "seat": seat,
        "seat_count": state.players,
        "current": None if over else state.cur,
        "decision": "over" if over else state.phase,
        "hand": None if seat is None else state.hands[seat][:],
        "hand_sizes": list(map(len, state.hands)),
        "discard": discard[low:],
        "marks": [None if m is None else m.lower() for m in marks[low:]],
        "discard_size": len(discard),
        "stock_size": len(state.stock),
        "direction": state.direction,
        "scores": state.scores[:],
        "individual": state.individual[:],
        "effective_top": None if top is None else {"index": top[0] - low, "kind": top[1].kind.lower()},
        "color": None if top is None else top[1].colour,
        "number": None if top is None else top[1].number,
        "hit_run": hit_run(discard, marks),
        "play_size": chain,
        "last_play": state.last_play,
        "drawn": state.drawn,
        "called": state.called,
        "optional": state.optional,
        "pending_hit": None if hit is None else {"target": hit["target"], "count": hit["count"], "kind": hit["kind"].lower(), "by": hit["by"]},
        "window": None if window is None else {"offender": window["offender"]},
        "teams": state.teams,
        "active": state.active[:],
        "dealer": state.dealer,
        "hand_number": state.hand_number,
        "target": state.target,
        "last_hand": state.last_hand,
    }
