"""`RemoteSeat`: one bot session's seat in one game, as the match runner sees it.

The runner owns the clock and the cancel scopes; this class only moves
messages.  Both ends of a decision are stamped with the games' clock
(``Hub.now``) where they touch the wire, never where a game task happens to
be: the stream's writer stamps a TurnRequest the moment it hands it to the
transport (`arena.server.connection.Timed`, first write only), and the stream
reader stamps an answer the moment it is read.  The answer carries both
(`SeatAnswer.sent_at`, `SeatAnswer.received_at`), and the runner charges the
bot the time between them (``clock_starts_on_write``: the runner credits at
most its ``write_credit_ms`` of write delay).

Answers to a request that is no longer open (timed out, already answered)
are handed to the runner as stale `SeatAnswer`s naming the old request id:
the runner counts them, tells the bot (`notify`, STALE_REQUEST) and keeps
waiting with `next_answer`, which does not re-send the request.  A game that
ends before the bot answered the last request it sent it keeps the bot's slot
until that answer comes (`release`, `arena.server.sessions.Hub.release`).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

import trio

from arena.match.seat import DecisionRequest, GameEnd, GameStart, SeatAnswer, SeatDisconnected
from arena.messages import error_to_pb, game_ended_to_pb, game_started_to_pb, turn_message
from arena.server.connection import Timed
from mau_arena_sdk.wire import pb

if TYPE_CHECKING:
    from arena.server.bot_session import BotSession
    from arena.server.sessions import Hub

#: Runner request ids remembered per seat, to name them in notices and stale answers.
_REMEMBERED_REQUESTS = 64
#: Stale answers kept for the runner to count; beyond this they are only counted here.
_MAX_PENDING_STALE = 32
#: The longest Answer.bot_error kept (the protocol allows 200 characters; more is cut, never refused).
MAX_BOT_ERROR = 200

#: The runner's notice codes (`arena.match.seat.SeatNotice.code`) as protocol ``Error.Code`` names.
NOTICE_CODES = {
    "timeout": "TIMEOUT",
    "illegal": "ILLEGAL_ACTION",
    "malformed": "MALFORMED",
    "stale": "STALE_REQUEST",
    "forfeit": "FORFEIT",
    "disconnected": "TIMEOUT",
    "error": "UNKNOWN",
}


@dataclass
class _OpenRequest:
    runner_id: int          # DecisionRequest.request_id, what the runner knows
    wire_id: int            # TurnRequest.request_id, unique within the session
    message: Timed          # the TurnRequest; its writer stamps ``written_at`` (the bot's clock starts there)
    sent_on: Any = None     # the Connection it was last sent on


class RemoteSeat:
    """Implements `arena.match.seat.Seat` (with ``next_answer`` and ``notify``) over a bot's Play stream."""

    #: Answers carry ``sent_at``, when the stream's writer handed the request to the transport.
    clock_starts_on_write = True

    def __init__(self, hub: "Hub", session: "BotSession", game_id: str) -> None:
        self.hub = hub
        self.session = session
        self.game_id = game_id
        self.name = session.name
        self.version = session.version
        self.stale_answers = 0
        self._names: tuple[str, ...] = ()
        self._started: Optional[pb.ArenaMessage] = None
        self._open: Optional[_OpenRequest] = None
        self._answer: Optional[SeatAnswer] = None
        self._stale: deque[SeatAnswer] = deque()
        self._waiter: Optional[trio.lowlevel.Task] = None    # the runner's task, parked in next_answer
        self._reconnected = trio.Event()
        self._runner_ids: "OrderedDict[int, int]" = OrderedDict()   # wire id -> runner id
        self._wire_ids: dict[int, int] = {}                          # runner id -> wire id
        self._released = False
        self._last_wire = 0                # the wire id of the last request sent, and whether its answer came:
        self._last_answered = True         # a game that ends without it keeps the slot until it does (`release`)
        session.seats.add(self)

    def __repr__(self) -> str:
        return f"RemoteSeat({self.name!r}, game {self.game_id})"

    @property
    def connected(self) -> bool:
        return self.session.connected

    @property
    def detached_at(self) -> float | None:
        """When the bot's stream ended (the games' clock), None while it is connected."""
        return None if self.session.connected else self.session.detached_at

    # ---- the Seat protocol

    async def game_started(self, start: GameStart) -> None:
        self._names = tuple(start.players)
        self._started = pb.ArenaMessage(game_started=game_started_to_pb(start))
        self.session.send(self._started)  # if disconnected, sent again on resume

    async def decide(self, request: DecisionRequest) -> SeatAnswer:
        """Send the request (unless it is the open one, already re-sent on resume) and wait."""
        if not self.session.connected:
            raise SeatDisconnected(f"{self.name} is not connected")
        if self._open is None or self._open.runner_id != request.request_id:
            self._open_request(request)
        elif self._open.sent_on is not self.session.connection and self._answer is None:
            self._send_open()  # asked again after a resume: the new stream has not seen it
        return await self.next_answer(request)

    async def next_answer(self, request: DecisionRequest) -> SeatAnswer:
        """The next answer for this seat: a stale one (old request id) or the open request's."""
        while True:
            # The open request's answer goes first: a repeated answer to the same request is queued
            # as stale, and must reach the runner after the open request is closed, or it would be
            # taken for the answer itself (it names the same request id).
            if self._answer is not None:
                return self._take_answer()
            if self._stale:
                return self._stale.popleft()
            if not self.session.connected:
                raise SeatDisconnected(f"{self.name} disconnected while deciding", after_delivery=True)
            # Parked with trio's own primitive (what trio.Event.wait does underneath, without an
            # Event and a ParkingLot per wait); the runner's cancel scope still cuts it off.
            self._waiter = trio.lowlevel.current_task()
            try:
                await trio.lowlevel.wait_task_rescheduled(self._abort_wait)
            except BaseException:
                if self.session.connected:
                    self._close_open()  # cut off (timeout, shutdown): a later answer is stale
                raise
            finally:
                self._waiter = None

    def _abort_wait(self, raise_cancel: Any) -> Any:
        self._waiter = None
        return trio.lowlevel.Abort.SUCCEEDED

    def _wake(self) -> None:
        """Reschedule the runner's task parked in `next_answer`, if any (trio context, no checkpoint)."""
        task = self._waiter
        if task is not None:
            self._waiter = None
            trio.lowlevel.reschedule(task)

    async def game_ended(self, end: GameEnd) -> None:
        self.session.send_result(pb.ArenaMessage(game_ended=game_ended_to_pb(end.outcome, self.game_id)))
        self.release()

    async def wait_reconnected(self, timeout_s: float) -> bool:
        with trio.move_on_after(max(0.0, timeout_s)):
            while not self.session.connected:
                if self._reconnected.is_set():
                    self._reconnected = trio.Event()
                await self._reconnected.wait()
            return True
        return False

    async def notify(self, notice: Any) -> None:
        """Tell the bot about a penalty or a dropped answer (`SeatNotice`), as an informational Error."""
        code = NOTICE_CODES.get(str(notice.code), "UNKNOWN")
        wire_id = self._wire_id(int(notice.request_id or 0))
        if code == "STALE_REQUEST":
            # The runner's text names its own request ids (an arena-wide count): say it in the bot's ids.
            message = f"answer to your request {wire_id} in game {self.game_id} dropped: it is not open"
            if self._open is not None:
                message += f"; your open request is {self._open.wire_id}"
        else:
            message = str(notice.message)
        self.session.send(error_to_pb(code, message, self.game_id, wire_id))

    def _wire_id(self, runner_id: int) -> int:
        """The bot's request id for a runner request id (a negative one is already the bot's, negated)."""
        return -runner_id if runner_id < 0 else self._wire_ids.get(runner_id, 0)

    # ---- bookkeeping

    def release(self) -> None:
        """Give the session's game slot back (idempotent); called when the game is over."""
        if not self._released:
            self._released = True
            self._open = None
            while self._stale:  # the game ended before the runner could report these
                stale = self._stale.popleft()
                self.session.send(error_to_pb(
                    "STALE_REQUEST", "answer to a request that was no longer open; dropped",
                    self.game_id, self._wire_id(stale.request_id)))
            owed = 0 if self._last_answered else self._last_wire
            self.hub.release(self.session, self, owed=owed)

    def _open_request(self, request: DecisionRequest) -> None:
        self._close_open()
        wire_id = self.session.next_wire_id()
        message = Timed(turn_message(
            self.game_id, wire_id, request.observation, request.legal, request.move_ms, request.bank_ms, self._names,
            request.events,
        ))
        self._open = _OpenRequest(request.request_id, wire_id, message)
        self._last_wire, self._last_answered = wire_id, False
        self._answer = None
        self._remember(request.request_id, wire_id)
        self.session.requests[wire_id] = self
        self._send_open()

    def _send_open(self) -> None:
        assert self._open is not None
        self._open.sent_on = self.session.connection
        self.session.send(self._open.message)

    def _remember(self, runner_id: int, wire_id: int) -> None:
        self._runner_ids[wire_id] = runner_id
        self._wire_ids[runner_id] = wire_id
        while len(self._runner_ids) > _REMEMBERED_REQUESTS:
            old_wire, old_runner = self._runner_ids.popitem(last=False)
            self._wire_ids.pop(old_runner, None)
            self.session.requests.pop(old_wire, None)

    def _close_open(self) -> None:
        self._open = None
        self._answer = None

    def _take_answer(self) -> SeatAnswer:
        answer, self._answer = self._answer, None
        self._open = None
        assert answer is not None
        return answer

    # ---- called in trio's context by the session and the hub

    def accept_answer(self, answer: pb.Answer, received_at: float) -> str:
        """Take an answer naming one of this seat's requests: ``"open"`` when it answers the open request
        (the first answer to it, bound to this game), ``"stale"`` when it is handed to the runner as stale
        (or dropped, beyond the few kept), ``""`` once the game is over (not taken)."""
        if answer.request_id == self._last_wire and answer.game_id == self.game_id and not self._last_answered:
            self._last_answered = True
            if self._released:  # the answer a finished game was owed: the bot is free for a new game
                self.hub.settle(self.session, self)
        if self._released:
            return ""
        open_request = self._open
        wire_id = answer.request_id
        if answer.game_id == self.game_id:
            runner_id = self._runner_ids.get(wire_id, 0)
        else:
            # Bound to another game (or to none): never this seat's answer, even with the open
            # request's id.  A negative id can match no runner request, and `notify` reads the
            # bot's own request id back from it.
            runner_id = -wire_id
        seat_answer = SeatAnswer(
            request_id=runner_id,
            action_index=answer.action_index,
            action_text=answer.action_text,
            received_at=received_at,
            bot_error=answer.bot_error[:MAX_BOT_ERROR],
            # When the open request was written (0.0 before that, e.g. a guessed id: the runner's own start).
            sent_at=(open_request.message.written_at or 0.0) if open_request is not None else 0.0,
        )
        if (open_request is not None and wire_id == open_request.wire_id and runner_id > 0
                and self._answer is None):
            self._answer = seat_answer
            taken = "open"
        else:
            self.stale_answers += 1
            if len(self._stale) >= _MAX_PENDING_STALE:
                return "stale"  # dropped: the runner has more than enough to notice already
            self._stale.append(seat_answer)
            taken = "stale"
        self._wake()
        return taken

    def on_disconnect(self) -> None:
        if self._reconnected.is_set():
            self._reconnected = trio.Event()
        self._wake()  # next_answer() sees no answer and raises SeatDisconnected

    def on_reconnect(self) -> None:
        """The bot resumed its session: repeat GameStarted, and the open request if still awaited.

        A runner that re-asks after a resume (with a new request id and the
        time left) gets its new request sent by `decide`; the old one is not
        repeated then, so the bot never sees two open requests of one seat.
        """
        if self._released:
            return
        if self._started is not None:
            self.session.send(self._started)
        if self._open is not None and self._answer is None and self._waiter is not None:
            self._send_open()
        self._reconnected.set()
