"""Claiming a game's seats in the tests as the director does: `SeatClaims.claim_in` inside the
transaction that records the game's start (`LadderStore.game_started(claim=...)`), on the store's
own connection, never a transaction of the claim's own."""

from __future__ import annotations

from typing import Mapping, Sequence

from arena.ladder.store import LadderStore
from arena.ladder.store.claims import SeatClaims


def claim(store: LadderStore, claims: SeatClaims, game: str, seats: Sequence[str], caps: Mapping[str, int],
          ruleset: str = "moumou") -> bool:
    """Start ``game`` with its seats claimed (seat i is seats[i]), or record nothing and return False.

    The bots get their ``bot_slots`` rows first, as the director's planning read gives them."""
    seats = list(seats)
    claims.ensure_bots(seats)
    return store.game_started(game, ruleset, {}, 1, game, 0, seats,
                              claim=claims.claim_in(seats, caps))
