"""The public form of what happens at a DD MAU table (the `PublicEvent`s of arena/games/README.md).

Recorded only while the state has a log (`DDMauState.record_events`).  Every
DD MAU decision is public but a draw, which is a count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.base import Action, PublicEvent

if TYPE_CHECKING:
    from arena.games.ddmau.state import DDMauState

_DETAILS = {"play": "card", "declare": "name", "color": "color", "call": "word", "catch": "target"}


def action(state: "DDMauState", act: Action) -> None:
    """The deciding seat's action, before it applies (a draw's card is counted as it comes)."""
    seat = state.current
    verb = act.verb
    if verb == "draw":
        state.log.append(PublicEvent(seat, "draw", "draw 0", {"count": 0}))
        return
    key = _DETAILS.get(verb)
    details = {}
    if key is not None and act.args:
        details[key] = int(act.args[0]) if verb == "catch" else act.args[0]
    state.log.append(PublicEvent(seat, verb, str(act), details))


def play_ended(state: "DDMauState") -> None:
    """The play emptied the hand, so nothing more can be added: the engine ended it without asking (a seat
    with cards left is asked, whatever it holds)."""
    state.log.append(PublicEvent(state.current, "stop", "stop (forced)", {"forced": True}))


def reshuffled(state: "DDMauState", count: int) -> None:
    state.log.append(PublicEvent(None, "reshuffle", f"reshuffle {count}", {"count": count}))


def dealt(state: "DDMauState") -> None:
    state.log.append(PublicEvent(None, "deal", f"deal hand {state.hand_number}",
                                 {"hand": state.hand_number, "dealer": state.dealer,
                                  "hand_sizes": [len(hand) for hand in state.hands]}))


def hand_scored(state: "DDMauState") -> None:
    last = state.last_hand
    state.log.append(PublicEvent(None, "hand-end", f"hand {last['hand']} ends: {last['reason']}",
                                 {**last, "points": list(last["points"]), "scores": list(state.scores)}))
    if state.is_over:
        state.log.append(PublicEvent(None, "game-end", f"game over: {state.reason}",
                                     {"reason": state.reason, "scores": list(state.scores)}))


def start(state: "DDMauState") -> PublicEvent:
    return PublicEvent(None, "start", f"recording from hand {state.hand_number}",
                       {"hand": state.hand_number, "dealer": state.dealer,
                        "hand_sizes": [len(hand) for hand in state.hands]})
