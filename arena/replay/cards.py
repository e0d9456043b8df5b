"""Cards, hands and values drawn as rich text: the alphabet every view of a game is written in.

French codes (``7h``, ``Td``) get their rank and suit symbol, red or black
on a light face; jokers a star; other decks' codes (DD MAU's ``R7``,
``PT-r``, ``JTT``) keep their text, coloured by the colour letter they
carry.  Anything that is not a card is shown as plain words: a viewer never
prints a raw dict, and never prints a bot's text raw (``seat_name`` escapes
control characters).
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

from rich.text import Text

from arena.games.cards import is_card_code
from arena.printable import printable

SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
OTHER_DECK_COLOURS = {"r": "red", "y": "yellow", "b": "dodger_blue1", "g": "green"}  # DD MAU's colour letters
RED_SUITS = frozenset("hd")
RANK_LABELS = {"T": "10"}
HIDDEN_CARD = "▮"
MAX_RECORDS = 12  # rows shown of a list of records (the latest ones)
_FRENCH = re.compile(r"^[2-9TJQKA][shdc]$")
_JOKER = re.compile(r"^X[1-9]$")


def card(code: str) -> Text:
    """One card as it looks on the table."""
    if not isinstance(code, str) or not is_card_code(code):
        return Text(str(code), style="bold cyan")
    if _FRENCH.match(code):
        colour = "red" if code[1] in RED_SUITS else "black"
        return Text(f"{RANK_LABELS.get(code[0], code[0])}{SUIT_SYMBOLS[code[1]]}", style=f"bold {colour} on grey93")
    if _JOKER.match(code):
        return Text(f"★{code[1]}", style="bold magenta on grey93")
    letter = code[-1] if "-" in code else code[0].lower() if code[1:].isdigit() else ""
    return Text(code, style=f"bold {OTHER_DECK_COLOURS.get(letter, 'white')} on grey23")


def wild_token(token: str) -> Text:
    """A card in a Mose meld or lay-off: a wild shows what it stands for, ``2♠→3♥`` (a run) or ``2♠→3`` (a set)."""
    if not isinstance(token, str) or ":" not in token:
        return card(token)
    wild, stands_for = token.split(":", 1)
    shown = card(wild)
    shown.append("→", style="dim")
    shown.append_text(card(stands_for) if is_card_code(stands_for) else Text(rank_name(stands_for), style="bold"))
    return shown


def rank_name(rank: Any) -> str:
    return {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}.get(str(rank), str(rank))


def suit_symbol(letter: str) -> Text:
    colour = "red" if letter in RED_SUITS else "default"
    return Text(f"{SUIT_SYMBOLS.get(letter, letter)} ({letter})", style=f"bold {colour}")


def hand(cards: Iterable[str]) -> Text:
    cards = list(cards)
    if not cards:
        return Text("(empty)", style="dim")
    return Text(" ").join(card(c) for c in cards)


def hidden_hand(size: int) -> Text:
    return Text(HIDDEN_CARD * min(size, 20) + ("…" if size > 20 else ""), style="blue") + Text(f" {size}", style="dim")


def safe(text: Any) -> str:
    """A bot's text (name, version, reason) with control characters made visible, never interpreted
    (`arena.printable.printable`, the one helper every command uses)."""
    return printable(text)


def seat_name(names: Sequence[str], seat: Any) -> str:
    """A seat as people say it: its bot's name (``seat 3`` when the name is unknown)."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names) and names[seat]:
        return safe(names[seat])
    return f"seat {seat}"


def value(data: Any, key: str = "") -> Text:
    """Any JSON value an engine put in an observation, with card codes as cards."""
    if data is None:
        return Text("—", style="dim")
    if isinstance(data, bool):
        return Text("yes" if data else "no")
    if isinstance(data, str):
        if is_card_code(data):
            return card(data)
        if "suit" in key.lower() and data in SUIT_SYMBOLS:
            return suit_symbol(data)
        return Text(safe(data))
    if isinstance(data, (list, tuple)):
        if not data:
            return Text("—", style="dim")
        if any(isinstance(item, dict) for item in data):  # records: one a line, the latest ones
            shown = list(data)[-MAX_RECORDS:]
            lines = [value(item, key) for item in shown]
            if len(data) > len(shown):
                lines.insert(0, Text(f"… {len(data) - len(shown)} earlier", style="dim"))
            return Text("\n").join(lines)
        return Text(" ").join(value(item, key) for item in data)
    if isinstance(data, dict):
        if not data:
            return Text("—", style="dim")
        return Text("; ").join(Text(f"{str(k).replace('_', ' ')} ", style="dim") + value(v, str(k))
                               for k, v in data.items())
    return Text(str(data))


def direction(data: Any) -> Text:
    if data in (1, "cw", "clockwise"):
        return Text("clockwise ↻")
    if data in (-1, "ccw", "counterclockwise", "counter-clockwise"):
        return Text("counter-clockwise ↺")
    return value(data)


def ordinal(place: Any) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``..."""
    if not isinstance(place, int):
        return str(place)
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"
