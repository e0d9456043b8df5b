"""Chance-touching primitives: drawing, recycling the discard pile, dealing [P1, P25, P26].

These are the only functions that move cards from the stock; they keep the
(seed, counter) bookkeeping so a position carries its future shuffles.
The stock is kept internally with its top card at the *end* of the list
(cheap pops); positions show it top first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games import chance
from arena.games.shedding import events

if TYPE_CHECKING:
    from arena.games.shedding.state import SheddingState


def can_draw(state: "SheddingState") -> bool:
    """A card can come from the stock, directly or after recycling."""
    return bool(state.stock) or len(state.discard) > state.rules.recycle_keep


def recycle(state: "SheddingState") -> bool:
    """Shuffle all discards but the top `recycle_keep` into a new stock (lazily, A-21)."""
    keep = state.rules.recycle_keep
    if len(state.discard) <= keep:
        return False
    under = state.discard[:-keep]
    if state.masks:  # Blind: face-down cards go back as what they really are
        cut = len(under)
        under = [state.masks.get(i, card) for i, card in enumerate(under)]
        state.masks = {i - cut: real for i, real in state.masks.items() if i >= cut}
    del state.discard[:-keep]
    state.stock = chance.permuted(under, state.seed, state.counter) + state.stock
    state.counter += 1
    if state.log is not None:
        events.reshuffled(state, len(under))
    return True


def draw_one(state: "SheddingState", seat: int) -> str | None:
    """One card into `seat`'s hand, or None when nothing is left anywhere."""
    if not state.stock and not recycle(state):
        return None
    card = state.stock.pop()
    state.hands[seat].append(card)
    state.sizes[seat] += 1
    if state.log is not None:
        events.drew(state, seat)
    return card


def draw_until(state: "SheddingState", seat: int, playable: frozenset) -> str | None:
    """Draw into `seat`'s hand one card at a time until a card of `playable` comes that the hand may
    hold (a card that cannot finish may not be a hand's only card); that card, or None when nothing is
    left anywhere.  `draw_one` in a loop, in one frame: a seat drawing until it can play draws several."""
    hand = state.hands[seat]
    sizes = state.sizes
    while state.stock or recycle(state):
        card = state.stock.pop()
        hand.append(card)
        sizes[seat] += 1
        if state.log is not None:
            events.drew(state, seat)
        if card in playable and (len(hand) > 1 or card not in state.rules.no_finish):
            return card
    return None


def draw(state: "SheddingState", seat: int, count: int) -> int:
    """Draw up to `count`; a shortfall after recycling is forgiven (B-10, C-12).  `draw_one` in a loop, in
    one frame (a 7, an 8 or a penalty makes a seat draw at every few decisions)."""
    hand = state.hands[seat]
    sizes = state.sizes
    drawn = 0
    while drawn < count and (state.stock or recycle(state)):
        hand.append(state.stock.pop())
        sizes[seat] += 1
        if state.log is not None:
            events.drew(state, seat)
        drawn += 1
    return drawn


def shuffled_deck(state: "SheddingState") -> list[str]:
    """A fresh shuffled pack for a new hand, top card last (the internal stock order)."""
    deck = chance.permuted(state.rules.deck, state.seed, state.counter)
    state.counter += 1
    return deck
