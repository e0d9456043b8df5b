"""World sampling for Mose: the other hands and the stock are hidden; the pile, melds and table are public."""

from __future__ import annotations

import random
from typing import Any, Mapping

from arena.games.facts.mose import RULESET, deck
from arena.games.worlds.ledger import STOCK as STOCK_KEY, hand
from arena.games.worlds.places import HAND, Place, STOCK, other_hands

#: Events whose `follow` takes several ledger steps (undone from a copy if one fails).
SEVERAL_STEPS = frozenset({"meld", "return"})

__all__ = ["RULESET", "deck", "follow", "places", "position"]


def _meld_cards(meld: Mapping[str, Any]) -> list[str]:
    return [token.split(":")[0] for token in meld["tokens"]]


def places(view: Mapping[str, Any], table) -> tuple[list[Place], list[str]]:
    seen = list(view["discard"]) + list(view["table"])
    for meld in view["melds"]:
        seen.extend(_meld_cards(meld))
    out = other_hands(view, table.seat, seen)
    if view["stock_size"]:
        out.append(Place(STOCK, None, view["stock_size"]))
    return out, seen


def position(view: Mapping[str, Any], table, dealt: Mapping[Place, list[str]], rng: random.Random) -> dict:
    players = table.players
    hands = [list(view["hand"]) if s == table.seat else [] for s in range(players)]
    stock: list[str] = []
    for place, cards in dealt.items():
        if place.kind == HAND:
            hands[place.key] = list(cards)
        else:
            stock = list(cards)
    phase = view["decision"]
    current = view["current"]
    turn = view["turn"]
    melds = []
    for meld in view["melds"]:
        cards, meanings = [], []
        for token in meld["tokens"]:
            card, _, stands = token.partition(":")
            cards.append(card)
            meanings.append(stands or None)
        melds.append({"id": meld["id"], "owner": meld["owner"], "kind": meld["kind"], "cards": cards, "as": meanings})
    position: dict[str, Any] = {
        "ruleset": RULESET,
        "hands": hands,
        "discard": list(view["discard"]),
        "stock": stock,
        "current": current,
        "direction": 1,
        "scores": list(view["scores"]),
        "round": view["round"],
        "dealer": view["dealer"],
        "turn": turn,
        "phase": phase,
        "melds": melds,
        "table": list(view["table"]),
        "round_started": view["round_started"],
        "exhaustions": view["exhaustions"],
        "penalties": list(view["penalties"]),
        "mistake": bool(view.get("mistake")),
        "false_plays": int(view.get("false_plays") or 0),
        "history": [] if view.get("last_round") is None else [view["last_round"]],
        "seed": rng.getrandbits(62),
        "chance": 0,
    }
    reacting = phase == "react" or (phase == "place" and current != turn)
    if reacting:  # the seats still to be asked: clockwise from the current one, never the turn's
        position["window"] = {
            "queue": [s for s in ((current + i) % players for i in range(1, players)) if s != turn],
            "acted": False,
        }
    if view.get("window") is not None:  # the observation has the window since 0.2
        position["window"] = {"queue": list(view["window"]["queue"]), "acted": bool(view["window"]["acted"])}
    if "turns" in view:
        position["turns"] = view["turns"]
    position["decisions"] = view.get("decisions", 0)  # (the game ends at option decision_limit in every world)
    if phase == "place":
        position["pending"] = {"card": view["table"][0], "back": "react" if reacting else "play"}
    pickup = view.get("last_pickup")
    if pickup is not None:  # which cards were picked up is not in the observation: some of the seat's hand
        held = hands[pickup["seat"]]
        count = min(pickup["count"], len(held))
        position["last_pickup"] = {
            "seat": pickup["seat"], "source": pickup["source"], "cards": rng.sample(held, count),
            "by": pickup.get("by"),
        }
    if phase == "over":
        position["current"] = None
    return position


def _card(token: str) -> str:
    return token.split(":")[0]


def follow(tracker, seat: int | None, kind: str, details: Mapping[str, Any]) -> None:
    """What one public event of Mose says about the cards (see `arena.games.worlds.tracker`).

    The pile is face up, so a pile taken is pinned, card by card, to the taker's hand until each card is
    melded, laid off, swapped in or discarded; a wild taken from a meld by a swap is pinned too; a draw
    moves a slot of the stock into a hand; the first exhaustion makes the stock out of the pile.
    """
    ledger, pile, extra = tracker.ledger, tracker.pile, tracker.extra
    if kind == "deal":
        tracker.deal(details["hand_sizes"])
        tracker.extra["table"] = []
    elif kind == "open":
        ledger.take(STOCK_KEY, details["card"])
        pile.append(details["card"])
    elif kind == "draw":
        extra["drawn"] = ledger.pool_of(STOCK_KEY)  # the pool the card came from (a D-14 return goes back)
        ledger.move(STOCK_KEY, hand(seat))
    elif kind == "take":
        cards = list(details["cards"])
        if cards != pile:
            raise ValueError(f"took {cards} from a pile of {pile}")
        for card in cards:
            ledger.pin(hand(seat), card)
        extra["taken"] = cards
        pile.clear()
    elif kind in ("meld", "layoff"):
        cards = [_card(t) for t in (details["tokens"] if kind == "meld" else [details["token"]])]
        placing = bool(details.get("placing"))
        if placing:  # the freed wild comes from the table, not the hand
            cards.remove(extra["table"][0])
        for card in cards:
            ledger.take(hand(seat), card)
        if placing:
            extra["table"].pop(0)
    elif kind == "swap":
        ledger.take(hand(seat), details["card"])
        if details["choice"] == "take":
            ledger.pin(hand(seat), details["freed"])
        else:
            extra["table"].append(details["freed"])
    elif kind == "discard":
        ledger.take(hand(seat), details["card"])
        pile.append(details["card"])
    elif kind == "reshuffle":
        if details["count"] != len(pile):
            raise ValueError(f"{details['count']} cards reshuffled from a pile of {len(pile)}")
        ledger.new_pool(pile, STOCK_KEY)
        pile.clear()
    elif kind == "return":  # D-14: the pickup goes back where it came from
        if details["source"] == "pile":
            cards = extra.get("taken") or []
            for card in cards:
                ledger.take(hand(details["seat"]), card)
            pile[:0] = cards
        else:
            drawn = extra.get("drawn")
            if drawn is None:
                ledger.move(hand(details["seat"]), STOCK_KEY, details["count"])
            else:
                ledger.move_from(drawn, hand(details["seat"]), STOCK_KEY, details["count"])
