"""A play's pipeline (RULES.md 8.2): `place` each card on the pile (the table-pattern check
after each card, and a `combo` decision while same-rank cards may follow), then `resolve` the
play once: finishing restrictions, the effect primitives in order, the obligations left for a
seat (suit choice, a target, cover, follow), and the end of the turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.shedding import effects, scoring, turns
from arena.games.shedding.legal import playable_cards

if TYPE_CHECKING:
    from arena.games.shedding.rules import Ruleset
    from arena.games.shedding.state import SheddingState


def place(state: SheddingState, card: str, from_hand: bool, combo: bool = True) -> None:
    """Put one card on the pile; the play resolves once no more cards are added."""
    state.discard.append(card)
    if from_hand:
        state.placed += 1
        state.accusable = None  # B-8: the next player's discard closes the accusation window
    state.idle = 0
    state.active_suit = None
    state.suit_kind = None
    state.forced = None
    state.combo.append(card)
    rules = state.rules
    rank = card[0]
    n = rules.table_pattern
    discard = state.discard
    if n and len(discard) >= n and discard[-2][0] == rank:  # the card below first: it rarely matches
        for c in discard[-n:]:
            if c[0] != rank:
                break
        else:
            scoring.table_event(state)
            return
    if rules.combos and combo and (from_hand or rules.opening == "hand_card"):
        hand = state.hands[state.current]  # the card has left it: any card of its rank, its twin too
        if not rules.same_rank[card].isdisjoint(hand) or card in hand:
            state.phase = "combo"
            return
    resolve(state)



def resolve(state: SheddingState) -> None:
    """Apply the play's effects once, in order (RULES.md 8.2 step 3)."""
    rules = state.rules
    cards = state.combo
    if len(cards) == 1 and not state.opening and state.hands[state.current]:  # one card, cards left in hand
        ends = rules.turn_enders.get(cards[0])
        if ends is not None:  # hot path: a card whose effects only end the turn, as the steps below do it
            draw, skips, reverse = ends
            if reverse:
                state.direction = -state.direction
                if rules.reverse_two == "again" and state.players - state.gone_count <= 2:
                    skips = -1  # C-26: with two seats a reversal is another turn
            if draw:
                effects.draw(state, turns.step(state, state.current, 1), draw)
            turns.end_turn(state, 1 + skips)
            return
        obligation = rules.obliging.get(cards[0])
        if obligation is not None:  # a card that only leaves its player a decision: as at the end below
            state.phase = obligation
            if obligation == "suit":
                state.advance = 1
            return
    last = cards[-1]
    rule = rules.rule(last)
    seat = state.current
    opening = state.opening
    state.opening = False
    if opening and rules.opening == "upcard" and not rules.starter_effects:
        turns.end_turn(state, 1)
        return
    finished = False
    first_out = rules.hand_end == "first_out"
    if not state.hands[seat] and not (opening and rules.opening == "upcard"):
        finished = not (rule.covers or rule.follow or rule.cannot_finish in ("continue", "penalty"))
        if finished and state.called != 1 and rules.call is not None and rules.call.finish_word:
            state.going_out = True  # the word first (Tschau Sepp "Sepp"); `calls.go_out` resolves the play again
            state.phase = "call"
            state.next_seat = turns.step(state, seat, 1)
            return
        if finished and rules.call_at == 1 and state.called != 1 and len(cards) == 1 and not opening:
            finished = False  # C-9 flag: going out without the word (said at one card) is no going out
            effects.draw(state, seat, rules.call.penalty)
        elif not finished and rule.emptying is not None:
            rule = rule.emptying  # A-14 s7_literal: the last Ace acts differently, once per play
            cards = (last,)
        if finished and rules.finishing_effects == "ignore" and first_out and not rules.return_window:
            scoring.finish(state, seat, "out")
            return
    draw_others = draw_chosen = 0
    cancel = False
    if len(cards) == 1:
        draw_next, draw_previous, pending = rule.draw_next, rule.draw_previous, rule.pending_draw
        reverses, skips = rule.reverse, int(rule.skip)
        if rule.draw_others or rule.draw_chosen or rule.cancel_pending:
            draw_others, draw_chosen, cancel = rule.draw_others, rule.draw_chosen, rule.cancel_pending
    else:  # a combo's effects depend on its cards alone: added up once per ruleset and sequence of cards
        combo = tuple(cards)
        summed = rules.combo_effects.get(combo)
        if summed is None:
            summed = rules.combo_effects[combo] = aggregate(rules, combo)
        draw_next, draw_previous, pending, reverses, skips, draw_others, draw_chosen, cancel = summed
    if cancel:
        state.pending_draw = 0
    if reverses % 2:
        state.direction = -state.direction
    if draw_previous:
        previous = state.last_discarder
        if rules.previous_seat != "discarder" or previous is None:
            previous = (seat - state.direction) % state.players
        effects.draw(state, previous, draw_previous)
    if draw_next:
        target = turns.step(state, seat, 1)
        effects.draw(state, target, draw_next)
        if rule.skip_if_stuck and not playable_cards(state, state.hands[target]):
            skips += 1
    if draw_others:
        for other in state.others(seat):
            effects.draw(state, other, draw_others)
        if state.returning is not None and state.returning != seat:  # P28: hit while waiting, back in
            effects.draw(state, state.returning, draw_others)
            state.returning = None
            turns.refresh_gone(state)
    if not state.hands[seat] and rule.cannot_finish == "penalty" and not opening:
        effects.draw(state, seat, rules.finish_penalty)  # C-27 alternative: no win, and a penalty
    if finished:
        if pending and rules.finishing_effects == "apply":  # nobody can answer it: taken at once
            effects.draw(state, turns.step(state, seat, 1), state.pending_draw + pending)
            state.pending_draw = pending = 0
        if first_out and not rules.return_window:
            scoring.finish(state, seat, "out")
            return
        if scoring.leave(state, seat) if not first_out else turns.await_return(state, seat):
            return
    state.pending_draw += pending
    if skips and rule.skip_deflectable:
        state.pending_skip = 1
        skips = 0
    steps = 1 + skips
    if reverses % 2 and rules.reverse_two == "again" and state.players - state.gone_count <= 2:
        steps = 0 if not finished else steps  # C-26: with two seats a reversal is another turn
    if draw_chosen and state.others(seat):
        state.phase = "target"
        state.advance = steps
        return
    if rule.suit_choice:
        state.phase = "suit"
        if opening and rules.starter_suit_by == "next":
            state.current = turns.step(state, seat, steps)
            state.advance = 0
        else:
            state.advance = steps
        return
    if rule.covers and not (opening and rules.opening == "upcard" and not rules.starter_follow):
        state.phase = "cover"  # an upcard to cover obliges nobody, as an upcard Ace (C-3)
        return
    if rule.follow and not (opening and not rules.starter_follow):
        state.phase = "follow"
        return
    turns.end_turn(state, steps)



def aggregate(rules: "Ruleset", cards: "tuple[str, ...]") -> tuple:
    """A combo's effects added up (P17): "sum" per card (A-6) or "once" (Quick, C-11): (draw_next,
    draw_previous, pending, reverses, skips, draw_others, draw_chosen, cancel).  A function of the
    ruleset and the cards alone, so `resolve` keeps its answers per ruleset (`Ruleset.combo_effects`)."""
    by_card = rules.rules_by_card
    per_card = rules.combo_per_card
    once = rules.combo_aggregation == "once"
    draw_next = draw_previous = pending = reverses = skips = others = chosen = 0
    cancel = False
    for i, card in enumerate(cards):
        r = by_card[card]
        counted = card[0] in per_card
        if once and i and not counted:
            continue
        draw_next += r.draw_next
        draw_previous += r.draw_previous
        pending += r.pending_draw
        reverses += r.reverse
        others += r.draw_others
        chosen += r.draw_chosen
        cancel = cancel or r.cancel_pending
        if r.skip and (counted or not skips):
            skips += 1
    return draw_next, draw_previous, pending, reverses, skips, others, chosen, cancel



def target(state: SheddingState, seat: int) -> None:
    """The chosen seat draws (Evil Seven 2, C-22), then the turn ends as the play said."""
    effects.draw(state, seat, state.rules.rule(state.combo[-1] if state.combo else state.discard[-1]).draw_chosen)
    turns.end_turn(state, state.advance)



def choose_suit(state: SheddingState, suit: str) -> None:
    state.active_suit = suit
    state.suit_kind = state.rules.rule(state.discard[-1]).suit_choice
    if state.advance == 0:
        turns.start_turn(state, state.current)
    else:
        turns.end_turn(state, state.advance)
