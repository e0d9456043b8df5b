"""Time the arena process could not run, and the games' clock that leaves it out.

A host stopped for a while (SIGSTOP, a paused VM, a swap storm, a core given
to others for seconds, the GIL held by one long C call) runs nothing: a bot's
answer sent in time waits in the socket and is stamped when the process wakes,
and every deadline in flight has passed by then.  Judged on real time, that
pause was charged to whichever bots were on turn (timeouts, then "still
disconnected" strikes as their streams dropped on the keepalive): a game that
ended finished and rated with both seats forfeited for the host's own stop.

The rule: **time during which the arena process could not run is never
charged to a bot.**  Two pieces:

* `StallLedger`: a watchdog thread (`watch`) ticks every `TICK_S` on
  ``time.monotonic``; a gap between two ticks longer than `STALL_AFTER_S` means
  the process (or at least the interpreter) could not run, and its excess over
  `STALL_AFTER_S` is a stall: logged (a warning with its length), kept
  (`stalls`, the last `KEPT`) and added to the total (`stalled_s`).  A thread
  sees a stopped process, a starved one and a GIL held by C code alike,
  without any work on the event loop.  A gap still open when the total is read
  counts too (the main thread may run before the watchdog after a SIGCONT: it
  must not judge a deadline on a total that does not know the stop yet).
* `ArenaClock`: ``time.monotonic()`` minus the stalls so far, a `trio.abc.Clock`.
  The server runs trio on it and stamps answers and writes with it (its
  ``Hub.now``), so the match runner, which judges every decision on that one
  clock, sees a stop as if it had not happened: a deadline in flight moves out
  by the stall, an answer that sat in the socket is stamped when it would have
  been read, a reconnect window counts from where it was.  No arithmetic in the
  runner: the credit is exactly the stall time overlapping each wait, whatever
  the wait (a decision, a reconnect window, the write credit).

Why the excess over `STALL_AFTER_S`, not the whole gap: the clock must never
go back (trio's deadlines, the runner's stamps), and an open gap counts from
the moment it becomes a stall; counting it whole would make the clock jump
back by `STALL_AFTER_S` at that moment.  So up to `STALL_AFTER_S` (250 ms) of
each stall is still charged, inside a decision's usual limit; gaps shorter than
that (scheduling noise on a loaded machine) are charged as before.  A genuinely
slow bot is charged in full: while the process runs the watchdog ticks and the
clock is real time.

What it does not cover: the arena's own event loop busy with other work
(Python code hands the GIL to the watchdog every few milliseconds, so no stall
is seen); the server's write credit (``write_credit_ms``) covers a slow write,
and loop lag under load is a capacity question, not a stop.

The games' time is a per-process notion: one ledger per process
(`process_ledger`), started on first use, started again in a forked child.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import trio

log = logging.getLogger("arena.match")

#: The watchdog's tick.  20 wake-ups a second: each takes the GIL for a few microseconds.
TICK_S = 0.05
#: A gap between ticks longer than this is a stall (its excess): 5 ticks missed, far beyond scheduling noise.
STALL_AFTER_S = 0.25
#: Stalls kept for reading (`StallLedger.stalls`); the total counts all of them.
KEPT = 256


@dataclass(frozen=True)
class Stall:
    """One stretch the process could not run, on ``time.monotonic``: from ``start`` to ``end``."""

    start: float
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start


class StallLedger:
    """The stalls of this process so far, from a watchdog's ticks (`watch`), and their total (`stalled_s`).

    ``monotonic`` is the real clock (a test passes its own and calls `tick` itself).  Everything the
    readers need is one tuple, (last tick, total so far), replaced whole by the watchdog, so a reader on
    another thread never sees half an update and needs no lock.
    """

    def __init__(self, tick_s: float = TICK_S, stall_after_s: float = STALL_AFTER_S,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        if not 0 < tick_s < stall_after_s:
            raise ValueError(f"the tick ({tick_s} s) must be positive and shorter than a stall ({stall_after_s} s)")
        self.tick_s = tick_s
        self.stall_after_s = stall_after_s
        self.monotonic = monotonic
        self.stalls: deque[Stall] = deque(maxlen=KEPT)
        #: Stalls seen so far (all of them, not only those kept).
        self.count = 0
        #: Whether a watchdog is ticking: only then does an open gap count (a ledger nobody ticks must not
        #: stop the clock).
        self.watching = False
        # (the last tick, the stalls' total so far, the arena time of the last stall or -inf)
        self._state = (monotonic(), 0.0, -math.inf)
        self._thread: Optional[threading.Thread] = None
        #: How many servers of this process run now (`reporting`): only then is a stall logged.  The ledger is
        #: the process's and its watchdog outlives a server (a test process runs hundreds of them), and a
        #: warning written after the server stopped landed in whatever handler was current by then: another
        #: test's captured log, or a closed stream ("--- Logging error ---").
        self._reporting = 0
        self._reporting_lock = threading.Lock()

    def tick(self) -> Optional[Stall]:
        """Note a tick now; returns the stall that ended with it, if the gap since the last one was one."""
        last, total, at = self._state
        now = self.monotonic()
        excess = now - last - self.stall_after_s
        if excess <= 0:
            self._state = (now, total, at)
            return None
        stall = Stall(now - excess, now)
        self.stalls.append(stall)
        self.count += 1
        self._state = (now, total + excess, now - total - excess)
        if self._reporting:
            log.warning("the arena could not run for %.0f ms (stopped, starved of CPU or the GIL held); "
                        "the games' clock leaves it out: no bot is charged for it", excess * 1000)
        return stall

    @contextlib.contextmanager
    def reporting(self) -> Iterator["StallLedger"]:
        """Log every stall while the block runs (a server's life, `arena.server.host`); they are counted always."""
        with self._reporting_lock:
            self._reporting += 1
        try:
            yield self
        finally:
            with self._reporting_lock:
                self._reporting -= 1

    def latest_s(self) -> float:
        """How long the latest stall the watchdog closed lasted (its excess), 0 before the first: one stall's
        length, where `stalled_s` sums them all (several short gaps are no long one)."""
        stalls = self.stalls
        return stalls[-1].seconds if stalls else 0.0

    def stalled_s(self) -> float:
        """The stalls' total so far, in seconds, with a gap still open (the watchdog has not run since)."""
        last, total, _at = self._state  # first the state, then the time: the sum never goes back (see arena_time)
        if not self.watching:
            return total
        return total + max(0.0, self.monotonic() - last - self.stall_after_s)

    def arena_time(self) -> float:
        """``monotonic()`` minus every stall so far: the time in which the arena could run.

        Never goes back: the state is read before the time, so a tick landing in between is one the
        reading does not know yet, and the open gap it would have closed is counted up to a later
        time than the tick's (it only grows); a gap's open part stops the clock, its closing resumes
        it from the same value.
        """
        last, total, _at = self._state
        now = self.monotonic()
        if self.watching:
            excess = now - last - self.stall_after_s
            if excess > 0:
                return now - total - excess
        return now - total

    def last_stall_at(self) -> float:
        """The arena time (`arena_time`) of the latest stall, an open one included; -inf before the first.

        A stall takes no arena time: it is one instant on that clock, where the arena stopped and resumed."""
        last, total, at = self._state
        if self.watching:
            excess = self.monotonic() - last - self.stall_after_s
            if excess > 0:
                return last + self.stall_after_s - total
        return at

    # ---- the watchdog

    def watch(self) -> "StallLedger":
        """Start the watchdog thread (a daemon; once per ledger); returns the ledger."""
        if self._thread is None or not self._thread.is_alive():
            self._state = (self.monotonic(), *self._state[1:])
            self._thread = threading.Thread(target=self._run, name="arena-stall-watchdog", daemon=True)
            self.watching = True
            self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while True:
                time.sleep(self.tick_s)
                try:
                    self.tick()
                except Exception:  # a failed log handler must not end the watchdog
                    pass
        finally:
            self.watching = False  # never reached in a daemon thread's normal life; kept for safety


class ArenaClock(trio.abc.Clock):
    """A `trio.abc.Clock` on `StallLedger.arena_time`: real time, without the stalls (see the module)."""

    def __init__(self, ledger: StallLedger) -> None:
        self.ledger = ledger
        self.current_time = ledger.arena_time  # bound once: it is read on every trio tick and every stamp

    def start_clock(self) -> None:
        pass

    def current_time(self) -> float:  # type: ignore[override]  (replaced per instance in __init__)
        return self.ledger.arena_time()

    def deadline_to_sleep_time(self, deadline: float) -> float:
        # Real time passes at least as fast as arena time: a wait this long never wakes before the deadline.
        return deadline - self.ledger.arena_time()


_process: Optional[StallLedger] = None
_process_lock = threading.Lock()


def process_ledger() -> StallLedger:
    """This process's ledger, its watchdog started on first use."""
    global _process
    with _process_lock:
        if _process is None:
            _process = StallLedger().watch()
        return _process


def _forget_in_child() -> None:
    global _process, _process_lock
    if _process is not None:
        _process.watching = False  # its watchdog did not follow the fork: an open gap there is no stall
    _process = None  # a child that needs a ledger starts its own
    _process_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
