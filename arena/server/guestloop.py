"""Trio's guest-mode I/O wait done by the asyncio loop itself, without a thread hop (Linux).

In guest mode trio waits for its I/O and timers in a worker thread: every
time the game tasks go idle, trio wakes that thread (a lock release), the
thread blocks in ``epoll``, an answer from a bot wakes it again (a socket
write) and it hands control back to the loop (``call_soon_threadsafe``, a
third wake-up).  Measured on the 2-core build machine, those wake-ups were
the largest server cost per decision after grpc's own read and write.

Trio's waiting is one ``epoll`` object, and an epoll fd is itself pollable,
so asyncio can watch it directly: `install` replaces the hand-off to the
worker thread, for the loops registered with `use_loop` only.  Each guest
run gets one `_LoopWait`: trio's epoll fd and a ``timerfd`` for trio's next
deadline are registered with the loop once (not once per wait), and a wait
only records trio's ``deliver`` callback and arms the timer.  When either fd
fires, trio's events are collected without blocking and handed to the same
``deliver`` the thread would have called.

Why a ``timerfd`` and not ``loop.call_later``: asyncio rounds every select
timeout *up* to the next millisecond (epoll's unit), so a trio deadline
fired 0-1 ms late (0.5 ms on average) before any work was done; a timerfd
armed at the absolute deadline (CLOCK_MONOTONIC, nanoseconds) wakes epoll
within tens of microseconds.  Without timerfd (another OS, no libc symbol)
``call_later`` does it as before.

`wake` lets the host hand trio work from an asyncio callback on the same
thread without trio's wake-up socket: when trio is parked in a loop wait,
it delivers that wait at once (the next loop iteration runs trio's tick), so
a task rescheduled by the caller right after is run without a socket write,
an epoll round and a pass of trio's run_sync_soon task.

Anything unexpected (another trio version, another I/O backend, another
loop) falls back to trio's own thread, so the behaviour never changes, only
the cost.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import threading
import time
import weakref
from typing import Any, Callable, Optional

import outcome

from mau_arena_sdk.timerfd import TimerFd

log = logging.getLogger("arena.server")

_loops: "weakref.WeakSet[asyncio.AbstractEventLoop]" = weakref.WeakSet()
_waits: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopWait]" = weakref.WeakKeyDictionary()
_original: Any = None
#: Waits done on a loop instead of in trio's thread (for tests and benchmarks).
waits_on_loop = 0
#: Set ``ARENA_TRIO_TIMERFD=0`` to time trio's deadlines with ``loop.call_later`` (for comparisons).
_USE_TIMERFD = os.environ.get("ARENA_TRIO_TIMERFD", "1") != "0"
#: Two absolute wake-up times this close are the same trio deadline (see `_LoopWait.start`).
_SAME_DEADLINE_S = 50e-6


def use_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Let trio guest runs hosted on ``loop`` wait without a thread (call `install` once first)."""
    _loops.add(loop)


def release(loop: asyncio.AbstractEventLoop) -> None:
    """Unregister the loop's fds once its guest run is over (trio has closed its epoll by then)."""
    wait = _waits.pop(loop, None)
    if wait is not None:
        wait.close()


def wake(loop: asyncio.AbstractEventLoop) -> bool:
    """If trio is parked in a wait on ``loop``, end that wait now; True if it was parked.

    Call it on the loop's thread, from a plain callback (not from inside trio), just before
    rescheduling a trio task: trio's tick then runs on the next loop iteration.
    """
    wait = _waits.get(loop)
    return wait is not None and wait.wake()


def install() -> bool:
    """Hook trio's guest-mode wait (idempotent); False if this trio does not look as expected.

    ``ARENA_TRIO_IO_THREAD=1`` in the environment keeps trio's own thread (for comparisons).
    """
    global _original
    if os.environ.get("ARENA_TRIO_IO_THREAD") == "1":
        return False
    if _original is not None:
        return True
    try:
        from trio._core import _run
    except ImportError:  # pragma: no cover - trio's layout changed: keep its own thread
        return False
    original = getattr(_run, "start_thread_soon", None)
    if original is None or not hasattr(_run, "GuestState"):
        return False
    _original = original
    _run.start_thread_soon = _start_thread_soon
    return True


def call_soon_from_anywhere(loop: asyncio.AbstractEventLoop) -> Callable[[Callable[[], Any]], Any]:
    """``loop.call_soon_threadsafe`` that skips waking the loop when called on the loop's own thread.

    Trio calls it from its I/O thread, or (with `install`) from the loop itself, where the wake-up
    (a write to the loop's self-pipe) would only cost another trip through ``epoll``.
    """
    thread_id = threading.get_ident()

    def call_soon(callback: Callable[[], Any]) -> Any:
        if threading.get_ident() == thread_id:
            return loop.call_soon(callback)
        return loop.call_soon_threadsafe(callback)

    return call_soon


def _start_thread_soon(fn: Callable[[], Any], deliver: Callable[[Any], None], name: Any = None) -> None:
    if not _wait_on_loop(fn, deliver):
        _original(fn, deliver, name)


def _wait_on_loop(fn: Callable[[], Any], deliver: Callable[[Any], None]) -> bool:
    """If ``fn`` is guest mode's ``get_events`` on a registered loop, wait on that loop; else False."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    if loop not in _loops or getattr(fn, "__name__", "") != "get_events" or not fn.__closure__:
        return False
    try:
        timeout_cell, self_cell = _cells(fn)
        timeout = float(fn.__closure__[timeout_cell].cell_contents)
        runner = fn.__closure__[self_cell].cell_contents.runner
        wait = _waits.get(loop)
        if wait is None or wait.runner is not runner:
            if wait is not None:
                wait.close()
            wait = _waits[loop] = _LoopWait(loop, runner)
    except Exception:  # not the shape we know: trio's own thread does it
        log.debug("trio's guest wait has an unknown shape: using trio's thread", exc_info=True)
        return False
    global waits_on_loop
    waits_on_loop += 1
    wait.start(timeout, deliver)
    return True


_CELLS: dict[Any, tuple[int, int]] = {}


def _cells(fn: Callable[[], Any]) -> tuple[int, int]:
    """Where ``get_events``'s closure keeps ``timeout`` and ``self`` (worked out once per code object)."""
    code = fn.__code__
    found = _CELLS.get(code)
    if found is None:
        names = code.co_freevars
        found = _CELLS[code] = (names.index("timeout"), names.index("self"))
    return found


class _LoopWait:
    """One guest run's wait on one loop: trio's epoll fd and a deadline timer, registered once."""

    def __init__(self, loop: asyncio.AbstractEventLoop, runner: Any) -> None:
        self.loop = loop
        self.runner = runner
        self.io_manager = runner.io_manager
        self.epoll_fd = self.io_manager._epoll.fileno()
        self.deliver: Optional[Callable[[Any], None]] = None
        self.handle: Optional[asyncio.TimerHandle] = None
        self.can_mark_tick = hasattr(runner, "guest_tick_scheduled")
        self.timer = _deadline_timer() if _USE_TIMERFD else None
        self.armed_at: Optional[float] = None  # when the timerfd is set to fire (None: not armed)
        loop.add_reader(self.epoll_fd, self._ready)
        if self.timer is not None:
            loop.add_reader(self.timer.fd, self._timer_fired)

    def start(self, timeout: float, deliver: Callable[[Any], None]) -> None:
        self.deliver = deliver
        if timeout == math.inf:
            return  # a timer armed for an earlier wait may still fire: a spurious tick, harmless
        if self.timer is not None:
            try:
                # Armed after trio computed ``timeout`` from its clock (never faster than real time): never early.
                when = time.monotonic() + max(0.0, timeout)
                armed = self.armed_at
                # The same trio deadline as the armed one (both computed as "deadline + a few us"):
                # leave the timer be (with many games the next deadline rarely changes between waits).
                if armed is None or abs(when - armed) > _SAME_DEADLINE_S:
                    self.timer.set(when, absolute=True)
                    self.armed_at = when
                return
            except OSError:
                log.warning("timerfd_settime failed: timing trio's deadlines with call_later", exc_info=True)
                self.loop.remove_reader(self.timer.fd)
                self.timer.close()
                self.timer = None
        self.handle = self.loop.call_later(max(0.0, timeout), self._ready)

    def _ready(self, collect: bool = True) -> None:
        deliver = self.deliver
        if deliver is None:
            return  # trio is running (its tick is scheduled): it collects its events itself
        self.deliver = None
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None
        if collect:
            deliver(outcome.capture(self.io_manager.get_events, 0))
        else:  # woken by the host: I/O events left in trio's epoll are collected at its next tick
            deliver(outcome.Value([]))

    def _timer_fired(self) -> None:
        assert self.timer is not None
        try:
            self.timer.read()  # clears its readiness
        except OSError:  # closed meanwhile: nothing to clear
            pass
        self.armed_at = None
        self._ready()

    def wake(self) -> bool:
        if self.deliver is None:
            return False
        if self.can_mark_tick:
            # What trio's deliver callback sets once its tick runs; set now, so that rescheduling a
            # task before then does not also write trio's wake-up socket (force_guest_tick_asap).
            self.runner.guest_tick_scheduled = True
        self._ready(collect=False)
        return True

    def close(self) -> None:
        self.deliver = None
        if self.handle is not None:
            self.handle.cancel()
        for fd in (self.epoll_fd, self.timer.fd if self.timer is not None else -1):
            if fd >= 0:
                try:
                    self.loop.remove_reader(fd)
                except Exception:  # the loop is closed already
                    pass
        if self.timer is not None:
            self.timer.close()


def _deadline_timer() -> Optional[TimerFd]:
    """A non-blocking timerfd for trio's deadlines, or None (call_later then does it).

    The timer is armed at ``time.monotonic()`` plus trio's timeout (from trio's clock: the arena clock,
    `arena.match.stalls`, which never runs faster than real time, so never early) as an absolute time on
    CLOCK_MONOTONIC, so ``time.monotonic`` must be that clock: checked once, with a test arming.
    """
    timer = TimerFd.create(nonblocking=True)
    if timer is None:
        return None
    try:
        if time.get_clock_info("monotonic").implementation != "clock_gettime(CLOCK_MONOTONIC)":
            raise OSError("time.monotonic is not CLOCK_MONOTONIC")
        timer.set(time.monotonic() + 3600, absolute=True)
    except OSError:
        timer.close()
        return None
    return timer
