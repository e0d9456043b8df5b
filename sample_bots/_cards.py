"""Card facts the sample bots share: point values, wild ranks, attack cards, per ruleset.

Only public rules knowledge lives here (RULES.md section 8.3); everything
about the game in progress comes from the turn's observation and legal list.
Unknown rulesets fall back to the base Mau-Mau values, so the bots still
play sensibly on a ruleset written after them.
"""

from __future__ import annotations

_FACE = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10}

#: Penalty points of a card left in hand, by rank (jokers under "X").
POINTS = {
    "moumou": {"J": 20, "A": 15, "K": 10, "Q": 10},
    "maumau-online": {"J": 30, "Q": 10, "K": 10, "A": 1},
    "maumau": {"A": 11, "J": 10, "Q": 10, "K": 10},
    "tschau-sepp": {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0, "6": 0},
}
_DEFAULT_POINTS = {"A": 11, "J": 10, "Q": 10, "K": 10, "X": 50}

#: Ranks that may be played on anything and name a suit: keep them for when nothing else fits.
WILD_RANKS = {
    "moumou": {"J"}, "maumau-online": {"J"}, "maumau": {"J"}, "prsi": {"Q"}, "faraon": {"Q"},
    "pesten": {"J", "X"}, "puque": {"J"}, "pharaoh-101": {"Q"}, "evil-seven": {"J"}, "neuner": {"9", "X"},
    "tschau-sepp": {"J"},
}
_DEFAULT_WILDS = {"J", "X"}

#: Cards (ranks, or exact codes like ``Kc``) that make the next player draw or lose a turn.
ATTACK = {
    "moumou": {"7", "8", "A", "Kc"}, "maumau-online": {"7", "A"}, "maumau": {"7", "8"},
    "prsi": {"7", "A"}, "faraon": {"7", "A"}, "pesten": {"2", "X", "8"}, "puque": {"2"},
    "pharaoh-101": {"6", "7", "A", "Ks"}, "evil-seven": {"7", "2", "A"}, "neuner": {"7", "8"},
    "tschau-sepp": {"7", "8"},
}
_DEFAULT_ATTACK = {"7", "8"}

#: Ranks a hand may not be emptied with (the last card must not be one of these).
CANNOT_FINISH = {"moumou": {"6", "A"}, "maumau": {"A"}, "puque": {"A"}, "evil-seven": {"8"}}

#: Ranks that oblige the player to cover them at once (Moumou's 6).
COVER_RANKS = {"moumou": {"6"}}


def rank(card: str) -> str:
    return card[0]


def suit(card: str) -> str | None:
    return None if card[0] == "X" else card[1:2] or None


def value(card: str, ruleset: str) -> int:
    """The card's penalty points in this ruleset (what it costs to be caught holding it)."""
    table = POINTS.get(ruleset, _DEFAULT_POINTS)
    r = rank(card)
    if r in table:
        return table[r]
    return _FACE.get(r, _DEFAULT_POINTS.get(r, 10))


def is_wild(card: str, ruleset: str) -> bool:
    return rank(card) in WILD_RANKS.get(ruleset, _DEFAULT_WILDS)


def is_attack(card: str, ruleset: str) -> bool:
    attack = ATTACK.get(ruleset, _DEFAULT_ATTACK)
    return card in attack or rank(card) in attack


def cannot_finish(card: str, ruleset: str) -> bool:
    return rank(card) in CANNOT_FINISH.get(ruleset, set())


def suit_counts(hand, ruleset: str, skip_wilds: bool = True) -> dict[str, int]:
    """How many cards of each suit the hand holds (wilds left out: they fit any suit anyway)."""
    counts = {s: 0 for s in "shdc"}
    for card in hand:
        s = suit(card)
        if s in counts and not (skip_wilds and is_wild(card, ruleset)):
            counts[s] += 1
    return counts
