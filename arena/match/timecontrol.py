"""The time model: a per-decision limit, a bank that covers overruns, an increment, a first-move allowance.

This module is the rules as a value a game is configured with; `arena.match.timekeeping`
applies them, per seat and game, for the match runner (`arena.match.runner`), on the games'
clock from sending a request to the answer's arrival stamp:

* a decision may take ``move_ms`` (plus ``first_move_ms`` on the seat's first
  decision) plus whatever is left in the bank; time beyond the limit is drawn
  from the bank;
* an accepted answer adds ``increment_ms`` to the bank; a timeout spends the
  whole bank (it is 0 afterwards) and earns no increment;
* a timeout, an illegal/malformed answer, a seat error or a disconnect without
  reconnection applies the engine's default action and is a strike;
  ``max_strikes`` strikes (0: never) forfeit the game: the seat is no longer
  asked, plays defaults, and ranks after every seat that did not forfeit;
* a disconnected seat's clock keeps running: it may resume its session
  within ``reconnect_ms`` of going away, and a decision it is back for in
  time is asked again with the time that is left; when the decision's time
  runs out first it is a strike (the bank is spent), and a seat away longer
  than ``reconnect_ms`` is struck at once on each decision until it is back.
  So a seat is never waited on for more than
  ``first_move_ms + n * (move_ms + increment_ms) + bank_ms`` (plus a 50 ms
  grace per decision, and for a remote seat at most 100 ms of write delay per
  decision: its clock starts when its request is written to the wire) over n
  decisions (`arena.match.timekeeping.max_seat_wait_ms`).
* all of it on the arena's clock: time the arena process could not run (a
  SIGSTOP, a paused VM, a swap storm) is not in it, so it is charged to no
  seat (`arena.match.stalls`); a seat whose stream ended in such a stall (of
  5 s or more) has as long as it lasted, up to 10 s, to come back off its
  clock, and a stall over 30 s aborts
  the game, unrated (`arena.match.timekeeping.GameStalls`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeControl:
    move_ms: int = 1000          # per-decision limit
    bank_ms: int = 10_000        # covers overruns of the per-decision limit
    increment_ms: int = 100      # added to the bank after every answered decision
    first_move_ms: int = 5000    # extra allowance on a seat's first decision (start-up)
    max_strikes: int = 3         # strikes that forfeit the game
    reconnect_ms: int = 5000     # how long a disconnected seat may stay away (its clock runs meanwhile)

    def to_dict(self) -> dict[str, int]:
        """Its fields and values (`dataclasses.asdict`, without the generic walk: every ladder game's header has one)."""
        return dict(vars(self))
