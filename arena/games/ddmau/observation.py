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

Built at every decision (the benchmark builds one each time), so building
one takes only the snapshot (`build`): the seat's hand copied, the state's
kept records shared (the hand sizes, `DDMauState.sizes`; the pile's view,
`pile.view`, made here when the pile has changed and kept in
``pile_shown``; the match's, `match_view`: the engine replaces them, never
changes them), the turn's numbers; the record's values in `KEYS` order are
assembled from it when the observation is first read (`DDMauObservation`,
`base.assembled_on_first_read`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.base import GameError, RecordObservation, assembled_on_first_read
from arena.games.ddmau.pile import view as pile_view

if TYPE_CHECKING:
    from arena.games.ddmau.state import DDMauState

#: The keys of every observation, in the order of its values.
KEYS = (
    "ruleset", "seat", "seat_count", "current", "decision", "hand", "hand_sizes", "discard", "marks",
    "discard_size", "stock_size", "direction", "scores", "individual", "effective_top", "color", "number",
    "hit_run", "play_size", "last_play", "drawn", "called", "optional", "pending_hit", "window", "teams",
    "active", "dealer", "hand_number", "target", "last_hand", "decisions",
)


def _assemble(observation: DDMauObservation) -> tuple:
    """The record's values in `KEYS` order, from the snapshot `build` took."""
    (seat, current, phase, hand, sizes, pile, discard_size, stock_size, direction, chain, last_play, drawn, called,
     optional, hit, offender, match, decisions) = observation._parts
    ruleset, players, scores, individual, teams, active, dealer, hand_number, target, last_hand = match
    discard, marks, top, colour, number, run = pile
    return (ruleset, seat, players, current, phase, hand, sizes, discard, marks, discard_size, stock_size,
            direction, scores, individual, top, colour, number, run, chain, last_play, drawn, called, optional,
            hit, None if offender is None else {"offender": offender}, teams, active, dealer, hand_number, target,
            last_hand, decisions)


class DDMauObservation(RecordObservation.record_type(KEYS)):  # type: ignore[misc]
    """A DD MAU observation: the snapshot `build` took (`_parts`), and the record's values assembled from it on
    first read (`_values`)."""

    __slots__ = ("_parts", "_values")
    _data = assembled_on_first_read(_assemble)  # the record's values, as `RecordObservation` reads them


def match_view(state: "DDMauState") -> tuple:
    """The match's part of every observation (the table, totals, seats still in, dealer, hand number, target,
    last hand): values that change only when a hand is scored, kept by the state (`DDMauState.match_view`)."""
    return (state.ruleset, state.players, state.scores, state.individual, state.teams, state.active,
            state.dealer, state.hand_number, state.target, state.last_hand)


def build(state: "DDMauState", seat: int | None) -> DDMauObservation:
    """What ``seat`` may see (None: the spectator).  Lists that the engine replaces instead of changing
    (scores, individual totals, active seats, the last hand), the pile view and the match's part are shared
    between the observations of one position: observations are read-only snapshots (`Observation`).

    It is `DDMauState.observation` itself (one call per decision fewer), so it checks the seat."""
    if seat.__class__ is int and 0 <= seat < state.players:
        hand = state.hands[seat][:]
    elif seat is None:
        hand = None
    else:
        raise GameError(f"seat must be 0..{state.players - 1} or None, not {seat!r}")
    pile = state.pile_shown  # the state's kept views, read without a call when they are there
    if pile is None:
        pile = state.pile_shown = pile_view(state)  # (kept until the pile or the plays on it change)
    match = state.match_shown
    if match is None:
        match = state.match_view()
    hit = state.hit
    window = state.window
    observation = DDMauObservation()  # see RecordObservation: the cheapest construction
    observation._parts = (  # (in `_assemble`'s order)
        seat,
        state.current,  # (None once the game is over)
        state.phase,  # ("over" then)
        hand,
        state.sizes,
        pile,
        len(state.discard),
        len(state.stock),
        state.direction,
        state.chain,
        state.last_play,
        state.drawn,
        state.called,
        state.optional,
        # (a new dict with the kind in lower case: no text of an observation reads as a card code)
        None if hit is None else {"target": hit["target"], "count": hit["count"], "kind": hit["kind"].lower(),
                                  "by": hit["by"]},
        None if window is None else window["offender"],
        match,
        state.decisions,
    )
    observation._values = None  # assembled when first read
    return observation
