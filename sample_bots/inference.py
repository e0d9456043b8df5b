"""What the public history of a shedding game tells about the hidden cards, and worlds made to agree.

The arena's world sampler (`arena.games.worlds`) deals the cards a seat has not seen uniformly over
the places it cannot see.  The public history says more, and `CardTracker` keeps two kinds of it:

* **Buried cards.**  Every card played since the last reshuffle (or deal) is in the discard pile,
  under the visible top, so it is in no hand and not in the stock.
* **Draws that show a void.**  A seat that draws on its own turn, with nothing pending, held no
  card that fits the pile (its suit or the named suit, its rank, a wild card).  That stays true of
  the cards it held then: of its hand now, at most as many fitting cards as it drew since.  A
  `pass` right after its draw says the same of the drawn card too.  (A sensible player, the
  tactician among them, plays when it can; rulesets without voluntary draws make it a rule.)

`CardTracker.agree(world, seat, rng)` moves cards of a sampled world so that it agrees with both:
a known-buried card in a hand or the stock trades places with an unknown card of the buried pile,
and a seat holding more fitting cards than its draws allow trades the excess with cards of the
stock that fit none of its voids.  The swaps keep every count, so the world still gives the
seat its observation.  Only the shedding rulesets are tracked; for the others `agree` is the
identity.  The arena's own sampler may learn the first kind from the history later
(`sample_world(..., history=...)`); the second is a model of the opponents' play.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from arena import games


#: How many voids the tracker keeps (the most recent): older ones rarely constrain a hand still.
MAX_VOIDS = 12


def rank(card: str) -> str:
    return card[0]


def suit(card: str) -> str | None:
    return None if card[0] == "X" else card[1:2] or None


@dataclass
class Void:
    """Seat `seat` drew with (top, named suit) on the pile, holding no card that fits: `drawn` cards came since."""

    seat: int
    top: str
    named: str | None
    drawn: int = 0


@dataclass
class CardTracker:
    """The inference from one game's public events (feed them in order with `update`)."""

    facts: Any  # mau_arena_sdk.Facts (or None: no card is special)
    buried: Counter = field(default_factory=Counter)  # cards played onto the pile since the last reshuffle
    voids: list[Void] = field(default_factory=list)
    top: str | None = None
    named: str | None = None
    plain: bool = True  # no effect (a draw penalty, an accusation's) waits to be paid by the next draw
    last_player: int | None = None
    last_kind: str = ""
    last_seat: int | None = None
    seen: int = 0  # events of the history already read

    def roles(self, card: str) -> frozenset:
        if self.facts is None:
            return frozenset()
        info = self.facts.data.get("cards", {}).get(card) or {}
        return frozenset(info.get("roles") or ())

    def rule(self, card: str) -> Mapping[str, Any]:
        if self.facts is None:
            return {}
        info = self.facts.data.get("cards", {}).get(card) or {}
        return info.get("rule") or {}

    def fits(self, card: str, top: str, named: str | None) -> bool:
        """Whether `card` surely could have been played on `top` (with `named` the named suit).

        Wild cards count only where they surely fit (not on their own rank, not where a rule
        forbids them), so a void never rules out a card that was in fact unplayable."""
        roles = self.roles(card)
        if "wild" in roles:
            rule = self.rule(card)
            placement = rule.get("placement", "any")
            if rank(card) == rank(top) or rank(top) in (rule.get("wild_not_on") or ()):
                return False
            return placement == "any" or (placement == "any_unless_demand" and named is None)
        if named is not None:
            return suit(card) == named
        return suit(card) == suit(top) or rank(card) == rank(top)

    # ------------------------------------------------------------------ events
    def update(self, history: Iterable[Any]) -> None:
        """Read the events of `history` (the whole game's, oldest first) not read yet."""
        events = tuple(history)
        for event in events[self.seen:]:
            self.event(event.seat, event.kind, event.details)
        self.seen = len(events)

    def event(self, seat: int | None, kind: str, details: Mapping[str, Any]) -> None:
        if kind in ("deal", "start"):
            self.buried.clear()
            self.voids.clear()
            self.top, self.named, self.plain, self.last_player = None, None, True, None
        elif kind == "open":
            card = details.get("card")
            if card:
                self.buried[card] += 1
                self.top, self.named = card, None
                self.plain = not (self.roles(card) & {"draw", "cover"})
        elif kind == "play":
            card = details.get("card")
            if card:
                self.buried[card] += 1
                self.top, self.named = card, None
                effect = bool(self.roles(card) & {"draw", "cover"})
                combo = self.last_kind == "play" and self.last_seat == seat  # a combo's effects add up
                self.plain = (self.plain or not combo) and not effect
                self.last_player = seat
        elif kind == "suit":
            self.named = details.get("suit")
        elif kind == "reshuffle":
            self.buried.clear()
            if self.top:
                self.buried[self.top] += 1
        elif kind in ("accept", "accuse", "blind", "challenge", "call", "target"):
            self.plain = kind == "call" and self.plain  # a call may be false: its penalty draw tells nothing
            if kind == "blind":
                self.top = None  # the face-down card's truth is unknown: stop inferring until the next play
        elif kind == "draw":
            count = int(details.get("count", 0) or 0)
            for void in self.voids:
                if void.seat == seat:
                    void.drawn += count
            if len(self.voids) > MAX_VOIDS:  # the oldest tell the least (most cards drawn since)
                del self.voids[: len(self.voids) - MAX_VOIDS]
            continued = self.last_kind == "draw" and self.last_seat == seat  # a draw the reshuffle split
            if (self.plain and not continued and self.top is not None and seat is not None
                    and seat != self.last_player and self.last_kind not in ("accept", "accuse", "call")):
                self.voids.append(Void(seat, self.top, self.named, count))
            self.plain = True
        elif kind == "pass":
            # Right after its own draw: the drawn card(s) did not fit either.
            if self.last_kind == "draw" and self.last_seat == seat and self.plain and self.top is not None:
                for void in self.voids:
                    if void.seat == seat and void.top == self.top and void.named == self.named:
                        void.drawn = 0
        elif kind == "hand-end":
            self.voids.clear()
        if kind != "reshuffle":
            self.last_kind, self.last_seat = kind, seat

    # ------------------------------------------------------------------ worlds
    def excess(self, world, seat: int) -> int:
        """How many cards of `world`'s other hands the voids rule out: for each void, the fitting cards
        its seat holds beyond the cards it drew since (0: the world agrees with every void)."""
        hands = getattr(world, "hands", None)
        if not isinstance(hands, list):
            hands = world.to_position().get("hands")
        if not isinstance(hands, list):
            return 0
        total = 0
        for void in self.voids:
            if void.seat == seat or not 0 <= void.seat < len(hands):
                continue
            hand = hands[void.seat]
            if void.drawn >= len(hand):
                continue
            fitting = sum(1 for c in hand if self.fits(c, void.top, void.named))
            total += max(0, fitting - void.drawn)
        return total

    def agree(self, world, seat: int, rng: random.Random, visible: int):
        """`world` (a sampled state, not shared) with cards moved to agree with the history; may be a new state.

        `visible` is how many discard cards the seat's observation shows (the top ones)."""
        if not self.buried and not self.voids:
            return world
        position = world.to_position()
        hands, pile, stock = position.get("hands"), position.get("discard"), position.get("stock")
        if not isinstance(hands, list) or not isinstance(pile, list) or not isinstance(stock, list):
            return world
        changed = self._bury(hands, pile, stock, seat, rng, visible)
        changed |= self._voids(hands, stock, seat, rng)
        if not changed:
            return world
        return games.from_position(world.ruleset, position, **dict(world.options))

    def _bury(self, hands, pile, stock, seat, rng, visible) -> bool:
        buried = len(pile) - visible
        if buried <= 0:
            return False
        known = self.buried - Counter(pile[buried:])  # known to be under the visible part
        missing = known - Counter(pile[:buried])
        if not missing:
            return False
        keep = Counter(known)
        spare = []  # positions under the visible part holding no known card
        for i in range(buried):
            if keep[pile[i]] > 0:
                keep[pile[i]] -= 1
            else:
                spare.append(i)
        rng.shuffle(spare)
        places = [hand for s, hand in enumerate(hands) if s != seat] + [stock]
        changed = False
        for card in missing.elements():
            holder = next((place for place in places if card in place), None)
            if holder is None or not spare:
                continue
            i = spare.pop()
            j = holder.index(card)
            holder[j], pile[i] = pile[i], card
            changed = True
        return changed

    def _voids(self, hands, stock, seat, rng) -> bool:
        changed = False
        for void in self.voids:
            if void.seat == seat or not 0 <= void.seat < len(hands):
                continue
            hand = hands[void.seat]
            if void.drawn >= len(hand):
                continue
            mine = [v for v in self.voids if v.seat == void.seat]
            fitting = [i for i, c in enumerate(hand) if self.fits(c, void.top, void.named)]
            excess = len(fitting) - void.drawn
            if excess <= 0:
                continue
            free = [k for k, c in enumerate(stock) if not any(self.fits(c, v.top, v.named) for v in mine)]
            rng.shuffle(fitting)
            rng.shuffle(free)
            for i, k in zip(fitting[:excess], free):
                hand[i], stock[k] = stock[k], hand[i]
                changed = True
        return changed


def tracks(ruleset: str) -> bool:
    """Whether `CardTracker` understands this ruleset's events (the shedding family's)."""
    from arena.games.facts import family_of

    return family_of(ruleset) == "shedding"
