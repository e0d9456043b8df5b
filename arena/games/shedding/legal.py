"""Legal-action generation: the single source of truth for what a seat may do.

Kept as plain functions over the state's lists so the hot path is a few
comprehensions.  Order is stable: plays (in hand order), then draw, pass,
accept, call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.shedding import actions as A
from arena.games.shedding import blind
from arena.games.shedding.actions import PLAY
from arena.games.shedding.effects import can_draw

if TYPE_CHECKING:
    from arena.games.shedding.rules import Ruleset
    from arena.games.shedding.state import SheddingState


def playable_cards(state: "SheddingState", hand: list[str]) -> list[str]:
    """Cards of `hand` legal on the effective top (rank, active suit, wild placements) [P16]."""
    rules = state.rules
    on_top = legal_on_top(state)
    out = [c for c in hand if c in on_top]
    if rules.no_finish and len(hand) == 1:
        out = [c for c in out if c not in rules.no_finish]
    return out


def legal_on_top(state: "SheddingState") -> frozenset:
    """Every card of the deck legal on the effective top, memoised per ruleset (by top card alone
    while no suit is named, the common case)."""
    rules = state.rules
    top = state.discard[-1]
    if state.active_suit is None:
        cards = rules.playable_plain.get(top)
        if cards is None:
            cards = rules.playable_plain[top] = _playable_on(rules, top, None, False)
        return cards
    key = (top, state.active_suit, state.suit_kind == "demand")
    cards = rules.playable.get(key)
    if cards is None:
        cards = rules.playable[key] = _playable_on(rules, *key)
    return cards


def _playable_on(rules, top: str, active_suit: str | None, demand: bool) -> frozenset:
    """Every card of the deck legal on this top; memoised per ruleset, so a turn is one set test per card."""
    top_rank = top[0]
    if rules.open_tops and active_suit is None and top in rules.open_tops:
        legal = set(rules.deck)  # anything goes on an open top (Faraón Js, Pesten Joker)
    else:
        suit = active_suit or top[1]
        wild = rules.wild[top_rank, demand]
        legal = {c for c in rules.deck if c[0] == top_rank or c[1] == suit or c in wild}
    return frozenset(legal - rules.blocked[top_rank])


def turn_actions(state: "SheddingState") -> list:
    """The turn's choices: plays (in hand order), then draw or pass, then the call; while an accusation may
    still be made in this turn (S1, B-8), ``accuse N`` after them (`SheddingState.accusable`).

    One frame for the common turn (the legal list is built at every decision): the plays of an ordinary
    turn are a loop over the hand against the cards legal on the top, memoised per ruleset (a list
    comprehension is a call of its own in CPython 3.11).
    """
    hand = state.hands[state.current]  # only asked while the game runs: the raw seat, not the property
    rules = state.rules
    if state.pending_draw or state.pending_skip:
        out = _answers(state, hand)
    elif state.forced is not None:  # the drawn card, the only one the seat may play (C-4), if it fits
        if not drawn_card_fits(state, state.forced):
            out = [A.PASS]
        elif rules.blind:
            out = blind.plays(state, [state.forced], len(hand)) + [A.PASS]
        else:
            out = [PLAY[state.forced], A.PASS]
    else:
        if rules.blind:
            cards = bool(playable_cards(state, hand))
            out = blind.plays(state, hand, len(hand))
        else:
            on_top = rules.playable_plain.get(state.discard[-1]) if state.active_suit is None else None
            if on_top is None:
                on_top = legal_on_top(state)
            out = []
            for card in hand:
                if card in on_top:
                    out.append(PLAY[card])
            if rules.no_finish and len(hand) == 1:
                out = [a for a in out if a.args[0] not in rules.no_finish]
            cards = bool(out)  # any play, before draw/pass/call join the list
        if state.called != 1:  # then draw or pass, and the call
            if not state.drawn:
                if (rules.voluntary_draw or not cards) and (state.stock or len(state.discard) > rules.recycle_keep):
                    out.append(A.DRAW)  # a card can come from the stock, directly or after recycling (`can_draw`)
                elif not cards:
                    out.append(A.PASS)
            else:
                if rules.repeat_draw and can_draw(state):  # B-3 alternative: no limit on draws per turn
                    out.append(A.DRAW)
                if not rules.must_play_after_draw or not cards:
                    out.append(A.PASS)
            call_at = rules.call_at
            if call_at and not state.called:
                if len(hand) == call_at and (cards or call_at == 2):  # C-9 flag: offered with a finishing play
                    out.append(_call_word(rules.call, hand, call_at))
                elif call_at == 2 and len(hand) == rules.call.false_call_at:  # B-7: a false call
                    out.append(_call_word(rules.call, hand, call_at))
    if state.accusable is not None:
        out.append(A.accuse(state.accusable[0]))
    return out


def drawn_card_fits(state: "SheddingState", card: str) -> bool:
    """Is this card, just drawn into the current hand, legal on the top?"""
    on_top = state.rules.playable_plain.get(state.discard[-1]) if state.active_suit is None else None
    if on_top is None:  # `legal_on_top`'s common case above, without its frame
        on_top = legal_on_top(state)
    if card not in on_top:
        return False
    return not (len(state.hands[state.current]) == 1 and card in state.rules.no_finish)


def plain_turn_actions(state: "SheddingState") -> list:
    """`turn_actions` for a ruleset whose turns know no Blind play, no call in turn, no card that may not
    finish a hand and no repeated draw (`phase_table` picks it): the same list in fewer steps.  A pending
    draw or skip, or a drawn card that must be played, goes to `turn_actions`."""
    if state.pending_draw or state.pending_skip or state.forced is not None:
        return turn_actions(state)
    rules = state.rules
    on_top = rules.playable_plain.get(state.discard[-1]) if state.active_suit is None else None
    if on_top is None:
        on_top = legal_on_top(state)
    out = []
    for card in state.hands[state.current]:
        if card in on_top:
            out.append(PLAY[card])
    if state.called != 1:  # then draw or pass, as `turn_actions` (no call to offer)
        if not state.drawn:
            if not out or rules.voluntary_draw:
                if state.stock or len(state.discard) > rules.recycle_keep:  # `can_draw`
                    out.append(A.DRAW)
                elif not out:
                    out.append(A.PASS)
        elif not rules.must_play_after_draw or not out:
            out.append(A.PASS)
    return out


def _answers(state: "SheddingState", hand: list[str]) -> list:
    """A pending draw or skip: the cards that answer it, `accept`, and the call where it is due."""
    rules = state.rules
    counters = rules.rule(state.discard[-1]).stack_with
    plays = [
        PLAY[c]
        for c in hand
        if (c[0] in counters or c in counters) and not (len(hand) == 1 and c in rules.no_finish)
    ]
    if state.called == 1:
        return plays
    plays.append(A.ACCEPT)
    call_at = rules.call_at
    if call_at and not state.called and len(hand) == call_at and (len(plays) > 1 or call_at == 2):
        plays.append(_call_word(rules.call, hand, call_at))
    return plays


def _call_word(call, hand: list[str], call_at: int):
    """S1 presses MAU-MAU; going out (C-9 flag) says the word for the last card."""
    if call_at == 2 or hand[0][0] == call.special_rank:
        return A.call(call.special_word)
    return A.call(call.word)


def cover_actions(state: "SheddingState") -> list:
    if state.forced is not None:
        return [PLAY[state.forced]]
    top = state.discard[-1]
    ranks = state.rules.rule(top).cover_ranks
    suit = top[1]
    covers = [PLAY[c] for c in state.hands[state.current] if c[0] in ranks or c[1] == suit]
    if covers:
        return covers
    return [A.DRAW] if can_draw(state) else [A.PASS]


def follow_actions(state: "SheddingState") -> list:
    plays = [PLAY[c] for c in playable_cards(state, state.hands[state.current])]
    return plays or [A.DRAW]


def combo_actions(state: "SheddingState") -> list:
    rank = state.combo[-1][0]
    hand = state.hands[state.current]
    no_finish = state.rules.no_finish  # cards that may not be a hand's last (cannot_finish "forbidden")
    out = []
    for card in hand:
        if card[0] == rank and not (card in no_finish and len(hand) == 1):
            out.append(PLAY[card])
    out.append(A.STOP)
    return out


def call_actions(state: "SheddingState") -> list:
    call = state.rules.call
    if state.going_out:  # the hand is empty: the finishing word (Tschau Sepp "Sepp")
        return [A.call(call.finish_word), A.PASS]
    last = state.hands[state.current][0]
    word = call.special_word if last[0] == call.special_rank else call.word
    return [A.call(word), A.PASS]


def legal_actions(state: "SheddingState") -> list:
    """The legal list; duplicate cards (two packs) give one action each."""
    legal = BY_PHASE[state.phase](state)
    if state.rules.copies > 1 and state.current is not None:
        hand = state.hands[state.current]
        if len(set(hand)) != len(hand):
            return list(dict.fromkeys(legal))
    return legal


#: Legal lists that never change, shared (`SheddingState.legal_actions` returns a copy of the list it keeps).
_BONUS_ACTIONS = [A.BONUS_SELF, A.BONUS_OTHERS]
_CHALLENGE_ACTIONS = [blind.CHALLENGE, blind.BELIEVE]


def _suit_actions(state: "SheddingState") -> list:
    return A.SUIT_ACTIONS  # shared: the state keeps the list it is given and hands out copies


def _accuse_actions(state: "SheddingState") -> list:
    return [A.accuse(state.window["offender"]), A.PASS]


def _bonus_actions(state: "SheddingState") -> list:
    return _BONUS_ACTIONS


def _challenge_actions(state: "SheddingState") -> list:
    return _CHALLENGE_ACTIONS


def _rescue_actions(state: "SheddingState") -> list:  # P2 rescue_first_k: play the drawn answer, or go on paying
    return [PLAY[state.forced], A.ACCEPT]


def _target_actions(state: "SheddingState") -> list:
    return [A.target(s) for s in state.others(state.current)]


def _no_actions(state: "SheddingState") -> list:  # the game is over
    return []


#: Each decision's legal-list function, by `state.phase`: one look-up and one call, where a chain of
#: comparisons and a second frame cost more at every decision that is not a turn.
BY_PHASE = {
    "turn": turn_actions,
    "combo": combo_actions,
    "suit": _suit_actions,
    "cover": cover_actions,
    "follow": follow_actions,
    "accuse": _accuse_actions,
    "call": call_actions,
    "finish-bonus": _bonus_actions,
    "challenge": _challenge_actions,
    "rescue": _rescue_actions,
    "target": _target_actions,
    "over": _no_actions,
}


def phase_table(rules: "Ruleset") -> dict:
    """This ruleset's legal-list function by decision, kept on the ruleset (`Ruleset.legal_by_phase`) on
    first use: with two packs every decision folds duplicate plays (`legal_actions`); with one, `BY_PHASE`,
    and the plain turn where the ruleset's turns allow it (`plain_turn_actions`)."""
    if rules.copies > 1:
        table = dict.fromkeys(BY_PHASE, legal_actions)
    else:
        table = dict(BY_PHASE)
        if not (rules.blind or rules.call_at or rules.no_finish or rules.repeat_draw or rules.accusable_view):
            table["turn"] = plain_turn_actions
    object.__setattr__(rules, "legal_by_phase", table)
    return table
