"""The play validator (RULES.md 7.4): which chains are legal plays, card by card.

A play is built one card per decision, so the engine needs two questions
answered quickly: *may this card be added now?* (`add`) and *can the play
still become legal with the cards left in hand?* (`can_complete`); `stop`
is offered only when `complete` holds.  Everything a later card needs from
the cards before it fits in a small hashable summary, `Chain`:

* ``prev``: the last visible card of the play, or the pile's effective top
  before the first one (None: no visible card, everything fits, E-4);
* ``phase``: 0 nothing visible yet, 1 numbers, 2 powers.  Numbers never
  follow powers; powers follow numbers only with ``allow_number_to_power_chain``
  (E-27); so "after a Skip only powers" holds by construction;
* the open run segment (length, direction) and how many finished segments
  there are (each at least 3 cards, one direction, 7.4 rule 2c);
* Link Masters (``L``, an MM declared LM counts and allows rainbow runs),
  Deck Masters (``D``), whether a non-LM card is in, whether run steps and
  rainbow steps were used.

LM, DM and an MM declared LM are neutral for the links: they may go
anywhere in the play (E-19), so their requirements (an LM for runs, one LM
per DM unless going out, rainbow needs an MM-LM) are checked at the end.
Going out waives only the DM requirement, so the exhaustive search over the
rest of the hand runs only when an LM shortage could be rescued by
emptying the hand.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, NamedTuple

from arena.games.ddmau.cards import Ident, ident

NUMBERS_PHASE = 1
POWERS_PHASE = 2

#: Nodes the going-out search may visit before it gives up (answering "no"): a bound on
#: pathological hands; it only ever hides a going-out chain, never offers a dead end.
SEARCH_BUDGET = 20_000


class Rules(NamedTuple):
    number_to_power: bool = False  # E-27 flag allow_number_to_power_chain
    lm_per_run_segment: bool = False  # E-19 flag


class Chain(NamedTuple):
    prev: Ident | None
    phase: int = 0
    seg_len: int = 0
    seg_dir: int = 0
    segs: int = 0
    L: int = 0
    mlm: bool = False
    D: int = 0
    nonlm: bool = False
    steps: bool = False
    rainbow: bool = False


def start(top: Ident | None) -> Chain:
    return Chain(top)


def legal_on(top: Ident | None, card: str, idt: Ident) -> bool:
    """Rule 1: may this visible (or JTT) card go on ``top``?"""
    kind = idt.kind
    if top is None or card == "MM" or kind in ("JTT", "SM"):
        return True
    if kind == "N":
        if top.colour is None and top.number is None:
            return True
        return top.colour == idt.colour or (top.number is not None and top.number == idt.number)
    # PT / SK / OWM: same colour, or the same kind on top (E-12)
    return top.colour is None or top.colour == idt.colour or top.kind == kind


def add(s: Chain, card: str, idt: Ident, rules: Rules) -> Chain | None:
    """The summary after adding ``card`` (as ``idt``), or None if it cannot follow."""
    kind = idt.kind
    if kind == "LM":
        return s._replace(L=s.L + 1, mlm=s.mlm or card == "MM")
    if kind == "DM":
        return s._replace(D=s.D + 1, nonlm=True)
    phase = s.phase
    prev = s.prev
    if kind == "N":
        if phase == POWERS_PHASE:
            return None
        if phase == 0:
            if not legal_on(prev, card, idt):
                return None
            return s._replace(prev=idt, phase=NUMBERS_PHASE, seg_len=1, seg_dir=0, nonlm=True)
        number = idt.number
        if number == prev.number:
            if s.seg_len == 2:
                return None
            segs = s.segs + (1 if s.seg_len >= 3 else 0)
            return s._replace(prev=idt, seg_len=1, seg_dir=0, segs=segs)
        step = number - prev.number
        if step not in (1, -1):
            return None
        if s.seg_dir == 0:
            seg_len, seg_dir = 2, step
        elif step == s.seg_dir:
            seg_len, seg_dir = s.seg_len + 1, step
        else:
            return None
        return s._replace(prev=idt, seg_len=seg_len, seg_dir=seg_dir, steps=True,
                          rainbow=s.rainbow or idt.colour != prev.colour)
    # a power card: PT, SK, OWM, JTT, SM (an MM as any of them)
    segs = s.segs
    if phase == NUMBERS_PHASE:
        if not rules.number_to_power or s.seg_len == 2:
            return None
        segs += 1 if s.seg_len >= 3 else 0
    if not legal_on(prev, card, idt):
        return None
    if kind == "JTT":  # transparent: the next card still links to the card below it
        return s._replace(phase=POWERS_PHASE, seg_len=0, seg_dir=0, segs=segs, nonlm=True)
    return s._replace(prev=idt, phase=POWERS_PHASE, seg_len=0, seg_dir=0, segs=segs, nonlm=True)


def _lm_need(s: Chain, going_out: bool, rules: Rules) -> int:
    need = 0 if going_out else s.D
    if rules.lm_per_run_segment:
        need += s.segs + (1 if s.seg_len >= 3 else 0)
    return max(need, 1 if s.steps else 0)


def complete(s: Chain, going_out: bool, rules: Rules) -> bool:
    """Is the play so far a legal play (rules 2c, 4, 5, 7)?"""
    if not s.nonlm or s.seg_len == 2:
        return False
    if s.rainbow and not s.mlm:
        return False
    return s.L >= _lm_need(s, going_out, rules)


_SINGLE: dict[str, tuple[Ident]] = {}


def identities(card: str, s: Chain) -> "tuple[Ident, ...] | list[Ident]":
    """What ``card`` could be when added now: itself, or each MM declaration.

    An MM declared as a coloured power takes the colour of the card it is
    played on; an SM's colour is chosen right after it, so here it fits
    anything (None), which is exactly what the choice allows.
    """
    if card != "MM":
        found = _SINGLE.get(card)
        if found is None:
            found = _SINGLE[card] = (ident(card),)
        return found
    colour = s.prev.colour if s.prev is not None else None
    return [Ident("PT", colour, None), Ident("SK", colour, None), Ident("OWM", colour, None),
            Ident("JTT", None, None), Ident("SM", None, None), Ident("LM", None, None)]


def _needs_met(s: Chain, lms: int, mms: int, rules: Rules, going_out: bool = False) -> bool:
    L = s.L
    if s.rainbow and not s.mlm:
        if mms < 1:
            return False
        mms -= 1
        L += 1
    return L + lms + mms >= _lm_need(s, going_out, rules)


def can_complete(s: Chain, rest: Counter, rules: Rules) -> bool:
    """Can cards from ``rest`` (the hand after this play so far) make the play legal?"""
    if _fast(s, rest, rules):
        return True
    # Going out waives only the DM's LM: if that is not the sole shortage, emptying the hand cannot help.
    return _fast(s, rest, rules, True) and _can_go_out(s, rest, rules)


def _fast(s: Chain, rest: Counter, rules: Rules, waive_dm: bool = False) -> bool:
    """Completion that keeps cards in hand: at most one run card, then neutral LMs/MMs."""
    lms, mms = rest.get("LM", 0), rest.get("MM", 0)
    if s.seg_len == 2:
        number = s.prev.number + s.seg_dir
        for card, count in rest.items():
            if count and card[0] in "RYBG" and card[1:] == str(number):
                after = add(s, card, ident(card), rules)
                if after is not None and _needs_met(after, lms, mms, rules, waive_dm):
                    return True
        return False
    if not s.nonlm:
        for card, count in rest.items():
            if not count or card == "LM":
                continue
            smaller = rest.copy()
            smaller[card] -= 1
            for idt in identities(card, s):
                if idt.kind == "LM":
                    continue
                after = add(s, card, idt, rules)
                if after is not None and after.nonlm and _fast(after, smaller, rules, waive_dm):
                    return True
        return False
    return _needs_met(s, lms, mms, rules, waive_dm)


def _can_go_out(s: Chain, rest: Counter, rules: Rules) -> bool:
    """Exhaustive search: can every card left be added (in some order) as a legal play?"""
    cards = tuple(sorted(c for c, n in rest.items() for _ in range(n)))
    budget = [SEARCH_BUDGET]
    memo: dict = {}

    def search(s: Chain, cards: tuple[str, ...]) -> bool:
        key = (s, cards)
        if key in memo:
            return memo[key]
        budget[0] -= 1
        if budget[0] < 0:
            return False
        movable = [c for c in dict.fromkeys(cards) if c not in ("LM", "DM")]
        if not movable:
            lms = cards.count("LM")
            dms = cards.count("DM")
            final = s._replace(L=s.L + lms, D=s.D + dms, nonlm=s.nonlm or dms > 0)
            result = complete(final, True, rules)
        elif not _phase_possible(s, movable, rules):
            result = False
        else:
            result = False
            for card in movable:
                index = cards.index(card)
                smaller = cards[:index] + cards[index + 1:]
                for idt in identities(card, s):
                    after = add(s, card, idt, rules)
                    if after is not None and search(after, smaller):
                        result = True
                        break
                if result:
                    break
        memo[key] = result
        return result

    return search(s, cards)


def _phase_possible(s: Chain, movable: Iterable[str], rules: Rules) -> bool:
    """Numbers cannot follow powers, nor powers numbers without the E-27 flag (MMs may be LMs)."""
    numbers = powers = False
    for card in movable:
        if card[0] in "RYBG" and card[1:].isdigit():
            numbers = True
        elif card != "MM":
            powers = True
    if s.phase == POWERS_PHASE:
        return not numbers
    if not rules.number_to_power:
        return not (numbers and powers) and not (s.phase == NUMBERS_PHASE and powers)
    return True


def check_play(play: list[tuple[str, Ident]], top: Ident | None, going_out: bool, rules: Rules) -> bool:
    """Whole-play check, for tests and positions: every card links and the play is complete."""
    s = start(top)
    for card, idt in play:
        s = add(s, card, idt, rules)
        if s is None:
            return False
    return complete(s, going_out, rules)
