"""Trio's guest-mode I/O wait done by the asyncio loop itself, without a thread hop (Linux).

In guest mode trio waits for its I/O and timers in a worker thread: every
time the game tasks go idle, trio wakes that thread (a lock release), the
thread blocks in ``epoll``, an answer from a bot wakes it again (a socket
write) and it hands control back to the loop (``call_soon_threadsafe``, a
third wake-up).  Measured on the 2-core build machine, those wake-ups were
the largest server cost per decision after grpc's own read and write.

Trio's waiting is one ``epoll`` object, and an epoll fd is itself pollable,
so asyncio can watch it directly: `install` replaces the hand-off to the
worker thread, for the loops registered with `use_loop` only, by
``loop.add_reader(epoll fd)`` plus a timer for trio's next deadline.  When
either fires, trio's events are collected without blocking and handed to the
same ``deliver`` callback the thread would have called.  Anything unexpected
(another trio version, another I/O backend, another loop) falls back to
trio's own thread, so the behaviour never changes, only the cost.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import weakref
from typing import Any, Callable

log = logging.getLogger("arena.server")

_loops: "weakref.WeakSet[asyncio.AbstractEventLoop]" = weakref.WeakSet()
_original: Any = None
#: Waits done on a loop instead of in trio's thread (for tests and benchmarks).
waits_on_loop = 0


def use_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Let trio guest runs hosted on ``loop`` wait without a thread (call `install` once first)."""
    _loops.add(loop)


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
    waiter = _loop_waiter(fn)
    if waiter is None:
        _original(fn, deliver, name)
    else:
        waiter(deliver)


def _loop_waiter(fn: Callable[[], Any]) -> "Callable[[Callable[[Any], None]], None] | None":
    """If ``fn`` is guest mode's ``get_events`` on a registered loop, a way to wait on that loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    if loop not in _loops or getattr(fn, "__name__", "") != "get_events" or not fn.__closure__:
        return None
    try:
        cells = dict(zip(fn.__code__.co_freevars, (cell.cell_contents for cell in fn.__closure__)))
        timeout = float(cells["timeout"])
        io_manager = cells["self"].runner.io_manager
        epoll = io_manager._epoll
        fd = epoll.fileno()
    except Exception:  # not the shape we know: trio's own thread does it
        return None

    def wait(deliver: Callable[[Any], None]) -> None:
        import outcome

        global waits_on_loop
        waits_on_loop += 1
        timer: "asyncio.TimerHandle | None" = None

        def ready() -> None:
            loop.remove_reader(fd)
            if timer is not None:
                timer.cancel()
            deliver(outcome.capture(io_manager.get_events, 0))

        loop.add_reader(fd, ready)
        if timeout != float("inf"):
            timer = loop.call_later(max(0.0, timeout), ready)

    return wait
