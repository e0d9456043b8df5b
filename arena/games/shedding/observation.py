"""Per-seat observations: public facts plus the seat's own hand, nothing else.

Built at every decision (the benchmark builds one each time), so the
snapshot is one tuple in a fixed key order (`RecordObservation`): the seat's
hand, the hand sizes, the visible discards and the scores are copied, the
rest are numbers and strings.  Only the top `visible_discard` cards are
shown (Moumou 4, others 1, A-24).  Never the seed, the chance counter, the
stock order or another seat's cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.base import GameError, Observation, RecordObservation
from arena.games.shedding import blind

if TYPE_CHECKING:
    from arena.games.shedding.rules import Ruleset
    from arena.games.shedding.state import SheddingState

#: Every ruleset's keys, in the order of the tuple `observe` builds.
KEYS = (
    "ruleset", "seat", "players", "current", "decision", "hand", "hand_sizes", "discard", "discard_size",
    "stock_size", "direction", "scores", "active_suit", "suit_kind", "pending", "obligation", "drawn",
    "called", "window", "hand_number", "dealer", "last_hand",
)

#: Shared by every observation with nothing pending, as the state's scores list is (the engine replaces that
#: list when a hand is scored): observations are read-only snapshots (`Observation`), so a part that the
#: engine never changes in place need not be copied at every decision.
_NOTHING_PENDING: dict = {}


def observation_type(rules: "Ruleset") -> type[RecordObservation]:
    """The record type of this ruleset's observations: `KEYS` plus the keys only some rulesets have."""
    extra: tuple[str, ...] = ()
    if rules.blind:  # face-down cards as ?? and the top's claim, never the real card
        extra += ("claim",)
    if rules.return_window:  # a seat out of cards that can still be brought back (Prší 7♥)
        extra += ("returning",)
    if rules.ladder:  # seats out of this hand (in order) and lost hands (Faraón)
        extra += ("finished", "losses")
    if rules._forced_view:  # the drawn card that is the seat's only play (its own view only)
        extra += ("forced",)
    if rules._accusable_view:  # B-8: who can still be accused in this turn
        extra += ("accusable",)
    kind = RecordObservation.record_type(KEYS + extra)
    object.__setattr__(rules, "_observation_type", kind)
    return kind


def observe(state: "SheddingState", seat: int | None) -> Observation:
    """`SheddingState.observation`: what `seat` may see (None: the spectator)."""
    if seat is not None and (seat.__class__ is not int or not 0 <= seat < state.players):
        raise GameError(f"seat must be 0..{state.players - 1} or None, not {seat!r}")
    rules = state.rules
    hands = state.hands
    discard = state.discard
    phase = state.phase
    window = state.window
    values = (
        state.ruleset,
        seat,
        state.players,
        state.current,  # None once over
        phase,  # "over" once over
        None if seat is None else hands[seat][:],
        [*map(len, hands)],
        discard[rules._visible_from :],
        len(discard),
        len(state.stock),
        state.direction,
        state.scores,  # shared: the engine replaces the list, never changes it (SheddingState.__init__)
        state.active_suit,
        state.suit_kind,
        _pending(state) if state.pending_draw or state.pending_skip else _NOTHING_PENDING,
        phase if phase == "cover" or phase == "follow" else None,
        state.drawn,
        state.called == 1,
        None if window is None else {"offender": window["offender"], "called": window["called"]},
        state.hand_number,
        state.dealer,
        state.last_hand,
    )
    if rules._extra_view:
        values = _extra(state, values)
    observation = (rules._observation_type or observation_type(rules))()  # see RecordObservation
    observation._data = values
    return observation


def _pending(state: "SheddingState") -> dict:
    pending = {}
    if state.pending_draw:
        pending["draw"] = state.pending_draw
    if state.pending_skip:
        pending["skip"] = state.pending_skip
    return pending


def _extra(state: "SheddingState", values: tuple) -> tuple:
    """The values of the keys only some rulesets have (see `observation_type`)."""
    rules = state.rules
    extra: tuple = ()
    if rules.blind:
        values = values[:7] + (blind.shown_discard(state),) + values[8:]
        extra += (blind.claim_view(state),)
    if rules.return_window:
        extra += (state.returning,)
    if rules.ladder:
        extra += (list(state.finished), list(state.losses))
    if rules._forced_view:
        extra += (state.forced if values[1] == state.current else None,)
    if rules._accusable_view:
        # public: everyone heard whether the offender called; {"offender", "guilty"} or None
        accusable = state.accusable
        extra += (None if accusable is None else {"offender": accusable[0], "guilty": accusable[1]},)
    return values + extra
