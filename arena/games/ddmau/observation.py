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

from typing import TYPE_CHECKING

from arena.games.base import GameError, RecordObservation
from arena.games.ddmau.cards import HIT_KINDS, PRINTED, TRANSPARENT, ident

if TYPE_CHECKING:
    from arena.games.ddmau.state import DDMauState

#: The keys of every observation, in the order of the tuple `build` makes.
KEYS = (
    "ruleset", "seat", "seat_count", "current", "decision", "hand", "hand_sizes", "discard", "marks",
    "discard_size", "stock_size", "direction", "scores", "individual", "effective_top", "color", "number",
    "hit_run", "play_size", "last_play", "drawn", "called", "optional", "pending_hit", "window", "teams",
    "active", "dealer", "hand_number", "target", "last_hand",
)
DDMauObservation = RecordObservation.record_type(KEYS)


#: Printed kinds (no mark) that are neither transparent nor hit cards nor LM/DM: such a card on top is the
#: effective top and ends the hit run's walk at once (`pile_view`'s short cut).
_ENDS_WALK = frozenset({"N", "SK", "OWM", "SM", "MM"}) - TRANSPARENT - HIT_KINDS
_LOWER = {kind: kind.lower() for kind in ("N", "PT", "SK", "OWM", "JTT", "SM", "LM", "DM", "MM", "BLOCK")}


def _shown(marks: list) -> list:
    """Marks as the observation shows them: lower case (the list itself when there is none)."""
    if marks.count(None) != len(marks):
        return [None if m is None else m.lower() for m in marks]
    return marks


def pile_view(state: "DDMauState") -> tuple:
    """The pile as every seat sees it: (discard, marks, effective_top, color, number, hit_run), and the
    effective top's identity (an `Ident`, or None) for the engine: a play starting now starts on it.

    Shown from the lowest of the effective top, the start of the last play (or of the play in
    progress) and the start of the hit run.  One walk down from the top finds the effective top
    (`state.effective_top`) and the hit run (`state.hit_run`); the engine keeps the result until the
    pile changes (`DDMauState.pile_view`).
    """
    discard, marks = state.discard, state.marks
    size = len(discard)
    low = size - state.last_play - state.chain
    if size and marks[-1] is None:
        idt = PRINTED[discard[-1]]
        if idt.kind in _ENDS_WALK:  # the usual pile: its top card is the effective top and ends the walk
            if low > size - 1:
                low = size - 1
            elif low < 0:
                low = 0
            shown = marks[low:]
            if shown.count(None) != len(shown):  # (`_shown`, inline: the shown part usually has no mark)
                shown = _shown(shown)
            return (discard[low:], shown, {"index": size - 1 - low, "kind": _LOWER[idt.kind]}, idt.colour, idt.number,
                    0, idt)
    top = None  # (index, identity) of the effective top
    run = 0  # hit cards in the run from the top (E-13)
    walking = True  # still inside the run of hit cards, LMs and DMs
    i = size - 1
    while i >= 0:
        mark = marks[i]
        idt = PRINTED[discard[i]] if mark is None else ident(discard[i], mark)
        kind = idt.kind
        if walking:
            if kind in HIT_KINDS:
                run += 1
            elif kind != "LM" and kind != "DM":
                walking = False
                if i + 1 < low:
                    low = i + 1
        if top is None and kind not in TRANSPARENT:  # the effective top
            top = (i, idt)
            if i < low:
                low = i
        if not walking:  # (a card that ends the run is not transparent: the top is found)
            break
        i -= 1
    if walking:
        low = 0
    elif low < 0:
        low = 0
    shown_marks = _shown(marks[low:])
    if top is None:
        return discard[low:], shown_marks, None, None, None, run, None
    index, idt = top
    return (discard[low:], shown_marks, {"index": index - low, "kind": idt.kind.lower()}, idt.colour, idt.number,
            run, idt)


def build(state: "DDMauState", seat: int | None) -> DDMauObservation:
    """What ``seat`` may see (None: the spectator).  Lists that the engine replaces instead of changing
    (scores, individual totals, active seats, the last hand) and the pile view are shared between the
    observations of one position: observations are read-only snapshots (`Observation`).

    It is `DDMauState.observation` itself (one call per decision fewer), so it checks the seat."""
    if seat is not None and (seat.__class__ is not int or not 0 <= seat < state.players):
        raise GameError(f"seat must be 0..{state.players - 1} or None, not {seat!r}")
    view = state._view or state.pile_view()  # (the engine's cache, read without a call while it holds)
    hit = state.hit
    window = state.window
    observation = DDMauObservation()  # see RecordObservation: the cheapest construction
    # Two tuple displays joined: CPython compiles a display of more than 30 items as a list built item by item
    # (an append per item, then a copy to a tuple), each of these as one tuple.
    observation._data = (
        state.ruleset,
        seat,
        state.players,
        state.current,  # (None once the game is over)
        state.phase,  # ("over" then)
        None if seat is None else state.hands[seat][:],
        [*map(len, state.hands)],
        view[0],
        view[1],
        len(state.discard),
        len(state.stock),
        state.direction,
        state.scores,
        state.individual,
    ) + (
        view[2],
        view[3],
        view[4],
        view[5],
        state.chain,
        state.last_play,
        state.drawn,
        state.called,
        state.optional,
        None if hit is None else {"target": hit["target"], "count": hit["count"], "kind": hit["kind"].lower(),
                                  "by": hit["by"]},
        None if window is None else {"offender": window["offender"]},
        state.teams,
        state.active,
        state.dealer,
        state.hand_number,
        state.target,
        state.last_hand,
    )
    return observation
