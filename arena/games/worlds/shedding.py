"""World sampling for the shedding rulesets (Moumou, Mau-Mau and the national variants).

Hidden places: the other seats' hands, the stock, the pile below the shown
top (`visible_discard` cards) and, with the Blind variation, each face-down
card (``??``) in the shown part.  The rest of the position comes from the
observation; turn details it does not show take the value of a fresh
decision (see the package docstring of `arena.games.worlds` and
`arena/games/README.md` for the list).
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from arena.games.facts.shedding import RULESETS, deck, rules
from arena.games.shedding.blind import HIDDEN
from arena.games.worlds.ledger import STOCK as STOCK_KEY, hand
from arena.games.worlds.places import FACE_DOWN, HAND, PILE, Place, STOCK, other_hands

#: Events whose `follow` takes several ledger steps (undone from a copy if one fails).
SEVERAL_STEPS: frozenset[str] = frozenset()

__all__ = ["RULESETS", "deck", "follow", "places", "position"]


def places(view: Mapping[str, Any], table) -> tuple[list[Place], list[str]]:
    """(hidden places in dealing order, the cards the seat sees)."""
    shown = view["discard"]
    seen = [c for c in shown if c != HIDDEN]
    out = other_hands(view, table.seat, seen)
    buried = view["discard_size"] - len(shown)
    if buried:
        out.append(Place(PILE, None, buried))
    out.extend(Place(FACE_DOWN, buried + i, 1) for i, card in enumerate(shown) if card == HIDDEN)
    if view["stock_size"]:
        out.append(Place(STOCK, None, view["stock_size"]))
    return out, seen


def position(view: Mapping[str, Any], table, dealt: Mapping[Place, list[str]], rng: random.Random) -> dict:
    ruleset = rules(table.ruleset, table.players, table.options)
    players = table.players
    hands = [list(view["hand"]) if s == table.seat else [] for s in range(players)]
    pile: list[str] = []
    stock: list[str] = []
    faces: dict[int, str] = {}
    for place, cards in dealt.items():
        if place.kind == HAND:
            hands[place.key] = list(cards)
        elif place.kind == PILE:
            pile = list(cards)
        elif place.kind == STOCK:
            stock = list(cards)
        else:
            faces[place.key] = cards[0]
    shown = list(view["discard"])
    claims = []
    top = view["discard_size"] - 1
    for i, card in enumerate(shown):
        index = len(pile) + i
        if card == HIDDEN:
            claim = view.get("claim")
            if index == top and claim:
                said = claim["rank"] + claim["suit"]
            else:  # not shown: any identity of the deck (only the top's claim is in the observation)
                said = rng.choice(ruleset.deck)
            claims.append([index, said])
            shown[i] = faces[index]
    phase = view["decision"]
    over = phase == "over"
    current = view["current"]
    direction = view["direction"]
    pending = view.get("pending") or {}
    position: dict[str, Any] = {
        "hands": hands,
        "discard": pile + shown,
        "stock": stock,
        "current": current,
        "direction": direction,
        "scores": list(view["scores"]),
        "phase": phase,
        "active_suit": view.get("active_suit"),
        "suit_kind": view.get("suit_kind"),
        "pending": {"draw": pending.get("draw", 0), "skip": pending.get("skip", 0)},
        "drawn": bool(view.get("drawn")),
        "called": 1 if view.get("called") else 2 if view.get("false_call") else 0,
        # the turn under way and the public counters (the observation has them all since 0.2)
        "opening": bool(view.get("opening", False)),
        "offender": view.get("offender"),
        "idle": view.get("idle", 0),
        "decisions": view.get("decisions", 0),
        "hand_number": view.get("hand_number", 1),
        "dealer": view.get("dealer", 0),
        "last_hand": view.get("last_hand"),
        "seed": rng.getrandbits(62),
        "counter": 0,
    }
    if ruleset.blind:
        position["claims"] = claims
        if phase == "challenge":  # the play being judged: the seat before the challenger made it
            said = claims[-1][1]
            position["blind_play"] = {
                "seat": _previous(current, direction, players, view, ruleset.lives),
                "card": position["discard"][-1],
                "claim": said,
                "active_suit": view.get("active_suit"),
                "suit_kind": view.get("suit_kind"),
            }
    window = view.get("window")
    finish_word = ruleset.call is not None and bool(ruleset.call.finish_word)
    if phase == "accuse" and window:
        offender = window["offender"]
        queue = [(offender + direction * i) % players for i in range(1, players)]
        queue = queue[queue.index(current):] if current in queue else [current]
        position["window"] = {"offender": offender, "queue": list(window.get("queue", queue)),
                              "next": window.get("next", (offender + direction) % players),
                              "called": bool(window.get("called"))}
        position["going_out"] = finish_word and not hands[offender]
    if phase == "call":
        position["going_out"] = finish_word and not hands[current]
        if view.get("next_seat") is not None:
            position["next_seat"] = view["next_seat"]
    if phase == "combo":
        position["combo"] = [position["discard"][-1]]
    if view.get("this_play"):
        position["combo"] = list(view["this_play"])
    next_seat = view.get("next_seat")
    if phase in ("suit", "target") and next_seat is not None and current is not None:
        # how many seats on the turn moves once the decision is made (0: the same seat again)
        out = set(view.get("finished") or ())
        if view.get("returning") is not None:
            out.add(view["returning"])
        if ruleset.lives:  # Faraón: seats out of the match take no turn either
            out.update(s for s, lost in enumerate(view.get("losses") or ()) if lost >= ruleset.lives)
        steps, seat = 0, current
        while seat != next_seat and steps <= players:  # seats out of the hand take no turn
            seat = (seat + direction) % players
            steps += seat not in out
        position["advance"] = min(2, max(0, steps - view.get("blind_skip", 0)))
    for key in ("blind_skip", "return_wait", "last_discarder", "carry_follow", "paying"):
        if key in view:
            position[key] = view[key]
    accusable = view.get("accusable")  # B-8: the accusation window open into this turn (public)
    if accusable:
        position["accusable"] = [accusable["offender"], accusable["guilty"]]
    forced = view.get("forced")  # shown to the seat that drew it only
    if forced is not None:
        position["forced"] = forced
    elif view.get("must_play_drawn") and phase != "rescue" and hands[current]:
        position["forced"] = hands[current][-1]  # another seat's drawn card: one of its hand
    if phase == "rescue":
        if forced is None:  # another seat's drawn answer: any card of its hand that answers the debt
            answers = ruleset.rule(position["discard"][-1]).stack_with
            candidates = [c for c in hands[current] if c[0] in answers or c in answers] or hands[current]
            position["forced"] = rng.choice(candidates)
        position["paying"] = view.get("paying", 1)
    if "returning" in view:
        position["returning"] = view["returning"]
    if ruleset.ladder:
        position["losses"] = list(view["losses"])
        position["finished"] = list(view["finished"])
    if over:
        position["current"] = None
    return position


def _previous(seat: int, direction: int, players: int, view: Mapping[str, Any], lives: int = 0) -> int:
    """The seat before `seat` in turn order, passing over seats out of the hand (or of the match)."""
    out = set(view.get("finished") or ())
    if lives:
        out.update(s for s, lost in enumerate(view.get("losses") or ()) if lost >= lives)
    for i in range(1, players):
        candidate = (seat - direction * i) % players
        if candidate not in out:
            return candidate
    return seat


def follow(tracker, seat: int | None, kind: str, details: Mapping[str, Any]) -> None:
    """What one public event of a shedding game says about the cards (see `arena.games.worlds.tracker`).

    The pile since the deal or the last reshuffle is known card by card (each play names its card; a
    Blind play is a face-down slot of the player's hand until a challenge turns it up); a reshuffle makes
    the stock out of the cards under the top; a draw moves a slot of the stock into a hand; a Blind card
    given back after a lost challenge is pinned to the liar's hand.
    """
    ledger, pile = tracker.ledger, tracker.pile
    if kind == "deal":
        tracker.deal(details["hand_sizes"])
    elif kind == "open":
        card = details["card"]
        ledger.take(hand(seat) if details.get("from_hand") else STOCK_KEY, card)
        pile.append(card)
    elif kind == "play":
        card = details["card"]
        ledger.take(hand(seat), card)
        pile.append(card)
    elif kind == "draw":
        ledger.move(STOCK_KEY, hand(seat), details["count"])
    elif kind == "blind":
        down = tracker.new_down()
        ledger.move(hand(seat), down)
        pile.append(down)
    elif kind == "challenge":
        down, card = pile[-1], details["card"]
        if isinstance(down, str):
            raise ValueError(f"a challenge of {card}, but the pile's top {down} is face up")
        ledger.take(down, card)
        if details["truthful"]:
            pile[-1] = card
        else:  # the liar takes it back: now everybody knows it is in that hand
            pile.pop()
            ledger.pin(hand(details["target"]), card)
    elif kind == "reshuffle":
        count = details["count"]
        if count > len(pile) - 1:
            raise ValueError(f"{count} cards reshuffled from a pile of {len(pile)}")
        under = pile[:count]
        del pile[:count]
        ledger.new_pool([c for c in under if isinstance(c, str)], STOCK_KEY,
                        fed_by=[c for c in under if not isinstance(c, str)])
