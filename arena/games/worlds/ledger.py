"""What the public history says about where the hidden cards are: pools of exchangeable cards.

A seat at a real table cannot see the other hands or the stock, but it saw
where cards went: the deal put the whole deck into the hands and the stock,
a play took a named card out of a hand, a reshuffle made the stock out of
cards it had seen on the pile, a drawn card came from the stock.  The
`Ledger` keeps that as **pools**: a pool is a multiset of cards together
with the hidden places they are spread over (so many slots in each), and
within a pool every arrangement is equally likely.  Examples:

* after a deal: one pool, the whole deck, over every hand and the stock;
* after a reshuffle: a new pool, the cards that were under the pile's top
  (named by the plays that put them there), over the stock;
* a draw moves one slot of the stock's pool into the drawer's hand;
* a named card leaving a hand (a play) is taken out of that hand's pool;
* a named card going into a hand in public (a pile taken in Mose, a Blind
  card given back after a challenge) is **pinned** there until it leaves.

A card that moves unseen out of a place whose cards come from several pools
(a face-down Blind card from a hand that also holds drawn cards) becomes a
slot of a new pool fed by those pools: its cards are whatever they deal into
it, spread over the hand and the new place.  A pool's slot may thus be
another pool ("pool", n); pools are numbered in order of creation, so a pool
only feeds later ones.

Dealing is then exact: each pool in order shuffles its cards (named ones
plus those fed to it) and cuts them into its slots.  Conditioned on the
hard facts of the history (where each named card went), every consistent
arrangement of the unseen cards is equally likely, as the shuffles made it.
One inexactness remains, where a named card could have come from more than
one pool (several copies of a card: two packs, DD MAU; or more than one
route through Blind feedings): the pool expected to hold more copies there
is charged (an exact split would weigh every completion).  Should the pools then fail to give a card a later event
names, `collapse` forgets them (one pool over every hidden place; pinned
cards stay): the worlds still fit the view, with less of the history used.

Places are tuples: ``("hand", seat)``, ``("stock",)``, ``("down", n)`` (a
face-down card, n a running number), ``("pool", n)``.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Hashable, Iterable

Key = Hashable

STOCK: Key = ("stock",)


def hand(seat: int) -> Key:
    return ("hand", seat)


class LedgerError(ValueError):
    """The events do not fit what the ledger knows (a card taken from a place that cannot hold it)."""


class Pool:
    """A multiset of cards (``known``: named ones, plus those other pools feed it) over its slots."""

    __slots__ = ("known", "slots")

    def __init__(self, known: Counter | None = None, slots: dict | None = None) -> None:
        self.known: Counter = known if known is not None else Counter()
        self.slots: dict[Key, int] = slots if slots is not None else {}

    def copy(self) -> "Pool":
        return Pool(Counter(self.known), dict(self.slots))

    def add(self, place: Key, count: int = 1) -> None:
        self.slots[place] = self.slots.get(place, 0) + count

    def remove(self, place: Key, count: int = 1) -> None:
        left = self.slots[place] - count
        if left:
            self.slots[place] = left
        else:
            del self.slots[place]


class Ledger:
    """Pools and pinned cards: everything the public history says about the hidden cards."""

    __slots__ = ("pools", "pinned")

    def __init__(self) -> None:
        self.pools: list[Pool] = []
        self.pinned: dict[Key, Counter] = {}

    def copy(self) -> "Ledger":
        new = Ledger()
        new.pools = [pool.copy() for pool in self.pools]
        new.pinned = {key: Counter(cards) for key, cards in self.pinned.items() if cards}
        return new

    # -- what the history does ---------------------------------------------------------------------

    def reset(self, deck: Iterable[str], sizes: dict[Key, int]) -> None:
        """A new deal: the whole deck, one pool, over these places."""
        self.pools = [Pool(Counter(deck), {key: size for key, size in sizes.items() if size})]
        self.pinned = {}

    def new_pool(self, cards: Iterable[str], place: Key, fed_by: Iterable[Key] = ()) -> int:
        """A new pool of these named cards plus the unseen cards now at ``fed_by`` (each one slot), all at
        ``place`` (a reshuffle: the pile under its top becomes the stock)."""
        pool = Pool(Counter(cards))
        index = len(self.pools)
        self.pools.append(pool)
        for source in fed_by:
            pinned = self.pinned.get(source)
            if pinned:
                pool.known.update(pinned)
                del self.pinned[source]
            for parent in self._holding(source):
                count = parent.slots[source]
                parent.remove(source, count)
                parent.add(("pool", index), count)
        pool.add(place, sum(pool.known.values()) + sum(
            p.slots.get(("pool", index), 0) for p in self.pools[:index]))
        return index

    def pool_of(self, place: Key) -> int | None:
        """The one pool whose cards lie at ``place``, or None (several, none, or pinned cards there)."""
        if self.pinned.get(place):
            return None
        found = None
        for index, pool in enumerate(self.pools):
            if place in pool.slots:
                if found is not None:
                    return None
                found = index
        return found

    def move(self, source: Key, target: Key, count: int = 1) -> None:
        """``count`` unseen cards from ``source`` to ``target`` (a draw: stock to hand)."""
        if not count:
            return
        index = self.pool_of(source)
        if index is None:  # the cards there come from several pools: they become one, fed by them
            held = self.held(source)
            if held < count:
                raise LedgerError(f"{count} cards left {_name(source)}, which holds {held}")
            index = self.new_pool((), source, fed_by=[source])
        pool = self.pools[index]
        if pool.slots.get(source, 0) < count:
            raise LedgerError(f"{count} cards left {_name(source)}, which holds {pool.slots.get(source, 0)}")
        pool.remove(source, count)
        pool.add(target, count)

    def move_from(self, index: int, source: Key, target: Key, count: int = 1) -> None:
        """``count`` unseen cards of pool ``index`` from ``source`` to ``target`` (Mose: a pickup sent back)."""
        pool = self.pools[index]
        if pool.slots.get(source, 0) < count:
            self.move(source, target, count)
            return
        pool.remove(source, count)
        pool.add(target, count)

    def take(self, place: Key, card: str) -> None:
        """The named ``card`` left ``place`` (a play from a hand, the upcard from the stock)."""
        pinned = self.pinned.get(place)
        if pinned and pinned[card]:
            pinned[card] -= 1
            if not pinned[card]:
                del pinned[card]
            return
        best, weight = None, -1.0
        for index, pool in enumerate(self.pools):
            slots = pool.slots.get(place, 0)
            if slots:
                copies = self._copies(index, card)
                if copies:
                    # the pool expected to hold the most copies at the place (one copy: the only one)
                    score = slots * copies / max(1, self._size(index))
                    if score > weight:
                        best, weight = index, score
        if best is None:
            raise LedgerError(f"{card} left {_name(place)}, which cannot hold it")
        self.pools[best].remove(place)
        self._extract(best, card)

    def pin(self, place: Key, card: str) -> None:
        """The named ``card`` went into ``place`` in public (a pile taken, a Blind card given back)."""
        self.pinned.setdefault(place, Counter())[card] += 1

    def unpin(self, place: Key, card: str) -> None:
        """A pinned card left ``place`` the way it came (Mose: a pickup from the pile sent back)."""
        self.take(place, card)

    def collapse(self) -> None:
        """Forget which pool each unseen card belongs to: one pool of them all over every hidden place.

        What a take falls back to when the pools cannot give the card it names (several copies of a card
        charged to the wrong pool before, or a feeding the greedy routing used up): the pinned cards and
        the named pile stay known, the rest is dealt as if the history had not sorted it.
        """
        known: Counter = Counter()
        slots: dict[Key, int] = {}
        for pool in self.pools:
            known.update(pool.known)
            for key, count in pool.slots.items():
                if key[0] != "pool" and count:
                    slots[key] = slots.get(key, 0) + count
        self.pools = [Pool(known, slots)]

    # -- reading -------------------------------------------------------------------------------------

    def held(self, place: Key) -> int:
        """How many cards lie at ``place``, pinned ones included."""
        return sum(self.pinned.get(place, Counter()).values()) + sum(p.slots.get(place, 0) for p in self.pools)

    def places(self) -> set[Key]:
        out = {key for key, cards in self.pinned.items() if cards}
        for pool in self.pools:
            out.update(key for key in pool.slots if key[0] != "pool")
        return out

    def plan(self) -> "Plan":
        return Plan(self)

    # -- inside --------------------------------------------------------------------------------------

    def _holding(self, place: Key) -> list[Pool]:
        return [pool for pool in self.pools if place in pool.slots]

    def _size(self, index: int) -> int:
        return sum(self.pools[index].slots.values())

    def _copies(self, index: int, card: str) -> int:
        """How many copies of ``card`` pool ``index`` may hold: its own and those its feeders may give it."""
        pool = self.pools[index]
        copies = pool.known[card]
        key = ("pool", index)
        for parent_index in range(index):
            parent = self.pools[parent_index]
            if parent.slots.get(key):
                copies += min(parent.slots[key], self._copies(parent_index, card))
        return copies

    def _extract(self, index: int, card: str) -> None:
        """Take ``card`` out of pool ``index``'s cards (its slot already gone): its own, or one a feeder gives."""
        pool = self.pools[index]
        if pool.known[card]:
            pool.known[card] -= 1
            if not pool.known[card]:
                del pool.known[card]
            return
        key = ("pool", index)
        feeders = [p for p in range(index) if self.pools[p].slots.get(key) and self._copies(p, card)]
        if feeders:  # a feeder that holds the card itself first, then the one that feeds the most
            best = max(feeders, key=lambda p: (self.pools[p].known[card] > 0, self.pools[p].slots[key]))
            self.pools[best].remove(key)
            self._extract(best, card)
            return
        raise LedgerError(f"{card} is not among the cards it could be")


class Plan:
    """A ledger frozen for dealing: each pool's named cards and where its shuffled cards go, in order."""

    __slots__ = ("steps", "pinned", "sizes")

    def __init__(self, ledger: Ledger) -> None:
        steps = []
        for index, pool in enumerate(ledger.pools):
            cuts = [(key, count) for key, count in sorted(pool.slots.items(), key=_order) if count]
            steps.append((index, sorted(pool.known.elements()), cuts))
        self.steps = steps
        self.pinned = {key: sorted(cards.elements()) for key, cards in ledger.pinned.items() if cards}
        sizes: Counter = Counter({key: len(cards) for key, cards in self.pinned.items()})
        for pool in ledger.pools:
            for key, count in pool.slots.items():
                if key[0] != "pool":
                    sizes[key] += count
        self.sizes = sizes
        for index, known, cuts in steps:
            fed = sum(ledger.pools[p].slots.get(("pool", index), 0) for p in range(index))
            if len(known) + fed != sum(count for _, count in cuts):
                raise LedgerError(f"pool {index} holds {len(known) + fed} cards for "
                                  f"{sum(count for _, count in cuts)} places")

    def deal(self, rng: random.Random) -> dict[Key, list[str]]:
        """Every hidden place with its cards: each pool shuffled and cut, pinned cards added (hands shuffled)."""
        out: dict[Key, list[str]] = {key: list(cards) for key, cards in self.pinned.items()}
        fed: dict[int, list[str]] = {}
        shuffle = rng.shuffle
        for index, known, cuts in self.steps:
            cards = known + fed.pop(index, []) if index in fed else list(known)
            shuffle(cards)
            start = 0
            for key, count in cuts:
                part = cards[start : start + count]
                start += count
                if key[0] == "pool":
                    fed.setdefault(key[1], []).extend(part)
                elif key in out:
                    out[key].extend(part)
                else:
                    out[key] = part
        for key in self.pinned:
            if key[0] == "hand":
                shuffle(out[key])
        return out


def _order(item) -> tuple:
    key = item[0]
    return (key[0], key[1] if len(key) > 1 else 0)


def _name(place: Key) -> str:
    return " ".join(str(part) for part in place)


__all__ = ["Ledger", "LedgerError", "Plan", "Pool", "STOCK", "hand"]
