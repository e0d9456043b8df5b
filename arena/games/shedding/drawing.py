"""Drawing, passing and paying: the draw action in each situation (a cover to find, a failed
follow, drawing until playable, a demanded suit, the rule that only the drawn card may follow),
passing (in a turn, at a call decision, in a catch window), accepting a pending penalty, and
paying it a card at a time while a drawn card may answer it (P2 `rescue_first_k`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.shedding import calls, effects, playing, turns
from arena.games.shedding.legal import legal_on_top, playable_cards

if TYPE_CHECKING:
    from arena.games.shedding.state import SheddingState


def draw(state: SheddingState) -> None:
    rules = state.rules
    seat = state.current
    if state.phase == "cover":
        ranks = rules.rule(state.discard[-1]).cover_ranks
        suit = state.discard[-1][1]
        while True:
            card = effects.draw_one(state, seat)
            if card is None:  # the obligation lapses
                turns.stuck(state)
                return
            if card[0] in ranks or card[1] == suit:
                state.forced = card
                state.drawn = True
                return
    if state.phase == "follow":  # failed follow: draw one, the turn ends (C-8)
        fail_follow(state)
        return
    state.drawn = True
    if rules.draw_mode == "until_playable" and state.suit_kind != "demand":
        on_top = rules.playable_plain.get(state.discard[-1]) if state.active_suit is None else None
        if on_top is None:  # `legal_on_top`'s common case above, without its frame
            on_top = legal_on_top(state)  # the top stays while drawing (recycling keeps it)
        if effects.draw_until(state, seat, on_top) is None:
            turns.stuck(state)
        return
    card = effects.draw_one(state, seat)
    if card is None:
        turns.stuck(state)
        return
    if state.suit_kind == "demand":  # exactly one card, then play or the turn ends
        if not playable_cards(state, state.hands[seat]):
            if rules.demand_expires:  # A-12 alternative: the failed demand binds nobody after
                state.active_suit = state.suit_kind = None
            turns.end_turn(state, 1)
        return
    if rules.after_draw_play == "drawn":  # C-4: only the drawn card may follow
        # Kept as the turn's only card whether it fits or not: the seat then plays it or passes, or only
        # passes (`legal.turn_actions`).  Ending the turn for it when it does not fit would tell every seat
        # so, where a seat may also keep a card that fits.
        state.forced = card



def fail_follow(state: SheddingState) -> None:
    """C-8: draw one and the turn ends; the alternative passes the obligation on if a card came."""
    got = effects.draw(state, state.current, 1)
    turns.end_turn(state, 1)
    if got and state.rules.follow_fail == "pass" and not state.is_over:
        if state.phase == "turn":
            state.phase = "follow"
        else:  # a call or an accusation window first; `turns.resume` hands the obligation on
            state.carry_follow = True



def pass_turn(state: SheddingState) -> None:
    phase = state.phase
    if phase == "accuse":
        window = state.window
        window["queue"].pop(0)
        if window["queue"]:
            state.current = window["queue"][0]
        else:
            state.window = None
            if state.going_out:  # nobody caught the missing word: the finish stands
                calls.go_out(state, window["offender"])
            else:
                turns.resume(state, window["next"])
                calls.keep_accusable(state, window["offender"], not window["called"])
        return
    if phase == "call":
        calls.open_window(state, state.current, state.next_seat)
        return
    if not state.drawn and not state.placed and not effects.can_draw(state):
        turns.stuck(state)
        return
    turns.end_turn(state, 1)



def accept(state: SheddingState) -> None:
    if state.pending_draw and (state.paying or state.rules.rule(state.discard[-1]).rescue_first_k):
        if pay_with_rescue(state):
            return
    if state.pending_draw or state.paying:
        if state.paying:  # the rescue cards came and went: the rest of the debt, then as any accept
            state.paying = 0
            state.phase = "turn"
            state.forced = None
        count = state.pending_draw
        state.pending_draw = 0
        effects.draw(state, state.current, count)
        rules = state.rules
        if (rules.rule(state.discard[-1]).after_accept or rules.after_accept) == "end_turn":
            turns.end_turn(state, 1)
        return
    state.pending_skip = 0
    turns.end_turn(state, 1)



def pay_with_rescue(state: SheddingState) -> bool:
    """P2 rescue_first_k: pay one card at a time; True when a drawn card may answer the debt."""
    rule = state.rules.rule(state.discard[-1])
    answers = rule.stack_with
    seat = state.current
    while state.pending_draw and state.paying < rule.rescue_first_k:
        card = effects.draw_one(state, seat)
        if card is None:  # C-12: a short stock forgives the rest
            state.pending_draw = 0
            return False
        state.pending_draw -= 1
        state.paying += 1
        if card[0] in answers or card in answers:
            state.phase = "rescue"
            state.forced = card
            return True
    return False



def rescue(state: SheddingState, card: str) -> None:
    """The drawn answer is played at once: the rest of the debt lapses, only its own effect counts."""
    state.pending_draw = 0
    state.paying = 0
    state.combo = []
    state.hands[state.current].remove(card)
    state.sizes[state.current] -= 1
    playing.place(state, card, from_hand=True, combo=False)
