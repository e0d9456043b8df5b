"""What a Mose seat may see: the public table plus its own hand, nothing else.

Built at every decision (the benchmark builds one each time and never reads
it), so `observe` only takes a snapshot: one tuple of the state's values,
all of them values the engine replaces rather than changes (the hands, the
pile and the freed wilds are tuples; the melds, scores, penalties and
history lists and the pickup and window records are replaced at every
change), so nothing is copied, and the match's part (`match_view`) is one
tuple the state keeps.  The record's values, in the order of
`OBSERVATION_KEYS` (`RecordObservation`), are assembled from the snapshot
when the observation is first read (`_assemble`,
`base.assembled_on_first_read`).

The snapshot holds the seat's own hand only, the other hands' sizes and a
pickup's count, never its cards: an in-process bot that looks inside the
object finds nothing its seat may not know.  Never the seed, the chance
counter or the stock's order either.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from arena.games.base import GameError, Observation, RecordObservation, assembled_on_first_read
from arena.games.mose.melds import Meld, token_text

if TYPE_CHECKING:
    from arena.games.mose.state import MoseState

#: The keys of an observation, in the order of the record's values.
OBSERVATION_KEYS = (
    "ruleset", "seat", "seat_count", "current", "decision", "hand", "hand_sizes", "discard", "discard_size",
    "stock_size", "direction", "scores", "round", "rounds", "wild_rank", "dealer", "turn",
    "melds",  # id, owner, kind and tokens (``2h:6s`` is the wild 2h as 6s)
    "table", "round_started", "exhaustions", "penalties",
    # Contested mode: the turn's seat has made its one False Mose (no more `call mose` this turn), and how
    # many False Plays it has made this turn (none is offered after MAX_FALSE_PLAYS).
    "mistake", "false_plays",
    "last_pickup",  # seat, source, count, and the one seat that has played since (D-14), if any
    # An open reaction window: the seats still to be asked (every one, whatever it holds), and
    # whether the seat deciding has already played in it.
    "window",
    "turns", "turn_limit",  # turns of this round so far, against `turn_limit`
    "last_round",  # the last finished round (winner, points, reason); totals are in ``scores``
    "decisions",  # decisions applied in this game, against option ``decision_limit``
)


def _assemble(record: "MoseObservation") -> tuple:
    """The record's values (`OBSERVATION_KEYS` order) from its snapshot; lists are new, the melds' entries
    and the last round's record are shared (read-only)."""
    (seat, current, phase, hand, sizes, discard, stock_size, melds, table, turn, round_started, exhaustions,
     penalties, mistake, false_plays, pickup, window, (turns, decisions), match) = record._parts
    players, round_, wild, dealer, scores, history, options = match
    return (
        "mose",
        seat,
        players,
        current,
        phase,
        None if hand is None else list(hand),
        list(sizes),
        list(discard),
        len(discard),
        stock_size,
        1,
        scores,
        round_,
        options["rounds"],
        wild,
        dealer,
        turn,
        [*map(meld_view, melds)],
        list(table),
        round_started,
        exhaustions,
        penalties,
        mistake,
        false_plays,
        None if pickup is None else dict(zip(("seat", "source", "count", "by"), pickup)),
        None if window is None else window.to_dict(),
        turns,
        options["turn_limit"],
        history[-1] if history else None,
        decisions,
    )


class MoseObservation(RecordObservation):
    """A Mose observation: the snapshot `observe` took (`_parts`), and the record's values assembled from
    it on first read (`_values`)."""

    __slots__ = ("_parts", "_values")
    _data = assembled_on_first_read(_assemble)  # the record's values, as `RecordObservation` reads them


_Observation = MoseObservation.record_type(OBSERVATION_KEYS)


def match_view(state: "MoseState") -> tuple:
    """The match's part of every observation (seats, round, wild rank, dealer, totals, past rounds, options):
    values that change only when a round is scored or dealt, kept by the state (`MoseState.match_view`)."""
    return (state.players, state.round, state.wild, state.dealer, state.scores, state.history, state.options)


def observe(state: "MoseState", seat: int | None) -> Observation:
    """`MoseState.observation`: what ``seat`` may see (None: the spectator)."""
    if seat not in state.seats:  # None or a seat's number (a tuple's test: C comparisons, no hashing)
        raise GameError(f"seat {seat!r} is not in this {state.players}-player game")
    pickup = state.last_pickup
    observation = _Observation()  # see RecordObservation
    # In `_assemble`'s order.  Nothing is copied: every value is immutable or replaced on change.
    observation._parts = (
        seat,
        state.current,
        state.phase,
        None if seat is None else state.hands[seat],
        tuple(state.sizes),  # kept with the hands (`tuple()` copies a list in half the instructions of `(*x,)`)
        state.discard,
        len(state.stock),
        state.melds,
        state.table,
        state.turn,
        state.round_started,
        state.exhaustions,
        state.penalties,
        state.mistake,
        state.false_plays,
        None if pickup is None else pickup.view,  # seat, source, count, by: never the cards
        state.window,
        # (a pair: a 20th value would make the snapshot a tuple too long for CPython's free lists, some 2,000
        # more instructions a decision, measured with callgrind)
        (state.turns, state.decisions),
        state.match_view,
    )
    observation._values = None  # assembled when first read
    return observation


@lru_cache(maxsize=4096)
def meld_view(meld: Meld) -> dict[str, Any]:
    """A meld as observations show it (shared, read-only: kept per meld, which is immutable).  Tokens, not
    cards + meanings: each card is named once (``2h:6s`` is the wild 2h as 6s)."""
    return {"id": meld.id, "owner": meld.owner, "kind": meld.kind, "tokens": [*map(token_text, meld.tokens)]}
