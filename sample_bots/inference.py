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
identity.

The arena's own sampler knows the first kind and more from the history (`WorldSampler(ruleset,
obs, arena.games.worlds.Tracker)`: the pile card by card, the stock after a reshuffle made of the
reshuffled cards less the draws); the second is a model of the opponents' play, which such
worlds do not know.  `CardTracker.excess(world, seat)` counts how far a world breaks the voids,
so that a searcher can keep the worlds that break none (`pimc.Searcher.world`: rejection, which
keeps the history sampler's pools intact where moving cards would not).
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
    plain_only: bool = False  # a tell of the opponent's policy (it played a wild): no plain card fitted, wilds may have


@dataclass
class SuitTell:
    """Seat `seat` named `named` after its wild card: a tactician-like player names the suit it holds most of.

    `played` are the cards it played since (it held them then), `drawn` the cards it drew since."""

    seat: int
    named: str
    played: Counter = field(default_factory=Counter)
    drawn: int = 0


@dataclass
class PlayTell:
    """Seat `seat` played `card` by choice on (top, named suit), the hand sizes `sizes` before it.

    `played` are the cards it played since, this one included (it held them all then); the tell
    lasts only until its seat draws (then its hand then is no longer the hand now plus `played`)."""

    seat: int
    card: str
    top: str
    named: str | None
    sizes: tuple
    step: int = 1  # the direction of play then (+1 or -1): the tactician's "next player" is seat + step
    played: Counter = field(default_factory=Counter)


@dataclass
class CardTracker:
    """The inference from one game's public events (feed them in order with `update`)."""

    facts: Any  # mau_arena_sdk.Facts (or None: no card is special)
    buried: Counter = field(default_factory=Counter)  # cards played onto the pile since the last reshuffle
    voids: list[Void] = field(default_factory=list)
    tells: list[SuitTell] = field(default_factory=list)
    sizes: list | None = None  # every seat's hand size, as the events tell (None: lost track)
    policy_tells: bool = False  # also read what a tactician-like opponent's choices tell (`SuitTell`, wild plays)
    play_model: Any = None  # a model of the opponents' choice of card (`play_model.PlayModel`): `PlayTell`s
    plays: list[PlayTell] = field(default_factory=list)
    penalty_draw: bool = False  # the last draw paid an effect (a 7): the play after it is a free choice
    step: int = 1  # the direction of play: -1 after an odd number of reversing cards (Online Mau-Mau's Queen)
    top: str | None = None
    named: str | None = None
    plain: bool = True  # no effect (a draw penalty, an accusation's) waits to be paid by the next draw
    last_player: int | None = None
    last_kind: str = ""
    last_seat: int | None = None
    seen: int = 0  # events of the history already read
    # card -> its roles, and (top, named, plain only) -> card -> whether it fits: `facts` never changes, and a
    # searcher judges every sampled deal by the voids (`broken`)
    _roles: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _fitting: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def roles(self, card: str) -> frozenset:
        roles = self._roles.get(card)
        if roles is None:
            info = (self.facts.data.get("cards", {}).get(card) or {}) if self.facts is not None else {}
            roles = self._roles[card] = frozenset(info.get("roles") or ())
        return roles

    def _options(self) -> Mapping[str, Any]:
        """The game's options as the facts tell them (every option, the defaults filled in)."""
        return (self.facts.data.get("options") if self.facts is not None else None) or {}

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

    def fits_plain(self, card: str, top: str, named: str | None) -> bool:
        """Whether `card`, a card that is neither wild nor one that must be covered, fits (`fits`)."""
        roles = self.roles(card)
        if "wild" in roles or "cover" in roles:
            return False
        if named is not None:
            return suit(card) == named
        return suit(card) == suit(top) or rank(card) == rank(top)

    def _resize(self, seat: int | None, change: int) -> None:
        if self.sizes is None or seat is None or not 0 <= seat < len(self.sizes):
            return
        self.sizes[seat] += change
        if self.sizes[seat] < 0:
            self.sizes = None

    def _wild_tell(self, seat: int | None, card: str, combo: bool) -> None:
        """A wild card played first in a turn, with nothing pending, cards left and no opponent near out: a
        tactician-like player keeps its wilds, so it held no plain card that fitted (`Void.plain_only`)."""
        if (not self.policy_tells or combo or not self.plain or self.top is None or seat is None
                or self.sizes is None or "wild" not in self.roles(card)):
            return
        left = self.sizes[seat] - 1
        others = [n for i, n in enumerate(self.sizes) if i != seat and n > 0]
        if left > 0 and others and min(others) > 2:
            self.voids.append(Void(seat, self.top, self.named, 0, plain_only=True))

    def _play_tell(self, seat: int | None, card: str) -> None:
        """A card played by choice (`play_model`): not the card drawn just before (the only one it may then
        play), not with an effect pending or a Blind card in doubt; the sizes before the play are kept."""
        if self.play_model is None or seat is None or self.top is None or self.sizes is None or not self.plain:
            return
        if self.last_kind == "draw" and self.last_seat == seat and not self.penalty_draw:
            return
        if self.last_kind in ("accept", "accuse", "blind", "challenge", "call", "target"):
            return
        tell = PlayTell(seat, card, self.top, self.named, tuple(self.sizes), self.step)
        tell.played[card] += 1
        self.plays.append(tell)
        del self.plays[:-MAX_VOIDS]

    def judging(self) -> bool:
        """Whether there is evidence to judge a deal by (`broken`): voids, and with a `play_model` the tells."""
        return bool(self.voids) or (self.play_model is not None and bool(self.tells or self.plays))

    # ------------------------------------------------------------------ events
    def update(self, history: Iterable[Any]) -> None:
        """Read the events of `history` (the whole game's, oldest first) not read yet.

        A turn with an accusation window open (Online Mau-Mau, B-8) is read like any other: the
        tactician plays it by its scoring too."""
        events = tuple(history)
        for event in events[self.seen:]:
            self.event(event.seat, event.kind, event.details)
        self.seen = len(events)

    def event(self, seat: int | None, kind: str, details: Mapping[str, Any]) -> None:
        if kind in ("deal", "start"):
            self.buried.clear()
            self.voids.clear()
            self.tells.clear()
            self.plays.clear()
            sizes = details.get("hand_sizes") if kind == "deal" else None
            self.sizes = list(sizes) if isinstance(sizes, (list, tuple)) else None
            self.top, self.named, self.plain, self.last_player = None, None, True, None
            self.step = 1
        elif kind == "open":
            card = details.get("card")
            if details.get("from_hand"):
                self._resize(seat, -1)
            if card:
                self.buried[card] += 1
                self.top, self.named = card, None
                self.plain = not (self.roles(card) & {"draw", "cover"})
                if "reverse" in self.roles(card) and self._options().get("starter_effects"):
                    self.step = -self.step  # the upcard's effects apply as if seat 0 had played it
        elif kind == "play":
            card = details.get("card")
            for tell in self.tells:
                if tell.seat == seat and card:
                    tell.played[card] += 1
            for tell in self.plays:
                if tell.seat == seat and card:
                    tell.played[card] += 1
            if card:
                combo = self.last_kind == "play" and self.last_seat == seat  # a combo's effects add up
                self._play_tell(seat, card)
                self._wild_tell(seat, card, combo)
                self._resize(seat, -1)
                self.buried[card] += 1
                self.top, self.named = card, None
                effect = bool(self.roles(card) & {"draw", "cover"})
                self.plain = (self.plain or not combo) and not effect
                self.last_player = seat
                if "reverse" in self.roles(card):
                    self.step = -self.step
        elif kind == "suit":
            self.named = details.get("suit")
            if self.policy_tells and seat is not None and self.named:
                self.tells.append(SuitTell(seat, self.named))
                del self.tells[:-MAX_VOIDS]
        elif kind == "reshuffle":
            self.buried.clear()
            if self.top:
                self.buried[self.top] += 1
        elif kind in ("accept", "accuse", "blind", "challenge", "call", "target"):
            self.plain = kind == "call" and self.plain  # a call may be false: its penalty draw tells nothing
            if kind == "blind":
                self.top = None  # the face-down card's truth is unknown: stop inferring until the next play
                self.sizes = None  # and cards go back and forth unseen
        elif kind == "draw":
            count = int(details.get("count", 0) or 0)
            self._resize(seat, count)
            for void in self.voids:
                if void.seat == seat:
                    void.drawn += count
            for tell in self.tells:
                if tell.seat == seat:
                    tell.drawn += count
            if count:
                self.plays = [tell for tell in self.plays if tell.seat != seat]
            self.penalty_draw = not self.plain
            if len(self.voids) > MAX_VOIDS:  # the oldest tell the least (most cards drawn since)
                del self.voids[: len(self.voids) - MAX_VOIDS]
            continued = self.last_kind == "draw" and self.last_seat == seat  # a draw the reshuffle split
            if (self.plain and not continued and self.top is not None and seat is not None
                    and seat != self.last_player and self.last_kind not in ("accept", "accuse", "call")):
                self.voids.append(Void(seat, self.top, self.named, count))
            self.plain = True
        elif kind == "pass":
            # Right after its own draw: the drawn card(s) did not fit either.
            turn_pass = self.last_kind == "draw" and self.last_seat == seat
            if turn_pass and self.plain and self.top is not None:
                for void in self.voids:
                    if void.seat == seat and void.top == self.top and void.named == self.named:
                        void.drawn = 0
        elif kind == "hand-end":
            self.voids.clear()
            self.tells.clear()
            self.plays.clear()
        if kind != "reshuffle":
            self.last_kind, self.last_seat = kind, seat

    # ------------------------------------------------------------------ worlds
    def excess(self, world, seat: int) -> int:
        """How many cards of `world`'s other hands the voids rule out: for each void, the fitting cards
        its seat holds beyond the cards it drew since (0: the world agrees with every void)."""
        hands = getattr(world, "hands", None)
        if not isinstance(hands, list):
            hands = world.to_position().get("hands")
        return self.broken(hands, seat)

    def broken(self, hands, seat: int) -> int:
        """`excess` of a deal's hands (a list of cards per seat), before any state is built from them
        (`WorldSampler.sample(judge=...)`)."""
        if not isinstance(hands, list):
            return 0
        total = 0
        for void in self.voids:
            if void.seat == seat or not 0 <= void.seat < len(hands):
                continue
            hand = hands[void.seat]
            if void.drawn >= len(hand):
                continue
            fit = self._fitting.get((void.top, void.named, void.plain_only))
            if fit is None:
                fit = self._fitting[void.top, void.named, void.plain_only] = {}
            fitting = 0
            for c in hand:
                f = fit.get(c)
                if f is None:
                    f = fit[c] = (self.fits_plain if void.plain_only else self.fits)(c, void.top, void.named)
                fitting += f
            total += max(0, fitting - void.drawn)
        for tell in self.tells:
            if tell.seat == seat or tell.drawn or not 0 <= tell.seat < len(hands):
                continue
            counts = Counter(suit(c) for c in [*hands[tell.seat], *tell.played.elements()]
                             if "wild" not in self.roles(c))
            total += sum(max(0, n - counts[tell.named]) for s, n in counts.items() if s != tell.named)
        model = self.play_model
        if model is not None:
            for tell in self.plays:
                if tell.seat == seat or not 0 <= tell.seat < len(hands):
                    continue
                hand = [*hands[tell.seat], *tell.played.elements()]
                sizes = tell.sizes
                n = len(sizes)
                nxt = (tell.seat + tell.step) % n
                danger = min((k for i, k in enumerate(sizes) if i != tell.seat and k), default=5)
                if model.beaten(tell.card, hand, lambda c, t=tell: self.fits(c, t.top, t.named),
                                sizes[nxt] if n > 1 else 5, danger):
                    total += 1
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
            if void.drawn >= len(hand) or void.plain_only:  # a policy's tell only judges worlds (`excess`)
                continue
            mine = [v for v in self.voids if v.seat == void.seat and not v.plain_only]
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
