"""Card codes, as in the seeds: rank then suit (``7h``, ``Th``, ``Js``); jokers ``X1``, ``X2``...

French ranks are ``2-9 T J Q K A`` and suits ``s h d c``.  German-suited
packs are mapped onto the same codes (Leaves=s, Hearts=h, Bells=d,
Acorns=c; Unter=J, Ober=Q), per RULES.md section 0.2.  Cards are plain
strings: cheap to hash, compare and send, and already their own text form.
DD MAU's 80-card deck has its own codes in its module.
"""

from __future__ import annotations

import re

SUITS = ("s", "h", "d", "c")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
RANK_NAMES = {"T": "10", "J": "Jack", "Q": "Queen", "K": "King", "A": "Ace", "X": "Joker"}

_FRENCH = re.compile(r"^[2-9TJQKA][shdc]$")
_JOKER = re.compile(r"^X[1-9]$")
#: DD MAU's 80-card deck (arena/games/ddmau/cards.py): R7, Y10, PT-r, SK-b, OWM-g, JTT, SM, LM, DM, MM.
_DDMAU = re.compile(r"^(?:[RYBG](?:[1-9]|1[0-3])|(?:PT|SK|OWM)-[rybg]|JTT|SM|LM|DM|MM)$")


def is_card_code(text: str) -> bool:
    """French cards and jokers, and DD MAU's codes (they cannot be confused: different shapes)."""
    return bool(_FRENCH.match(text) or _JOKER.match(text) or _DDMAU.match(text))


def is_joker(card: str) -> bool:
    return card[0] == "X"


def rank(card: str) -> str:
    """The rank character; ``X`` for a joker."""
    return card[0]


def suit(card: str) -> str | None:
    """The suit character, or None for a joker."""
    return None if card[0] == "X" else card[1]


def deck(ranks: "tuple[str, ...] | list[str]", copies: int = 1, jokers: int = 0) -> list[str]:
    """A fresh, unshuffled pack: every rank in every suit, ``copies`` times, then the jokers."""
    cards = [r + s for _ in range(copies) for s in SUITS for r in ranks]
    cards.extend(f"X{i + 1}" for i in range(jokers))
    return cards


def card_name(card: str) -> str:
    if is_joker(card):
        return f"Joker {card[1]}"
    return f"{RANK_NAMES.get(card[0], card[0])} of {SUIT_NAMES[card[1]]}"
