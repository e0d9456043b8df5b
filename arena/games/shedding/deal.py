"""Dealing a hand [P26]: shuffle, deal one card at a time from the dealer's left (or by the
ladder's hand sizes, P27), reset the pile's and the turn's fields, and open the pile with the
upcard or the dealer's first card, which then plays as any card placed (`play.place`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.shedding import effects, events, playing, turns

if TYPE_CHECKING:
    from arena.games.shedding.state import SheddingState


def reset_turn(state: SheddingState) -> None:
    state.phase = "turn"
    state.drawn = False
    state.called = 0  # 0 no call, 1 valid call, 2 false call
    state.placed = 0
    state.forced: str | None = None
    state.combo: list[str] = []
    state.offender: int | None = None



def deal(state: SheddingState) -> None:
    """Shuffle, deal one at a time from the dealer's left, then open (A-2, B-2, C-3) [P26]."""
    rules = state.rules
    n = state.players
    state.refresh_match_view()  # the scores, hand number and dealer of the hand about to begin
    state.stock = stock = effects.shuffled_deck(state)
    state.discard: list[str] = []
    state.direction = rules.start_direction
    state.finished = []
    state.returning: int | None = None
    state.return_wait = 0
    state.masks: dict[int, str] = {}  # Blind: pile position -> the real face-down card
    state.blind_play: dict | None = None
    state.blind_skip = 0
    state.last_discarder: int | None = None  # B-14 alternative: who a 9 makes draw
    state.carry_follow = False  # C-8 alternative: a failed follow waiting out a call window
    state.going_out = False  # a finishing play waiting for its word (CallRule.finish_word)
    state.paying = 0  # cards drawn so far paying a debt with a rescue (CardRule.rescue_first_k)
    turns.refresh_gone(state)
    state.active_suit: str | None = None
    state.suit_kind: str | None = None
    state.pending_draw = 0
    state.pending_skip = 0
    state.window: dict | None = None
    state.accusable: tuple[int, bool] | None = None
    state.next_seat: int | None = None
    state.advance = 1
    state.idle = 0
    size = rules.hand_size
    first = state.dealer + 1
    if not rules.ladder and len(stock) >= n * size:
        # One card at a time from the top (the list's end), starting left of the dealer: the seat
        # p places after the dealer gets every n-th card from the p-th from the top.
        top = len(stock) - 1
        state.hands = hands = [None] * n  # type: ignore[list-item]
        for p in range(n):
            hands[(first + p) % n] = stock[top - p :: -n][:size]
        del stock[len(stock) - n * size :]
    else:
        state.hands = [[] for _ in range(n)]
        if rules.ladder:  # P27: one card fewer per lost hand; seats out of the match get none
            sizes = [0 if state.gone[s] else size - state.losses[s] for s in range(n)]
        else:
            sizes = [size] * n
        order = [(first + i) % n for i in range(n)]
        for round_ in range(size):
            for seat in order:
                if stock and round_ < sizes[seat]:
                    state.hands[seat].append(stock.pop())
    state.sizes = [*map(len, state.hands)]  # kept up to date from here on (`SheddingState.sizes`)
    reset_turn(state)
    state.current: int | None = state.dealer
    state.opening = True
    if state.log is not None:
        events.dealt(state, state.log)
    if rules.opening == "hand_card":
        card = state.hands[state.dealer].pop()
        state.sizes[state.dealer] -= 1
    else:
        card = stock.pop()
    if state.log is not None:
        events.opened(state, card, rules.opening == "hand_card")
    playing.place(state, card, from_hand=False)
