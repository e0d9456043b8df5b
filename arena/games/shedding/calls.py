"""Calls and accusations (S1, S2, B-7..B-9, C-9): the MAU call and its preconditions, the catch
window that asks every other seat in turn order, an accusation made in the next player's turn,
and the finishing word said (or missed) when going out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.shedding import effects, playing, turns
from arena.games.shedding.legal import playable_cards

if TYPE_CHECKING:
    from arena.games.shedding.state import SheddingState


def call(state: SheddingState) -> None:
    rule = state.rules.call
    seat = state.current
    if state.going_out:  # the finishing word, said in time
        go_out(state, seat)
        return
    if state.phase == "call":  # S2: said in time, nothing to catch
        turns.resume(state, state.next_seat)
        return
    hand = state.hands[seat]
    if state.pending_draw or state.pending_skip:
        counters = state.rules.rule(state.discard[-1]).stack_with
        can_discard = any(c[0] in counters or c in counters for c in hand)
    else:
        can_discard = bool(playable_cards(state, hand))
    if len(hand) == state.rules.call_at and not state.drawn and can_discard:
        state.called = 1
    else:  # B-7: every failed precondition is a false call
        state.called = 2
        effects.draw(state, seat, rule.false_call_penalty)



def open_window(state: SheddingState, offender: int, next_seat: int) -> None:
    n = state.players
    queue = [(offender + state.direction * i) % n for i in range(1, n)]
    state.window = {"offender": offender, "queue": queue, "next": next_seat, "called": state.called == 1}
    state.phase = "accuse"
    state.current = queue[0]



def accuse(state: SheddingState) -> None:
    rule = state.rules.call
    if state.phase == "turn":  # B-8/B-9: the next player accuses during its turn; the turn goes on
        offender, guilty = state.accusable
        state.accusable = None
        effects.draw(state, offender if guilty else state.current, rule.penalty if guilty else rule.false_accuse_penalty)
        return
    window = state.window
    if window["called"]:  # nobody to accuse: the accuser pays (S1)
        effects.draw(state, state.current, rule.false_accuse_penalty)
    else:
        effects.draw(state, window["offender"], rule.penalty)
    state.window = None
    if state.going_out:  # caught going out without the word: with the penalty in hand, play on
        state.going_out = False
        state.current = window["offender"]
        if state.hands[state.current]:
            playing.resolve(state)  # the play no longer empties the hand: it resolves as any other
        else:
            go_out(state, state.current)  # nothing left to draw (C-12): the finish stands
        return
    turns.resume(state, window["next"])
    keep_accusable(state, window["offender"], False)  # caught, or nobody to catch: a new accusation is false



def keep_accusable(state: SheddingState, offender: int, guilty: bool) -> None:
    """S1 (B-8): the window stays open into the next player's turn, until it discards or passes."""
    rule = state.rules.call
    if rule.accuse_in_next_turn and state.phase == "turn" and not state.is_over and state.current != offender:
        state.accusable = (offender, guilty)



def go_out(state: SheddingState, seat: int) -> None:
    """The finishing play resolves with its word counted as said (CallRule.finish_word)."""
    state.going_out = False
    state.current = seat
    state.called = 1
    playing.resolve(state)
