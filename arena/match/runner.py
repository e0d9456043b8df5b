"""Plays one game between seats: the engine decides who is asked, the runner waits on them under the time model.

Why it is built this way:

* Only the engine's per-seat observation and legal list reach a seat
  (`DecisionRequest`), so no hidden card can leak through the runner.
* The runner waits; `arena.match.timekeeping` counts.  Every wait for a seat
  is a trio cancel scope with the decision's deadline (limit + bank, plus the
  seat's write credit), which fires a little after it (``late_grace_ms``) so
  that an answer stamped in time but delivered to this task late is still
  accepted; what each wait took is handed to the seat's `SeatClock`, which
  charges it, judges lateness by the answer's own stamps and counts strikes
  (the clock starts when the request reached the wire, the bank, the
  increment, the first move, the reconnect window: see that module).
* Time the arena process could not run is never a seat's: the server runs
  its games on `arena.match.stalls.ArenaClock`, and this runner judges
  everything on ``clock``, so a deadline in flight moves out by the stall.
  With ``stalls`` (the ledger behind the clock) the runner looks at the
  game's stalls (`GameStalls`) before each decision and after each wait: a
  stall longer than ``max_stall_ms`` (30 s) aborts the game, unrated, and a
  seat whose stream a stall dropped is waited for off its clock.
* Nothing a seat does (raise, hang, disconnect, send garbage) can end the
  game early or escape this function: it becomes a default action and a
  strike, and enough strikes forfeit the seat, which then plays defaults
  without being asked and ranks last.
* A seat's clock keeps running while it is disconnected: the runner waits
  for a resume only until the decision's deadline (or the end of the
  seat's ``reconnect_ms`` window, if that comes first), so over one game it
  waits on a seat at most `max_seat_wait_ms` (a seat that never answers in
  time is asked at most ``max_strikes`` decisions before it forfeits).  A
  game lasts at most the sum of this over its seats, plus the engine's own
  time and the courtesy calls (each bounded by ``COURTESY_TIMEOUT_S``; a
  remote seat's calls return at once).
* A result is final only once it is durable: the replay's result line is
  fsynced, then ``on_result(outcome)`` (the store's commit, awaited under
  a shield), then the replay is sealed (renamed) and only then are the
  seats told `GameEnd` (see `_conclude`).

The project README ("How it fits together", "The time model") has the time model in one paragraph.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import logging
import math
import os
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Mapping, Sequence

import trio

import arena.games as games
from arena.games import Action, ActionParseError, GameState
from arena.match.outcome import GameOutcome, SeatOutcome
from arena.match.seat import (
    DecisionRequest,
    GameEnd,
    GameStart,
    MalformedAnswer,
    Seat,
    SeatAnswer,
    SeatDisconnected,
    SeatNotice,
)
from arena.match.timecontrol import TimeControl
from arena.match.timekeeping import (
    DEFAULT_LATE_GRACE_MS,
    DEFAULT_MAX_STALL_MS,
    DEFAULT_WRITE_CREDIT_MS,
    DecisionClock,
    GameStalls,
    SeatClock,
    StalledTooLong,
    per_seat_time_controls,
)

log = logging.getLogger("arena.match")

#: Games longer than this are cut off as aborted: an engine bug must not hang a server.
DEFAULT_MAX_DECISIONS = 50_000
#: Bound on courtesy calls (game_started, game_ended, notify) so a stuck seat cannot stall a game.
COURTESY_TIMEOUT_S = 2.0
#: The abort reason of a game whose result the store refused (``on_result`` raised).
RESULT_NOT_STORED = "the result could not be stored (server error); the game is aborted"


#: Recorder methods that fsync or rename: run in a worker thread when they are plain functions.
_CLOSING = frozenset({"finish", "abort", "write_result", "write_abort", "seal"})

# Request ids are unique across every game in the process, so a seat that
# serves several games can never mistake one game's request for another's.
_request_ids = itertools.count(1)


class GameStop:
    """A switch that ends games early as "aborted" (e.g. on server shutdown).

    Pass one to `play_game(stop=...)` (several games may share one) and call
    `abort(reason)` from trio code: the games stop waiting at once, tell
    their seats, record the abort and return an aborted `GameOutcome`.
    """

    def __init__(self) -> None:
        self.reason: str | None = None
        self._scopes: set[trio.CancelScope] = set()

    @property
    def aborted(self) -> bool:
        return self.reason is not None

    def abort(self, reason: str = "server shutting down") -> None:
        if self.reason is None:
            self.reason = reason
        for scope in list(self._scopes):
            scope.cancel()

    @contextlib.contextmanager
    def covering(self, scope: trio.CancelScope) -> Iterator[None]:
        """While inside, `abort` cancels `scope` (at once if this switch was thrown already)."""
        self._scopes.add(scope)
        if self.aborted:
            scope.cancel()
        try:
            yield
        finally:
            self._scopes.discard(scope)


class Resignations:
    """Seats that lose their game at once: e.g. a bot whose process died (``arena match --recover``).

    Pass one to `play_game(resignations=...)` (games may share one) and call
    `resign(game_id, name)`: from its next decision on, that seat of that
    game is forfeited (it plays defaults and ranks after every other seat),
    and it is forfeited at the end even if it is not asked again.  Keyed by
    game, so the same bot's other games, e.g. after a restart, are untouched.
    """

    def __init__(self) -> None:
        self._seats: set[tuple[str, str]] = set()
        self._waits: dict[tuple[str, str], set[trio.CancelScope]] = {}

    def resign(self, game_id: str, name: str) -> None:
        """Call from trio code: a decision that seat is being asked for ends at once."""
        self._seats.add((game_id, name))
        for scope in self._waits.get((game_id, name), ()):
            scope.cancel()

    @contextlib.contextmanager
    def watch(self, game_id: str, name: str) -> Iterator[trio.CancelScope]:
        """A cancel scope around asking that seat, cancelled when it resigns (at once if it already has)."""
        key = (game_id, name)
        with trio.CancelScope() as scope:
            if key in self._seats:
                scope.cancel()
            self._waits.setdefault(key, set()).add(scope)
            try:
                yield scope
            finally:
                waits = self._waits.get(key, set())
                waits.discard(scope)
                if not waits:
                    self._waits.pop(key, None)

    def resigned(self, game_id: str, name: str) -> bool:
        return (game_id, name) in self._seats

    def forget(self, game_id: str) -> None:
        """Drop a finished game's entries."""
        self._seats = {key for key in self._seats if key[0] != game_id}


@dataclass
class _SeatBook:
    """The runner's running tally for one seat."""

    outcome: SeatOutcome
    clock: SeatClock  # its time: bank, charges, strikes, absences (writes into ``outcome``)
    events_sent: int = 0  # how many of the game's public events this seat's requests have carried


@dataclass
class _Verdict:
    """What became of one decision."""

    action: Action
    think_ms: int = 0
    timeout: bool = False
    strike: str | None = None  # the reason code, or None
    detail: str = ""
    bot_error: str = ""  # the bot's own report that its code failed on this decision (no strike)


@dataclass
class _Reply:
    """What came back from one wait on a seat."""

    kind: str  # "answer", "timeout", "disconnected", "malformed", "error"
    answer: Any = None
    detail: str = ""
    received_at: float = 0.0
    new_absence: bool = False  # "disconnected" after the request reached the seat (`SeatDisconnected`)


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


async def _maybe_await(value: Any) -> Any:
    if value is None:  # a plain function's usual result: skip the isawaitable protocol check
        return None
    if inspect.isawaitable(value):
        return await value
    return value


async def play_game(
    ruleset: str,
    options: Mapping[str, Any] | None,
    seed: int,
    seats: Sequence[Seat],
    time_control: TimeControl | Sequence[TimeControl],
    *,
    game_id: str | None = None,
    recorder: Any = None,
    on_event: Callable[..., Any] | None = None,
    on_result: Callable[[GameOutcome], Any] | None = None,
    stop: GameStop | None = None,
    resignations: Resignations | None = None,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    late_grace_ms: int = DEFAULT_LATE_GRACE_MS,
    write_credit_ms: int = DEFAULT_WRITE_CREDIT_MS,
    clock: Callable[[], float] = time.monotonic,
    prelude: Sequence[Action | str] = (),
    stalls: Any = None,
    max_stall_ms: int = DEFAULT_MAX_STALL_MS,
) -> GameOutcome:
    """Play one game and return its outcome; never raises because of a seat.

    ``time_control`` is one `TimeControl` for every seat, or a sequence of
    one per seat (e.g. `arena match --tc`): each seat's clock, bank, strikes
    and reconnection window follow its own.  Bad ``ruleset``/``options``/``seed``
    (or a sequence of the wrong length) raise before
    any seat is contacted.  ``recorder`` gets ``decision(seat, action_text,
    think_ms, timeout, strike, state_hash, bot_error)`` after every applied decision (``state_hash``
    None unless the game is over when it has a ``hash_due()`` that says False) and
    ``finish(outcome_dict)`` or ``abort(reason)`` at the end (sync or async
    methods both work).  ``on_event(index, seat, action_text, state)`` is
    called with index 0 and seat -1 for the start position, then after every
    decision (do not mutate ``state``).  ``on_result(outcome)`` (sync or
    async) makes the result final, e.g. a store's commit: it is awaited
    under a shield after the replay's result line is fsynced and before the
    replay is sealed and the seats are told; if it raises, the game is
    aborted instead (`RESULT_NOT_STORED`; the error is logged), ``on_result``
    is called once more with that aborted outcome, and the seats are told
    it was aborted.  ``write_credit_ms``: how much of the delay between
    making a request and its write to the wire a seat with
    ``clock_starts_on_write`` is spared (`arena.match.timekeeping.clock_start`).
    ``clock`` must agree with the seats' ``received_at`` and ``sent_at`` stamps (``trio.current_time`` under a MockClock).
    ``stalls``: the `arena.match.stalls.StallLedger` whose stalls ``clock`` leaves out (the server's
    ``Handle.stalls``), or None: read for `GameOutcome.stalled_ms`, and a stall longer than
    ``max_stall_ms`` (0: none) aborts the game (`arena.match.timekeeping.GameStalls`).
    If the calling task is cancelled, the abort is recorded and the
    cancellation propagates.

    ``prelude``: decisions already made (a logged game's first N, for
    `arena replay --bot`), applied before any seat is asked; each must be
    legal in turn (ValueError otherwise).  They count toward the game's
    decisions and their public events reach every seat with its first
    request, so a bot sees the whole history; the recorder and ``on_event``
    see only what is played after them.
    """
    controls = per_seat_time_controls(time_control, len(seats))
    state = games.new_game(ruleset, len(seats), seed, **dict(options or {}))
    game_id = game_id or uuid.uuid4().hex[:16]
    game = _Game(
        ruleset=ruleset,
        seed=seed,
        state=state,
        seats=list(seats),
        time_controls=controls,
        game_id=game_id,
        recorder=recorder,
        on_event=on_event,
        on_result=on_result,
        max_decisions=max_decisions,
        resignations=resignations,
        late_grace_s=late_grace_ms / 1000,
        write_credit_s=max(0, write_credit_ms) / 1000,
        clock=clock,
        stalls=GameStalls(stalls, max_stall_ms / 1000 if max_stall_ms > 0 else math.inf, game_id),
    )
    for number, logged in enumerate(prelude, 1):
        action = logged if isinstance(logged, Action) else Action.parse(str(logged))
        if state.is_over or action not in state.legal_actions():
            raise ValueError(f"prelude decision {number}: {logged} is not legal there")
        state.apply(action)
        game.decisions += 1
    return await game.run(stop)


@dataclass
class _Game:
    ruleset: str
    seed: int
    state: GameState
    seats: list[Seat]
    time_controls: list[TimeControl]  # one per seat
    game_id: str
    recorder: Any
    on_event: Callable[..., Any] | None
    on_result: Callable[[GameOutcome], Any] | None
    max_decisions: int
    resignations: Resignations | None
    late_grace_s: float
    write_credit_s: float
    clock: Callable[[], float]
    stalls: GameStalls  # the stalls this game went through (none without a ledger)
    books: list[_SeatBook] = field(default_factory=list)
    decisions: int = 0
    started_at: str = ""
    _two_phase: bool = False  # the recorder is closed around the commit (write_result, on_result, seal)
    _result_written: bool = False
    _replay_path: str | None = None

    def __post_init__(self) -> None:
        try:  # every request carries the public events since the seat's previous one
            self.state.record_events()
        except NotImplementedError:
            pass  # an engine without public events: requests carry none
        self.books = []
        for i, seat in enumerate(self.seats):
            outcome = SeatOutcome(seat=i, name=str(getattr(seat, "name", f"seat{i}")))
            credit_s = self.write_credit_s if getattr(seat, "clock_starts_on_write", False) else 0.0
            self.books.append(_SeatBook(outcome, SeatClock(self.time_controls[i], outcome, credit_s)))

    # ------------------------------------------------------------------ the game

    async def run(self, stop: GameStop | None) -> GameOutcome:
        self.started_at = _utc_now()
        abort_reason: str | None = None
        played = False
        try:
            with trio.CancelScope() as game_scope:
                with stop.covering(game_scope) if stop is not None else contextlib.nullcontext():
                    await self._tell_started()
                    await self._emit_event(0, -1, "")
                    abort_reason = await self._play()
            if game_scope.cancelled_caught:
                abort_reason = (stop.reason if stop is not None else None) or "stopped"
            played = True
        finally:
            if not played:  # cancelled from outside (or a runner bug): record the abort, then propagate
                outcome = self._outcome("aborted", "cancelled: the server is shutting down")
                with trio.CancelScope(shield=True):
                    await self._conclude(outcome)
        outcome = self._outcome("aborted", abort_reason) if abort_reason else self._outcome("finished", "")
        return await self._conclude(outcome)

    async def _play(self) -> str | None:
        """The decision loop; returns an abort reason, or None when the engine says the game is over."""
        state = self.state
        try:
            while not state.is_over:
                if self.decisions >= self.max_decisions:
                    return f"no result after {self.max_decisions} decisions (max_decisions); the engine may loop"
                seat_index = state.current
                self.stalls.look()
                if seat_index is None or not 0 <= seat_index < len(self.seats):
                    return f"engine error: current seat is {seat_index!r} while the game is not over"
                book = self.books[seat_index]
                self._take_resignations()
                if book.outcome.forfeited:
                    verdict = _Verdict(state.default_action())
                else:
                    verdict = await self._decide(seat_index)
                state.apply(verdict.action)
                self.decisions += 1
                if self.recorder is not None:
                    recorded = self._record(seat_index, verdict)
                    if recorded is not None:  # an async recorder's ``decision``: awaited here
                        await self._await_recorded(recorded)
                await self._emit_event(self.decisions, seat_index, state.public_text(verdict.action))
        except StalledTooLong as stalled:
            return str(stalled)
        except Exception as error:  # an engine bug: end this game, keep the server
            log.exception("game %s: engine failed after %d decisions", self.game_id, self.decisions)
            return f"engine error after {self.decisions} decisions: {type(error).__name__}: {error}"
        return None

    # ------------------------------------------------------------------ one decision

    async def _decide(self, seat_index: int) -> _Verdict:
        """Ask one seat for one decision; a resignation meanwhile ends the wait at once (default, no strike)."""
        if self.resignations is None:
            return await self._ask(seat_index)
        with self.resignations.watch(self.game_id, self.books[seat_index].outcome.name):
            return await self._ask(seat_index)
        self._take_resignations()
        return _Verdict(self.state.default_action())

    async def _ask(self, seat_index: int) -> _Verdict:
        """Ask one seat for one decision, waiting under its clock (`SeatClock`), and judge the reply."""
        state, seat, book = self.state, self.seats[seat_index], self.books[seat_index]
        seat_clock = book.clock
        control = seat_clock.control
        legal = tuple(state.legal_actions())
        observation = state.observation(seat_index)
        log = state.events
        events: tuple = ()
        if log is not None:
            events = tuple(log[book.events_sent:])
            book.events_sent = len(log)
        turn = seat_clock.next_decision()  # it runs while the seat is disconnected too
        book.outcome.decisions += 1
        while True:
            request = DecisionRequest(
                game_id=self.game_id,
                request_id=next(_request_ids),
                seat=seat_index,
                observation=observation,
                legal=legal,
                move_ms=turn.move_ms_left(),
                bank_ms=turn.bank_ms_left(),
                events=events,
            )
            sent_at = self.clock()  # made; a seat that stamps its writes is timed from later (`SeatClock.started`)
            deadline = turn.deadline(sent_at)
            reply = await self._collect(seat, request, deadline + seat_clock.write_credit_s)
            self.stalls.look()
            if reply.kind == "disconnected":
                # Time away is the seat's own: waiting for it to come back never goes past the
                # decision's deadline, so dropping and resuming buys nothing a hang would not.
                now = self.clock()
                seat_clock.went_away(now, reply.new_absence)
                excused_until = self.stalls.excused_until(getattr(seat, "detached_at", None), control.reconnect_ms, now)
                if excused_until is not None and not seat_clock.gone and turn.may_reconnect:
                    # Away right after the arena could not run: its stream most likely dropped because this
                    # host stopped answering it (a client's keepalive gives up on a silent host, ~15 s for
                    # the SDK's).  Its reconnect window starts after the stall (as long as the stall, up to
                    # STALL_RECONNECT_MS), and its clock does not run while it comes back (`_excused_reconnect`).
                    turn.reconnects += 1
                    turn.spend(sent_at, now)
                    verdict = await self._excused_reconnect(seat, request, turn, excused_until)
                    if verdict is None:
                        continue
                    return verdict
                window_end = seat_clock.reconnect_window_end()
                if seat_clock.gone or now >= window_end or not turn.may_reconnect:
                    seat_clock.gone = seat_clock.gone or now >= window_end
                    turn.spend(sent_at, now)
                    detail = "still disconnected" if seat_clock.gone else "disconnected again"
                    return self._strike(request, turn, "disconnected", detail)
                turn.reconnects += 1
                back = await self._wait_reconnected(seat, min(window_end, deadline) - now)
                self.stalls.look()
                turn.spend(sent_at, self.clock())
                if back:
                    # Back, even when its clock ran out meanwhile: a later drop is a new absence
                    # with its own reconnect window, not the rest of this one.
                    seat_clock.back()
                    if not turn.out_of_time:
                        continue
                if not back and self.clock() >= window_end:
                    seat_clock.gone = True
                    detail = f"disconnected and not back within {control.reconnect_ms} ms"
                else:
                    detail = (f"the clock ran out while disconnected "
                              f"({turn.limit_ms} ms + {seat_clock.bank_ms:.0f} ms bank)")
                return self._strike(request, turn, "disconnected", detail)
            seat_clock.present()
            start = seat_clock.started(sent_at, reply.answer if reply.kind == "answer" else None)
            if reply.kind == "timeout" or (reply.kind != "error" and turn.late(start, reply.received_at)):
                verdict = self._strike(
                    request, turn, "timeout",
                    f"no answer within {turn.limit_ms} ms + {seat_clock.bank_ms:.0f} ms bank",
                )
                await self._notify(seat, request, verdict)
                return verdict
            turn.spend(start, reply.received_at)
            if reply.kind in ("malformed", "error"):
                verdict = self._strike(request, turn, reply.kind, reply.detail)
                await self._notify(seat, request, verdict)
                return verdict
            problem, action = _judge(reply.answer, legal)
            if problem:
                kind, detail = problem
                verdict = self._strike(request, turn, kind, detail)
                await self._notify(seat, request, verdict)
                return verdict
            think_ms = seat_clock.answered(turn)
            bot_error = reply.answer.bot_error
            if bot_error:
                book.outcome.errors += 1
            return _Verdict(action, think_ms, bot_error=bot_error)

    async def _collect(self, seat: Seat, request: DecisionRequest, deadline: float) -> _Reply:
        """Wait for the answer to ``request`` until a little after ``deadline``; drop stale answers."""
        wait_s = max(0.0, deadline - self.clock()) + self.late_grace_s
        book = self.books[request.seat]
        # What trio.move_on_after builds, without its generator-based context manager.
        with trio.CancelScope(deadline=trio.current_time() + wait_s):
            try:
                answer = await seat.decide(request)
                while isinstance(answer, SeatAnswer) and answer.request_id != request.request_id:
                    book.outcome.stale += 1
                    await self._send_notice(
                        seat, SeatNotice(self.game_id, answer.request_id, "stale",
                                         f"answer to request {answer.request_id} dropped; "
                                         f"the open request is {request.request_id}"),
                    )
                    await trio.lowlevel.checkpoint()  # a seat spamming stale answers still meets the deadline
                    keep_waiting = getattr(seat, "next_answer", None) or seat.decide
                    answer = await keep_waiting(request)
            except SeatDisconnected as error:
                return _Reply("disconnected", new_absence=error.after_delivery)
            except MalformedAnswer as error:
                return _Reply("malformed", detail=str(error) or "unreadable answer", received_at=self.clock())
            except Exception as error:
                log.warning("game %s: seat %d (%s) raised %s: %s", self.game_id, request.seat,
                            book.outcome.name, type(error).__name__, error)
                return _Reply("error", detail=f"the seat raised {type(error).__name__}: {error}",
                              received_at=self.clock())
            stamp = getattr(answer, "received_at", 0.0) or self.clock()
            return _Reply("answer", answer=answer, received_at=stamp)
        # Cut off: let every other wait that trio cut off in this same pass end too before this game
        # goes on (strike, notice, next turn: a few hundred us).  Games whose deadlines coincide would
        # otherwise each be cut off only after the others' follow-up work (at 8 and 64 late games,
        # overshoot p99 2.1-6.9 ms against 0.8-3.1 ms with this pass, six same-run pairs each).
        await trio.lowlevel.cancel_shielded_checkpoint()
        return _Reply("timeout")

    def _strike(self, request: DecisionRequest, turn: DecisionClock, reason: str, detail: str) -> _Verdict:
        """The engine's default for a decision that ends in a strike, charged and counted by the seat's clock."""
        # The default is asked for only here: the state has not moved while the seat was asked,
        # and most decisions never need it (3 us of engine per moumou decision).
        default = self.state.default_action()
        book = self.books[request.seat]
        think_ms = book.clock.strike(turn, reason)
        log.info("game %s: seat %d (%s) strike %d for %s: %s; default %s", self.game_id, request.seat,
                 book.outcome.name, book.outcome.strikes, reason, detail, default)
        return _Verdict(default, think_ms, timeout=reason == "timeout", strike=reason, detail=detail)

    async def _notify(self, seat: Seat, request: DecisionRequest, verdict: _Verdict) -> None:
        book = self.books[request.seat]
        await self._send_notice(seat, SeatNotice(
            self.game_id, request.request_id, verdict.strike or "error",
            f"{verdict.detail}; strike {book.outcome.strikes} of {self.time_controls[request.seat].max_strikes}, "
            f"'{verdict.action}' applied",
        ))
        if book.outcome.forfeited:
            await self._send_notice(seat, SeatNotice(
                self.game_id, request.request_id, "forfeit",
                f"{book.outcome.strikes} strikes: the game is forfeited; default actions are played for you",
            ))

    async def _excused_reconnect(self, seat: Seat, request: DecisionRequest, turn: DecisionClock,
                                 until: float) -> _Verdict | None:
        """Wait for a seat that went away in the arena's stall, until ``until``, off its clock: None when it is
        back (ask it again with the time it had left), else the strike of a seat not back within its window."""
        seat_clock = self.books[request.seat].clock
        back = await self._wait_reconnected(seat, until - self.clock())
        self.stalls.look()
        if back:
            seat_clock.back()
            return None
        seat_clock.gone = True
        window_ms = round((until - self.stalls.last_stall_at) * 1000)
        return self._strike(request, turn, "disconnected",
                            f"disconnected in the arena's stall and not back within {window_ms} ms after it")

    async def _wait_reconnected(self, seat: Seat, window_s: float) -> bool:
        window_s = max(0.0, window_s)
        with trio.move_on_after(window_s + self.late_grace_s):
            try:
                return bool(await seat.wait_reconnected(window_s))
            except Exception as error:
                log.warning("game %s: wait_reconnected raised %s: %s", self.game_id, type(error).__name__, error)
        return False

    # ------------------------------------------------------------------ courtesy calls and records

    async def _send_notice(self, seat: Seat, notice: SeatNotice) -> None:
        notify = getattr(seat, "notify", None)
        if notify is not None:
            await self._courtesy(notify, notice)

    async def _courtesy(self, method: Callable[..., Any], *args: Any) -> None:
        """Call a seat method whose failure must not matter: bounded in time, errors logged."""
        with trio.move_on_after(COURTESY_TIMEOUT_S):
            try:
                await method(*args)
            except SeatDisconnected:
                pass
            except Exception as error:
                log.warning("game %s: %s raised %s: %s", self.game_id, getattr(method, "__name__", method),
                            type(error).__name__, error)

    async def _tell_started(self) -> None:
        players = tuple(book.outcome.name for book in self.books)
        async with trio.open_nursery() as nursery:
            for index, seat in enumerate(self.seats):
                start = GameStart(self.game_id, self.ruleset, dict(self.state.options), index, players,
                                  self.time_controls[index])
                nursery.start_soon(self._courtesy, seat.game_started, start)

    async def _tell_ended(self, outcome: GameOutcome) -> None:
        async with trio.open_nursery() as nursery:
            for index, seat in enumerate(self.seats):
                nursery.start_soon(self._courtesy, seat.game_ended, GameEnd(self.game_id, index, outcome))

    def _record(self, seat_index: int, verdict: _Verdict) -> Any:
        """Give the recorder the decision just applied, called without a coroutine (this runs after every
        decision); a recorder that fails is logged and dropped (no further replay lines for this game).
        Returns what ``decision`` returned: an async recorder's coroutine, which the caller awaits
        (`_await_recorded`).  ``hash_due``, if the recorder has one, is a plain function: a recorder
        with it keeps the state hash at checkpoints only (the ladder's replays, see
        arena/replay/README.md), and the game's last decision always has one; without it every line has
        the hash (the state hash costs a JSON dump and a digest: it is computed only for a recorder)."""
        recorder = self.recorder
        state = self.state
        due = getattr(recorder, "hash_due", None)
        digest = state.state_hash() if due is None or state.is_over or due() else None  # outside the try: an engine bug
        try:
            return recorder.decision(
                seat_index, str(verdict.action), verdict.think_ms, verdict.timeout, verdict.strike is not None,
                digest, verdict.bot_error,
            )
        except Exception:
            log.exception("game %s: recorder.decision failed; no further replay lines for this game", self.game_id)
            self.recorder = None
            return None

    async def _await_recorded(self, value: Any) -> None:
        """The rest of `_record` when ``decision`` returned an awaitable."""
        try:
            await _maybe_await(value)
        except Exception:
            log.exception("game %s: recorder.decision failed; no further replay lines for this game", self.game_id)
            self.recorder = None

    async def _call_recorder(self, method: str, *args: Any) -> Any:
        """A failing replay writer is logged and dropped: losing a replay beats losing the game."""
        if self.recorder is None:
            return None
        function = getattr(self.recorder, method)
        try:
            if method in _CLOSING and not inspect.iscoroutinefunction(function):
                # closing fsyncs the file: keep that off the thread every game's deadlines run on
                return await trio.to_thread.run_sync(function, *args)
            return await _maybe_await(function(*args))
        except Exception:
            log.exception("game %s: recorder.%s failed; no further replay lines for this game", self.game_id, method)
            self.recorder = None

    async def _emit_event(self, index: int, seat_index: int, action_text: str) -> None:
        if self.on_event is None:
            return
        try:
            await _maybe_await(self.on_event(index, seat_index, action_text, self.state))
        except Exception:
            log.exception("game %s: on_event failed; spectators of this game get no more events", self.game_id)
            self.on_event = None

    async def _conclude(self, outcome: GameOutcome) -> GameOutcome:
        """Make the result durable, then tell: result line fsynced, `on_result` (the commit), seal, GameEnd.

        Nothing is told as finished before the commit returned: a crash at
        any point leaves either an uncommitted result (aborted at the next
        start; no seat was told) or a committed one whose ``.part`` replay
        already holds the result line (renamed at the next start).
        """
        with trio.CancelScope(shield=True):  # a shutdown waits for this part: it is a few fsyncs and a commit
            outcome.replay_path = await self._write_result(outcome)
            if not await self._commit(outcome) and outcome.status == "finished":
                # The reason reaches the bots: the error itself (paths, database details) stays in the log.
                outcome = self._outcome("aborted", RESULT_NOT_STORED)
                outcome.replay_path = await self._write_result(outcome)  # replaces the uncommitted result line
                await self._commit(outcome)
            if self._two_phase and self.recorder is not None:
                await self._call_recorder("seal")  # if this fails, the committed .part is renamed at the next start
        await self._tell_ended(outcome)
        return outcome

    async def _write_result(self, outcome: GameOutcome) -> str | None:
        """Write the result line (fsynced) and return where the replay will be once sealed (None: no replay).

        With an ``on_result``, a recorder with ``write_result``/``write_abort``/
        ``seal`` is closed in two steps around the commit; otherwise it is
        closed at once with ``finish``/``abort`` (a result then cannot be
        replaced afterwards).
        """
        recorder = self.recorder
        if recorder is None:
            return None
        if self._result_written and not self._two_phase:
            return self._replay_path
        # Without a commit to wait for, one step (one worker-thread hop) is enough.
        self._two_phase = self.on_result is not None and all(
            hasattr(recorder, name) for name in ("write_result", "write_abort", "seal"))
        if outcome.status == "finished":
            method = "write_result" if self._two_phase else "finish"
            closed_at = await self._call_recorder(method, _finish_record(outcome))
        else:
            method = "write_abort" if self._two_phase else "abort"
            closed_at = await self._call_recorder(method, outcome.reason)
        self._result_written = True
        if self.recorder is None:  # the writer failed: no replay
            self._replay_path = None
        elif not self._two_phase and isinstance(closed_at, (str, os.PathLike)):
            self._replay_path = str(closed_at)
        else:
            path = getattr(recorder, "path", None)
            self._replay_path = str(path) if path is not None else None
        return self._replay_path

    async def _commit(self, outcome: GameOutcome) -> bool:
        """Await ``on_result(outcome)`` (shielded by the caller: a shutdown must not cut a commit in half).

        False if it raised: then the result is not final.
        """
        if self.on_result is None:
            return True
        try:
            await _maybe_await(self.on_result(outcome))
        except Exception as error:
            log.error("game %s: the %s result could not be stored (%s: %s); the seats are told it was aborted",
                      self.game_id, outcome.status, type(error).__name__, error)
            return False
        return True

    def _take_resignations(self) -> None:
        if self.resignations is None:
            return
        for book in self.books:
            if not book.outcome.forfeited and self.resignations.resigned(self.game_id, book.outcome.name):
                book.outcome.forfeited = True
                book.outcome.strike_reasons.append("resigned")
                log.info("game %s: %s resigned; it forfeits the game", self.game_id, book.outcome.name)

    def _outcome(self, status: str, reason: str) -> GameOutcome:
        self._take_resignations()
        with contextlib.suppress(StalledTooLong):  # the game is over: only the note is wanted
            self.stalls.look()
        if self.stalls.stalled_s:
            log.info("game %s: the arena could not run for %.0f ms of it; the seats were not charged for that",
                     self.game_id, self.stalls.stalled_s * 1000)
        seats = [book.outcome for book in self.books]
        if status != "finished":  # an abort after a refused result must not carry its placements
            for seat in seats:
                seat.placement, seat.points = 0, 0
        if status == "finished":
            result = self.state.result()
            for seat, placement in zip(seats, _placements_with_forfeits(result.placements, seats)):
                seat.placement = placement
            for seat, points in zip(seats, result.points):
                seat.points = int(points)
            reason = result.reason or reason
        return GameOutcome(
            game_id=self.game_id,
            ruleset=self.ruleset,
            options=dict(self.state.options),
            seed=self.seed,
            status=status,
            seats=seats,
            decisions=self.decisions,
            reason=reason,
            started_at=self.started_at,
            ended_at=_utc_now(),
            stalled_ms=self.stalls.stalled_ms,
        )


def _judge(answer: Any, legal: Sequence[Action]) -> tuple[tuple[str, str] | None, Action | None]:
    """Check an in-time answer: ((kind, detail), None) for a bad one, (None, action) for a good one."""
    if not isinstance(answer, SeatAnswer):
        return ("malformed", f"not an answer: {type(answer).__name__}"), None
    index, text = answer.action_index, answer.action_text
    if not isinstance(index, int) or isinstance(index, bool) or not isinstance(text, str):
        return ("malformed", f"an answer needs an integer index and a text, got {index!r} and {text!r}"), None
    if not 0 <= index < len(legal):
        return ("illegal", f"index {index} is out of range: there are {len(legal)} legal actions"), None
    expected = legal[index]
    if text == str(expected) or text == "":  # the usual answer: the arena's own text; or the index alone
        return None, expected
    try:
        action = Action.parse(text)
    except ActionParseError as error:
        return ("malformed", f"unreadable action text: {error}"), None
    if action != expected:
        return ("illegal", f"text {text!r} disagrees with legal[{index}] = '{legal[index]}'"), None
    return None, action


def _placements_with_forfeits(placements: Sequence[int], seats: Sequence[SeatOutcome]) -> list[int]:
    """Forfeited seats rank after every other seat; among themselves, by the engine's placement."""
    keys = [(seat.forfeited, placement) for seat, placement in zip(seats, placements)]
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def _finish_record(outcome: GameOutcome) -> dict[str, Any]:
    """The outcome as the replay's result line wants it: the full outcome plus flat placements/points."""
    record = outcome.to_dict()
    record["placements"] = [seat.placement for seat in outcome.seats]
    record["points"] = [seat.points for seat in outcome.seats]
    return record
