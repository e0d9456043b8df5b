"""The Blind variation (seed 002, RULES.md 5.1, C-13, primitive P24): face-down plays and challenges.

Grammar: ``blind REAL CLAIM`` plays the held card REAL face down and says
it is CLAIM (``blind Kd 7h``: the King of diamonds, claimed to be the 7 of
hearts; a truthful play names the same card twice).  Only claims legal on
the top are offered (and, for a last card, none the ruleset forbids as a
finishing card).  The next seat then decides ``believe`` or ``challenge``:

* believe: the claim is canon.  The play resolves with the claimed card's
  effects; the card stays face down (shown as ``??``) until recycled.
* challenge, claim true: the card is turned up, the challenger draws 1 and
  loses their next turn; the play resolves normally.
* challenge, claim false: the liar takes the card back, draws 1 and the
  turn ends; the pile is as before the play.
* nobody to ask: the next seat in the hand is the player itself (two
  players, the other out of cards and waiting out Prší's return window,
  P28), so the claim stands as believed without a decision.

Blind applies to the plays of an ordinary turn; answers to a pending draw
or skip, cover and follow obligations and combo additions stay face up
(``play``), and a blind play is always a single card.  Internally the pile
holds the claimed identity (so every rule reads the canon top) and
`state.masks` maps pile positions to the real cards underneath; positions
show the real cards plus the claims, observations show ``??`` and the
claim's rank and suit, never the real card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.base import Action
from arena.games.shedding import effects, playing, turns

if TYPE_CHECKING:
    from arena.games.shedding.state import SheddingState

CHALLENGE = Action("challenge")
BELIEVE = Action("believe")
_BLIND: dict[tuple[str, str], Action] = {}
HIDDEN = "??"


def blind(real: str, claim: str) -> Action:
    action = _BLIND.get((real, claim))
    if action is None:
        action = _BLIND[real, claim] = Action("blind", (real, claim))
    return action


def plays(state: "SheddingState", candidates: list[str], hand_size: int) -> list[Action]:
    """Every (held card, legal claim) pair for these candidates."""
    from arena.games.shedding.legal import playable_cards

    rules = state.rules
    claims = playable_cards(state, rules.identities)
    if hand_size == 1 and rules.no_finish:
        claims = [c for c in claims if c not in rules.no_finish]
    return [blind(real, claim) for real in dict.fromkeys(candidates) for claim in claims]


def play(state: "SheddingState", real: str, claim: str) -> None:
    """Put the card face down with its claim and hand the decision to the next seat."""
    seat = state.current
    hand = state.hands[seat]
    call = state.rules.call
    state.combo = []
    if call is not None and call.timing == "before_discard" and len(hand) == 2 and not state.drawn:
        state.offender = seat
    hand.remove(real)
    state.sizes[seat] -= 1
    state.accusable = None  # a discard, face down too, closes the B-8 accusation window
    state.forced = None  # the drawn card that had to be played now lies face down
    state.blind_play = {
        "seat": seat, "card": real, "claim": claim,
        "active_suit": state.active_suit, "suit_kind": state.suit_kind,
    }
    state.discard.append(claim)
    state.masks[len(state.discard) - 1] = real
    challenger = turns.step(state, seat, 1)
    if challenger == seat:  # nobody else is in the hand (a finisher waiting out P28): nobody can doubt
        _resolve_claim(state, state.blind_play)
        return
    state.phase = "challenge"
    state.current = challenger


def believe(state: "SheddingState") -> None:
    _resolve_claim(state, state.blind_play)


def challenge(state: "SheddingState") -> None:
    record = state.blind_play
    challenger = state.current
    top = len(state.discard) - 1
    if record["card"] == record["claim"]:  # truthful: turned up, the challenger pays and loses a turn
        del state.masks[top]
        effects.draw(state, challenger, 1)
        state.blind_skip = 1
        _resolve_claim(state, record)
        return
    # a lie: the card goes back, the liar draws 1 and the turn ends
    state.blind_play = None
    state.discard.pop()
    del state.masks[top]
    seat = record["seat"]
    state.hands[seat].append(record["card"])
    state.sizes[seat] += 1
    state.active_suit = record["active_suit"]
    state.suit_kind = record["suit_kind"]
    state.offender = None
    state.current = seat
    state.phase = "turn"
    effects.draw(state, seat, 1)
    turns.end_turn(state, 1)


def _resolve_claim(state: "SheddingState", record: dict) -> None:
    state.blind_play = None
    state.current = record["seat"]
    state.phase = "turn"
    state.discard.pop()
    playing.place(state, record["claim"], from_hand=True, combo=False)


def shown_discard(state: "SheddingState") -> list[str]:
    """The visible top of the pile with face-down cards as ``??``."""
    visible = state.rules.visible_discard
    start = max(0, len(state.discard) - visible)
    masks = state.masks
    return [HIDDEN if i in masks else state.discard[i] for i in range(start, len(state.discard))]


def claim_view(state: "SheddingState") -> dict | None:
    """The face-down top's claimed rank and suit (never the card), and whether it is still open."""
    top = len(state.discard) - 1
    if top not in state.masks:
        return None
    claim = state.discard[top]
    return {"rank": claim[0], "suit": claim[1], "open": state.blind_play is not None}
