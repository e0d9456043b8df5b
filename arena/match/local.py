"""An in-process seat: an SDK-style bot object (``act(turn)``) playing without a network.

Used by tests, benchmarks and ``arena match --local``.  The bot sees exactly
the objects it would see over the wire: each request goes engine observation
→ `arena.messages` (the protobuf messages the server sends) → the SDK's
``from_pb`` constructors.  ``act`` runs in a worker thread so that a slow or
stuck bot is still cut off by the runner's deadline; calls for one seat never
overlap (a per-seat limiter), so a bot abandoned at a deadline finishes its
old call before it is given the next one, and that wait counts as thinking.
Given an ``output`` stream, what the bot's code prints (stdout and stderr)
goes there while `arena.match.bot_output.routed_output` is in place.
"""

from __future__ import annotations

import logging
import time
from contextlib import nullcontext
from typing import Any, Callable, TextIO

import trio

from arena.match.bot_output import bot_output
from arena.match.seat import DecisionRequest, GameEnd, GameStart, SeatAnswer
from arena import messages as convert
from mau_arena_sdk.decide import Decision, decide, error_text
from mau_arena_sdk.history import History
from mau_arena_sdk.turn import GameInfo, GameResult, Turn

log = logging.getLogger(__name__)


def describe_exit(code: Any) -> str:
    """A ``SystemExit`` code as the exit of a process would be told: status 3, or status 1 and the message."""
    if code is None:
        return "status 0"
    if isinstance(code, int):
        return f"status {code}"
    return f"status 1 ({code})"


class BotExited(BaseException):
    """An in-process bot's code called ``sys.exit()``: the bot is out, as a bot process that exits.

    A BaseException, as SystemExit is, so that the runner's handling of a seat's errors (a strike, the
    game goes on) does not catch it: it ends the match, which reports it in one line.
    """

    def __init__(self, name: str, code: Any) -> None:
        super().__init__(f"{name} exited with {describe_exit(code)}")
        self.name = name
        self.code = code


class LocalSeat:
    """A `arena.match.seat.Seat` around a bot object with ``act(turn)``.

    ``act`` may return an Action (the SDK's or the engine's), its text, or
    its index in ``turn.legal``.  It is asked through the SDK's own
    `mau_arena_sdk.decide.decide`, as the network client asks it: an
    exception or an illegal choice answers the first legal action and is
    counted as the seat's error (``Answer.bot_error``), so a bot gets the same
    result with ``arena match --local`` as over the network.  An exception in
    ``on_game_start`` is reported with the next answer, as the client does.
    A ``sys.exit()`` in the bot's code (``SystemExit``, which the SDK lets stop a
    bot process) is raised on as `BotExited`: the bot is out, as a process that exits.
    """

    def __init__(self, bot: Any, name: str | None = None, version: str | None = None,
                 *, clock: Callable[[], float] = time.monotonic, threaded: bool = True,
                 output: TextIO | None = None) -> None:
        self.bot = bot
        self.name = name or getattr(bot, "name", "") or type(bot).__name__
        self.version = version if version is not None else str(getattr(bot, "version", "") or "")
        self._clock = clock
        self.threaded = threaded
        self.output = output  # where the bot's prints go (None: wherever sys.stdout and sys.stderr do)
        self._limiter = trio.CapacityLimiter(1)
        self._players: tuple[str, ...] = ()
        self._info: GameInfo | None = None
        self._history = History()  # the game's public events, as the SDK client keeps them
        self._pending_error = ""  # on_game_start's failure, reported with the next answer

    async def _in_thread(self, function: Callable[..., Any], *args: Any) -> Any:
        def call() -> Any:
            try:
                with bot_output(self.output) if self.output is not None else nullcontext():
                    return function(*args)
            except SystemExit as exit_:
                raise BotExited(self.name, exit_.code) from None

        if not self.threaded:  # trusted, fast bots: no thread hop, but no cut-off either
            await trio.lowlevel.checkpoint()
            return call()
        return await trio.to_thread.run_sync(call, abandon_on_cancel=True, limiter=self._limiter)

    async def game_started(self, start: GameStart) -> None:
        self._players = tuple(start.players)
        self._history = History()
        self._info = GameInfo.from_pb(convert.game_started_to_pb(start))
        self._pending_error = ""
        hook = getattr(self.bot, "on_game_start", None)
        if hook is not None:
            self._pending_error = await self._in_thread(_guarded, "on_game_start", hook, self._info)

    async def decide(self, request: DecisionRequest) -> SeatAnswer:
        turn = Turn.from_pb(convert.turn_request_to_pb(
            request.game_id, request.request_id, request.observation, request.legal,
            request.move_ms, request.bank_ms, self._players, request.events,
        ), self._history)
        clock = self._clock

        def think() -> tuple[Decision, float]:
            decision = decide(self.bot, turn)
            return decision, clock()

        decision, received_at = await self._in_thread(think)
        bot_error, self._pending_error = decision.error or self._pending_error, ""
        text = str(request.legal[decision.index]) if request.legal else ""
        return SeatAnswer(request.request_id, decision.index, text, received_at, bot_error)

    async def next_answer(self, request: DecisionRequest) -> SeatAnswer:
        """An in-process bot answers each request exactly once: nothing more will come."""
        await trio.sleep_forever()
        raise AssertionError("unreachable")  # pragma: no cover

    async def game_ended(self, end: GameEnd) -> None:
        hook = getattr(self.bot, "on_game_end", None)
        if hook is None:
            return
        result = GameResult.from_pb(convert.game_ended_to_pb(end.outcome, end.game_id), seat=end.seat)
        info = self._info or GameInfo(end.game_id, end.outcome.ruleset, end.seat, self._players)
        await self._in_thread(_guarded, "on_game_end", hook, info, result)

    async def wait_reconnected(self, timeout_s: float) -> bool:
        """An in-process seat never disconnects."""
        return True


def _guarded(what: str, hook: Callable[..., Any], *args: Any) -> str:
    """Run a bot's hook; its failure as the text the SDK reports (empty when it ran cleanly)."""
    try:
        hook(*args)
    except Exception as exception:
        log.exception("%s() raised", what)
        return error_text(f"{what}() raised {type(exception).__name__}: {exception}")
    return ""
