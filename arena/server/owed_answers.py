"""A finished game's seat given back, or held until the bot answers the request it still owes.

A bot whose time ran out is most likely still running its code for that request, and a client that
runs one game at a time reads nothing meanwhile: seated in a new game at once, it would time out there
too, and forfeit a game it never saw (one 8 s call cost a one-game bot 17 games in a row).  So when a
game ends while its last request to a seat is unanswered (`OwedAnswers.release` with ``owed``), that
seat's slot stays taken until the answer comes (late: it is dropped as stale) and is given back then
(`OwedAnswers.settle`), as a chess GUI waits for a late engine's ``readyok`` before the next game;
after `ServerConfig.owed_answer_hold_s` at most, so a hung bot still gets its games (and forfeits them
one at a time, each after a hold).  The hold is on the games' time: a stall of the arena process while it
runs (`arena.match.stalls`: a SIGSTOP, a paused VM) lengthens it by the stall, as the bot's clock was.  The hub (`arena.server.sessions.Hub.release`, ``settle``,
``owed_text``) hands these calls here; everything runs on the server's thread.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Callable, Optional

from arena.server.config import ServerConfig

if TYPE_CHECKING:
    from arena.server.bot_session import BotSession
    from arena.server.seat import RemoteSeat

log = logging.getLogger("arena.server")


class OwedAnswers:
    """The hub's release of a finished game's seats, holding a slot for each answer its bot still owes."""

    def __init__(self, config: ServerConfig, to_trio: Callable[..., None],
                 slot_freed: Callable[["BotSession"], None], forget_if_idle: Callable[["BotSession"], None],
                 changed: Callable[[], None], stalled_s: Optional[Callable[[], float]] = None) -> None:
        """to_trio: `Hub.to_trio` (a hold's end runs there); slot_freed: one of the session's games is no longer
        counted busy (its slot views told); forget_if_idle: drop an away session with nothing left to resume;
        changed: wake whoever waits for a change (`Handle.session_event`); stalled_s: the process's stalls so far
        (`arena.match.stalls.StallLedger.stalled_s`; None: none are counted, as under a test's clock)."""
        self.config = config
        self._to_trio = to_trio
        self._slot_freed = slot_freed
        self._forget_if_idle = forget_if_idle
        self._changed = changed
        self._stalled_s = stalled_s
        #: The director's ``(bot name, game id, request id)`` for a hold that ran out (`Handle.on_hold_expired`),
        #: called before the slot is given back (instead of the warning that it is seated again); None: the bot
        #: is simply seated again.
        self.on_expired: Optional[Callable[[str, str, int], None]] = None

    def release(self, session: "BotSession", seat: "RemoteSeat", owed: int = 0) -> None:
        """A game of ``session`` is over: its slot is free, unless the bot still owes the answer to ``owed``
        (the wire id of the last request the game sent it, unanswered): then held until `settle`."""
        if seat in session.seats:
            session.seats.discard(seat)
            if owed and self.config.owed_answer_hold_s > 0:
                session.owed[seat] = (owed, time.monotonic())
                log.info("%s still owes its answer to request %d of game %s, which is over: no new game for it "
                         "until the answer comes (at most %g s)", session.name, owed, seat.game_id,
                         self.config.owed_answer_hold_s)
                self._expire_later(session, seat, owed)
            else:
                self._slot_freed(session)
        for wire_id in [w for w, s in session.requests.items() if s is seat and not (owed and w == owed)]:
            del session.requests[wire_id]
        self._forget_if_idle(session)
        self._changed()

    def settle(self, session: "BotSession", seat: "RemoteSeat", wire_id: Optional[int] = None) -> None:
        """The bot answered the request it owed for a finished game (or, with ``wire_id``, the hold on that
        request ran out): its slot is free again."""
        owed = session.owed.get(seat)
        if owed is None or (wire_id is not None and owed[0] != wire_id):
            return
        del session.owed[seat]
        if wire_id is not None and self.on_expired is not None:  # the director says what it does about it
            self.on_expired(session.name, seat.game_id, owed[0])
        elif wire_id is not None:
            log.warning("%s: no answer to request %d of game %s within %g s of the game's end; seating it again",
                        session.name, owed[0], seat.game_id, self.config.owed_answer_hold_s)
        session.requests.pop(owed[0], None)
        self._slot_freed(session)
        self._forget_if_idle(session)
        self._changed()

    def _expire_later(self, session: "BotSession", seat: "RemoteSeat", wire_id: int) -> None:
        try:
            loop = asyncio.get_running_loop()  # the server's loop: trio runs as its guest, on this thread
        except RuntimeError:  # not on the server's thread (a unit test's direct call): the answer alone settles it
            return
        stalled = self._stalled_s() if self._stalled_s is not None else 0.0
        loop.call_later(self.config.owed_answer_hold_s, self._hold_over, loop, session, seat, wire_id, stalled)

    def _hold_over(self, loop: asyncio.AbstractEventLoop, session: "BotSession", seat: "RemoteSeat", wire_id: int,
                   stalled: float) -> None:
        """The hold's time has passed in real time: settle it, unless the arena stalled meanwhile (then wait that
        much longer, on the games' time, as the bot's own clock would have)."""
        now_stalled = self._stalled_s() if self._stalled_s is not None else 0.0
        if now_stalled > stalled:
            loop.call_later(now_stalled - stalled, self._hold_over, loop, session, seat, wire_id, now_stalled)
            return
        self._to_trio(self.settle, session, seat, wire_id)

    @staticmethod
    def text(session: "BotSession") -> str:
        """``"; it still owes ..."``: the answers a busy bot owes for finished games, for people ('' if none)."""
        if not session.owed:
            return ""
        now = time.monotonic()
        seat, (wire_id, since) = min(session.owed.items(), key=lambda item: item[1][1])  # the oldest
        return (f"; {len(session.owed)} of them over but still waiting for the bot's answer to their last request: "
                f"request {wire_id} of game {seat.game_id}, over {now - since:.1f} s ago, its code still running that call")

