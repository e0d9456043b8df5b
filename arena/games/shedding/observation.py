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
from arena.games.shedding import blind, turns

if TYPE_CHECKING:
    from arena.games.shedding.rules import Ruleset
    from arena.games.shedding.state import SheddingState

#: Every ruleset's keys, in the order of the tuple `observe` builds.
KEYS = (
    "ruleset", "seat", "seat_count", "current", "decision", "hand", "hand_sizes", "discard", "discard_size",
    "stock_size", "direction", "scores", "active_suit", "suit_kind", "pending", "obligation", "drawn",
    "called", "window", "hand_number", "dealer", "last_hand",
    # the turn under way and the public counters (30 keys in all: CPython builds a longer tuple display
    # as a list turned into a tuple, +10% per observation; the decision limit is the game's option)
    "this_play", "opening", "next_seat", "offender", "false_call", "must_play_drawn", "idle", "decisions",
)

#: Shared by every observation with nothing pending, as the state's scores list is (the engine replaces that
#: list when a hand is scored): observations are read-only snapshots (`Observation`), so a part that the
#: engine never changes in place need not be copied at every decision.
_NOTHING_PENDING: dict = {}
_NO_CARDS: list = []  # the same for an empty play


def observation_type(rules: "Ruleset") -> type[RecordObservation]:
    """The record type of this ruleset's observations: `KEYS` plus the keys only some rulesets have."""
    extra: tuple[str, ...] = ()
    getters = []
    for condition, keys, values in _EXTRAS:
        if condition(rules):
            extra += keys
            getters.append(values)
    if len(getters) == 1:
        (values,) = getters
    else:
        def values(state: "SheddingState", seat: int | None) -> tuple:
            return tuple(value for get in getters for value in get(state, seat))
    kind = RecordObservation.record_type(KEYS + extra)
    object.__setattr__(rules, "_extra_values", values)
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
        phase if phase == "cover" or phase == "follow" else "finish-word" if state.going_out else None,
        state.drawn,
        state.called == 1,
        None if window is None else {"offender": window["offender"], "called": window["called"],
                                     "queue": window["queue"][:], "next": window["next"]},
        state.hand_number,
        state.dealer,
        state.last_hand,
        # the play's cards still on the pile (a recycle during the play took the others back)
        (state.combo[-len(discard):] if state.combo else _NO_CARDS),
        state.opening,
        _next_seat(state, phase) if phase in _NEXT_KNOWN else None,
        state.offender,
        state.called == 2,
        state.forced is not None,  # the seat must play the card it drew (which one: `forced`, its own view)
        state.idle,
        state.decisions,
    )
    observation = (rules._observation_type or observation_type(rules))()  # see RecordObservation
    if rules._extra_view:
        if rules.blind:  # face-down cards as ??
            values = values[:7] + (blind.shown_discard(state),) + values[8:]
        values += rules._extra_values(state, seat)
    observation._data = values
    return observation


#: Decisions after which the next seat is already settled (the turn's play is over).
_NEXT_KNOWN = frozenset({"call", "accuse", "suit", "target", "finish-bonus"})


def _next_seat(state: "SheddingState", phase: str) -> int | None:
    """Who takes the next turn once this decision is made (may be the same seat again)."""
    if phase == "call":
        return state.next_seat
    if phase == "accuse":
        return state.window["next"]
    if phase == "finish-bonus":
        return None  # the hand ends
    if state.advance == 0:  # the chooser plays on (a starter's suit named by the next seat, a 2-seat reversal)
        return state.current
    return turns.step(state, state.current, state.advance + state.blind_skip)


def _pending(state: "SheddingState") -> dict:
    pending = {}
    if state.pending_draw:
        pending["draw"] = state.pending_draw
    if state.pending_skip:
        pending["skip"] = state.pending_skip
    return pending


#: The keys only some rulesets have: (does the ruleset have them, the keys, their values in a state).
_EXTRAS = (
    # face-down cards as ?? and the top's claim, never the real card; a doubter's lost turn
    (lambda r: r.blind, ("claim", "blind_skip"), lambda s, _: (blind.claim_view(s), s.blind_skip)),
    # a seat out of cards that can still be brought back (Prší 7♥), and the turns left before it has won
    (lambda r: r.return_window, ("returning", "return_wait"), lambda s, _: (s.returning, s.return_wait)),
    # seats out of this hand (in order) and lost hands (Faraón)
    (lambda r: r.ladder, ("finished", "losses"), lambda s, _: (list(s.finished), list(s.losses))),
    # who a "previous seat" card makes draw (B-14 alternative)
    (lambda r: r.previous_seat == "discarder", ("last_discarder",), lambda s, _: (s.last_discarder,)),
    # a failed follow obligation passed on after a window (C-8 alternative)
    (lambda r: r.follow_fail == "pass", ("carry_follow",), lambda s, _: (s.carry_follow,)),
    # cards drawn so far paying a debt that a drawn card can still answer
    (lambda r: r.has_rescue, ("paying",), lambda s, _: (s.paying,)),
    # the drawn card that is the seat's only play (C-4 after_draw_play, a cover drawn for, a rescue): its
    # holder's view only (`must_play_drawn` tells the others there is one)
    (lambda r: r._forced_view, ("forced",), lambda s, seat: (s.forced if seat == s.current else None,)),
    # B-8: who can still be accused in this turn; public: everyone heard whether the offender called
    (lambda r: r._accusable_view, ("accusable",),
     lambda s, _: (None if s.accusable is None else {"offender": s.accusable[0], "guilty": s.accusable[1]},)),
)
