"""World sampling for DD MAU: the other hands, the stock and the pile below the shown part are hidden.

The observation shows the pile from the lowest card that still matters
(effective top, last play, hit run) with its marks; buried Master Maus get
a mark of their own (an MM on the pile always carries its declaration), a
Skip of a random colour: nothing below the shown part is read by the rules.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from arena.games.ddmau.cards import COLOURS
from arena.games.facts.ddmau import RULESET, deck
from arena.games.worlds.ledger import STOCK as STOCK_KEY, hand
from arena.games.worlds.places import HAND, PILE, Place, STOCK, other_hands

#: Events whose `follow` takes several ledger steps (undone from a copy if one fails).
SEVERAL_STEPS: frozenset[str] = frozenset()

__all__ = ["RULESET", "deck", "follow", "places", "position"]


def places(view: Mapping[str, Any], table) -> tuple[list[Place], list[str]]:
    seen = list(view["discard"])
    out = other_hands(view, table.seat, seen)
    buried = view["discard_size"] - len(view["discard"])
    if buried:
        out.append(Place(PILE, None, buried))
    if view["stock_size"]:
        out.append(Place(STOCK, None, view["stock_size"]))
    return out, seen


def _mark(mark: str | None) -> str | None:
    """The observation's lower-case mark (``pt:r``) in position form (``PT:r``)."""
    if mark is None:
        return None
    kind, sep, colour = mark.partition(":")
    return kind.upper() + sep + colour


def position(view: Mapping[str, Any], table, dealt: Mapping[Place, list[str]], rng: random.Random) -> dict:
    players = table.players
    hands = [list(view["hand"]) if s == table.seat else [] for s in range(players)]
    pile: list[str] = []
    stock: list[str] = []
    for place, cards in dealt.items():
        if place.kind == HAND:
            hands[place.key] = list(cards)
        elif place.kind == PILE:
            pile = list(cards)
        else:
            stock = list(cards)
    marks = ["SK:" + rng.choice(COLOURS) if card == "MM" else None for card in pile]
    marks += [_mark(m) for m in view["marks"]]
    phase = view["decision"]
    current = view["current"]
    direction = view["direction"]
    hit = view.get("pending_hit")
    position: dict[str, Any] = {
        "hands": hands,
        "discard": pile + list(view["discard"]),
        "marks": marks,
        "stock": stock,
        "current": None if phase == "over" else current,
        "direction": direction,
        "scores": list(view["scores"]),
        "individual": list(view["individual"]),
        "phase": phase,
        "chain": view["play_size"],
        "last_play": view["last_play"],
        "drawn": view["drawn"],
        "optional": view["optional"],
        "called": view["called"],
        "hit": None if hit is None else {
            "target": hit["target"], "count": hit["count"], "kind": hit["kind"].upper(), "by": hit["by"],
        },
        "dealer": view["dealer"],
        "hand_number": view["hand_number"],
        "active": list(view["active"]),
        "last_hand": view.get("last_hand"),
        "decisions": view.get("decisions", 0),  # (the game ends at option decision_limit in every world)
        "seed": rng.getrandbits(62),
        "chance": 0,
    }
    if phase in ("hit", "catch"):  # who plays after the hit or the window is not shown: the next seat on
        position["next_seat"] = _next_active(current, direction, view["active"])
    window = view.get("window")
    if phase == "catch" and window:
        offender = window["offender"]
        order = [(offender + direction * i) % players for i in range(1, players)]
        queue = [s for s in order if view["active"][s]]
        position["window"] = {"offender": offender, "queue": queue[queue.index(current):] if current in queue
                              else [current]}
    return position


def _next_active(seat: int, direction: int, active: list[bool]) -> int:
    players = len(active)
    for i in range(1, players + 1):
        candidate = (seat + direction * i) % players
        if active[candidate]:
            return candidate
    return seat


def follow(tracker, seat: int | None, kind: str, details: Mapping[str, Any]) -> None:
    """What one public event of DD MAU says about the cards (see `arena.games.worlds.tracker`).

    Every card put on the pile is named (a play, or the Master Mau of a block), so the pile is known card
    by card; a reshuffle makes the stock out of the pile under the last play; a draw moves a slot of the
    stock into a hand.
    """
    ledger, pile = tracker.ledger, tracker.pile
    if kind == "deal":
        tracker.deal(details["hand_sizes"])
    elif kind in ("play", "block"):
        card = details["card"] if kind == "play" else "MM"
        ledger.take(hand(seat), card)
        pile.append(card)
    elif kind == "draw":
        ledger.move(STOCK_KEY, hand(seat), details["count"])
    elif kind == "reshuffle":
        count = details["count"]
        if count > len(pile):
            raise ValueError(f"{count} cards reshuffled from a pile of {len(pile)}")
        ledger.new_pool(pile[:count], STOCK_KEY)
        del pile[:count]
