"""Interned `Action` objects: the hot path builds legal lists without allocating."""

from __future__ import annotations

from sys import intern

from arena.games.base import Action

DRAW = Action("draw")
PASS = Action("pass")
ACCEPT = Action("accept")
STOP = Action("stop")
BONUS_SELF = Action("bonus", ("self",))
BONUS_OTHERS = Action("bonus", ("others",))
SUITS = {s: Action("suit", (s,)) for s in "shdc"}
SUIT_ACTIONS = [SUITS[s] for s in "shdc"]

VERBS = frozenset({"play", "draw", "pass", "accept", "stop", "suit", "call", "accuse", "bonus", "target",
                   "blind", "believe", "challenge"})

from arena.games.cards import RANKS as _RANKS
from arena.games.cards import SUITS as _SUITS

#: Every French card's ``play`` action, built once (the legal lists index this table).  The card codes are
#: interned, as a ruleset's deck is (`Ruleset.deck`): the card an action names is the very object in the hand.
PLAY: dict[str, Action] = {c: Action("play", (c,)) for c in map(intern, (r + s for r in _RANKS for s in _SUITS))}
PLAY.update({c: Action("play", (c,)) for c in map(intern, (f"X{i}" for i in range(1, 10)))})
_PLAY = PLAY
_CALL: dict[str, Action] = {}
_ACCUSE: dict[int, Action] = {}
_TARGET: dict[int, Action] = {}


def play(card: str) -> Action:
    action = _PLAY.get(card)
    if action is None:
        card = intern(card)
        action = _PLAY[card] = Action("play", (card,))
    return action


def call(word: str) -> Action:
    action = _CALL.get(word)
    if action is None:
        action = _CALL[word] = Action("call", (word,))
    return action


def accuse(seat: int) -> Action:
    action = _ACCUSE.get(seat)
    if action is None:
        action = _ACCUSE[seat] = Action("accuse", (str(seat),))
    return action


def target(seat: int) -> Action:
    """``target N``: the seat a chosen-player draw hits (Evil Seven 2)."""
    action = _TARGET.get(seat)
    if action is None:
        action = _TARGET[seat] = Action("target", (str(seat),))
    return action
