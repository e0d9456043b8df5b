"""The opponent's hidden hand in 2-seat Mau-Mau, from its whole public history, if it plays as the tactician does.

`inference.CardTracker` judges a sampled deal by a few tells, each about the hand *now*, and forgets a tell
when its seat draws (the hand then is no longer the hand now plus the cards played since).  This module
keeps every card the opponent ever held as a **slot** with the time it entered the hand (the deal, or the
draw that brought it) and, for the cards it played, the time it left, so that each of its decisions
constrains exactly the cards it held *then*:

* **a play by choice** (a normal turn, or following its own Ace): no other card it held that fitted the
  pile scored strictly higher with the tactician's own scoring (`tactician.score_play`); ties tell
  nothing (the tactician then plays the first in the engine's order, which depends on its hand's order);
* **a draw on its own turn** (nothing pending): it held no card that fitted (a rule of Mau-Mau: a seat that
  can play must play); a failed Ace follow likewise held nothing that fitted the Ace;
* **the card it drew**: played at once (it fitted: the tactician always plays it), or not (it did not fit);
* **a suit named after its Jack**: the suit of the most cards it held (wilds left out), then of the most
  points, the first of ``s h d c`` among equals (`tactician.choose_suit`).

`HandPosterior.hands(rng, n)` draws opponent hands from the posterior: uniform over every assignment of the
unseen cards to the slots under which the tactician would have made every choice it made.  It is a
Metropolis chain over the slots' cards (a move gives a slot another unseen card, or swaps two slots' cards;
it is kept if every decision still agrees), started from the first assignment that agrees (a descent on
the number of decisions that disagree) and kept from one decision to the next.  The deal's prior is uniform
over assignments, and the moves are symmetric, so the chain's stationary law is the exact posterior.

Only `maumau` with two seats, and only until the first reshuffle (after it a card may come back into the
hand a second time): `active` is False otherwise, and the caller falls back to its other sampler.  Reads
nothing but the seat's own observation and the public events.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from typing import Any, Iterable, Mapping, Sequence

from pimc import Searcher
from tactician import CardTable, SingleCardScores, names_suit, score_play

SUITS = "shdc"
#: The most verdicts a `HandPosterior` keeps (`agrees`): a few thousand a decision; emptied when full.
VERDICTS = 200_000


class HandPosterior:
    """The posterior over one opponent's hidden cards in one 2-seat `maumau` game (feed `update` each decision)."""

    def __init__(self, facts, deck: Sequence[str], sweeps: int = 1) -> None:
        self.table = CardTable(facts)
        cards = facts.data.get("cards") or {}
        self.draws = frozenset(c for c in cards if facts.has_role(c, "draw"))  # a 7: the next seat owes a draw
        self.follows = frozenset(c for c in cards if facts.has_role(c, "follow"))  # an Ace: its player must go on
        self.deck = tuple(deck)
        self.sweeps = sweeps  # chain steps per slot between two hands drawn
        self.seen = 0
        self.me: int | None = None
        self.active = False
        self.slots: list[int] = []  # the opponent's slots: the event index at which each card entered its hand
        self.exits: dict[str, int] = {}  # opponent's played card -> event index of the play
        self.checks: list[tuple] = []  # the decisions: (kind, time, ...)
        self.times: list[int] = []  # each check's time (the checks come in the order of the events)
        self.fitting_cache: dict[tuple, frozenset] = {}  # (top, named) -> the cards of the deck that fit
        self.verdicts: dict[tuple, bool] = {}  # (check, its hand sorted) -> whether they agree (`agrees`)
        self.nofit: dict[int, tuple] = {}  # slot -> (top, named): the drawn card did not fit
        self.mine: set[str] = set()  # cards the seat has held or seen, which no opponent slot can hold
        self.sizes = [0, 0]
        self.top: str | None = None
        self.named: str | None = None
        self.pending = False  # a 7's draw is owed
        self.last: tuple = (None, "")  # (seat, kind) of the last event
        self.last_card: str | None = None
        self.draw_slot: int | None = None  # the opponent's plain draw whose card's fate is still open
        self.cards: list[str | None] = []  # the chain's state: a card per slot
        self.ok = False  # the chain's state agrees with every decision

    # ------------------------------------------------------------------ events
    def update(self, history: Iterable[Any], observation: Mapping[str, Any]) -> None:
        """Read the new public events (`history` is the whole game's, oldest first) and the seat's hand."""
        events = tuple(history)
        if self.me is None:
            self.me = observation.get("seat")
            count = observation.get("seat_count") or len(observation.get("seats") or ())
            self.active = count == 2 and self.me in (0, 1)
        for index in range(self.seen, len(events)):
            event = events[index]
            if self.active:
                self.event(index, event.seat, event.kind, event.details or {})
        self.seen = len(events)
        if not self.active:
            return
        self.close_draw(len(events))
        self.mine.update(observation.get("hand") or ())
        other = 1 - self.me
        held = (observation.get("hand_sizes") or [0, 0])[other]
        if held != len(self.slots) - len(self.exits) or len(self.pool()) < held:
            self.active = False  # lost track: leave it to the other sampler
            return
        self.extend()

    def event(self, index: int, seat: int | None, kind: str, details: Mapping[str, Any]) -> None:
        other = 1 - self.me
        drawn = False  # this is the opponent's play of the card it just drew
        if self.draw_slot is not None:
            drawn = seat == other and kind == "play"
            self.close_draw(index, played=details.get("card") if drawn else None)
        if kind == "deal":
            if self.slots:
                self.active = False  # a second hand: this model covers one
                return
            sizes = list(details.get("hand_sizes") or [0, 0])
            self.sizes = sizes
            self.slots = [index] * sizes[other]
        elif kind == "open":
            card = details.get("card")
            if card:
                self.mine.add(card)
                self.top, self.named = card, None
                self.pending = card in self.draws
        elif kind == "play":
            card = details.get("card")
            if not card:
                return
            if seat == other:
                self.opponent_play(index, card, drawn)
            else:
                self.mine.add(card)
            self.sizes[seat] -= 1
            self.top, self.named = card, None
            self.pending = card in self.draws
        elif kind == "suit":
            self.named = details.get("suit")
            if seat == other and self.named:
                self.check(("suit", index, self.named))
        elif kind == "draw":
            count = int(details.get("count", 0) or 0)
            if seat == other:
                self.opponent_draw(index, count)
            self.sizes[seat] += count
            self.pending = False
        elif kind == "reshuffle":
            self.active = False  # a card may now come back: beyond this model
        self.last = (seat, kind)
        if kind == "play":
            self.last_card = details.get("card")

    def opponent_play(self, index: int, card: str, drawn: bool) -> None:
        other = 1 - self.me
        self.exits[card] = index
        follow = self.last == (other, "play") and self.last_card in self.follows
        if not drawn:  # a choice among the cards that fitted (the drawn card is the only one offered)
            self.check(("play", index, card, self.top, self.named, "follow" if follow else "turn", self.sizes[self.me]))

    def opponent_draw(self, index: int, count: int) -> None:
        other = 1 - self.me
        follow = self.last == (other, "play") and self.last_card in self.follows
        plain = not self.pending and self.last[1] != "accuse"
        start = len(self.slots)
        self.slots.extend([index] * count)
        if follow and count:
            self.check(("void", index, self.top, None))
        elif plain and count == 1:
            self.check(("void", index, self.top, self.named))
            self.draw_slot = start

    def check(self, check: tuple) -> None:
        """Judge every assignment by this decision from now on (`agrees`)."""
        self.checks.append(check)
        self.times.append(check[1])

    def close_draw(self, index: int, played: str | None = None) -> None:
        """The card of the opponent's last plain draw: played at once, or it did not fit."""
        slot = self.draw_slot
        if slot is None:
            return
        self.draw_slot = None
        if played is None:
            self.nofit[slot] = (self.top, self.named)

    # ------------------------------------------------------------------ the model
    def fits(self, card: str, top: str | None, named: str | None) -> bool:
        if top is None:
            return True
        if card in self.table.wild:
            return True
        if named is not None:
            return card[1:2] == named
        return card[1:2] == top[1:2] or card[0] == top[0]

    def fitting(self, top: str | None, named: str | None) -> frozenset:
        """The cards of the deck that `fits` this pile (made once per top and suit named: the chain asks often)."""
        key = (top, named)
        fit = self.fitting_cache.get(key)
        if fit is None:
            fit = self.fitting_cache[key] = frozenset(c for c in self.deck if self.fits(c, top, named))
        return fit

    def hand_at(self, cards: Sequence[str | None], time: int) -> list[str]:
        """The cards the slots held at `time`: those of the slots that entered before it (the slots come in the order
        they entered) not played before it."""
        exits = self.exits
        return [c for c in cards[:bisect_left(self.slots, time)] if exits.get(c, time) >= time]

    def agrees(self, check: tuple, cards: Sequence[str | None]) -> bool:
        """Whether the tactician, holding the slots' cards at the check's time, could have made the check's choice."""
        kind = check[0]
        hand = self.hand_at(cards, check[1])
        if kind == "void":
            return self.fitting(check[2], check[3]).isdisjoint(hand)
        if kind == "play":
            card, fit = check[2], self.fitting(check[3], check[4])
            if all(c == card or c not in fit for c in hand):
                return True  # no other card fitted: no choice to judge
        key = (check, tuple(sorted(hand)))  # a verdict is the check's and the hand's alone: the chain meets hands again
        verdict = self.verdicts.get(key)
        if verdict is None:
            if len(self.verdicts) >= VERDICTS:
                self.verdicts.clear()
            verdict = self.verdicts[key] = self.judge(check, hand)
        return verdict

    def judge(self, check: tuple, hand: list[str]) -> bool:
        """`agrees` for the hand held at the check's time."""
        kind = check[0]
        if kind == "void":
            return self.fitting(check[2], check[3]).isdisjoint(hand)
        if kind == "play":
            _, _, card, top, named, decision, mine = check
            fit = self.fitting(top, named)
            fitting = [c for c in hand if c != card and c in fit]
            if not fitting:
                return True
            table = self.table
            wild = table.wild
            plain = card not in wild or any(c not in wild for c in fitting)
            if card in hand and not table.covers:  # `score_play` of each card, what they share counted once
                score = SingleCardScores(table, hand).score
                played = score(card, decision, plain, mine, mine)
                return not any(score(c, decision, plain, mine, mine) > played for c in fitting)
            played = score_play(table, (card,), hand, decision, plain, mine, mine)
            return not any(score_play(table, (c,), hand, decision, plain, mine, mine) > played for c in fitting)
        if kind == "suit":
            return names_suit(self.table, hand, check[2], SUITS)
        return True

    def wrong(self, cards: Sequence[str | None], limit: int | None = None) -> int:
        """How many decisions (and drawn cards) disagree with this assignment: 0 if the tactician could have held it.

        With `limit`, the count stops as soon as it exceeds `limit` (the chain only needs to know that)."""
        total = 0
        for slot, (top, named) in self.nofit.items():
            card = cards[slot]
            if card is not None and self.fits(card, top, named):
                total += 1
        for check in reversed(self.checks):  # the latest first: they hold the most of the slots a move changes
            if limit is not None and total > limit:
                return total
            if not self.agrees(check, cards):
                total += 1
        return total

    def moved_wrong(self, cards: Sequence[str | None], slot: int, other: int, old: str, card: str) -> int:
        """`wrong(cards, 0)` after a move from an assignment every decision agreed with: 0 if every decision still
        agrees, else 1 or more.  The move gave `slot` the card `card` in place of `old`, and `other` (-1: none) `old`
        in place of `card`.

        A slot's card is in the hand at a decision's time if the slot entered before and the card was not played
        before, so a card put in place of another changes only the hands after its slot entered, up to the later
        play of the two cards (if both were played), and two cards that trade slots change only the hands after the
        first of the two slots entered, up to when the second did: the other decisions agree as they did."""
        slots, nofit = self.slots, self.nofit
        for moved in (slot, other):
            if moved in nofit and self.fits(cards[moved], *nofit[moved]):
                return 1
        if other < 0:
            first, last = slots[slot], max(self.exits.get(old, math.inf), self.exits.get(card, math.inf))
        else:
            first, last = min(slots[slot], slots[other]), max(slots[slot], slots[other])
        times, checks = self.times, self.checks
        for k in range(bisect_right(times, last) - 1, bisect_right(times, first) - 1, -1):  # the latest first
            if not self.agrees(checks[k], cards):
                return 1
        return 0

    def placed(self, cards: Sequence[str | None]) -> bool:
        """Whether every played card sits in a slot that entered the hand before it was played."""
        for slot, card in enumerate(cards):
            if not self.may_hold(slot, card):
                return False
        return True

    def may_hold(self, slot: int, card: str | None) -> bool:
        """Whether `slot` may hold `card`: it entered the hand before the card was played, if it was."""
        exit_ = self.exits.get(card)
        return exit_ is None or self.slots[slot] < exit_

    def pool(self) -> list[str]:
        """The cards an opponent slot may hold: those the seat never held or saw, and the opponent's plays."""
        mine = self.mine - set(self.exits)
        return [c for c in self.deck if c not in mine]

    # ------------------------------------------------------------------ the chain
    def extend(self) -> None:
        """Bring the chain's state up to the events read: new slots get cards, played cards get a slot."""
        rng = random.Random(len(self.slots) * 7919 + len(self.exits))
        cards = self.cards + [None] * (len(self.slots) - len(self.cards))
        pool = self.pool()
        allowed = set(pool)
        for slot, card in enumerate(cards):
            if card is not None and card not in allowed:
                cards[slot] = None
        for card, exit_ in self.exits.items():
            if card in cards:
                if self.slots[cards.index(card)] < exit_:
                    continue
                cards[cards.index(card)] = None
            free = [s for s, c in enumerate(cards) if self.slots[s] < exit_ and (c is None or c not in self.exits)]
            if not free:
                self.active = False
                return
            cards[rng.choice(free)] = card
        held = set(c for c in cards if c is not None)
        spare = [c for c in pool if c not in held]
        rng.shuffle(spare)
        for slot, card in enumerate(cards):
            if card is None:
                cards[slot] = spare.pop()
        self.cards = cards
        self.ok = False

    def step(self, rng: random.Random, cards: list, pool: Sequence[str], current: int) -> int:
        """One Metropolis move at `current` disagreements (kept if it does not add any): the new count.

        The chain's assignments are all `placed` (`extend` places every played card, and a move that would not is
        refused), so a move is judged by its own slots; and at 0 disagreements by the decisions it can change
        (`moved_wrong`)."""
        slot = rng.randrange(len(cards))
        card = rng.choice(pool)
        old = cards[slot]
        if card == old:
            return current
        try:
            other = cards.index(card)
        except ValueError:
            other = -1
        if other < 0 and old in self.exits:
            return current  # a played card stays in some slot
        if not self.may_hold(slot, card) or (other >= 0 and not self.may_hold(other, old)):
            return current
        cards[slot] = card
        if other >= 0:
            cards[other] = old
        if current:
            wrong = self.wrong(cards, current)
        else:
            wrong = self.moved_wrong(cards, slot, other, old, card)
        if wrong <= current:
            return wrong
        cards[slot] = old
        if other >= 0:
            cards[other] = card
        return current

    def settle(self, rng: random.Random, limit: int = 4000) -> bool:
        """Walk the chain down to an assignment every decision agrees with (at most `limit` moves)."""
        if self.ok:
            return True
        cards, pool = self.cards, self.pool()
        wrong = self.wrong(cards)
        for _ in range(limit):
            if not wrong:
                break
            wrong = self.step(rng, cards, pool, wrong)
        self.ok = wrong == 0
        return self.ok

    def hands(self, rng: random.Random, n: int) -> list[list[str]] | None:
        """`n` opponent hands drawn from the posterior (the chain moved `sweeps` times per slot between
        two), or None when the model is off or finds no assignment that agrees."""
        if not self.active or not self.slots or not self.settle(rng):
            return None
        cards, pool = self.cards, self.pool()
        out = []
        steps = max(1, self.sweeps * len(cards))
        for _ in range(n):
            for _ in range(steps):
                self.step(rng, cards, pool, 0)
            out.append(self.current(cards))
        return out

    def current(self, cards: Sequence[str | None]) -> list[str]:
        return [c for c in cards if c is not None and c not in self.exits]


class PosteriorSearcher(Searcher):
    """`pimc.Searcher` whose worlds give the opponent a hand drawn from a `HandPosterior` (set `posterior`).

    Each world is the history sampler's (the pile and the pools as the history tells) with the opponent's
    hand swapped for a hand drawn from the posterior, the rest of its cards back into the stock; when the
    posterior is off (`HandPosterior.active`) or finds nothing, the searcher's own worlds."""

    posterior: HandPosterior | None = None
    _queue: list | None = None
    _more = False  # racing: draw another hand when the queue runs dry

    def table(self, observation, legal, rng, tracker=None, history=None):
        posterior = self.posterior
        hands = posterior.hands(rng, self.budget.worlds) if posterior is not None else None
        if hands is None:
            return super().table(observation, legal, rng, tracker, history)
        self._queue = hands
        try:
            return super().table(observation, legal, rng, tracker, history)
        finally:
            self._queue = None

    def race(self, observation, legal, rng, prior=None, tracker=None, history=None):
        """`Searcher.race` with the posterior's hands: `worlds` of them drawn first, then one at a time (the chain
        moves on) for the worlds the race draws beyond them."""
        posterior = self.posterior
        hands = posterior.hands(rng, self.budget.worlds) if posterior is not None else None
        if hands is None:
            return super().race(observation, legal, rng, prior, tracker, history)
        self._queue, self._more = hands, True
        try:
            return super().race(observation, legal, rng, prior, tracker, history)
        finally:
            self._queue, self._more = None, False

    def world(self, sampler, rng, tracker, seat, visible):
        if not self._queue and self._more:
            self._queue = self.posterior.hands(rng, 1) or []
        if not self._queue:
            return super().world(sampler, rng, tracker, seat, visible)
        hand = self._queue.pop()
        return sampler.sample(rng, arrange=lambda position: with_hand(position, 1 - seat, hand, rng))


def with_hand(position: dict, seat: int, hand: Sequence[str], rng: random.Random) -> bool:
    """Make `seat`'s hand in `position` (a deal, `from_position`'s form) `hand`, trading cards with the stock
    (shuffled after): whether it could (every card of `hand` in that hand or the stock, the sizes equal)."""
    hands, stock = position.get("hands"), position.get("stock")
    if not isinstance(hands, list) or not isinstance(stock, list) or len(hands[seat]) != len(hand):
        return False
    rest: dict[str, int] = {}  # the cards of the hand and the stock, counted, in the order they first come
    for card in hands[seat] + stock:
        rest[card] = rest.get(card, 0) + 1
    for card in hand:
        left = rest.get(card, 0) - 1
        if left < 0:
            return False  # a card of `hand` that is in neither
        rest[card] = left
    stock = [card for card, count in rest.items() for _ in range(count)]  # a card's copies together, as they came
    rng.shuffle(stock)
    hands[seat] = list(hand)
    position["stock"] = stock
    return True
