"""World sampling for Mose: the other hands and the stock are hidden; the pile, melds and table are public."""

from __future__ import annotations

import random
from typing import Any, Mapping

from arena.games.facts.mose import RULESET, deck
from arena.games.worlds.places import HAND, Place, STOCK, other_hands

__all__ = ["RULESET", "deck", "places", "position"]


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
