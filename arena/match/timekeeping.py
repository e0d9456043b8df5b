"""Time accounting for one game: what each seat's clock is charged, when it has run out, what a stall excuses.

`TimeControl` (`arena.match.timecontrol`) states the rules as a value a game is configured with; this module
applies them, per seat and decision, for the match runner (`arena.match.runner`).  The runner does the waiting
(cancel scopes, the seats' calls) and hands the times it saw to the objects here, which only count: nothing here
awaits, reads a seat's socket or a clock, so each rule can be tested with plain numbers
(tests/match/test_timekeeping.py) and the runner stays the one place that talks to seats.

* `SeatClock`: one seat's clock over a game, its bank, its first-move allowance, its absences, and the charges
  and strikes it writes into the seat's tally (`SeatOutcome`).  `SeatClock.next_decision` starts a
  `DecisionClock`: the decision's limit (``move_ms``, plus ``first_move_ms`` on the seat's first), the bank it may
  draw on, and what the seat has spent of both so far.
* Lateness is judged by the answer's arrival stamp (`SeatAnswer.received_at`, taken by whoever read it), not by
  when the runner got to it (`DecisionClock.late`): the runner waits a little past the deadline
  (``late_grace_ms``) so that an answer stamped in time but delivered late is still accepted.
* A seat's clock starts when its request reaches the wire, not when the runner made it (as cutechess starts it
  when the command is written): a seat with ``clock_starts_on_write`` (`arena.server.seat.RemoteSeat`) reports
  with each answer when the stream's writer handed the request to the transport (`SeatAnswer.sent_at`), and the
  seat is charged from there (`clock_start`), so a server that is slow to write (a busy loop, a flood of other
  clients) never costs the bot its time.  The credit is bounded: the clock starts at the latest
  ``write_credit_ms`` (`DEFAULT_WRITE_CREDIT_MS`, 100 ms) after the request was made, whether or not it was
  written by then, so a request that never reaches the wire still ends in a timeout strike.  Seats without it
  (the in-process seats of ``arena match --local``) are charged from the moment the request is made.
* An accepted answer draws its overrun of the limit from the bank and adds ``increment_ms`` (`SeatClock.answered`);
  a timeout spends the decision's whole budget, so the bank is empty afterwards, and earns nothing; any strike
  (`SeatClock.strike`) charges what the decision took and counts toward ``max_strikes``, which forfeit the game.
* A seat's clock keeps running while it is disconnected (`DecisionClock.spend` over every wait): it may resume
  within ``reconnect_ms`` of going away (`SeatClock.went_away`, `SeatClock.reconnect_window_end`), at most
  `MAX_RECONNECTS_PER_DECISION` times a decision, and the runner waits for it only until the decision's deadline,
  so dropping and resuming buys no time that hanging would not.  Hence the bound `max_seat_wait_ms`.
* Time the arena process could not run is never a seat's: the server runs its games on
  `arena.match.stalls.ArenaClock` (real time without the stalls a watchdog thread saw: a SIGSTOP, a paused VM, a
  swap storm, the GIL held), and the runner judges everything on that clock, so a deadline in flight moves out by
  the stall and no arithmetic is needed here for it.  (At most ``STALL_AFTER_S``, 250 ms, of each stall is still
  charged; see that module.)  `GameStalls` reads the ledger behind the clock at each of the runner's looks: it
  notes the stall time the game went through (`GameOutcome.stalled_ms`), and a stall longer than ``max_stall_ms``
  (`DEFAULT_MAX_STALL_MS`, 30 s) between two looks ends the game, unrated (`StalledTooLong`): by then the bots'
  clients may have given up reconnecting (the SDK's keepalive drops a silent stream after ~15 s, then it tries 8
  times with backoff), so a result would say who outlasted the host's outage, not who played better.
* A stall can also drop a stream (a client's keepalive gives up on a silent host).  Such a seat comes back off its
  clock (`GameStalls.excused_until`), but only one the stall most likely dropped: a single stall long enough to
  drop a stream (`STALL_DROPS_STREAM_S`), and the end of the stream seen by the arena in it or right after it
  (`STALL_DROP_SEEN_S`, on the games' clock, which the stall does not move; `BotSession.detached_at`).  A seat
  that leaves before or later, or after a shorter stall, gets its usual reconnect window with its clock running,
  so that a bot cannot buy thinking time by leaving around a stall it noticed; and the time excused is at most
  the stall's own length (up to `STALL_RECONNECT_MS`, or the seat's ``reconnect_ms`` if longer).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from arena.match.outcome import SeatOutcome
from arena.match.timecontrol import TimeControl

__all__ = [
    "DEFAULT_LATE_GRACE_MS", "DEFAULT_MAX_STALL_MS", "DEFAULT_WRITE_CREDIT_MS", "MAX_RECONNECTS_PER_DECISION",
    "STALL_DROPS_STREAM_S", "STALL_DROP_SEEN_S", "STALL_RECONNECT_MS",
    "DecisionClock", "GameStalls", "SeatClock", "StalledTooLong",
    "clock_start", "max_seat_wait_ms", "per_seat_time_controls",
]

log = logging.getLogger("arena.match")

#: How long the runner waits past a deadline for an answer stamped before it.
DEFAULT_LATE_GRACE_MS = 50
#: The most write delay (request made -> handed to the transport) a seat's clock is spared, per request.
DEFAULT_WRITE_CREDIT_MS = 100
#: Reconnections allowed within one decision before the seat is struck anyway.
MAX_RECONNECTS_PER_DECISION = 3
#: A stall of the arena process longer than this (within one wait) aborts the game, unrated (see the module).
DEFAULT_MAX_STALL_MS = 30_000
#: A seat whose stream ended in a stall (`GameStalls.dropped_in_stall`) has up to this long after it (its
#: ``reconnect_ms`` if longer; never more than the stall lasted) to come back, off its clock: a client that retried
#: in vain while the host was stopped may be in a backoff of up to 8 s (the SDK's cap) when the host resumes.
STALL_RECONNECT_MS = 10_000
#: Only one stall this long can have dropped a stream (keepalives give up after seconds of silence, the SDK's after
#: ~15 s; several short gaps are no long one), and only a drop the arena saw in it or this soon after it (on the
#: games' clock, which the stall does not move) happened in it: see the module.
STALL_DROPS_STREAM_S = 5.0
STALL_DROP_SEEN_S = 2.0


def max_seat_wait_ms(time_control: TimeControl, decisions: int, late_grace_ms: int = DEFAULT_LATE_GRACE_MS,
                     write_credit_ms: int = DEFAULT_WRITE_CREDIT_MS) -> int:
    """The most time the runner spends waiting on one seat over a game in which it was asked ``decisions`` times.

    Every decision ends by its deadline (limit + bank, plus the late grace,
    from the moment the request reached the wire, at most ``write_credit_ms``
    after it was made), disconnected or not, and the bank only shrinks by
    what overran: the sum is at most
    ``first_move_ms + n * (move_ms + increment_ms + late_grace_ms + write_credit_ms) + bank_ms``
    (pass ``write_credit_ms=0`` for a seat without ``clock_starts_on_write``).
    """
    n = max(0, int(decisions))
    tc = time_control
    first = tc.first_move_ms if n else 0
    return first + n * (tc.move_ms + tc.increment_ms + late_grace_ms + write_credit_ms) + tc.bank_ms


def per_seat_time_controls(time_control: TimeControl | Sequence[TimeControl], seats: int) -> list[TimeControl]:
    """One time control per seat: a single one is shared, a sequence must have one per seat."""
    if isinstance(time_control, TimeControl):
        return [time_control] * seats
    controls = list(time_control)
    if len(controls) != seats or not all(isinstance(c, TimeControl) for c in controls):
        raise ValueError(f"time_control: one TimeControl, or one per seat ({seats}); got {time_control!r}")
    return controls


def clock_start(made_at: float, written_at: float, write_credit_s: float) -> float:
    """When a request's clock starts: when it was written to the wire (``written_at``), but no later than
    ``write_credit_s`` after it was made (``made_at``), and never before that (a stamp of 0, not written, or one
    from before the request: the clock starts when it was made)."""
    if written_at > made_at:
        return min(written_at, made_at + write_credit_s)
    return made_at


@dataclass
class DecisionClock:
    """One decision's clock: its limit, the bank it may draw on, and what the seat has spent of both so far.

    It runs while the seat is disconnected too: each wait adds what it took (`spend`), up to the budget, so a seat
    asked again after a resume is offered only what is left (`move_ms_left`, `bank_ms_left`).
    """

    limit_ms: int
    bank_ms: float  # the seat's bank when the decision began: what it may draw on beyond the limit
    spent_s: float = 0.0
    reconnects: int = 0  # resumes waited for on this decision
    budget_s: float = field(init=False)  # limit + bank: past it the decision has run out

    def __post_init__(self) -> None:
        self.budget_s = (self.limit_ms + self.bank_ms) / 1000

    @property
    def out_of_time(self) -> bool:
        return self.spent_s >= self.budget_s

    @property
    def may_reconnect(self) -> bool:
        """Whether a resume may still be waited for on this decision (`MAX_RECONNECTS_PER_DECISION`)."""
        return self.reconnects < MAX_RECONNECTS_PER_DECISION

    def move_ms_left(self) -> int:
        """What is left of the limit, for the request (whole milliseconds, never negative)."""
        return max(0, math.floor(self.limit_ms - self.spent_s * 1000))

    def bank_ms_left(self) -> int:
        """What is left of the bank once the limit is spent, for the request."""
        overrun_ms = max(0.0, self.spent_s * 1000 - self.limit_ms)
        return max(0, math.floor(self.bank_ms - overrun_ms))

    def deadline(self, start: float) -> float:
        """When the decision runs out if its clock (re)starts at ``start``."""
        return start + (self.budget_s - self.spent_s)

    def late(self, start: float, received_at: float) -> bool:
        """Whether an answer stamped ``received_at`` came after the deadline of a clock started at ``start``."""
        return received_at > self.deadline(start)

    def spend(self, since: float, until: float) -> None:
        """Add the time from ``since`` to ``until`` to what the seat spent, up to the budget."""
        self.spent_s = min(self.budget_s, self.spent_s + max(0.0, until - since))


class SeatClock:
    """One seat's clock over a game: its bank, its first-move allowance, its absences, and the charges and
    strikes it writes into the seat's tally (``outcome``, the `SeatOutcome` the game returns)."""

    def __init__(self, control: TimeControl, outcome: SeatOutcome, write_credit_s: float = 0.0) -> None:
        """``write_credit_s``: how much of a request's write delay this seat is spared (0 for a seat without
        ``clock_starts_on_write``: its clock starts when the request is made)."""
        self.control = control
        self.outcome = outcome
        self.write_credit_s = write_credit_s
        self.bank_ms = float(control.bank_ms)
        self.asked_before = False
        #: When the seat was found disconnected, until it answers again (its reconnect window counts from here).
        self.away_since: float | None = None
        #: Disconnected and not back within its window: struck at once on each decision until it is back.
        self.gone = False

    def next_decision(self) -> DecisionClock:
        """The clock of the seat's next decision: ``move_ms``, plus ``first_move_ms`` on its first, and its bank."""
        limit_ms = self.control.move_ms + (0 if self.asked_before else self.control.first_move_ms)
        self.asked_before = True
        return DecisionClock(limit_ms, self.bank_ms)

    def started(self, made_at: float, answer: Any) -> float:
        """When this seat's clock started on a request made at ``made_at``, given its ``answer`` (None: no answer
        to read the write stamp from): `clock_start` with its write credit, if it has one."""
        if self.write_credit_s and answer is not None:
            return clock_start(made_at, getattr(answer, "sent_at", 0.0), self.write_credit_s)
        return made_at

    def went_away(self, now: float, new_absence: bool) -> None:
        """The seat was found disconnected at ``now``: a new absence (none going on, or it went away again after
        the request reached it) starts its reconnect window and counts as a disconnect."""
        if self.away_since is None or new_absence:
            self.away_since = now
            self.outcome.disconnects += 1

    def reconnect_window_end(self) -> float:
        """When the current absence's reconnect window (``reconnect_ms``) ends."""
        assert self.away_since is not None
        return self.away_since + self.control.reconnect_ms / 1000

    def back(self) -> None:
        """The seat resumed: a later drop is a new absence with its own window, not the rest of this one."""
        self.away_since = None

    def present(self) -> None:
        """The seat replied (in time or not): it is neither away nor gone."""
        self.away_since = None
        self.gone = False

    def answered(self, decision: DecisionClock) -> int:
        """Charge an accepted answer and add the increment; returns the think time in ms."""
        think_ms = self._charge(decision)
        self.bank_ms += self.control.increment_ms
        return think_ms

    def strike(self, decision: DecisionClock, reason: str) -> int:
        """Charge a decision that ends in a strike for ``reason`` and count it; ``max_strikes`` strikes (0: never)
        forfeit the game.  A timeout spends the decision's whole budget.  Returns the think time in ms."""
        if reason == "timeout":
            decision.spent_s = decision.budget_s
            self.outcome.timeouts += 1
        think_ms = self._charge(decision)
        outcome = self.outcome
        outcome.strikes += 1
        outcome.strike_reasons.append(reason)
        max_strikes = self.control.max_strikes
        if max_strikes > 0 and outcome.strikes >= max_strikes:
            outcome.forfeited = True
        return think_ms

    def _charge(self, decision: DecisionClock) -> int:
        """Book the think time and draw any overrun of the limit from the bank."""
        spent_s = decision.spent_s
        think_ms = round(spent_s * 1000)
        self.bank_ms = max(0.0, self.bank_ms - max(0.0, spent_s * 1000 - decision.limit_ms))
        self.outcome.think_ms += think_ms
        self.outcome.max_think_ms = max(self.outcome.max_think_ms, think_ms)
        return think_ms


class StalledTooLong(Exception):
    """The arena could not run for longer than ``max_stall_s``: the game ends aborted (the message says why)."""


class GameStalls:
    """The stalls one game went through, read from the process's `arena.match.stalls.StallLedger` at each look.

    ``ledger`` None: no stall is ever seen (a test's clock, ``arena match --local``).  The games' clock already
    left every stall out of every wait: this only notes them (`stalled_s`), ends a game a long one hit
    (`look`), and says which disconnections a stall excuses (`excused_until`).
    """

    def __init__(self, ledger: Any = None, max_stall_s: float = math.inf, game_id: str = "") -> None:
        self.ledger = ledger
        self.max_stall_s = max_stall_s
        self.game_id = game_id  # for the log line of a game it ends
        #: The stall time this game went through so far.
        self.stalled_s = 0.0
        #: The games' clock's time of the latest stall this game went through (a stall is one instant on it).
        self.last_stall_at = -math.inf
        #: The latest single stall's length (`StallLedger.latest_s`).
        self.last_stall_s = 0.0
        self._seen = ledger.stalled_s() if ledger is not None else 0.0  # the ledger's total at the last look

    @property
    def stalled_ms(self) -> int:
        return round(self.stalled_s * 1000)

    def look(self) -> None:
        """Add the stall time since the last look to the game's; raise `StalledTooLong` past ``max_stall_s``.

        The runner looks before each decision and after each wait, so one long stop is seen whole, while the
        wait it hit is still undecided (no strike is given for it first)."""
        ledger = self.ledger
        if ledger is None:
            return
        total = ledger.stalled_s()
        new = total - self._seen
        if new <= 0:
            return
        self._seen = total
        self.stalled_s += new
        self.last_stall_s = ledger.latest_s()
        self.last_stall_at = ledger.last_stall_at()
        if new > self.max_stall_s:
            log.warning("game %s: the arena could not run for %.1f s; the game is aborted, not rated",
                        self.game_id, new)
            raise StalledTooLong(
                f"the arena could not run for {new:.0f} s (its host was stopped or starved), longer than "
                f"{self.max_stall_s:.0f} s: the game is aborted, not rated")

    def dropped_in_stall(self, detached_at: float | None) -> bool:
        """Whether a stream that ended at ``detached_at`` (the games' clock; None: the seat does not say, never
        excused) ended in the latest stall: one long enough to drop a stream, the end seen right after it."""
        return (self.last_stall_s >= STALL_DROPS_STREAM_S and detached_at is not None
                and self.last_stall_at <= detached_at <= self.last_stall_at + STALL_DROP_SEEN_S)

    def excused_until(self, detached_at: float | None, reconnect_ms: int, now: float) -> float | None:
        """Until when a seat found disconnected at ``now`` may come back off its clock, or None if its absence is
        its own: only a stream that ended in the latest stall (`dropped_in_stall`), for as long as the stall
        lasted, up to `STALL_RECONNECT_MS` (``reconnect_ms`` if longer), counted from the stall."""
        until = self.last_stall_at + min(max(reconnect_ms, STALL_RECONNECT_MS) / 1000, self.last_stall_s)
        if now < until and self.dropped_in_stall(detached_at):
            return until
        return None
