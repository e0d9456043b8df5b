"""Whole deals weighted by how likely the tacticians' observed choices make them (Online Mau-Mau, any seat count).

The history sampler (`arena.games.worlds`) deals the hidden cards uniformly among the deals the public record
allows (the pile card by card, the stock's size), and `inference.CardTracker` rejects deals that break a few
tells about the hands *now*.  Neither looks at what the opponents' past choices say about the hands they held
*then*.  Against tacticians those choices say a great deal, and jointly: knowing all three hands is worth over
+100 Elo to the searcher, one hand alone almost nothing (README, Session 8).  This module weights whole deals
by the likelihood of every choice each opponent made, under the tactician's own policy softened by `epsilon`.

**Slots.**  Every card an opponent ever held (since the deal) is a slot with the time it came: the deal, or
the draw that brought it.  A deal of the hidden cards is an assignment of cards to every opponent slot (the
cards left over are the stock); the cards an opponent played are known by name, and an assignment is
*possible* when every card an opponent played was in its hand then.  The hand an opponent held at any past
moment is then exact: the slots that had come, less the cards it had played.  Under the deal's uniform shuffle
every possible assignment is equally likely (two copies of a card change nothing: each assignment stands for
the same number of physical deals).

**Choices.**  Each choice of an opponent is judged with the hand it held then, by the tactician's own scoring
(`tactician.score_play`, `tactician.choose_suit`'s rule): a card played (no other fitting card scores more;
among equal scores each of the k equals has chance 1/k, as the tactician takes the first in its hand's order),
a draw on its own turn with nothing owed (no card fitted: the tactician always plays when it can), a pass
after that draw (the drawn card did not fit either), a live 7 accepted (no 7 held), the suit named after a
Jack (the suit it held most of, then most points).  A choice the tactician would not have made has likelihood
`epsilon` (the model may be wrong about a player that is not a tactician, and a hard zero would leave no deal).

**The chain.**  `DealPosterior.hands(rng)` draws the opponents' hands from the posterior: a Metropolis chain
over the slots' cards (a move swaps two slots' cards, or a slot's card with one of the stock's; both are
symmetric, so the chain's stationary law is the uniform prior times the likelihood), kept from one decision
to the next and moved `moves` steps between two hands drawn (`settle` steps when new events came).  A move
re-judges only the choices of the seats whose slots it changed.  The work is a count of moves, never time.

Only until the first reshuffle (after it a card can come back into a hand a second time, which the slots do
not model): `active` is False then, and the searcher falls back to its own worlds.  Reads nothing but the seat's
own observation and the public events (`turn.history`), so a deal the seat cannot tell from another gets the
same weight: the weights are a function of public information and the seat's own hand.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

from pimc import Searcher
from tactician import CardTable, SingleCardScores, names_suit, score_play

SUITS = "shdc"  # the engine's order of the suits offered after a Jack (the tactician names the first of equals)

# timeline item kinds, in their order at one time: a choice is judged before its card leaves and before a draw's
# cards come (the hand it chose from)
CHECK, OUT, IN = 0, 1, 2


class DealPosterior:
    """The posterior over every opponent's hidden cards in one game (feed `update` each decision).

    `epsilon` is the likelihood of a choice the tactician would not have made with the hand; `moves` the chain
    steps between two hands drawn; `settle` the steps after new events (and at the start)."""

    def __init__(self, facts, deck: Sequence[str], epsilon: float = 0.05, moves: int = 12, settle: int = 300) -> None:
        self.table = CardTable(facts)
        cards = facts.data.get("cards") or {}
        self.rules = {c: (info.get("rule") or {}) for c, info in cards.items()}
        self.sevens = frozenset(c for c, rule in self.rules.items() if rule.get("pending_draw"))
        self.nines = frozenset(c for c, rule in self.rules.items() if rule.get("draw_previous"))
        self.reverses = frozenset(c for c, info in cards.items() if "reverse" in (info.get("roles") or ()))
        options = facts.data.get("options") or {}
        self.starter = bool(options.get("starter_effects"))
        self.deck = Counter(deck)
        self.log_eps = math.log(epsilon)
        self.moves = moves
        self.settle = settle
        self._fit_sets: dict = {}
        # what the events tell
        self.seen = 0
        self.me: int | None = None
        self.players = 0
        self.active = False
        self.slots: list[tuple[int, int]] = []  # (seat, time it came)
        self.plays: list[tuple[int, int, str]] = []  # (seat, time, card) of the opponents' plays
        self.checks: list[tuple] = []  # (seat, time, kind, ...)
        self.pile: Counter = Counter()
        self.sizes: list[int] = []
        self.top: str | None = None
        self.named: str | None = None
        self.live = 0  # cards a live 7 makes the next seat draw (0: none)
        self.owed = False  # the next draw pays a penalty (a 9, an accusation, a false call, an accepted 7)
        self.step = 1  # the direction of play
        self.last: tuple = (None, "")  # (seat, kind) of the last event
        # the chain
        self.cards: list[str] = []
        self.timelines: dict[int, list] = {}
        self.logl: dict[int, float] = {}  # seat -> the log-likelihood of its choices in the chain's state
        self.vals: dict[int, list] = {}  # seat -> each item of its timeline's judgment (0 for a card in or out)
        self.position: dict[int, int] = {}  # slot -> where its card comes in its seat's timeline
        self.pool: Counter = Counter()
        self.free: list[str] = []
        self.dirty = True  # new events since the chain last settled

    # ------------------------------------------------------------------ events
    def update(self, history: Iterable[Any], observation: Mapping[str, Any]) -> None:
        """Read the new public events (`history`: the whole game's, oldest first) and the seat's observation."""
        events = tuple(history)
        if self.me is None:
            self.me = observation.get("seat")
            self.players = observation.get("seat_count") or len(observation.get("seats") or ()) or len(
                observation.get("hand_sizes") or ())
            self.active = self.me is not None and self.players > 1
        for index in range(self.seen, len(events)):
            event = events[index]
            if self.active:
                self.event(index, event.seat, event.kind, event.details or {})
        if len(events) > self.seen:
            self.dirty = True
        self.seen = len(events)
        if not self.active:
            return
        hand = Counter(observation.get("hand") or ())
        unseen = self.deck - hand - self.pile
        played = Counter(card for _, _, card in self.plays)
        self.pool = unseen + played
        sizes = observation.get("hand_sizes") or []
        held = sum(n for s, n in enumerate(sizes) if s != self.me)
        if (list(sizes) != self.sizes or sum(self.pool.values()) - len(self.slots) != observation.get("stock_size", -1)
                or held != len(self.slots) - len(self.plays)):
            self.active = False  # lost track: the searcher's own worlds then

    def event(self, index: int, seat: int | None, kind: str, details: Mapping[str, Any]) -> None:
        me, last_seat, last_kind = self.me, self.last[0], self.last[1]
        if kind == "deal":
            if self.sizes:
                self.active = False  # a second hand: this model covers one
                return
            self.sizes = list(details.get("hand_sizes") or [])
            if len(self.sizes) != self.players:
                self.active = False
                return
            for s, n in enumerate(self.sizes):
                if s != me:
                    self.slots.extend((s, index) for _ in range(n))
        elif kind == "open":
            card = details.get("card")
            if details.get("from_hand") or not card:
                self.active = False
                return
            self.pile[card] += 1
            self.top, self.named = card, None
            if self.starter:
                self.live = self.rules[card].get("pending_draw", 0) if card in self.sevens else 0
                self.owed = card in self.nines
                if card in self.reverses:
                    self.step = -self.step
        elif kind == "play":
            card = details.get("card")
            if not card or seat is None:
                self.active = False
                return
            if seat != me:
                self.checks.append((seat, index, "play", card, self.top, self.named, self.live > 0,
                                    self.next_size(seat), self.danger(seat)))
                self.plays.append((seat, index, card))
            self.pile[card] += 1
            self.sizes[seat] -= 1
            self.top, self.named = card, None
            if card in self.sevens:
                self.live += self.rules[card].get("pending_draw", 0)
            else:
                self.live = 0
            if card in self.nines:
                self.owed = True
            if card in self.reverses:
                self.step = -self.step
        elif kind == "suit":
            self.named = details.get("suit")
            if seat is not None and seat != me and self.named:
                self.checks.append((seat, index, "suit", self.named))
        elif kind == "draw":
            count = int(details.get("count", 0) or 0)
            if seat is None:
                self.active = False
                return
            penalty = last_kind in ("accept", "accuse", "call", "draw")  # a 7's draw, 5 cards, a split draw
            if not penalty and self.owed:  # a 9's draw (by the seat before its player)
                penalty, self.owed = True, False
            if seat != me:
                if not penalty and not self.live and self.top is not None:
                    self.checks.append((seat, index, "void", self.top, self.named))
                self.slots.extend((seat, index) for _ in range(count))
            self.sizes[seat] += count
            if last_kind == "accept":
                self.live = 0  # the 7s' draw is paid
        elif kind == "accept":
            if seat is not None and seat != me and self.live:
                self.checks.append((seat, index, "accept"))
        elif kind == "pass":
            if seat is not None and seat != me and last_kind == "draw" and last_seat == seat and self.top is not None:
                self.checks.append((seat, index, "void", self.top, self.named))
        elif kind == "accuse" or kind == "call":
            pass  # public choices: a penalty draw may follow (`owed` is read from the last event's kind)
        elif kind == "reshuffle":
            self.active = False  # a card may now come back into a hand: beyond this model
        elif kind in ("blind", "challenge"):
            self.active = False
        self.last = (seat, kind)

    def next_size(self, seat: int) -> int:
        return self.sizes[(seat + self.step) % self.players] if self.players > 1 else 5

    def danger(self, seat: int) -> int:
        return min((n for s, n in enumerate(self.sizes) if s != seat and n), default=5)

    # ------------------------------------------------------------------ the model
    def fit_set(self, top: str, named: str | None, live: bool) -> frozenset:
        """The cards legal on `top` (with `named` the wished suit; `live`: a 7's draw is owed)."""
        key = (top, named, live)
        cards = self._fit_sets.get(key)
        if cards is None:
            if live:
                stack = self.rules.get(top, {}).get("stack_with") or ()
                cards = frozenset(c for c in self.deck if c[0] in stack or c in stack)
            else:
                suit = named or top[1:2]
                wild = self.table.wild
                cards = frozenset(c for c in self.deck if c[0] == top[0] or c[1:2] == suit or (
                    c in wild and top[0] not in (self.rules[c].get("wild_not_on") or ())))
            self._fit_sets[key] = cards
        return cards

    def judge(self, check: tuple, held: Counter) -> float:
        """The log-likelihood of one choice with the hand `held` (a multiset) under the softened tactician."""
        kind = check[2]
        if kind == "void":
            fits = self.fit_set(check[3], check[4], False)
            return self.log_eps if any(n > 0 and c in fits for c, n in held.items()) else 0.0
        if kind == "accept":
            return self.log_eps if any(n > 0 and c in self.sevens for c, n in held.items()) else 0.0
        if kind == "play":
            _, _, _, card, top, named, live, next_size, danger = check
            if top is None:
                return 0.0
            fits = self.fit_set(top, named, live)
            others = [c for c, n in held.items() if (n > 1 if c == card else n > 0) and c in fits]
            if not others:
                return 0.0
            hand = list(held.elements())
            table = self.table
            wild = table.wild
            plain = card not in wild or any(c not in wild for c in others)
            if table.covers:  # a card that must be covered scores by its cover: the full scoring
                def score(c):
                    return score_play(table, (c,), hand, "turn", plain, next_size, danger)
            else:  # the same scores, the hand's suits counted once
                single = SingleCardScores(table, hand)

                def score(c):
                    return single.score(c, "turn", plain, next_size, danger)
            mine = score(card)
            equal = 1
            for c in others:
                if c == card:
                    continue
                value = score(c)
                if value > mine:
                    return self.log_eps
                if value == mine:
                    equal += 1
            return -math.log(equal) if equal > 1 else 0.0
        if kind == "suit":
            return 0.0 if names_suit(self.table, held.elements(), check[3], SUITS) else self.log_eps
        return 0.0

    # ------------------------------------------------------------------ the chain
    def timeline(self, seat: int) -> list:
        items = []
        for k, (s, time) in enumerate(self.slots):
            if s == seat:
                items.append((time, IN, k))
        for s, time, card in self.plays:
            if s == seat:
                items.append((time, OUT, card))
        for k, check in enumerate(self.checks):
            if check[0] == seat:
                items.append((check[1], CHECK, k))
        items.sort(key=lambda item: (item[0], item[1]))
        return items

    def seat_logl(self, seat: int, cards: Sequence[str], start: int = 0) -> tuple[float, list] | None:
        """The log-likelihood of `seat`'s choices with the slots' `cards`, and the judgments of its timeline's items
        from `start` on; None if it played a card it did not hold.  The items before `start` must be unchanged since
        the judgments in `vals` (a move changes the slots from one item on): they are only counted, and their
        judgments added in the same order, so the total is the very number a walk from the first item gives."""
        items, vals = self.timelines[seat], self.vals.get(seat)
        held: Counter = Counter()
        total = 0.0
        for p in range(start):
            _, kind, x = items[p]
            if kind == IN:
                held[cards[x]] += 1
            elif kind == OUT:
                held[x] -= 1
            else:
                total += vals[p]
        checks, judge = self.checks, self.judge
        tail = []
        for p in range(start, len(items)):
            _, kind, x = items[p]
            if kind == IN:
                held[cards[x]] += 1
                tail.append(0.0)
            elif kind == OUT:
                left = held[x] - 1
                if left < 0:
                    return None
                held[x] = left
                tail.append(0.0)
            else:
                value = judge(checks[x], held)
                total += value
                tail.append(value)
        return total, tail

    def keep(self, seat: int, start: int, judged: tuple[float, list]) -> None:
        """Take a move's judgments of `seat` (from `seat_logl`) as the chain's."""
        self.logl[seat] = judged[0]
        self.vals[seat][start:] = judged[1]

    def valid(self, seat: int, cards: Sequence[str]) -> bool:
        """Whether `seat` held every card it played, with the slots' `cards` ("" for a slot not yet given one)."""
        held: Counter = Counter()
        for _, kind, x in self.timelines[seat]:
            if kind == IN:
                held[cards[x]] += 1
            elif kind == OUT:
                if held[x] <= 0:
                    return False
                held[x] -= 1
        return True

    def rebuild(self, rng: random.Random) -> bool:
        """Bring the chain up to the events read: every slot gets a card of the pool, every played card sits in
        a slot of its player that came before the play; the likelihoods recomputed."""
        self.timelines = {s: self.timeline(s) for s in range(self.players) if s != self.me}
        cards = self.cards + [""] * (len(self.slots) - len(self.cards))
        # keep what is still possible: cards of the pool, at most as many as it holds
        budget = Counter(self.pool)
        for k, card in enumerate(cards):
            if card and budget[card] > 0:
                budget[card] -= 1
            else:
                cards[k] = ""
        # every seat must have held each card it played: give its slots those cards where it did not
        for seat in self.timelines:
            if not self.valid(seat, cards) and not self.repair(seat, cards, budget, rng):
                return False
        spare = list(budget.elements())
        rng.shuffle(spare)
        for k, card in enumerate(cards):
            if not card:
                cards[k] = spare.pop()
        self.cards = cards
        self.free = spare
        self.logl, self.vals = {}, {}
        for seat, items in self.timelines.items():
            judged = self.seat_logl(seat, cards)
            if judged is None:
                return False
            self.vals[seat] = [0.0] * len(items)
            self.keep(seat, 0, judged)
            for p, (_, kind, k) in enumerate(items):
                if kind == IN:
                    self.position[k] = p
        return True

    def repair(self, seat: int, cards: list[str], budget: Counter, rng: random.Random) -> bool:
        """Give `seat`'s slots the cards it played, each in a slot that came before the play: from the pool's spare
        cards, or from another seat's slot that seat can spare (it stays valid), which is emptied."""
        mine = [k for k, (s, _) in enumerate(self.slots) if s == seat]
        for k in mine:  # start the seat afresh: its cards back to the pool
            if cards[k]:
                budget[cards[k]] += 1
                cards[k] = ""
        for _, time, card in sorted((p for p in self.plays if p[0] == seat), key=lambda p: p[1]):
            free = [k for k in mine if not cards[k] and self.slots[k][1] < time]
            if not free:
                return False
            if budget[card] > 0:
                budget[card] -= 1
            else:
                holders = [k for k, c in enumerate(cards) if c == card and self.slots[k][0] != seat]
                rng.shuffle(holders)
                for k in holders:
                    cards[k] = ""
                    if self.valid(self.slots[k][0], cards):
                        break
                    cards[k] = card
                else:
                    return False
            cards[rng.choice(free)] = card
        return True

    def step_chain(self, rng: random.Random) -> None:
        """One Metropolis move: two slots swap cards, or a slot's card swaps with one of the stock's."""
        cards, slots, position, logl = self.cards, self.slots, self.position, self.logl
        i = rng.randrange(len(slots))
        if self.free and rng.random() < 0.5:
            j = rng.randrange(len(self.free))
            old, new = cards[i], self.free[j]
            if old == new:
                return
            seat = slots[i][0]
            cards[i] = new
            start = position[i]
            judged = self.seat_logl(seat, cards, start)
            if judged is not None and (judged[0] >= logl[seat] or rng.random() < math.exp(judged[0] - logl[seat])):
                self.keep(seat, start, judged)
                self.free[j] = old
                return
            cards[i] = old
            return
        j = rng.randrange(len(slots))
        a, b = cards[i], cards[j]
        if a == b:
            return
        si, sj = slots[i][0], slots[j][0]
        cards[i], cards[j] = b, a
        if si == sj:
            start = min(position[i], position[j])
            judged = self.seat_logl(si, cards, start)
            if judged is not None:
                delta = judged[0] - logl[si]
                if delta >= 0 or rng.random() < math.exp(delta):
                    self.keep(si, start, judged)
                    return
        else:
            ji = self.seat_logl(si, cards, position[i])
            jj = self.seat_logl(sj, cards, position[j]) if ji is not None else None
            if ji is not None and jj is not None:
                delta = ji[0] - logl[si] + (jj[0] - logl[sj])
                if delta >= 0 or rng.random() < math.exp(delta):
                    self.keep(si, position[i], ji)
                    self.keep(sj, position[j], jj)
                    return
        cards[i], cards[j] = a, b

    def ready(self, rng: random.Random) -> bool:
        """The chain brought up to the events and settled; False when the model is off."""
        if not self.active or not self.slots:
            return False
        if self.dirty:
            if not self.rebuild(rng):
                self.active = False
                return False
            for _ in range(self.settle):
                self.step_chain(rng)
            self.dirty = False
        return True

    def hands(self, rng: random.Random) -> dict[int, list[str]] | None:
        """Every opponent's hand now, from the posterior (the chain moved `moves` steps first); None when off."""
        if not self.ready(rng):
            return None
        for _ in range(self.moves):
            self.step_chain(rng)
        return self.current()

    def current(self) -> dict[int, list[str]]:
        """The opponents' hands now in the chain's state: each seat's slots less the cards it played."""
        held: dict[int, Counter] = {s: Counter() for s in self.timelines}
        for (seat, _), card in zip(self.slots, self.cards):
            held[seat][card] += 1
        for seat, _, card in self.plays:
            held[seat][card] -= 1
        return {seat: list(counter.elements()) for seat, counter in held.items()}

    def log_likelihood(self) -> float:
        return sum(self.logl.values())


def with_hands(position: dict, hands: Mapping[int, Sequence[str]], rng: random.Random) -> bool:
    """Make each seat's hand in `position` (a deal, `from_position`'s form) the one in `hands`, the cards traded
    with the other hands named and the stock (shuffled after): whether it could (the cards are there, sizes equal)."""
    held, stock = position.get("hands"), position.get("stock")
    if not isinstance(held, list) or not isinstance(stock, list):
        return False
    rest = Counter(stock)
    want: Counter = Counter()
    for seat, hand in hands.items():
        if not 0 <= seat < len(held) or len(held[seat]) != len(hand):
            return False
        rest.update(held[seat])
        want.update(hand)
    if want - rest:
        return False
    for seat, hand in hands.items():
        held[seat] = list(hand)
        rng.shuffle(held[seat])
    stock = list((rest - want).elements())
    rng.shuffle(stock)
    position["stock"] = stock
    return True


class DealSearcher(Searcher):
    """`pimc.Searcher` whose worlds give every opponent the hand of a deal drawn from a `DealPosterior` (set
    `deals`): the history sampler's deal (the pile as the history tells) with the opponents' hands and the stock
    traded for the posterior's; when the posterior is off, the searcher's own worlds."""

    deals: DealPosterior | None = None

    def world(self, sampler, rng, tracker, seat, visible):
        deals = self.deals
        hands = deals.hands(rng) if deals is not None else None
        if hands is None:
            return super().world(sampler, rng, tracker, seat, visible)
        return sampler.sample(rng, arrange=lambda position: with_hands(position, hands, rng))
