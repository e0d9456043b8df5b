"""The public form of what happens at a Mose table (the `PublicEvent`s of arena/games/README.md).

Recorded only while the state has a log (`MoseState.record_events`).  A draw
from the stock is a count (its card stays hidden); taking the pile names its
cards (the whole pile lies face up); melds, lay-offs, swaps and discards name
their cards, which go on the table.  A False Play (contested mode) names the
meld but not the card, which goes back to the hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.base import Action, PublicEvent
from arena.games.mose.melds import swap_in

if TYPE_CHECKING:
    from arena.games.mose.public import Pickup
    from arena.games.mose.state import MoseState


def action(state: "MoseState", seat: int, act: Action, fits: bool) -> None:
    """The acting seat's decision, recorded before it applies (``fits``: a lay-off that fits)."""
    log = state.log
    verb, args = act.verb, act.args
    if verb == "draw":
        if not state.stock:  # the first exhaustion: the pile becomes the stock (6.6)
            log.append(PublicEvent(None, "reshuffle", f"reshuffle {len(state.discard)}",
                                   {"count": len(state.discard)}))
        log.append(PublicEvent(seat, "draw", "draw 1", {"count": 1, "source": "stock"}))
    elif verb == "take":
        cards = list(state.discard)
        log.append(PublicEvent(seat, "take", f"take pile ({len(cards)})", {"cards": cards, "count": len(cards)}))
    elif verb == "meld":
        log.append(PublicEvent(seat, "meld", str(act), {"meld": state.next_meld, "tokens": list(args),
                                                        "placing": state.phase == "place"}))
    elif verb == "layoff" and not fits:
        log.append(PublicEvent(seat, "false-play", f"false play on meld {args[0]}",
                               {"meld": int(args[0]), "penalty": state.false_play_penalty}))
    elif verb == "layoff":
        details = {"meld": int(args[0]), "token": args[-1], "placing": state.phase == "place"}
        if len(args) == 3:
            details["end"] = args[1]
        log.append(PublicEvent(seat, "layoff", str(act), details))
    elif verb == "swap":
        meld_id, natural, choice = int(args[0]), args[1], args[2]
        _, freed = swap_in(state.meld_by_id(meld_id), natural, state.wild, state.decks)
        log.append(PublicEvent(seat, "swap", str(act), {"meld": meld_id, "card": natural, "freed": freed,
                                                        "choice": choice}))
    elif verb == "discard":
        log.append(PublicEvent(seat, "discard", str(act), {"card": args[0]}))
    elif verb == "call":
        log.append(PublicEvent(seat, "call", "call mose (false)", {"word": "mose",
                                                                   "penalty": state.false_mose_penalty}))
    else:  # pass
        log.append(PublicEvent(seat, verb, str(act), {}))


def dealt(state: "MoseState") -> None:
    """A round's deal and its upcard."""
    sizes = [len(hand) for hand in state.hands]
    state.log.append(PublicEvent(None, "deal", f"deal round {state.round}",
                                 {"round": state.round, "dealer": state.dealer, "hand_sizes": sizes,
                                  "wild_rank": state.wild}))
    if state.discard:
        state.log.append(PublicEvent(None, "open", f"open {state.discard[0]}", {"card": state.discard[0],
                                                                             "from_hand": False}))


def pickup_returned(state: "MoseState", pickup: "Pickup") -> None:
    """D-14: a Mose directly after a pickup sends the picked-up cards back: a count (a pile's cards are
    those of the `take` event before; a stock card was never seen)."""
    details = {"seat": pickup.seat, "source": pickup.source, "count": len(pickup.cards)}
    state.log.append(PublicEvent(pickup.seat, "return", f"return {len(pickup.cards)} to the {pickup.source}",
                                 details))


def round_scored(state: "MoseState") -> None:
    last = state.history[-1]
    state.log.append(PublicEvent(None, "round-end", f"round {last['round']} ends: {last['reason']}",
                                 {**last, "points": list(last["points"]), "scores": list(state.scores)}))
    if state.phase == "over":
        state.log.append(PublicEvent(None, "game-end", "game over", {"scores": list(state.scores)}))


def start(state: "MoseState") -> list[PublicEvent]:
    """The first events of a log: the deal on a fresh round 1, else where things stand."""
    if state.round == 1 and state.turns == 1 and not state.round_started and state.phase == "draw":
        log = state.log
        state.log = []
        dealt(state)
        events, state.log = state.log, log
        return events
    return [PublicEvent(None, "start", f"recording from round {state.round}",
                        {"round": state.round, "dealer": state.dealer,
                         "hand_sizes": [len(hand) for hand in state.hands]})]
