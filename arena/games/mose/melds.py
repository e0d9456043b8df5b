"""Mose melds: sets and runs with declared wilds, their validation and the offers.

A meld is a sequence of *tokens*.  A token is a card code (``7s``: the card
stands for itself) or ``card:meaning`` for a wild stand-in: ``Kd:7s`` is the
wild Kd standing for the seven of spades in a run, ``Kd:7`` stands for a
seven of a missing suit in a set.  Runs are written low to high, so the
order of the tokens says whether an Ace is low (``As 2s 3s``) or high
(``Qs Ks As``).  A card of the wild rank written plain stands for itself
(RULES.md D-5) and can never be swapped.

Positions on a run are 1..14: 1 is the low Ace, 2..13 are the ranks 2..K
and 14 is the high Ace; a run never holds both (no wrap, at most 13 cards).

The offers (what the legal list contains) follow one enumeration rule,
documented in the package docstring: new melds of exactly three cards plus
the maximal all-natural groupings, lay-offs one card at a time, and a wild
only where the player does not hold the natural card for that place.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations
from sys import intern
from typing import Iterable, NamedTuple, Sequence

from arena.games.base import GameError
from arena.games.cards import RANKS, SUITS, is_card_code

SUIT_ORDER = {s: i for i, s in enumerate(SUITS)}
RANK_ORDER = {r: i for i, r in enumerate(RANKS)}


class MeldError(GameError):
    """A meld or a token that the rules do not allow."""


def card_key(card: str) -> tuple[int, int]:
    """Hands are kept sorted by rank, then suit: the order every list follows."""
    return RANK_ORDER[card[0]], SUIT_ORDER[card[1]]


def wild_rank(round_number: int) -> str:
    """W(r): the twos in round 1, ..., the Aces in round 13."""
    return RANKS[round_number - 1]


def card_points(card: str, wild: str) -> int:
    """Penalty value of a card left in hand: wild 20 (overriding, D-18), J/Q/K/T 10, Ace 1, else face."""
    r = card[0]
    if r == wild:
        return 20
    if r in "TJQK":
        return 10
    if r == "A":
        return 1
    return int(r)


#: `card_points` of every card, by wild rank: ``POINTS[wild][card]`` (a round's end scores every hand).
POINTS: dict[str, dict[str, int]] = {}


def rank_at(position: int) -> str:
    return "A" if position in (1, 14) else RANKS[position - 2]


def positions_of(rank: str) -> tuple[int, ...]:
    return (1, 14) if rank == "A" else (RANK_ORDER[rank] + 2,)


#: `rank_at` of the positions 1..14, by index (0 is no position).
RANK_AT = ("", *map(rank_at, range(1, 15)))


class Token(NamedTuple):
    """One card in a meld and what it stands for (None: itself); a tuple, so hashing is cheap."""

    card: str
    stands: str | None = None

    def __str__(self) -> str:
        return self.card if self.stands is None else f"{self.card}:{self.stands}"

    @property
    def is_stand_in(self) -> bool:
        return self.stands is not None


#: A token's text (``7s``, ``Kd:7s``), kept: the same few hundred come back in every new action and view.
token_text = lru_cache(maxsize=4096)(Token.__str__)


@lru_cache(maxsize=4096)
def parse_token(text: str, wild: str) -> Token:
    """A token from its text, checked (kept: the same few texts come back at every apply and restore)."""
    card, sep, stands = text.partition(":")
    if not is_card_code(card) or card[0] == "X":
        raise MeldError(f"{text!r}: {card!r} is not a card of the 52-card pack")
    card = intern(card)  # the pack's own string (`CARD_ORDER`): dict look-ups then match it by identity
    if not sep:
        return Token(card)
    if card[0] != wild:
        raise MeldError(f"{text!r}: only a wild ({wild}) may stand for another card")
    if not (stands in RANKS or (is_card_code(stands) and stands[0] != "X")):
        raise MeldError(f"{text!r}: a wild stands for a card like 7s (run) or a rank like 7 (set)")
    if stands == card:
        raise MeldError(f"{text!r}: a wild standing for itself is written plain, {card}")
    return Token(card, intern(stands))


class Meld:
    """A meld on the table: its id, owner, kind (``set`` or ``run``) and tokens (runs low to high); a set's
    ``rank``, a run's ``suit`` and ``low``, the position of its first token.

    A value: never changed once made (a lay-off or a swap makes a new one), compared and hashed by its
    fields.  A slotted class with a plain ``__init__`` rather than a frozen dataclass, whose ``__init__``
    sets each field through ``object.__setattr__``: a meld is made at nearly every fifth decision.  Made
    with positional arguments only (a run's rank is None): a class called with keywords costs CPython 3.11
    a dict and half as much again as the call.
    """

    __slots__ = ("id", "owner", "kind", "tokens", "rank", "suit", "low")

    def __init__(
        self, id: int, owner: int, kind: str, tokens: tuple[Token, ...], rank: str | None = None,
        suit: str | None = None, low: int = 0,
    ) -> None:
        self.id = id
        self.owner = owner
        self.kind = kind
        self.tokens = tokens
        self.rank = rank
        self.suit = suit
        self.low = low

    def _fields(self) -> tuple:
        return (self.id, self.owner, self.kind, self.tokens, self.rank, self.suit, self.low)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Meld:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"Meld(id={self.id!r}, owner={self.owner!r}, kind={self.kind!r}, tokens={self.tokens!r}, "
            f"rank={self.rank!r}, suit={self.suit!r}, low={self.low!r})"
        )

    @property
    def high(self) -> int:
        return self.low + len(self.tokens) - 1

    @property
    def cards(self) -> list[str]:
        return [t.card for t in self.tokens]

    def text(self) -> str:
        return " ".join(str(t) for t in self.tokens)

    def naturals(self) -> list[Token]:
        return [t for t in self.tokens if t.stands is None]

    def stand_ins(self) -> list[Token]:
        return [t for t in self.tokens if t.stands is not None]

    def to_dict(self) -> dict:
        """Position form: ``cards`` holds plain card codes (conservation), ``as`` the meanings."""
        return {
            "id": self.id,
            "owner": self.owner,
            "kind": self.kind,
            "cards": self.cards,
            "as": [t.stands for t in self.tokens],
        }


# -- validation -------------------------------------------------------------------------


def set_size_ok(naturals: int, wilds: int, decks: int) -> bool:
    """At least 3; at most one natural per suit and deck; a 5th wild only on a full natural set (D-2)."""
    full = 4 * decks
    total = naturals + wilds
    return total >= 3 and (total <= full or (naturals == full and wilds == 1))


def build_meld(tokens: Sequence[Token], wild: str, decks: int, meld_id: int = 0, owner: int = 0) -> Meld:
    """Validate tokens as a set or a run and return the meld, or raise MeldError saying why.

    Applied at every meld: the checks here and in `_build_set` and `_build_run` read ``stands`` directly
    rather than through the `Token.is_stand_in` property (a call per token)."""
    tokens = tuple(tokens)
    if len(tokens) < 3:
        raise MeldError("a meld needs at least 3 cards")
    for token in tokens:
        if token.stands is not None and token.card[0] != wild:
            raise MeldError(f"{token}: only a wild ({wild}) may stand for another card")
    stands = [t.stands for t in tokens if t.stands is not None]
    run_like = [s for s in stands if len(s) == 2]
    if run_like and len(run_like) != len(stands):
        raise MeldError("a meld mixes run stand-ins (like Kd:7s) and set stand-ins (like Kd:7)")
    is_set = (stands and not run_like) or (not stands and len({t.card[0] for t in tokens}) == 1)
    if is_set:
        return _build_set(tokens, wild, decks, meld_id, owner)
    return _build_run(tokens, wild, meld_id, owner)


def _build_set(tokens: tuple[Token, ...], wild: str, decks: int, meld_id: int, owner: int) -> Meld:
    naturals = [t.card for t in tokens if t.stands is None]
    stand_ins = [t for t in tokens if t.stands is not None]
    ranks = {c[0] for c in naturals} | {t.stands for t in stand_ins}
    if len(ranks) != 1:
        raise MeldError(f"a set is cards of one rank, not {'/'.join(sorted(ranks))}")
    (rank,) = ranks
    if stand_ins and rank == wild:
        raise MeldError(f"in a set of {wild}s (the wild rank) every {wild} stands for itself: write it plain")
    for natural in naturals:
        if natural[0] == wild and rank != wild:
            raise MeldError(f"{natural} is wild: in a set of {rank}s write it as {natural}:{rank}")
    per_suit = Counter(c[1] for c in naturals)
    if any(n > decks for n in per_suit.values()):
        raise MeldError("a set's natural cards must be of different suits" + (" (per deck)" if decks > 1 else ""))
    if not set_size_ok(len(naturals), len(stand_ins), decks):
        raise MeldError(
            f"a set has 3 to {4 * decks} cards (a wild may be the {4 * decks + 1}th only on a set of "
            f"{4 * decks} naturals); got {len(naturals)} natural and {len(stand_ins)} wild"
        )
    return Meld(meld_id, owner, "set", tuple(sorted(tokens, key=_set_order)), rank)


def _set_order(token: Token) -> tuple[bool, int]:
    """A set's tokens: the naturals first, each part by rank and suit (`card_key`'s order)."""
    return token.stands is not None, CARD_ORDER[token.card]


def _build_run(tokens: tuple[Token, ...], wild: str, meld_id: int, owner: int) -> Meld:
    meant = [t.card if t.stands is None else t.stands for t in tokens]
    suits = {c[1] for c in meant}
    if len(suits) != 1:
        raise MeldError(f"a run is one suit in sequence; {' '.join(meant)} mixes suits")
    if len(tokens) > 13:
        raise MeldError("a run has at most 13 cards")
    for low in positions_of(meant[0][0]):
        if low + len(meant) - 1 <= 14 and all(
            rank_at(low + i) == c[0] for i, c in enumerate(meant)
        ):
            return Meld(meld_id, owner, "run", tokens, None, meant[0][1], low)
    raise MeldError(
        f"{' '.join(meant)} is not a run: ranks must follow each other low to high (Ace low or high, no wrap)"
    )


def offered_meld(tokens: tuple[Token, ...], meld_id: int, owner: int) -> Meld:
    """`build_meld` without its checks, for the tokens of a meld the offers made (`new_meld_offers` and
    `offers.meld_actions` offer only valid melds, a set's tokens already in `_set_order`): the same meld,
    read off the tokens (its kind by the stand-ins' meanings, a run's suit and low place by the first
    token; a meld is laid at nearly every twentieth decision, and the checks were half its cost).
    `tests/games/test_mose.py` compares the two on every meld offered in random games."""
    # (A token's fields read by name: unpacking a NamedTuple, a tuple subclass, makes an iterator.)
    kind = None
    for token in tokens:
        meaning = token.stands
        if meaning is not None:
            kind = "run" if len(meaning) == 2 else "set"  # a run's stand-in is a card, a set's a rank
            break
    first = tokens[0]
    if kind is None:  # all natural: a set if they are of one rank
        kind = "set"
        rank = first.card[0]
        for token in tokens:
            if token.card[0] != rank:
                kind = "run"
                break
    card, stands = first.card, first.stands
    if kind == "set":
        return Meld(meld_id, owner, "set", tokens, card[0] if stands is None else stands)
    first = card if stands is None else stands
    return Meld(meld_id, owner, "run", tokens, None, first[1], positions_of(first[0])[0])


def parse_meld(texts: Iterable[str], wild: str, decks: int, meld_id: int = 0, owner: int = 0) -> Meld:
    return build_meld([parse_token(t, wild) for t in texts], wild, decks, meld_id, owner)


def meld_from_dict(data: dict, wild: str, decks: int) -> Meld:
    """A meld from its position form, validated."""
    cards = data.get("cards")
    meanings = data.get("as") or [None] * len(cards or ())
    if not isinstance(cards, list) or not isinstance(meanings, list) or len(cards) != len(meanings):
        raise MeldError(f"meld {data!r}: 'cards' and 'as' must be lists of the same length")
    tokens = []
    for card, stands in zip(cards, meanings):
        if not isinstance(card, str) or not (stands is None or isinstance(stands, str)):
            raise MeldError(f"meld {data!r}: bad card {card!r} or meaning {stands!r}")
        tokens.append(parse_token(card if stands is None else f"{card}:{stands}", wild))
    meld = build_meld(tokens, wild, decks, int(data["id"]), int(data["owner"]))
    if data.get("kind") not in (None, meld.kind):
        raise MeldError(f"meld {data['id']} is a {meld.kind}, not a {data['kind']}")
    return meld


# -- changes to a meld ------------------------------------------------------------------


def lay_off(meld: Meld, end: str | None, token: Token, wild: str, decks: int) -> Meld:
    """The meld with one more card at an end (runs) or in the set; nothing is re-ordered."""
    if meld.kind == "run":
        tokens = (token, *meld.tokens) if end == "lo" else (*meld.tokens, token)
    else:
        tokens = (*meld.tokens, token)
    grown = build_meld(tokens, wild, decks, meld.id, meld.owner)
    if meld.kind == "run" and (grown.kind != "run" or grown.low != meld.low - (end == "lo")):
        raise MeldError("a lay-off may not re-read the run")
    return grown


def extended(meld: Meld, end: str | None, token: Token) -> Meld:
    """`lay_off` without its checks, for a lay-off that `layoff_offers` made (it offers only valid ones):
    the same meld, built directly (a lay-off is applied at nearly every other step)."""
    if meld.kind == "run":
        if end == "lo":
            return Meld(meld.id, meld.owner, "run", (token,) + meld.tokens, None, meld.suit, meld.low - 1)
        return Meld(meld.id, meld.owner, "run", meld.tokens + (token,), None, meld.suit, meld.low)
    return Meld(meld.id, meld.owner, "set", tuple(sorted(meld.tokens + (token,), key=_set_order)), meld.rank)


def swap_in(meld: Meld, natural: str, wild: str, decks: int) -> tuple[Meld, str]:
    """Put ``natural`` in place of the wild that stands for it; return the meld and the freed wild."""
    if meld.kind == "run":
        for i, token in enumerate(meld.tokens):
            if token.stands == natural:  # the same run, the natural in the wild's place
                tokens = (*meld.tokens[:i], Token(natural), *meld.tokens[i + 1 :])
                return Meld(meld.id, meld.owner, "run", tokens, None, meld.suit, meld.low), token.card
        raise MeldError(f"no wild in meld {meld.id} stands for {natural}")
    if natural[0] != meld.rank or natural[0] == wild:
        raise MeldError(f"{natural} is not a natural {meld.rank} for meld {meld.id}")
    if sum(1 for t in meld.naturals() if t.card[1] == natural[1]) >= decks:
        raise MeldError(f"meld {meld.id} already has the {natural} (no wild stands for it)")
    stand_ins = meld.stand_ins()
    if not stand_ins:
        raise MeldError(f"meld {meld.id} has no wild to swap")
    freed = stand_ins[0]
    tokens = list(meld.tokens)
    tokens.remove(freed)
    tokens.append(Token(natural))  # a natural of a missing suit for a wild: the set keeps its size
    return Meld(meld.id, meld.owner, "set", tuple(sorted(tokens, key=_set_order)), meld.rank), freed.card


# -- offers ---------------------------------------------------------------------------
#
# The offers are listed at every decision, and a reaction window asks every other seat whether it has
# any, so they work on bit masks: the positions a hand holds in a suit are one integer (bit p for
# position p; an Ace sets bits 1 and 14), and the 3-card windows it can fill are looked up by that mask.

#: Each card's place in the order hands are kept in (rank, then suit): a faster sort key than `card_key`.
#: Every card string the engine makes is interned (`sys.intern`), the pack's cards included: a dict look-up by
#: card (`CARD_BITS`, `CARD_ORDER`, `offers.DISCARDS`...) then finds its key by identity, without comparing
#: the text, and so do ``in`` and ``index`` on a hand.
CARD_ORDER = {intern(rank + suit): i for i, (rank, suit) in enumerate((r, s) for r in RANKS for s in SUITS)}
_order = CARD_ORDER.__getitem__
POINTS.update({wild: {card: card_points(card, wild) for card in CARD_ORDER} for wild in RANKS})

#: The position bits of each rank (an Ace is both the low 1 and the high 14).
RANK_BITS = {rank: sum(1 << p for p in positions_of(rank)) for rank in RANKS}

#: The 3-card run windows of each suit: (cards low to high) for the lows 1..12.
_WINDOWS = {
    suit: [tuple(intern(rank_at(p) + suit) for p in range(low, low + 3)) for low in range(1, 13)] for suit in SUITS
}


def _wilds(hand: Sequence[str], wild: str, first: str | None = None) -> list[str]:
    """The player's wilds in the fixed order they are used as stand-ins (``first`` leading)."""
    wilds = sorted((c for c in hand if c[0] == wild), key=_order)
    if first is not None and first in wilds:
        wilds.remove(first)
        wilds.insert(0, first)
    return wilds


#: Each card as bits of a whole hand's mask: 16 bits per suit (in the order of SUITS), bit p of a suit's
#: lane for position p (an Ace sets 1 and 14).  A hand's mask is the OR of its cards' (`hand_mask`).
CARD_BITS = {intern(rank + suit): RANK_BITS[rank] << 16 * k for k, suit in enumerate(SUITS) for rank in RANKS}
#: The lows 1..12 of the 3-card windows, in every suit's lane.
_LOWS = sum(0x1FFE << 16 * k for k in range(len(SUITS)))
_LANE = 0xFFFF
#: Per wild rank, the mask of every card but the wilds.
_NOT_WILD = {rank: ~sum(RANK_BITS[rank] << 16 * k for k in range(len(SUITS))) & (1 << 64) - 1 for rank in RANKS}


@lru_cache(maxsize=65536)
def _fillable_windows(mask: int, wilds: int) -> tuple[int, ...]:
    """The lows of a suit's 3-card windows that its non-wild naturals (``mask``) and ``wilds`` wilds fill
    (any number from 3 up fills all)."""
    return tuple(low for low in range(1, 13) if (mask & 7 << low).bit_count() + wilds >= 3)


def new_meld_offers(hand: Sequence[str], wild: str, decks: int, first_wild: str | None = None) -> list[tuple[Token, ...]]:
    """Every 3-card meld (with the stand-in rule) plus the maximal all-natural sets and runs."""
    return list(_meld_offers(tuple(sorted(hand, key=_order)), wild, decks, first_wild))


def has_meld(hand: Sequence[str], wild: str, decks: int) -> bool:
    """Whether `new_meld_offers` offers anything, without listing the offers."""
    return mask_has_meld(hand_mask(hand), wild, decks, hand)


def hand_mask(hand: Iterable[str]) -> int:
    """The OR of the hand's cards' bits (`CARD_BITS`: a 16-bit lane per suit, bit p for position p)."""
    mask = 0
    for card in hand:
        mask |= CARD_BITS[card]
    return mask


def mask_has_meld(mask: int, wild: str, decks: int, hand: Sequence[str]) -> bool:
    """`has_meld` from the hand's mask (`hand_mask`) (a reaction window asks this of every seat whose hand
    changed).  The hand holds at most ``decks`` copies of a card, as every state's hands do; with one deck
    the wilds are counted on the mask, with two on the hand, and so are the sets."""
    wilds = (mask & _SUITS_OF[wild]).bit_count() if decks == 1 else [card[0] for card in hand].count(wild)
    if wilds >= 3:
        return True  # three wilds make a set of any rank but theirs
    # In a run window the wilds fill what the non-wild cards leave open: a wild card in its own place is
    # the natural there and one wild fewer, so the window takes naturals-without-wilds plus all wilds.
    # A set (one deck): a rank in 3 suits' lanes, or 2 with a wild, or any natural with 2 wilds.  The lanes
    # are compared all at once, shifted onto each other (``plain >> 16 * k``), rather than taken apart.
    plain = mask & _NOT_WILD[wild]
    if not wilds:
        # Bits p, p+1, p+2 all held: only a run's window can hold three (a lane's bits 0 and 15 are never
        # set, so no window crosses lanes and none starts outside 1-12: no `_LOWS` needed).
        if plain & plain >> 1 & plain >> 2:
            return True
        if decks == 1:
            # Lanes s, h, d, c: ``pairs`` holds s&h, h&d, d&c in lanes 0-2 and ``either`` s|h, h|d, d|c, so
            # lane 0 of the first term is s&h&(d|c), lane 1 h&d&c, and of the second d&c&(s|h).
            pairs = plain & plain >> 16
            either = plain | plain >> 16
            return bool(pairs & either >> 32 | pairs >> 32 & either)
    elif wilds == 1:
        b, c = plain >> 1, plain >> 2  # two of a window's three held
        if (plain & b | plain & c | b & c) & _LOWS:
            return True
        if decks == 1:  # lane 0 is s&(h|d|c), lane 1 h&(d|c), lane 2 d&c
            return bool(plain & (plain >> 16 | plain >> 32 | plain >> 48))
    else:  # two wilds: any natural makes a run (every place is in some window) and, with one deck, a set
        if plain:
            return True
        if decks == 1:
            return False
    counts: dict[str, int] = {}  # two decks: a suit's lane cannot count two copies of a card
    for card in hand:
        counts[card[0]] = counts.get(card[0], 0) + 1
    return any(n >= 3 or (rank != wild and n + wilds >= 3) for rank, n in counts.items())


#: Per card, the lows of the 3-card run windows that hold it, in its suit's lane (an Ace: both ends).
_NEAR = {card: (bits | bits >> 1 | bits >> 2) & _LOWS for card, bits in CARD_BITS.items()}
#: Per rank, one bit of each of its cards in a hand mask (an Ace's low one): counts the suits a hand holds.
_SUITS_OF = {rank: sum(1 << positions_of(rank)[0] + 16 * k for k in range(len(SUITS))) for rank in RANKS}


def card_adds_meld(mask: int, card: str, wild: str) -> bool:
    """`mask_has_meld` for a one-deck hand that had no meld and now also holds ``card`` (``mask``, with
    it), not a wild: any meld now holds that card, so only its run windows and its rank are looked at."""
    wilds = (mask & _SUITS_OF[wild]).bit_count()
    plain = mask & _NOT_WILD[wild]
    a, b, c = plain, plain >> 1, plain >> 2  # the run windows the wilds complete, as in `mask_has_meld`
    if (a & b & c if not wilds else a & b | a & c | b & c if wilds == 1 else a | b | c) & _NEAR[card]:
        return True
    return (plain & _SUITS_OF[card[0]]).bit_count() + wilds >= 3


#: Tokens of plain cards, made once (a Token is an immutable value).
_PLAIN = {card: Token(card) for card in CARD_BITS}


@lru_cache(maxsize=4096)
def stand_in(card: str, stands: str) -> Token:
    """The token of a wild standing in (kept: the same few come back at every offer)."""
    return Token(card, stands)


_stand_in = stand_in


class HandShape(NamedTuple):
    """A hand as the meld offers read it: each suit's lane of held positions (bit p for position p, an Ace
    both 1 and 14), the wilds in stand-in order and the cards of each rank (in hand order)."""

    lanes: tuple[int, int, int, int]
    wilds: tuple[str, ...]
    by_rank: dict[str, tuple[str, ...]]


_SUIT_INDEX = {suit: k for k, suit in enumerate(SUITS)}


def hand_shape(hand: Sequence[str], wild: str, first_wild: str | None = None) -> HandShape:
    """The `HandShape` of a hand sorted in hand order (`CARD_ORDER`)."""
    lanes = [0, 0, 0, 0]
    by_rank: dict[str, list[str]] = {}
    for card in hand:
        rank = card[0]
        lanes[_SUIT_INDEX[card[1]]] |= RANK_BITS[rank]
        cards = by_rank.get(rank)
        if cards is None:
            by_rank[rank] = [card]
        else:
            cards.append(card)
    wilds = by_rank.get(wild, ())
    if first_wild is not None and first_wild in wilds:  # as `_wilds`: that one first, the rest in order
        wilds = list(wilds)
        wilds.remove(first_wild)
        wilds.insert(0, first_wild)
    return HandShape(tuple(lanes), tuple(wilds), {rank: tuple(cards) for rank, cards in by_rank.items()})


def meld_offers_of(shape: HandShape, wild: str, decks: int) -> list[tuple[Token, ...]]:
    """`new_meld_offers` from a hand's shape: each suit's runs (`run_offers`), then each rank's sets
    (`set_offers`), every part kept by what it depends on, so a new hand mostly reuses known parts (the
    engine's `offers.meld_actions` gives the same offers as actions, its parts kept more finely)."""
    offers: list[tuple[Token, ...]] = []
    wilds = shape.wilds
    many = len(wilds) >= 3
    if many:
        for k, lane in enumerate(shape.lanes):
            offers.extend(run_offers(k, lane, wilds, wild))
    else:
        own = ~RANK_BITS[wild]
        for k, lane in enumerate(shape.lanes):
            # A lane offers a run only if a 3-card window is filled (`_fillable_windows`; a maximal natural
            # run holds one too): most lanes do not, and are passed over without asking `runs`.
            a = lane & own
            b, c = a >> 1, a >> 2
            if (a & b & c if not wilds else a & b | a & c | b & c if len(wilds) == 1 else a | b | c) & 0x1FFE:
                offers.extend(run_offers(k, lane, wilds, wild))
    by_rank = shape.by_rank
    for rank in RANKS if many else by_rank:
        naturals = by_rank.get(rank, ())
        if len(naturals) + len(wilds) >= 3:
            offers.extend(set_offers(rank, naturals, wilds, wild, decks))
    return offers


@lru_cache(maxsize=8192)
def _meld_offers(hand: tuple[str, ...], wild: str, decks: int, first_wild: str | None) -> tuple[tuple[Token, ...], ...]:
    return tuple(meld_offers_of(hand_shape(hand, wild, first_wild), wild, decks))


@lru_cache(maxsize=65536)
def run_offers(k: int, lane: int, wilds: tuple[str, ...], wild: str) -> tuple[tuple[Token, ...], ...]:
    """The runs of suit ``SUITS[k]`` a hand offers: every 3-card window its naturals (``lane``) and wilds
    (in stand-in order) fill, then its maximal natural runs of 4 or more."""
    suit = SUITS[k]
    own_wild = intern(wild + suit)
    own_bits = RANK_BITS[wild]
    offers: list[tuple[Token, ...]] = []
    windows = _WINDOWS[suit]
    for low in _fillable_windows(lane & ~own_bits, min(len(wilds), 3)):
        window = windows[low - 1]
        free = wilds
        if lane & own_bits and own_wild in window:  # the suit's own wild is the natural here
            free = list(wilds)
            free.remove(own_wild)
        tokens, n = [], 0
        for p, c in enumerate(window, low):
            if lane >> p & 1:
                tokens.append(_PLAIN[c])
            else:
                tokens.append(_stand_in(free[n], c))
                n += 1
        offers.append(tuple(tokens))
    if lane.bit_count() >= 4:
        held_positions = [p for p in range(1, 15) if lane >> p & 1]
        for segment in segments(held_positions):
            if len(segment) >= 4:
                for part in ([segment] if len(segment) <= 13 else [segment[:13], segment[1:]]):
                    offers.append(tuple(_PLAIN[intern(rank_at(p) + suit)] for p in part))
    return tuple(offers)


@lru_cache(maxsize=65536)
def set_offers(rank: str, naturals: tuple[str, ...], wilds: tuple[str, ...], wild: str | None, decks: int) -> tuple[tuple[Token, ...], ...]:
    """The sets of ``rank`` a hand offers with these naturals of the rank (hand order) and wilds (stand-in
    order): every 3 naturals and all of them (one per suit and deck), or the naturals filled up with wilds."""
    offers: list[tuple[Token, ...]] = []
    if len(naturals) + len(wilds) < 3:
        return ()
    usable = _one_per_slot(naturals, decks)
    if len(usable) >= 3:
        for combo in sorted(set(combinations(usable, 3))):
            offers.append(tuple(_PLAIN[c] for c in combo))
        if len(usable) > 3:
            offers.append(tuple(_PLAIN[c] for c in usable))
    elif rank != wild and 3 - len(usable) <= len(wilds):
        stand_ins = sorted(wilds[: 3 - len(usable)], key=_order)
        offers.append(tuple([_PLAIN[c] for c in usable] + [_stand_in(w, rank) for w in stand_ins]))
    return tuple(offers)


def _one_per_slot(naturals: Sequence[str], decks: int) -> list[str]:
    """Naturals of one rank, at most ``decks`` of each suit, in their order."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for c in naturals:
        if seen.get(c[1], 0) < decks:
            seen[c[1]] = seen.get(c[1], 0) + 1
            out.append(c)
    return out


def segments(positions: list[int]) -> list[list[int]]:
    segments: list[list[int]] = []
    for p in positions:
        if segments and segments[-1][-1] == p - 1:
            segments[-1].append(p)
        else:
            segments.append([p])
    return segments


def layoff_offers(meld: Meld, hand: Sequence[str], wild: str, decks: int, only_wild: str | None = None) -> list[tuple[str | None, Token]]:
    """One-card lay-offs onto ``meld``: (end, token); ``only_wild`` forces that wild to be the card.

    A natural that fits is offered rather than a wild; the wild offered is the first in stand-in order.
    """
    offers: list[tuple[str | None, Token]] = []
    if meld.kind == "run":
        if len(meld.tokens) >= 13:
            return offers
        for end, p in (("lo", meld.low - 1), ("hi", meld.low + len(meld.tokens))):
            if not 1 <= p <= 14:
                continue
            natural = intern(rank_at(p) + meld.suit)
            if only_wild is not None:
                offers.append((end, Token(natural) if only_wild == natural else Token(only_wild, natural)))
            elif natural in hand:
                offers.append((end, Token(natural)))
            else:
                first = _first_wild(hand, wild)
                if first is not None:
                    offers.append((end, Token(first, natural)))
        return offers
    rank = meld.rank
    per_suit: dict[str, int] = {}
    n = 0
    for token in meld.tokens:
        if token.stands is None:
            per_suit[token.card[1]] = per_suit.get(token.card[1], 0) + 1
            n += 1
    w = len(meld.tokens) - n
    if set_size_ok(n + 1, w, decks):
        candidates = [only_wild] if only_wild is not None else sorted({c for c in hand if c[0] == rank}, key=_order)
        for c in candidates:
            if c[0] == rank and per_suit.get(c[1], 0) < decks and (c[0] != wild or rank == wild):
                offers.append((None, Token(c)))
    if rank != wild and not offers and set_size_ok(n, w + 1, decks):
        first = only_wild if only_wild is not None else _first_wild(hand, wild)
        if first is not None:
            offers.append((None, Token(first, rank)))
    return offers


def _first_wild(hand: Sequence[str], wild: str) -> str | None:
    """The wild a lay-off uses: the first in stand-in order, or None without one."""
    return min((c for c in hand if c[0] == wild), key=_order, default=None)
