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

The engine asks these questions for every card of the hand at every
decision, about the same few summaries again and again, so it asks them of
a `Node`: a summary interned once per rules, with its moves (`add`) and its
LM bookkeeping worked out the first time they are needed.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, NamedTuple

from arena.games.ddmau.cards import BIT, CARD_OF_BIT, CODES, MM_DECLARATIONS, PRINTED, Ident, ident, mask, of_mask

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
    """The summary after adding ``card`` (as ``idt``), or None if it cannot follow.

    (Summaries are made field by field with `_chain`, not with ``_replace``: a keyword call, a dict and
    three frames for eleven values.)"""
    kind = idt.kind
    prev, phase, seg_len, seg_dir, segs, L, mlm, D, nonlm, steps, rainbow = s
    if kind == "LM":
        return _chain(Chain, (prev, phase, seg_len, seg_dir, segs, L + 1, mlm or card == "MM", D, nonlm, steps,
                              rainbow))
    if kind == "DM":
        return _chain(Chain, (prev, phase, seg_len, seg_dir, segs, L, mlm, D + 1, True, steps, rainbow))
    if kind == "N":
        if phase == POWERS_PHASE:
            return None
        if phase == 0:
            if not legal_on(prev, card, idt):
                return None
            return _chain(Chain, (idt, NUMBERS_PHASE, 1, 0, segs, L, mlm, D, True, steps, rainbow))
        number = idt.number
        if number == prev.number:
            if seg_len == 2:
                return None
            segs += 1 if seg_len >= 3 else 0
            return _chain(Chain, (idt, phase, 1, 0, segs, L, mlm, D, nonlm, steps, rainbow))
        step = number - prev.number
        if step not in (1, -1):
            return None
        if seg_dir == 0:
            seg_len = 2
        elif step == seg_dir:
            seg_len += 1
        else:
            return None
        return _chain(Chain, (idt, phase, seg_len, step, segs, L, mlm, D, nonlm, True,
                              rainbow or idt.colour != prev.colour))
    # a power card: PT, SK, OWM, JTT, SM (an MM as any of them)
    if phase == NUMBERS_PHASE:
        if not rules.number_to_power or seg_len == 2:
            return None
        segs += 1 if seg_len >= 3 else 0
    if not legal_on(prev, card, idt):
        return None
    if kind == "JTT":  # transparent: the next card still links to the card below it
        return _chain(Chain, (prev, POWERS_PHASE, 0, 0, segs, L, mlm, D, True, steps, rainbow))
    return _chain(Chain, (idt, POWERS_PHASE, 0, 0, segs, L, mlm, D, True, steps, rainbow))


#: A `Chain` from a tuple of its eleven fields in order (the namedtuple's own ``__new__`` is a Python frame).
_chain = tuple.__new__


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


class Node:
    """A summary with the answers the engine asks of it, each worked out once.

    The summaries a game meets are few (a top, a phase, a run, some counters)
    and the same ones come back turn after turn, so the engine walks interned
    nodes (`node`, `start_node`): adding a card is a dict look-up once it has
    been done, and whether neutral LMs and MMs can finish the play is two
    numbers.  A node answers exactly what `add`, `complete` and `_needs_met`
    answer for its ``chain``.
    """

    __slots__ = ("chain", "rules", "simple", "needs_mm", "lack", "lack_out", "done", "done_out", "_rejects",
                 "_moves", "_sorted", "_free", "_maybe", "_addable")

    def __init__(self, chain: Chain, rules: Rules) -> None:
        self.chain = chain
        self.rules = rules
        # (`_lm_need` and `complete` worked out from the fields read once: a named field is a descriptor call)
        prev, phase, seg_len, seg_dir, segs, L, mlm, D, nonlm, steps, rainbow = chain
        segments = segs + (1 if seg_len >= 3 else 0) if rules.lm_per_run_segment else 0
        need_out = max(segments, 1 if steps else 0)
        need = max(D + segments, need_out)
        #: a visible card is in and no run stands at 2: LMs and MMs alone can finish the play
        simple = self.simple = nonlm and seg_len != 2
        needs_mm = self.needs_mm = rainbow and not mlm  # a rainbow run still needs an MM as LM
        self.lack = need - L  # LMs (or MMs) still needed
        # the same when the play empties the hand: never more than ``lack``, and no card added lowers it
        # unless it is an LM (an MM as LM): the steps, segments and DMs a play needs LMs for only grow
        self.lack_out = need_out - L
        self.done = simple and not needs_mm and L >= need  # `complete`
        self.done_out = simple and not needs_mm and L >= need_out
        # the cards `add` turns down (most of the deck), known without a move each: a mask (`cards.BIT`) shared
        # by the nodes of one case (`cannot_follow`)
        self._rejects = cannot_follow(chain, rules)
        self._moves: dict = {}
        # masks of the cards `playable` has put in _free, _maybe or neither (the rejects at first)
        self._sorted = self._rejects
        self._free = 0
        self._maybe = 0
        self._addable = 0  # _free and _maybe together

    def options(self, card: str) -> "tuple[Node, ...]":
        """The nodes after adding ``card`` as each thing it could be now (`identities`), dead ends left out."""
        found = self._moves.get(card)
        if found is None:
            rules = self.rules
            if BIT[card] & self._rejects:
                found = ()
            elif card == "MM":
                found = tuple(after for after in self.declarations() if after is not None)
            else:  # (the usual card: one identity, no generators; most cards met in a play cannot follow)
                after = add(self.chain, card, PRINTED[card], rules)
                found = () if after is None else (node(after, rules),)
            self._moves[card] = found
        return found

    def declarations(self) -> "tuple[Node | None, ...]":
        """The node after an MM declared as each of `MM_DECLARATIONS` in turn (None where it cannot follow), as
        `identities` makes them: `options` of an MM, and what the engine's declare decision offers and moves to
        (`then` with the declaration's mark gives the same nodes)."""
        found = self._moves.get(_DECLARED)
        if found is None:
            s, rules = self.chain, self.rules
            found = []
            for idt in identities("MM", s):
                after = add(s, "MM", idt, rules)
                found.append(None if after is None else node(after, rules))
            found = self._moves[_DECLARED] = tuple(found)
        return found

    def then(self, card: str, mark: str | None) -> "Node | None":
        """The node after ``card`` with its pile mark (an MM's declaration, an SM's colour), or None."""
        key = (card, mark)
        found = self._moves.get(key, False)
        if found is False:
            after = add(self.chain, card, ident(card, mark), self.rules)
            found = self._moves[key] = None if after is None else node(after, self.rules)
        return found

    def playable(self, hand: list[str], held: int) -> int:
        """The cards of ``hand`` (whose distinct cards are the mask ``held``, `cards.BIT`) that may be added now
        and still lead to a legal play, as a mask: read from its lowest bit up, they come in `cards.ORDER`.

        A *free* card leads to a play that is legal as it stands (or as a power on power, a
        number on a number): it is offered whenever it is held.  A *maybe* card needs more (a run's
        third card, an LM for a DM or a run, a visible card after an LM): whether it is offered
        depends on the rest of the hand (`_maybe_plays`).  Other cards cannot be added at all.  Each
        card is sorted the first time it is held here.  The node keeps the three kinds as masks, so the
        usual answer once a play is under way, nothing, is one ``&``.
        """
        new = held & ~self._sorted
        if new:
            self._sort(new)
        found = held & self._addable
        maybe = found & self._maybe
        if maybe:
            found ^= maybe
            if not (
                # the usual maybe card, a lone DM with no LM or MM to pay for it, in a hand of numbers and powers:
                # it could only go out with the whole hand, which no play can take (`_maybe_plays` finds the same)
                maybe == _DM and not held & _PAYS_FOR_DM and held & _NUMBERED and held & _PHASE_POWERS
                and not self.rules.number_to_power and self._moves["DM"][0].simple
            ):
                found |= _maybe_plays(self, hand, held, maybe)
        return found

    def _sort(self, new: int) -> None:
        """`playable`: put the cards of the mask ``new``, not met here before, in _free, _maybe or neither."""
        self._sorted |= new
        free = maybe = 0
        while new:
            bit = new & -new
            new ^= bit
            afters = self.options(CARD_OF_BIT[bit])
            if any(a.simple and not a.needs_mm and a.lack <= 0 for a in afters):
                free |= bit
            elif afters:
                maybe |= bit
        self._free |= free
        self._maybe |= maybe
        self._addable = self._free | self._maybe

    def plays_unchanged_by(self, card: str, held: int) -> bool:
        """Does `playable` give the same cards for a hand that has just taken ``card`` in (its distinct cards now
        ``held``) as it did without it?  Yes when ``card`` is known not to be addable here (not sorted yet: not
        known) and the hand holds no maybe card, whose answer depends on the rest of the hand."""
        bit = BIT[card]
        return self._sorted & bit != 0 and not self._addable & bit and not self._maybe & held

    def meets(self, lms: int, mms: int, going_out: bool = False) -> bool:
        """`_needs_met`: would ``lms`` LMs and ``mms`` MMs added as LMs make the play legal?"""
        if self.needs_mm:
            return mms > 0 and lms + mms >= (self.lack_out if going_out else self.lack)
        return lms + mms >= (self.lack_out if going_out else self.lack)


_DECLARED = "MM declared"  # (`Node.declarations`' key in a node's move cache: no card code)
assert tuple(idt.kind for idt in identities("MM", Chain(None))) == MM_DECLARATIONS  # (`Node.declarations`)

#: `cannot_follow` by what it depends on.
_REJECTS: dict[tuple, int] = {}


def cannot_follow(s: Chain, rules: Rules) -> int:
    """The cards that `add` turns down on ``s`` (as printed; an MM, an LM and a DM always follow), as a mask
    (`cards.BIT`).

    Whether a card can follow depends only on the play's phase, its last visible card (only its number
    once numbers are played, unless powers may follow them), whether a run stands at two cards and the
    run's direction, and the rules: a few hundred cases in a game, against thousands of summaries, so
    the answer is worked out once per case, card by card with `add` itself.
    A node starts with these cards settled (most of the deck: a number on a number takes the same
    number or the next one up or down), and moves are made only for the others.
    """
    phase = s.phase
    prev = s.prev
    if phase == NUMBERS_PHASE and not rules.number_to_power:  # (only numbers follow: the colour does not count)
        prev = prev.number
    key = (phase, prev, s.seg_len == 2, s.seg_dir, rules)
    found = _REJECTS.get(key)
    if found is None:
        found = _REJECTS[key] = mask(
            card for card in CODES if card != "MM" and add(s, card, PRINTED[card], rules) is None)
    return found


def _maybe_plays(node: Node, hand: list[str], held: int, cards: int) -> int:
    """`Node.playable`: those of ``cards`` (a mask of the node's maybe cards in ``hand``, whose distinct cards
    are the mask ``held``) that the rest of the hand can complete, as a mask.

    Most are settled by the LMs and MMs left in hand (`Node.meets`, `Node.lack_out`).  The usual
    one left is a DM with no LM in hand: it needs the whole hand to go with it, which a hand of
    numbers and powers can never do, so the search is skipped.  The others get the validator's
    full `completes`, with the hand counted.
    """
    lms = hand.count("LM") if held & _LM else 0  # (a count compares every card)
    mms = hand.count("MM") if held & _MM else 0
    rest = mix = None
    out = 0
    moves = node._moves  # (`Node.options` read from its cache here: `playable` sorted these cards, so it is there)
    while cards:
        bit = cards & -cards
        cards ^= bit
        card = CARD_OF_BIT[bit]
        afters = moves[card]
        left_lms = lms - 1 if card == "LM" else lms
        left_mms = mms - 1 if card == "MM" else mms
        if len(afters) == 1:  # all but an MM
            after = afters[0]
            if after.simple:
                # (without LMs or MMs it never meets: it would be one of the node's free cards)
                if (left_lms or left_mms) and after.meets(left_lms, left_mms):
                    out |= bit
                    continue
                # a simple play takes no other card but by going out (`completes`); the rest holds at
                # least the other held cards (a second copy of this one only adds to the mix)
                if left_lms + left_mms < after.lack_out:
                    continue
                if card in _NEUTRAL:  # (the usual one, a DM: the held cards must mix, found without counting)
                    if not node.rules.number_to_power and held & _NUMBERED and held & _PHASE_POWERS:
                        continue
                else:
                    if mix is None:
                        mix = phase_mix(held)
                    if never_all_in_one_play_but(mix, card, node.rules):
                        continue
                if not (left_lms or left_mms or after.chain.L) and card[0] not in "RYBG" and needs_a_step(
                        after.chain, of_mask(held)):
                    continue  # going out with numbers that differ needs an LM, and none is left (`completes`)
            elif left_lms + left_mms < after.lack_out:
                continue  # short of LMs whatever comes (`completes`)
        else:  # an MM (loops, not generators: a generator would make this function's variables cells)
            for after in afters:
                if after.simple and after.meets(left_lms, left_mms):
                    break
            else:
                after = None
            if after is not None:
                out |= bit
                continue
        if rest is None:  # (a hand of distinct cards, the usual one, is counted in C)
            rest = counted(hand)
        rest[card] -= 1
        for after in afters:
            if completes(after, rest):
                out |= bit
                break
        rest[card] += 1
    return out


#: Interned nodes per rules, and the start nodes by top; cleared by `start_node` (between plays,
#: never inside a search) past the limit.
_NODES: dict[Rules, dict[Chain, Node]] = {}
_STARTS: dict[Rules, dict[Ident | None, Node]] = {}
NODE_LIMIT = 50_000


def node(s: Chain, rules: Rules) -> Node:
    """The one node of summary ``s`` under ``rules``."""
    nodes = _NODES.get(rules)
    if nodes is None:
        nodes = _NODES[rules] = {}
    found = nodes.get(s)
    if found is None:
        found = nodes[s] = Node(s, rules)
    return found


def start_node(top: Ident | None, rules: Rules) -> Node:
    """The node of a play about to start on ``top`` (`start`)."""
    starts = _STARTS.get(rules)
    if starts is None or len(_NODES[rules]) > NODE_LIMIT:  # a bound on memory; answers stay the same
        starts = _STARTS[rules] = {}
        _NODES[rules] = {}
    found = starts.get(top)
    if found is None:
        found = starts[top] = node(Chain(top), rules)
    return found


def counted(cards: "list[str]") -> dict[str, int]:
    """How many of each card: what `completes` takes as the rest of a hand (a `Counter` does too; a plain
    dict costs a third of one, and the engine makes one at many decisions).  Made in C when no card is
    there twice (the usual hand), else in a loop."""
    counts = dict.fromkeys(cards, 1)
    if len(counts) != len(cards):
        counts = {}
        for card in cards:
            counts[card] = counts.get(card, 0) + 1
    return counts


def can_complete(s: Chain, rest: Counter, rules: Rules) -> bool:
    """Can cards from ``rest`` (the hand after this play so far) make the play legal?"""
    return completes(node(s, rules), rest)


def completes(n: Node, rest: Counter) -> bool:
    """`can_complete` for a node."""
    lms, mms = rest.get("LM", 0), rest.get("MM", 0)
    if lms + mms < n.lack_out:
        return False  # adding cards never lowers what the play needs in LMs (see `Node.lack_out`)
    kept, waived = _fast(n, rest, lms, mms)
    if kept:
        return True
    # Going out waives only the DM's LM: if that is not the sole shortage, emptying the hand cannot help.
    return waived and _can_go_out(n, rest)


def _fast(n: Node, rest: Counter, lms: int, mms: int) -> tuple[bool, bool]:
    """Completion that keeps cards in hand: at most one card more (the run's third card, or the
    first visible card after LMs), then neutral LMs/MMs.  Two answers from one pass: as it stands,
    and with the DM's LM waived (going out); the first implies the second (`Node.lack_out`)."""
    if n.simple:
        if n.meets(lms, mms):
            return True, True
        return False, n.meets(lms, mms, True)
    waived = False
    moves = n._moves  # (`Node.options` with its cache read here: one frame fewer for each card already met)
    for card, count in rest.items():
        if count:
            left_lms = lms - (card == "LM")
            left_mms = mms - (card == "MM")
            afters = moves.get(card)
            if afters is None:
                afters = n.options(card)
            for after in afters:
                if after.simple:
                    if after.meets(left_lms, left_mms):
                        return True, True
                    if not waived:
                        waived = after.meets(left_lms, left_mms, True)
    return False, waived


def _can_go_out(n: Node, rest: Counter) -> bool:
    """Exhaustive search: can every card left be added (in some order) as a legal play?"""
    rules = n.rules
    movable = [c for c, k in rest.items() if k > 0 and c not in ("LM", "DM")]
    if movable and not _phase_possible(n.chain, movable, rules):
        return False  # the search's first step, without setting it up (most hands mix numbers and powers)
    if n.chain.L + rest.get("LM", 0) + rest.get("MM", 0) == 0 and needs_a_step(n.chain, movable):
        return False  # a step needs an LM (7.4), and there is none to come: no search can succeed
    cards = tuple(sorted(c for c, k in rest.items() for _ in range(k)))
    budget = [SEARCH_BUDGET]
    memo: dict = {}

    def search(n: Node, cards: tuple[str, ...]) -> bool:
        key = (n.chain, cards)  # by value: a node interned again after a clear is the same summary
        if key in memo:
            return memo[key]
        budget[0] -= 1
        if budget[0] < 0:
            return False
        s = n.chain
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
                for after in n.options(card):
                    if search(after, smaller):
                        result = True
                        break
                if result:
                    break
        memo[key] = result
        return result

    return search(n, cards)


def never_all_in_one_play(cards: Iterable[str], rules: Rules) -> bool:
    """No play can take all of ``cards``, whatever the play so far: numbers and powers (MMs, LMs and
    DMs aside) together, without allow_number_to_power_chain (`_phase_possible` from any summary)."""
    return never_all_in_one_play_but(phase_mix(mask(cards)), None, rules)


_NEUTRAL = frozenset({"MM", "LM", "DM"})
#: Masks (`cards.BIT`): the numbered cards, the powers that fix a play's phase, single cards.
_NUMBERED = mask(code for code in CODES if code[0] in "RYBG")
_PHASE_POWERS = mask(CODES) & ~_NUMBERED & ~mask(_NEUTRAL)
_LM, _MM, _DM = BIT["LM"], BIT["MM"], BIT["DM"]
_PAYS_FOR_DM = _LM | _MM  # (an MM may be declared LM)
_NUMBER_TEXT = {code: code[1:] for code in CODES if code[0] in "RYBG"}  # (`needs_a_step`: a number as written)


def phase_mix(held: int) -> tuple[int, int]:
    """(numbered cards, powers that fix a play's phase) among the distinct cards of the mask ``held``
    (`cards.BIT`): MMs, LMs and DMs fix none."""
    return (held & _NUMBERED).bit_count(), (held & _PHASE_POWERS).bit_count()


def never_all_in_one_play_but(mix: tuple[int, int], card: str | None, rules: Rules) -> bool:
    """`never_all_in_one_play` of the cards counted in ``mix`` (`phase_mix`) less one ``card`` of them
    (None: none): the engine counts a hand's distinct cards once and asks this for each of them."""
    if rules.number_to_power:
        return False
    numbers, powers = mix
    if card is not None:
        if card[0] in "RYBG":
            numbers -= 1
        elif card not in _NEUTRAL:
            powers -= 1
    return numbers > 0 and powers > 0


def needs_a_step(s: Chain, movable: Iterable[str]) -> bool:
    """Would a play of all these cards have a run step?  Numbers follow each other as the same number
    or one up or down (LMs and DMs in between change nothing), so two different numbers need one."""
    numbers = set(map(_NUMBER_TEXT.get, movable))  # (in C: a comprehension is a frame of its own)
    numbers.discard(None)  # (the cards without a number)
    if s.phase == NUMBERS_PHASE:
        numbers.add(str(s.prev.number))
    return len(numbers) > 1


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
