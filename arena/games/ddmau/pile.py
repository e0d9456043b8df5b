"""The discard pile as the rules read it: its effective top, its hit run, and the part the observations show.

Two things on the pile decide a play and a hit (RULES.md 7.4, 7.5): the
*effective top*, the most recent visible card (JTT, LM, DM and MMs declared
so are seen through), and the *hit run*, the consecutive hit cards from the
top with LMs and DMs ignored (E-13: never reset by paying).  Both are read
from one walk down the pile, kept as the pile's `Facts`: ``(index of the
effective top or None, its identity or None, hit run, start of the run)``,
where the run starts at the index above the first card that ends it (0 when
the walk reaches the bottom).

A card played on the pile without a mark changes the facts by itself alone
(`after_card`), so the engine walks the pile only after a mark (an MM's
declaration, an SM's colour, a block), a reshuffle or a restored position.

The observations show the pile from the lowest of: the effective top, the
start of the last play (or of the play in progress) and the start of the
hit run (`view`), so a bot sees everything that still matters for matching
and hits, with the marks (MM declarations, SM colours, blocks) beside the
cards.  Kinds and marks are lower case there (``pt``, ``jtt``, ``sm:g``,
``block:y``, ``n``), so no text of the observation reads as a card code
except the cards themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.ddmau.cards import HIT_KINDS, PRINTED, TRANSPARENT, Ident, ident

if TYPE_CHECKING:
    from arena.games.ddmau.state import DDMauState

#: (index of the effective top or None, its identity or None, hit run, index where the hit run starts)
Facts = tuple

#: The facts of an empty pile (a hand starts with no upcard).
EMPTY: Facts = (None, None, 0, 0)

_LOWER = {kind: kind.lower() for kind in ("N", "PT", "SK", "OWM", "JTT", "SM", "LM", "DM", "MM", "BLOCK")}

#: The views' ``effective_top`` records by kind and index, made once and shared by every view (observations are
#: read-only snapshots): a look-up instead of a new dict at every change of the pile.  Past `_KEPT_TOPS` a view
#: makes its own.
_KEPT_TOPS = 32
_TOPS = {kind: [{"index": i, "kind": lower} for i in range(_KEPT_TOPS)] for kind, lower in _LOWER.items()}


def effective_top(discard: list[str], marks: list, upto: int | None = None) -> tuple[int, Ident] | None:
    """The most recent visible card below ``upto`` (JTT, LM, DM and MMs declared so are seen through)."""
    i = len(discard) if upto is None else upto
    while i > 0:
        i -= 1
        idt = ident(discard[i], marks[i])
        if idt.kind not in TRANSPARENT:
            return i, idt
    return None


def hit_run(discard: list[str], marks: list, top: int | None = None) -> int:
    """Consecutive hit cards from ``top`` down, LM and DM ignored (E-13: never reset by paying)."""
    i = len(discard) - 1 if top is None else top
    run = 0
    while i >= 0:
        kind = ident(discard[i], marks[i]).kind
        if kind in HIT_KINDS:
            run += 1
        elif kind not in ("LM", "DM"):
            break
        i -= 1
    return run


def facts(discard: list[str], marks: list) -> Facts:
    """The pile's `Facts`, from one walk down from the top: it stops at the first card that ends the hit
    run, which is visible, so the effective top is found by then."""
    top_index = top = None
    run = 0
    i = len(discard) - 1
    while i >= 0:
        mark = marks[i]
        idt = PRINTED[discard[i]] if mark is None else ident(discard[i], mark)
        kind = idt.kind
        if top is None and kind not in TRANSPARENT:
            top_index, top = i, idt
        if kind in HIT_KINDS:
            run += 1
        elif kind != "LM" and kind != "DM":
            return top_index, top, run, i + 1
        i -= 1
    return top_index, top, run, 0


def after_card(before: Facts, index: int, idt: Ident) -> Facts:
    """The facts once a card without a mark, ``idt`` as printed, is put on the pile at ``index`` (its top)."""
    kind = idt.kind
    if kind == "LM" or kind == "DM":  # seen through, and no part of a hit run
        return before
    if kind == "JTT":  # seen through; one more hit card
        return before[0], before[1], before[2] + 1, before[3]
    if kind == "PT":  # the new top, and one more hit card
        return index, idt, before[2] + 1, before[3]
    return index, idt, 0, index + 1  # the new top, which ends the run (an MM or SM not yet declared included)


def view(state: "DDMauState") -> tuple:
    """The pile as every seat sees it: ``(discard, marks, effective_top, color, number, hit_run)``.

    From where the last play starts (or the play in progress, with the last one under it), or lower still
    if the effective top or the hit run does.  The lists are new (snapshots).
    """
    discard = state.discard
    low = len(discard) - state.last_play - state.chain
    top_index, idt, run, run_start = state.facts or state.pile_facts()
    if run_start < low:
        low = run_start
    if top_index is not None and top_index < low:
        low = top_index
    if low < 0:
        low = 0
    shown = state.marks[low:]
    if any(shown):  # (a mark is a non-empty string; the shown part usually has none)
        shown = [None if m is None else m.lower() for m in shown]
    if idt is None:
        return discard[low:], shown, None, None, None, run
    kind, colour, number = idt  # (one unpacking: a named field is a descriptor call each)
    index = top_index - low
    top = _TOPS[kind][index] if index < _KEPT_TOPS else {"index": index, "kind": _LOWER[kind]}
    return discard[low:], shown, top, colour, number, run
