"""DD MAU's 80-card deck: codes, points and what each card is (RULES.md 0.2, 7.1, 1.1).

Numbered cards are colour then number, ``R7``, ``Y10``, ``B1``, ``G13``
(colours r y b g).  Coloured powers carry their colour after a dash,
``PT-r`` (Penal T), ``SK-b`` (Skip), ``OWM-g`` (Other Way Mae); the
colourless powers are ``JTT``, ``SM`` (Shadow Master), ``LM`` (Link
Master), ``DM`` (Deck Master), ``MM`` (Master Mau).  Several copies of a
code are the same card, so plain strings stay the cards, as in the shedding
core.

A card on the pile or in a play has an *identity*: ``(kind, colour,
number)``.  Most cards are what they say; an ``MM`` becomes what it was
declared (``PT``, ``SK``, ``OWM``, ``JTT``, ``SM``, ``LM``) or ``BLOCK``,
and an ``SM`` carries the colour chosen with it.  The pile stores that in
a *mark* beside the card: ``"PT:r"``, ``"LM"``, ``"SM:g"``, ``"BLOCK:y"``.
"""

from __future__ import annotations

import re
import sys
from typing import Any, NamedTuple

COLOURS = ("r", "y", "b", "g")
COLOUR_NAMES = {"r": "red", "y": "yellow", "b": "blue", "g": "green"}
NUMBERS = tuple(range(1, 14))
COLOURED_POWERS = ("PT", "SK", "OWM")
COLOURLESS_POWERS = ("JTT", "SM", "LM", "DM", "MM")
POWER_KINDS = COLOURED_POWERS + COLOURLESS_POWERS

#: Printed points (RULES.md 7.1); numbered cards score their face value (E-2).
POWER_POINTS = {"PT": 20, "SK": 15, "OWM": 14, "JTT": 25, "SM": 35, "LM": 30, "DM": 0, "MM": 50}

#: What an MM may be declared as (E-30: never DM).
MM_DECLARATIONS = ("PT", "SK", "OWM", "JTT", "SM", "LM")

#: Default power-card counts (RULES.md 1.1, section 10 item 1); coloured counts are spread r, y, b, g.
DEFAULT_COUNTS = {"PT": 4, "SK": 4, "OWM": 4, "JTT": 4, "SM": 3, "LM": 3, "DM": 3, "MM": 3}

TRANSPARENT = frozenset({"JTT", "LM", "DM"})
HIT_KINDS = frozenset({"PT", "JTT"})

_CODE = re.compile(r"^(?:[RYBG](?:[1-9]|1[0-3])|(?:PT|SK|OWM)-[rybg]|JTT|SM|LM|DM|MM)$")


class Ident(NamedTuple):
    """What a card is on the pile or in a play: kind, colour (or None), number (or None)."""

    kind: str  # N, PT, SK, OWM, JTT, SM, LM, DM, BLOCK
    colour: str | None
    number: int | None


def is_ddmau_code(text: str) -> bool:
    return bool(_CODE.match(text))


def printed(card: str) -> Ident:
    """The card as printed (an MM is ``MM`` until declared)."""
    head = card[0]
    if head in "RYBG" and card[1:].isdigit():
        return Ident("N", head.lower(), int(card[1:]))
    if "-" in card:
        kind, colour = card.split("-")
        return Ident(kind, colour, None)
    return Ident(card, None, None)


#: Every card code (several copies of a code are the same card).  Interned, as the packs' cards are (`deck`): the
#: engine looks cards up in dicts and sets and compares them at every decision, and the same string object is
#: found by identity, without comparing characters.
CODES = tuple(map(sys.intern,
                  [c.upper() + str(n) for c in COLOURS for n in NUMBERS]
                  + [f"{kind}-{colour}" for kind in COLOURED_POWERS for colour in COLOURS]
                  + list(COLOURLESS_POWERS)))

#: Each code's identity as printed (`printed`), for hot loops: ``PRINTED[card] if mark is None else ident(card, mark)``.
PRINTED: dict[str, Ident] = {code: printed(code) for code in CODES}
_MARKED: dict[str, Ident] = {}


def _order_key(card: str) -> tuple:
    idt = PRINTED[card]
    if idt.kind == "N":
        return (0, "rybg".index(idt.colour), idt.number)
    return (1, ("PT", "SK", "OWM", "JTT", "SM", "LM", "DM", "MM").index(idt.kind), idt.colour or "")


#: A stable order of the codes (for legal lists): numbered cards by colour and number, then the powers.
ORDER: dict[str, int] = {card: rank for rank, card in enumerate(sorted(CODES, key=_order_key))}


#: Each code's bit in a mask of distinct cards (a hand's, `DDMauState.held`; a validator node's, `chain.Node`).  The
#: bits follow `ORDER`, so a mask's cards read from its lowest bit up (`of_mask`) come in the legal lists' order,
#: and the numbered cards take bits 0..51, colour by colour, number by number (`chain.needs_a_step`).
BIT: dict[str, int] = {card: 1 << rank for card, rank in ORDER.items()}
#: The card of each single bit (`BIT` turned round).
CARD_OF_BIT: dict[int, str] = {bit: card for card, bit in BIT.items()}


def mask(cards) -> int:
    """The mask (`BIT`) of the distinct ``cards``."""
    found = 0
    for card in cards:
        found |= BIT[card]
    return found


def of_mask(cards: int, named: "dict[int, Any]" = CARD_OF_BIT) -> list:
    """The cards of a mask (`BIT`), in `ORDER`: from its lowest bit up.  With ``named`` (what stands for each
    card, by its bit: the engine's play actions) what stands for them."""
    out = []
    while cards:
        low = cards & -cards
        out.append(named[low])
        cards ^= low
    return out


def ident(card: str, mark: str | None = None) -> Ident:
    """The card's identity on the pile, given its mark (MM declaration / SM colour / block)."""
    if mark is None:
        found = PRINTED.get(card)
        return printed(card) if found is None else found
    found = _MARKED.get(mark)
    if found is None:
        kind, _, colour = mark.partition(":")
        found = _MARKED[mark] = Ident(kind, colour or None, None)
    return found


def points(card: str) -> int:
    info = printed(card)
    return info.number if info.kind == "N" else POWER_POINTS[info.kind]


def parse_counts(text: str) -> dict[str, int]:
    """``"PT=4,SK=4,..."`` -> counts; missing kinds keep their default; errors are ValueError."""
    counts = dict(DEFAULT_COUNTS)
    for part in filter(None, (p.strip() for p in text.replace(" ", ",").split(","))):
        kind, sep, value = part.partition("=")
        kind = kind.strip().upper()
        if not sep or kind not in counts or not value.strip().isdigit():
            raise ValueError(f"bad deck count {part!r}; write e.g. 'PT=4,SK=4,OWM=4,JTT=4,SM=3,LM=3,DM=3,MM=3'")
        counts[kind] = int(value)
    if counts["DM"] < 1:
        raise ValueError("the deck needs at least one DM: it decides the first dealer")
    return counts


_NUMBERED = tuple(c.upper() + str(n) for c in COLOURS for n in NUMBERS)
_DECKS: dict[tuple, tuple[str, ...]] = {}


def deck(counts: dict[str, int] | None = None) -> list[str]:
    """A fresh pack: 52 numbered cards, then the powers (coloured ones spread over r, y, b, g).

    Every deal, reshuffle check and restored position asks for one, so each pack is made once per
    counts and handed out as a new list."""
    counts = counts or DEFAULT_COUNTS
    key = tuple(counts[kind] for kind in POWER_KINDS)
    cards = _DECKS.get(key)
    if cards is None:
        made = list(_NUMBERED)
        for kind in COLOURED_POWERS:
            made.extend(f"{kind}-{COLOURS[i % 4]}" for i in range(counts[kind]))
        for kind in COLOURLESS_POWERS:
            made.extend([kind] * counts[kind])
        cards = _DECKS[key] = tuple(map(sys.intern, made))  # (the same objects as `CODES`)
    return list(cards)


def card_name(card: str) -> str:
    info = printed(card)
    names = {"PT": "Penal T", "SK": "Skip", "OWM": "Other Way Mae", "JTT": "Just Take Two",
             "SM": "Shadow Master", "LM": "Link Master", "DM": "Deck Master", "MM": "Master Mau"}
    if info.kind == "N":
        return f"{COLOUR_NAMES[info.colour]} {info.number}"
    if info.colour:
        return f"{COLOUR_NAMES[info.colour]} {names[info.kind]}"
    return names[info.kind]
