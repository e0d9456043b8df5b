"""Per-seat observations: public facts plus the seat's own hand, nothing else.

Built at every decision (the benchmark builds one each time), so building
one does only what a snapshot needs: `observe` copies the state's values
into one tuple (the seat's hand, the hand sizes, the visible discards and
a window's queue copied; the rest are numbers, strings and records the
engine replaces rather than changes), and the record's values in `KEYS`
order (`RecordObservation`), with what is derived from them (the pending
dict, the obligation, the call flags, the ruleset's own keys), are
assembled from it when the observation is first read (`_assemble`).  Only
the top `visible_discard` cards are shown (Moumou 4, others 1, A-24).
Never the seed, the chance counter, the stock order or another seat's
cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.base import GameError, Observation, RecordObservation, assembled_on_first_read
from arena.games.shedding import blind, turns

if TYPE_CHECKING:
    from arena.games.shedding.rules import Ruleset
    from arena.games.shedding.state import SheddingState

#: Every ruleset's keys, in the order of the record's values.
KEYS = (
    "ruleset", "seat", "seat_count", "current", "decision", "hand", "hand_sizes", "discard", "discard_size",
    "stock_size", "direction", "scores", "active_suit", "suit_kind", "pending", "obligation", "drawn",
    "called", "window", "hand_number", "dealer", "last_hand",
    # the turn under way and the public counters (the decision limit is the game's option)
    "this_play", "opening", "next_seat", "offender", "false_call", "must_play_drawn", "idle", "decisions",
)

#: Shared by every observation with nothing pending, as the state's scores list is (the engine replaces that
#: list when a hand is scored): observations are read-only snapshots (`Observation`), so a part that the
#: engine never changes in place need not be copied at every decision.
_NOTHING_PENDING: dict = {}
_NO_CARDS: list = []  # the same for an empty play


def _assemble(observation: SheddingObservation) -> tuple:
    """The record's values in its keys' order, from the snapshot `observe` took."""
    (seat, (players, scores, hand_number, dealer, last_hand), current, phase, hand, sizes, discard, discard_size,
     stock_size, direction, active_suit, suit_kind, pending_draw, pending_skip, going_out, drawn, called, window,
     this_play, opening, next_seat, offender, forced, idle, decisions, accusable, extra) = observation._parts
    values = (
        observation.RULESET, seat, players, current, phase, hand, sizes, discard, discard_size, stock_size,
        direction, scores, active_suit, suit_kind,
        _pending(pending_draw, pending_skip) if pending_draw or pending_skip else _NOTHING_PENDING,
        phase if phase == "cover" or phase == "follow" else "finish-word" if going_out else None,
        drawn, called == 1, window, hand_number, dealer, last_hand, this_play, opening, next_seat, offender,
        called == 2,
        forced is not None,  # the seat must play the card it drew (which one: `forced`, its own view)
        idle, decisions,
    )
    if extra is not None:
        values += extra
    if observation.FORCED:  # the drawn card that is the seat's only play: its holder's view only
        values += (forced if seat == current else None,)
    if observation.ACCUSABLE:  # B-8: who can still be accused in this turn; public (everyone heard the call)
        values += (None if accusable is None else {"offender": accusable[0], "guilty": accusable[1]},)
    return values


class SheddingObservation(RecordObservation):
    """A shedding observation: the snapshot `observe` took (`_parts`), and the record's values assembled from
    it on first read (`_values`).  Each ruleset has its own subclass (`observation_type`), of the one for
    its keys."""

    __slots__ = ("_parts", "_values")
    RULESET = ""
    #: Whether the keys end with `forced` / `accusable` (their values come from the snapshot's own parts).
    FORCED = ACCUSABLE = False
    _data = assembled_on_first_read(_assemble)  # the record's values, as `RecordObservation` reads them


def observation_type(rules: "Ruleset") -> type[SheddingObservation]:
    """The record type of this ruleset's observations: `KEYS` plus the keys only some rulesets have."""
    extra: tuple[str, ...] = ()
    getters = []
    for condition, keys, values in _EXTRAS:
        if condition(rules):
            extra += keys
            getters.append(values)
    if len(getters) == 1:
        (eager,) = getters
    elif getters:
        def eager(state: "SheddingState") -> tuple:
            return tuple(value for get in getters for value in get(state))
    else:
        eager = None
    forced, accusable = rules.forced_view, rules.accusable_view
    keys = KEYS + extra + ("forced",) * forced + ("accusable",) * accusable
    keyed = SheddingObservation.record_type(keys)  # one per key order, shared by rulesets with the same keys
    keyed.FORCED, keyed.ACCUSABLE = forced, accusable  # what the keys say
    kind = type(keyed.__name__, (keyed,), {"__slots__": (), "RULESET": rules.name})  # this ruleset's own
    object.__setattr__(rules, "extra_values", eager)
    object.__setattr__(rules, "observation_class", kind)
    return kind


def observe(state: "SheddingState", seat: int | None) -> Observation:
    """`SheddingState.observation`: what `seat` may see (None: the spectator)."""
    # The acting seat (or None once over), the common request, is valid by identity with the state's own value.
    if seat is not state.current and seat is not None and (type(seat) is not int or not 0 <= seat < state.players):
        raise GameError(f"seat must be 0..{state.players - 1} or None, not {seat!r}")
    rules = state.rules
    discard = state.discard
    phase = state.phase
    window = state.window
    observation = (rules.observation_class or observation_type(rules))()  # see RecordObservation
    # The snapshot, in `_assemble`'s order (at most 30 values: CPython builds a longer tuple display as a
    # list turned into a tuple).  Lists the engine changes in place are copied; the rest is shared.
    observation._parts = (
        seat,
        state.match_view,  # (players, scores, hand_number, dealer, last_hand): replaced between hands, never changed
        state.current,  # None once over
        phase,  # "over" once over
        None if seat is None else state.hands[seat].copy(),
        state.sizes.copy(),  # the hands' lengths, kept by the engine
        blind.shown_discard(state) if rules.blind else discard[rules.visible_slice],  # face-down cards as ??
        len(discard),
        len(state.stock),
        state.direction,
        state.active_suit,
        state.suit_kind,
        state.pending_draw,  # the pending dict is made when the record is read (`_assemble`)
        state.pending_skip,
        state.going_out,
        state.drawn,
        state.called,
        None if window is None else {"offender": window["offender"], "called": window["called"],
                                     "queue": window["queue"][:], "next": window["next"]},
        # the play's cards still on the pile (a recycle during the play took the others back)
        (state.combo[-len(discard):] if state.combo else _NO_CARDS),
        state.opening,
        _next_seat(state, phase) if phase in _NEXT_KNOWN else None,
        state.offender,
        # the drawn card the seat must play: the card only in its holder's view, elsewhere only that there is one
        state.forced if state.forced is None or seat == state.current else True,
        state.idle,
        state.decisions,
        state.accusable,  # a tuple
        None if rules.extra_values is None else rules.extra_values(state),
    )
    observation._values = None  # assembled when first read
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


def _pending(draw: int, skip: int) -> dict:
    pending = {}
    if draw:
        pending["draw"] = draw
    if skip:
        pending["skip"] = skip
    return pending


#: The keys only some rulesets have, besides `forced` and `accusable` (which `_assemble` derives from the
#: snapshot): (does the ruleset have them, the keys, their values in a state, taken when `observe` runs).
_EXTRAS = (
    # the top's claim, never the real card (face-down cards show as ?? in `discard`); a doubter's lost turn
    (lambda r: r.blind, ("claim", "blind_skip"), lambda s: (blind.claim_view(s), s.blind_skip)),
    # a seat out of cards that can still be brought back (Prší 7♥), and the turns left before it has won
    (lambda r: r.return_window, ("returning", "return_wait"), lambda s: (s.returning, s.return_wait)),
    # seats out of this hand (in order) and lost hands (Faraón)
    (lambda r: r.ladder, ("finished", "losses"), lambda s: (list(s.finished), list(s.losses))),
    # who a "previous seat" card makes draw (B-14 alternative)
    (lambda r: r.previous_seat == "discarder", ("last_discarder",), lambda s: (s.last_discarder,)),
    # a failed follow obligation passed on after a window (C-8 alternative)
    (lambda r: r.follow_fail == "pass", ("carry_follow",), lambda s: (s.carry_follow,)),
    # cards drawn so far paying a debt that a drawn card can still answer
    (lambda r: r.has_rescue, ("paying",), lambda s: (s.paying,)),
)
