"""The public form of what happens at a shedding table (the `PublicEvent`s of arena/games/README.md).

Recorded only while the state has a log (`SheddingState.record_events`): each
function here is called behind an ``if state.log is not None`` test, so a
state that nobody asks for events pays one attribute read per hook.  Every
event is public to every seat: a draw is a count, a face-down Blind card is
its claim (until a challenge turns it up), a hand's scoring shows the points
that the revealed hands were worth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.base import Action, PublicEvent, note_draw

if TYPE_CHECKING:
    from arena.games.shedding.state import SheddingState

#: Verbs whose public form is the action itself, with these detail keys for its arguments.
_PLAIN = {
    "play": ("card",),
    "pass": (),
    "accept": (),
    "stop": (),
    "suit": ("suit",),
    "call": ("word",),
    "accuse": ("target",),
    "bonus": ("choice",),
    "target": ("target",),
    "believe": (),
}
_SEAT_ARGS = frozenset({"accuse", "target"})


def action(state: "SheddingState", act: Action) -> None:
    """The acting seat's decision, before it applies (draws are counted as the cards come)."""
    seat = state.current
    log = state.log
    verb = act.verb
    if verb == "draw":
        log.append(PublicEvent(seat, "draw", "draw 0", {"count": 0}))
    elif verb == "blind":
        claim = act.args[1]
        log.append(PublicEvent(seat, "blind", f"blind ?? as {claim}", {"claim": claim}))
    elif verb == "challenge":
        record = state.blind_play
        truthful = record["card"] == record["claim"]
        card = record["card"]
        log.append(PublicEvent(seat, "challenge", f"challenge {record['seat']}: {card} "
                               + ("as claimed" if truthful else f"not {record['claim']}"),
                               {"target": record["seat"], "card": card, "claim": record["claim"],
                                "truthful": truthful}))
    else:
        details = {}
        for key, value in zip(_PLAIN.get(verb, ()), act.args):
            details[key] = int(value) if verb in _SEAT_ARGS else value
        if state.phase == "rescue" and verb == "play":
            details["rescue"] = True
        log.append(PublicEvent(seat, verb, str(act), details))


def drew(state: "SheddingState", seat: int) -> None:
    """One card went into `seat`'s hand: counted into the seat's draw under way, or a new draw."""
    note_draw(state.log, seat)


def reshuffled(state: "SheddingState", count: int) -> None:
    state.log.append(PublicEvent(None, "reshuffle", f"reshuffle {count}", {"count": count}))


def dealt(state: "SheddingState", log: list) -> None:
    """A new hand: who dealt and how many cards each seat holds (the opening card follows)."""
    sizes = [len(hand) for hand in state.hands]
    log.append(PublicEvent(None, "deal", f"deal hand {state.hand_number}",
                           {"hand": state.hand_number, "dealer": state.dealer, "hand_sizes": sizes}))


def opened(state: "SheddingState", card: str, from_hand: bool) -> None:
    """The hand's first card on the pile: turned up from the stock, or the dealer's own (Moumou)."""
    seat = state.dealer if from_hand else None
    state.log.append(PublicEvent(seat, "open", f"open {card}", {"card": card, "from_hand": from_hand}))


def forced_accept(state: "SheddingState") -> None:
    """The engine took a penalty for a seat that could not answer it (no decision was asked)."""
    state.log.append(PublicEvent(state.current, "accept", "accept (forced)", {"forced": True}))


def hand_scored(state: "SheddingState") -> None:
    last = state.last_hand
    details = {**last, "scores": list(state.scores)}
    winner = last.get("winner")
    text = f"hand {last['hand']} ends: {last['reason']}" + ("" if winner is None else f", seat {winner} wins")
    state.log.append(PublicEvent(None, "hand-end", text, details))


def game_over(state: "SheddingState") -> None:
    state.log.append(PublicEvent(None, "game-end", f"game over: {state.reason}",
                                 {"reason": state.reason, "scores": list(state.scores)}))


def start(state: "SheddingState") -> PublicEvent:
    """The first event of a log started after the game began: where things stand."""
    return PublicEvent(None, "start", f"recording from hand {state.hand_number}",
                       {"hand": state.hand_number, "dealer": state.dealer,
                        "hand_sizes": [len(hand) for hand in state.hands], "decisions": state.decisions})
