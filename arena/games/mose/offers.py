"""What a Mose seat may play: its melds, lay-offs and swaps, as legal actions.

Pure functions of a hand and the table.  The state (`arena/games/mose/state.py`)
keeps their answers per seat and drops one when what it depends on changes:
a seat's meld actions and whether it holds a meld when its hand changes, its
plays and whether it has any when its hand or the table changes.  The table's
needs (`TableNeeds`) it keeps up to date meld by meld (`with_meld`): a change
to the table works out the changed meld's fit only.

A hand is read as a bit mask (`CARD_BITS`: a 16-bit lane per suit, bit p for
position p), which the state keeps up to date as cards come and go: which
cards a hand holds (not how many, with two decks), its suit lanes, its first
wild and, with one deck, how many wilds it holds are read off it.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import groupby
from operator import itemgetter
from sys import intern

from arena.games.base import Action
from arena.games.cards import RANKS, SUITS
from arena.games.mose.melds import (
    CARD_BITS,
    CARD_ORDER,
    Meld,
    MeldError,
    RANK_AT,
    RANK_BITS,
    Token,
    card_key,
    hand_mask,
    lay_off,
    layoff_offers,
    mask_has_meld,
    new_meld_offers,
    positions_of,
    segments,
    set_offers,
    set_size_ok,
    swap_in,
    token_text,
)

#: One discard action per card (actions are immutable values, so every legal list shares them).
DISCARDS = {card: Action("discard", (card,)) for card in CARD_ORDER}

#: Per rank, one bit of each of its cards in a hand mask (an Ace's low one): counts a one-deck hand's wilds.
_COUNT_BITS = {rank: sum(1 << positions_of(rank)[0] + 16 * k for k in range(len(SUITS))) for rank in RANKS}
#: That bit of each card, back to the card: the lowest of a hand's wild bits is its first wild.
_CARD_OF_BIT = {
    1 << positions_of(rank)[0] + 16 * k: intern(rank + suit) for k, suit in enumerate(SUITS) for rank in RANKS
}


#: ``bits_of(cards)``: the hand mask of these cards (`CARD_BITS`), `melds.hand_mask` itself (a plain loop:
#: two thirds of the instructions of a `reduce` of `or_` over a `map`, which a deal pays for every hand).
bits_of = hand_mask


#: ``has_meld(mask, wild, decks, hand)``: whether the hand holds a meld (`melds.mask_has_meld` itself, not a
#: function that calls it).  A hand with a meld keeps it when a card comes in, a hand without one stays
#: without when a card goes: the state asks again only in the other cases.
has_meld = mask_has_meld


# -- actions, made once each (immutable values every legal list shares) ----------------------


def meld_actions(hand: tuple[str, ...], mask: int, wild: str, decks: int, first: str | None = None) -> list[Action]:
    """The ``meld`` actions of `new_meld_offers` for a hand (sorted in hand order) and its mask, in its
    order: each suit's runs (its 3-card windows, then its maximal natural runs), then each rank's sets;
    ``first``: the wild to use first (`new_meld_offers`' ``first_wild``).

    Every part is kept by what it depends on alone, so that a new hand finds nearly all of them made: a
    run window's action by its suit, low place, held places and the wilds that fill the rest; a lane's
    natural runs by the lane; a rank's sets by its naturals and the wilds they need (`_set_actions`).

    Read off the mask where one deck allows it (a hand holds at most one of a card): the wilds and each
    rank's naturals by their bits (`_CARDS_OF_BITS`), the 3-card windows the wilds fill and the natural
    runs of all four suit lanes at once (a lane's bits 0 and 15 are never set, so no shift carries a
    place into the next lane), and the ranks a set can take from the lanes (`_set_ranks`).  With two
    decks the ranks' cards are read off the hand.
    """
    if decks == 1:
        wilds = _CARDS_OF_BITS[mask & _COUNT_BITS[wild]]
    else:
        by_rank = {rank: (*cards,) for rank, cards in groupby(hand, _rank_of)}
        wilds = by_rank.get(wild, ())
    if first is not None and first in wilds:
        i = wilds.index(first)
        wilds = (first, *wilds[:i], *wilds[i + 1 :])
    n = len(wilds)
    own = RANK_BITS[wild]
    actions: list[Action] = []
    # The lows of the 3-card windows the naturals (without the suits' own wilds) and the wilds fill (as
    # `melds._fillable_windows`): three places, two and a wild, one and two, any with three.
    a = mask & _NOT_WILD[wild]
    b, c = a >> 1, a >> 2
    fills = (a & b & c if not n else a & b | a & c | b & c if n == 1 else a | b | c if n == 2 else -1) & _ALL_LOWS
    runs = mask & mask >> 1 & mask >> 2 & mask >> 3  # four places in a row: a maximal natural run
    todo = fills | runs
    while todo:  # the lanes with a window or a natural run, in suit order
        k = ((todo & -todo).bit_length() - 1) >> 4
        shift = 16 * k
        todo &= ~(_LANE << shift)
        lane = mask >> shift & _LANE
        fill = fills >> shift & _LANE
        while fill:
            low = (fill & -fill).bit_length() - 1
            fill &= fill - 1
            held = lane >> low & 7
            free = wilds
            if lane & own & 7 << low:  # the suit's own wild is held and is the natural in its place here
                i = wilds.index(intern(wild + SUITS[k]))
                free = wilds[:i] + wilds[i + 1 :]
            key = (k, low, held, free[: 3 - _HELD[held]])
            action = _WINDOW_ACTIONS.get(key)
            if action is None:
                action = _WINDOW_ACTIONS[key] = _window_action(*key)
            actions.append(action)
        if runs >> shift & _LANE:
            actions.extend(_natural_run_actions(k, lane))
    if decks == 1:
        if n >= 3:
            ranks = RANKS
        else:
            ranks = _set_ranks(mask, n)
        for rank in ranks:
            naturals = _CARDS_OF_BITS[mask & _COUNT_BITS[rank]]
            held = len(naturals)
            if held + n >= 3:
                got = wilds[: 3 - held] if held < 3 else ()
                actions.extend(_set_actions(rank, naturals, got, wild if got else None, decks))
        return actions
    for rank in RANKS if n >= 3 else by_rank:
        naturals = by_rank.get(rank, ())
        held = len(naturals)
        if held + n >= 3:
            # A hand holds at most ``decks`` of a card, so a set takes every natural and the first wilds
            # that make three, none from three naturals up (`set_offers`): only those are the key.
            got = wilds[: 3 - held] if held < 3 else ()
            actions.extend(_set_actions(rank, naturals, got, wild if got else None, decks))
    return actions


def _set_ranks(mask: int, wilds: int) -> list[str]:
    """The ranks (in rank order) of which a one-deck hand (``mask``) with ``wilds`` wilds (0 to 2) holds
    enough cards, counting the wild rank's own, for a set: three suits' lanes, two with a wild, one with
    two."""
    s, h, d, c = mask & _LANE, mask >> 16 & _LANE, mask >> 32 & _LANE, mask >> 48
    if wilds == 0:
        held = s & h & d | s & h & c | s & d & c | h & d & c
    elif wilds == 1:
        held = s & h | s & d | s & c | h & d | h & c | d & c
    else:
        held = s | h | d | c
    held &= _RANK_PLACES
    ranks = []
    while held:
        ranks.append(RANK_AT[(held & -held).bit_length() - 1])
        held &= held - 1
    return ranks


_LANE = 0xFFFF
#: The lows 1..12 of the 3-card windows in every suit's lane.
_ALL_LOWS = sum(0x1FFE << 16 * k for k in range(len(SUITS)))
#: Per wild rank, the mask of every card but the wilds.
_NOT_WILD = {rank: ~sum(RANK_BITS[rank] << 16 * k for k in range(len(SUITS))) & (1 << 64) - 1 for rank in RANKS}
#: A lane's places 2..14, one per rank (an Ace's high one).
_RANK_PLACES = 0x7FFC
#: The cards of a one-deck hand's bits of one rank (``mask & _COUNT_BITS[rank]``), in hand order.
_CARDS_OF_BITS = {
    sum(_COUNT_BITS[rank] & 0xFFFF << 16 * k for k in ks): tuple(intern(rank + SUITS[k]) for k in ks)
    for rank in RANKS
    for ks in (tuple(k for k in range(len(SUITS)) if pattern >> k & 1) for pattern in range(16))
}
_rank_of = itemgetter(0)
#: How many of a window's three places a 3-bit mask of them holds.
_HELD = tuple(bin(bits).count("1") for bits in range(8))
#: Tokens of plain cards, made once (a Token is an immutable value; `layoff_action` keys on them).
_PLAIN = {card: Token(card) for card in CARD_BITS}
#: One run window's action by (suit index, low place, held places, the wilds standing in, in order).
_WINDOW_ACTIONS: dict[tuple[int, int, int, tuple[str, ...]], Action] = {}


def _window_action(k: int, low: int, held: int, wilds: tuple[str, ...]) -> Action:
    """The ``meld`` of the 3-card run window of suit ``SUITS[k]`` from ``low``: the held places (``held``,
    bit i for place low + i) as their cards, the others filled by ``wilds`` in order (`run_offers`' first
    part)."""
    suit = SUITS[k]
    free = iter(wilds)
    texts = []
    for i in range(3):
        card = intern(RANK_AT[low + i] + suit)
        texts.append(card if held >> i & 1 else f"{next(free)}:{card}")  # the tokens' texts (`token_text`)
    return Action("meld", (*texts,))


@lru_cache(maxsize=16384)
def _natural_run_actions(k: int, lane: int) -> tuple[Action, ...]:
    """The maximal natural runs (4 cards or more) of a suit's lane (`run_offers`' second part)."""
    suit = SUITS[k]
    actions = []
    for segment in segments([p for p in range(1, 15) if lane >> p & 1]):
        if len(segment) >= 4:
            for part in ([segment] if len(segment) <= 13 else [segment[:13], segment[1:]]):
                actions.append(meld_action(tuple(_PLAIN[intern(RANK_AT[p] + suit)] for p in part)))
    return tuple(actions)


@lru_cache(maxsize=65536)
def _set_actions(
    rank: str, naturals: tuple[str, ...], wilds: tuple[str, ...], wild: str | None, decks: int
) -> tuple[Action, ...]:
    """`set_offers` as actions (kept by the same arguments).  Without wilds the wild rank changes nothing
    (`set_offers` reads it only to fill a set with wilds), so the callers pass None for it then: the sets
    of naturals are kept once for every round, not once per wild rank."""
    return tuple(map(meld_action, set_offers(rank, naturals, wilds, wild, decks)))


def meld_action(tokens: tuple[Token, ...]) -> Action:
    """Not kept: its callers keep what they make (`_WINDOW_ACTIONS`, `_natural_run_actions`, `_set_actions`),
    and a cache of its own would miss nearly every time."""
    return Action("meld", (*map(token_text, tokens),))


@lru_cache(maxsize=8192)
def layoff_action(meld_id: int, end: str | None, token: Token) -> Action:
    args = (str(meld_id), end, token_text(token)) if end else (str(meld_id), token_text(token))
    return Action("layoff", args)


@lru_cache(maxsize=8192)
def wild_layoff_action(meld_id: int, end: str | None, card: str, stands: str) -> Action:
    """`layoff_action` of the wild ``card`` standing in for ``stands`` (kept by the texts, without the
    token: a seat's plays ask one for every run end it holds no natural for)."""
    text = f"{card}:{stands}"  # the token's text (`token_text`)
    return Action("layoff", (str(meld_id), end, text) if end else (str(meld_id), text))


@lru_cache(maxsize=4096)
def swap_actions(meld_id: int, natural: str) -> tuple[Action, Action]:
    """A swap's two actions, ``take`` and ``place`` (kept together: one look-up for both)."""
    return Action("swap", (str(meld_id), natural, "take")), Action("swap", (str(meld_id), natural, "place"))


# -- what the table takes ----------------------------------------------------------------------


# `MeldFit` and `TableNeeds` are read field by field at nearly every decision: slotted classes, whose
# attribute reads CPython 3.11 specializes (a NamedTuple's field is a descriptor it does not).  Neither is
# changed once made: a change to the table makes new ones.  They are made by `meld_fit` and `_needs` only,
# by `object.__new__` and a store per slot: one is made at nearly every fifth decision, and a class called
# with a Python ``__init__`` costs CPython 3.11 about 900 instructions more a construction (measured).

_new = object.__new__


class MeldFit:
    """What one meld on the table can take, as hand masks (`CARD_BITS`) and in offer order (made by
    `meld_fit`).

    ``meld``: the meld; ``bits``: the naturals a lay-off may add; ``takes_wild``: whether a wild may be laid
    off; ``swap_bits`` and ``swaps``: the naturals that may be swapped in for one of its wilds (a run's in
    token order, a set's in hand order).  A run's lay-offs by end (``ends``: end, natural, its bits, the
    action; empty for a set), a set's by card in hand order (``plain``: card, its bits, the action; None
    for a run).
    """

    __slots__ = ("meld", "bits", "takes_wild", "swap_bits", "swaps", "ends", "plain")


class TableNeeds:
    """What the melds on the table can take (made by `_needs`), each (``melds``, in table order) and all
    together (as hand masks: ``bits`` the naturals some lay-off takes, ``swap_bits`` those some swap takes);
    ``run_takes_wild``: some run has a free end.  Read at nearly every decision as one mask, one test:
    ``touch``, the cards of which a hand needs one for any lay-off or swap (``bits``, the wilds when some
    meld takes one, and ``swap_bits``)."""

    __slots__ = ("melds", "bits", "takes_wild", "swap_bits", "run_takes_wild", "touch")


def _needs(
    fits: tuple[MeldFit, ...], bits: int, takes_wild: bool, swap_bits: int, run_takes_wild: bool, wild_bits: int
) -> TableNeeds:
    """The `TableNeeds` of these fits and totals (``wild_bits``: the wilds of the round, in a hand mask)."""
    needs = _new(TableNeeds)
    needs.melds = fits
    needs.bits = bits
    needs.takes_wild = takes_wild
    needs.swap_bits = swap_bits
    needs.run_takes_wild = run_takes_wild
    needs.touch = (bits | wild_bits if takes_wild else bits) | swap_bits
    return needs


#: The needs of an empty table (a new round's).
NO_NEEDS = _needs((), 0, False, 0, False, 0)


def table_needs(melds: list[Meld], wild: str, decks: int) -> TableNeeds:
    """The lay-offs and swaps the table allows, by card: a hand that holds none of the cards (and no wild
    where one fits) has none, whatever else it holds; otherwise `layoff_offers` and `swap_in` say which.

    Worked out meld by meld for a whole table (a restored position); the engine keeps it up to date one
    changed meld at a time (`with_meld`).
    """
    needs = NO_NEEDS
    for i, meld in enumerate(melds):
        needs = with_meld(needs, i, meld, wild, decks)
    return needs


def with_meld(needs: TableNeeds, index: int, meld: Meld, wild: str, decks: int) -> TableNeeds:
    """``needs`` with ``meld`` at ``index`` of the table: a new meld at the end (``index`` the table's
    length) or a changed one in its place (a round's melds keep their places).  Only that meld's fit is
    worked out (`meld_fit`); the others are the same objects.  A new meld only adds to the totals; a
    changed one may take away, so they are summed again over the fits."""
    fit = meld_fit(meld, wild, decks)
    fits = needs.melds
    if index == len(fits):
        return _needs(
            fits + (fit,),
            needs.bits | fit.bits,
            needs.takes_wild or fit.takes_wild,
            needs.swap_bits | fit.swap_bits,
            needs.run_takes_wild or (fit.takes_wild and fit.plain is None),
            _COUNT_BITS[wild],
        )
    fits = fits[:index] + (fit,) + fits[index + 1 :]
    # A loop rather than `reduce` over `attrgetter`s: the interpreter's reads of a slot are specialized,
    # `attrgetter`'s are not.
    bits = swap_bits = 0
    takes_wild = run_takes_wild = False
    for fit in fits:
        bits |= fit.bits
        swap_bits |= fit.swap_bits
        if fit.takes_wild:
            takes_wild = True
            if fit.plain is None:
                run_takes_wild = True
    return _needs(fits, bits, takes_wild, swap_bits, run_takes_wild, _COUNT_BITS[wild])


def meld_fit(meld: Meld, wild: str, decks: int) -> MeldFit:
    """What one meld can take (`MeldFit`).

    Worked out at every meld, lay-off and swap, so without comprehensions (each a call in CPython 3.11):
    a run's stand-ins are read off its tokens, and the rest is kept by what it depends on alone (a run's
    ends by its id, suit, low place and length; a set's parts by its id, rank, naturals' suits, stand-ins,
    decks and whether it is of the wild rank: `_run_ends`, `_set_parts`)."""
    tokens = meld.tokens
    if meld.kind == "run":
        swaps = ()
        swap_bits = 0
        for token in tokens:  # (a field read by name: unpacking a NamedTuple makes an iterator)
            stands = token.stands
            if stands is not None:
                swaps += (stands,)
                swap_bits |= CARD_BITS[stands]
        key = (meld.id, meld.suit, meld.low, len(tokens))
        ends = _RUN_ENDS.get(key)
        if ends is None:
            ends = _RUN_ENDS[key] = _run_ends(*key)
        fit = _new(MeldFit)
        fit.meld = meld
        fit.bits, fit.takes_wild, fit.ends = ends
        fit.swap_bits = swap_bits
        fit.swaps = swaps
        fit.plain = None
        return fit
    suits = ""  # the naturals' suits, in token order (a set's naturals come first, sorted)
    for token in tokens:
        if token.stands is None:
            suits += token.card[1]
    rank = meld.rank
    key = (meld.id, rank, suits, len(tokens) - len(suits), decks, rank == wild)
    parts = _SET_PARTS.get(key)
    if parts is None:
        parts = _SET_PARTS[key] = _set_parts(*key)
    fit = _new(MeldFit)
    fit.meld = meld
    fit.bits, fit.takes_wild, fit.swap_bits, fit.swaps, fit.plain = parts
    fit.ends = ()
    return fit


#: `_run_ends` by its arguments; `_set_parts` likewise (few: a round's meld ids are small numbers).
_RUN_ENDS: dict[tuple, tuple] = {}
_SET_PARTS: dict[tuple, tuple] = {}


def _run_ends(meld_id: int, suit: str, low: int, length: int) -> tuple[int, bool, tuple]:
    """A run's lay-offs by end (`MeldFit.ends`: end, natural, its bits, the action), with the naturals'
    bits and whether it has a free end."""
    ends = []
    bits = 0
    if length < 13:
        for end, p in (("lo", low - 1), ("hi", low + length)):
            if 1 <= p <= 14:
                natural = intern(RANK_AT[p] + suit)
                ends.append((end, natural, CARD_BITS[natural], layoff_action(meld_id, end, _PLAIN[natural])))
                bits |= CARD_BITS[natural]
    return bits, bool(ends), (*ends,)


def _set_parts(
    meld_id: int, rank: str, suits: str, wilds: int, decks: int, wild_rank: bool
) -> tuple[int, bool, int, tuple[str, ...], tuple]:
    """A set's `MeldFit` values but the meld: the naturals a lay-off may add (as bits), whether a wild may
    be, the naturals a swap takes (as bits and in hand order), and the lay-offs by card."""
    n = len(suits)
    open_naturals = tuple([rank + s for s in SUITS if suits.count(s) < decks])  # hand order
    naturals = open_naturals if set_size_ok(n + 1, wilds, decks) else ()
    swaps = open_naturals if wilds else ()
    return (
        bits_of(naturals),
        not wild_rank and set_size_ok(n, wilds + 1, decks),
        bits_of(swaps),
        swaps,
        tuple((card, CARD_BITS[card], layoff_action(meld_id, None, _PLAIN[card])) for card in naturals),
    )


# -- a seat's plays ----------------------------------------------------------------------------


def plays(
    seat: int, hand: tuple[str, ...], mask: int, melds_of_hand: tuple[Action, ...], needs: TableNeeds,
    table: list[Meld], wild: str, decks: int, owner_may_swap: bool,
) -> tuple[Action, ...]:
    """The melds, lay-offs and swaps ``seat`` may make (on turn or in a window): the hand's melds
    (``melds_of_hand``, `meld_actions`), then the lay-offs meld by meld as `layoff_offers` gives them (a
    natural that fits, else the first wild; a set's naturals in hand order), then the swaps."""
    first = None
    if needs.takes_wild:
        wilds = mask & _COUNT_BITS[wild]
        if wilds:
            first = _CARD_OF_BIT[wilds & -wilds]  # the wild a lay-off uses: the first in hand order
    if first is None and not needs.bits & mask and not needs.swap_bits & mask:
        return melds_of_hand  # the table takes nothing of this hand
    actions = list(melds_of_hand)
    if first is not None or needs.bits & mask:
        for fit in needs.melds:
            plain = fit.plain
            if plain is None:  # a run: each end, lo then hi
                for end, natural, bits, action in fit.ends:
                    if mask & bits:
                        actions.append(action)
                    elif first is not None:
                        actions.append(wild_layoff_action(fit.meld.id, end, first, natural))
            elif fit.bits & mask:
                for _, bits, action in plain:  # (a loop: a comprehension is a call)
                    if mask & bits:
                        actions.append(action)
            elif first is not None and fit.takes_wild:
                actions.append(wild_layoff_action(fit.meld.id, None, first, fit.meld.rank))
    if needs.swap_bits & mask:
        actions.extend(swaps(seat, hand, mask, needs, table, wild, decks, owner_may_swap))
    return tuple(actions)


def swaps(
    seat: int, hand: tuple[str, ...], mask: int, needs: TableNeeds, table: list[Meld], wild: str, decks: int,
    owner_may_swap: bool,
) -> list[Action]:
    """The swaps the hand (``mask``) may make, meld by meld: ``take``, and ``place`` when the freed wild
    has a place at once (D-8)."""
    actions = []
    # A run with a free end takes the freed wild as a lay-off (a swap leaves every run's ends as they
    # were), so the placement is there without `can_place`'s search.
    run_takes_wild = needs.run_takes_wild
    for fit in needs.melds:
        meld = fit.meld
        if not fit.swap_bits & mask or (meld.owner == seat and not owner_may_swap):
            continue
        for natural in fit.swaps:
            if not mask & CARD_BITS[natural]:
                continue
            take, place = swap_actions(meld.id, natural)
            actions.append(take)
            if run_takes_wild:
                actions.append(place)
                continue
            swapped, freed = swap_in(meld, natural, wild, decks)
            rest = list(hand)
            rest.remove(natural)
            melds = [swapped if m.id == meld.id else m for m in table]
            if can_place(rest, melds, freed, wild, decks):
                actions.append(place)
    return actions


def placements(hand: tuple[str, ...], mask: int, needs: TableNeeds, card: str, wild: str, decks: int) -> list[Action]:
    """Where a freed wild may go at once (D-8): a lay-off (as `layoff_offers` with ``only_wild``, read off the
    table's needs: a run's free ends, a set that takes a wild or, of the wild rank, that card), or a new
    meld of it with hand cards (the hand's ``mask`` and `meld_actions` with it first)."""
    actions = []
    for fit in needs.melds:
        plain = fit.plain
        if plain is None:  # a run: at each free end, the card itself if it is the natural there, else standing in
            for end, natural, _, action in fit.ends:
                actions.append(action if natural == card else wild_layoff_action(fit.meld.id, end, card, natural))
        else:
            for natural, _, action in plain:
                if natural == card:  # a set of the wild rank, without this card's suit
                    actions.append(action)
                    break
            else:
                if fit.takes_wild:
                    actions.append(wild_layoff_action(fit.meld.id, None, card, fit.meld.rank))
    with_card = tuple(sorted((*hand, card), key=CARD_ORDER.__getitem__))
    for action in meld_actions(with_card, mask | CARD_BITS[card], wild, decks, first=card):
        if card in [token[:2] for token in action.args]:  # a token's text starts with its card
            actions.append(action)
    return actions


def can_place(hand: list[str], table: list[Meld], card: str, wild: str, decks: int) -> bool:
    """Whether `placements` offers anything, stopping at the first placement found."""
    if any(layoff_offers(meld, hand, wild, decks, only_wild=card) for meld in table):
        return True
    return any(
        any(t.card == card for t in tokens)
        for tokens in new_meld_offers([*hand, card], wild, decks, first_wild=card)
    )


def false_plays(hand: tuple[str, ...], table: list[Meld], wild: str, decks: int) -> list[Action]:
    """Contested mode: lay-offs that do not fit (a False Play, +10, D-17), every hand card at either
    end of a run or onto a set."""
    actions = []
    for meld in table:
        offers = layoff_offers(meld, hand, wild, decks)
        for end in ("lo", "hi") if meld.kind == "run" else (None,):
            valid = {str(t) for e, t in offers if e == end}
            for card in sorted(set(hand), key=card_key):
                if card not in valid:
                    try:
                        lay_off(meld, end, Token(card), wild, decks)
                    except MeldError:
                        actions.append(layoff_action(meld.id, end, Token(card)))
    return actions
