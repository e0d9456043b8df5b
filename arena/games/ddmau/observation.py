"""Per-seat observations: public facts plus the seat's own hand, nothing else.

The pile is shown as `pile.view` makes it: from the lowest of the effective
top, the start of the last play (or of the play in progress) and the start
of the hit run, with the marks (MM declarations, SM colours, blocks) beside
the cards.  Cards are named once only: ``effective_top`` is an index into
the shown ``discard`` (with its kind, ``n`` for a numbered card), the play
in progress is its top ``play_size`` cards.  Kinds and marks are lower case
(``pt``, ``jtt``, ``sm:g``, ``block:y``, ``n``), so no text of the
observation reads as a card code except the cards themselves.  Never the
seed, the chance counter, the stock order or another seat's cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.base import GameError, RecordObservation

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


def build(state: "DDMauState", seat: int | None) -> DDMauObservation:
    """What ``seat`` may see (None: the spectator).  Lists that the engine replaces instead of changing
    (scores, individual totals, active seats, the last hand) and the pile view are shared between the
    observations of one position: observations are read-only snapshots (`Observation`).

    It is `DDMauState.observation` itself (one call per decision fewer), so it checks the seat."""
    if seat is not None and (seat.__class__ is not int or not 0 <= seat < state.players):
        raise GameError(f"seat must be 0..{state.players - 1} or None, not {seat!r}")
    pile = state.pile_shown  # the state's cache of `pile_view`, read without a call when it is there
    if pile is None:
        pile = state.pile_view()
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
        pile[0],
        pile[1],
        len(state.discard),
        len(state.stock),
        state.direction,
        state.scores,
        state.individual,
    ) + (
        pile[2],
        pile[3],
        pile[4],
        pile[5],
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
