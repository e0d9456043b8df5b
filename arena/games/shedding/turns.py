"""Turn order and the flow between turns.

Who moves next (`step`: seats out of the hand or the match take no turn), the end of a turn (with
the call or catch window it may open first), the start of the next one, Prší's return window
(P28), a turn that can neither play nor draw (`stuck`: a full round of them blocks the hand), and
the forced steps the engine takes without asking (`settle`, see `state`'s docstring).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.shedding import calls, drawing, events, scoring
from arena.games.shedding import actions as A
from arena.games.shedding.legal import legal_actions, playable_cards

if TYPE_CHECKING:
    from arena.games.shedding.state import SheddingState


def step(state: SheddingState, seat: int, steps: int) -> int:
    """The seat `steps` turns on; seats out of the hand or the match take no turn."""
    if not state.gone_count:
        return (seat + state.direction * steps) % state.players
    gone = state.gone
    while steps > 0:
        seat = (seat + state.direction) % state.players
        if not gone[seat]:
            steps -= 1
    return seat



def refresh_gone(state: SheddingState) -> None:
    lives = state.rules.lives
    if not lives and not state.finished and state.returning is None:  # everybody plays (every new hand)
        state.gone = [False] * state.players
        state.gone_count = 0
        return
    gone = [bool(lives) and state.losses[s] >= lives for s in range(state.players)]
    for seat in state.finished:
        gone[seat] = True
    if state.returning is not None:
        gone[state.returning] = True
    state.gone = gone
    state.gone_count = sum(gone)



def resume(state: SheddingState, seat: int) -> None:
    """Start `seat`'s turn after a call or accusation window, with a carried follow obligation."""
    start_turn(state, seat)
    if state.carry_follow:
        state.carry_follow = False
        if not state.is_over and state.phase == "turn":
            state.phase = "follow"



def stuck(state: SheddingState) -> None:
    """Nothing can be played or drawn: the turn ends; a full round of this blocks the hand."""
    if state.suit_kind == "demand" and state.rules.demand_expires and not state.placed:
        state.active_suit = state.suit_kind = None  # A-12 alternative, as after a failed draw
    state.idle += 1
    if state.idle >= state.players - state.gone_count:
        scoring.score_hand(state, None, "blocked")
        return
    end_turn(state, 1)



def end_turn(state: SheddingState, steps: int) -> None:
    seat = state.current
    if state.placed:
        state.last_discarder = seat
    if state.blind_skip:  # C-13: a challenger who doubted the truth loses their next turn
        steps += state.blind_skip
        state.blind_skip = 0
    nxt = (seat + state.direction * steps) % state.players if not state.gone_count else step(state, seat, steps)
    call = state.rules.call
    if call is not None:
        if call.timing == "after_drop":
            if state.placed and len(state.hands[seat]) == 1:
                state.phase = "call"
                state.next_seat = nxt
                return
        elif state.offender is not None:
            calls.open_window(state, state.offender, nxt)
            return
    start_turn(state, nxt)



def await_return(state: SheddingState, seat: int) -> bool:
    """P28: the seat is out but not yet the winner; True if an earlier finisher wins now."""
    if state.returning is not None:
        scoring.score_hand(state, state.returning, "out")
        return True
    state.returning = seat
    state.return_wait = state.players - state.gone_count - 1
    refresh_gone(state)
    return False



def start_turn(state: SheddingState, seat: int) -> None:
    if state.returning is not None:  # P28: each other seat gets one turn, then the finisher has won
        if state.return_wait <= 0:
            scoring.score_hand(state, state.returning, "out")
            return
        state.return_wait -= 1
    state.phase = "turn"
    state.drawn = False
    state.called = 0
    state.placed = 0
    state.forced = None
    if state.combo:  # the last play's cards; an empty list is kept (a new one cost an allocation a turn)
        state.combo = []
    state.offender = None
    state.accusable = None
    state.current = seat
    state.next_seat = None



def settle(state: SheddingState) -> None:
    """Apply forced consequences that leave the seat no choice (see the module docstring)."""
    while not state.is_over:
        phase = state.phase
        if phase == "follow":
            if playable_cards(state, state.hands[state.current]):
                return
            drawing.fail_follow(state)
        elif phase == "turn" and (state.pending_draw or state.pending_skip):
            if state.rules.rule(state.discard[-1]).stack_with:
                # A card of this ruleset answers the debt, and a seat holding one may still accept: it is
                # asked even when it holds none, or the table would learn from a step taken without it
                # (and its events) that this hand has no answer.
                return
            legal = legal_actions(state)
            if len(legal) != 1 or legal[0] != A.ACCEPT:
                return
            if state.log is not None:
                events.forced_accept(state)
            drawing.accept(state)
        else:
            return
    state.legal_cache = None
