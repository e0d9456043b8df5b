"""The client's asyncio loops: one per serving thread, never closed, and how the client tells which it is on."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable, Optional

_thread_loops = threading.local()


def thread_loop() -> asyncio.AbstractEventLoop:
    """This thread's asyncio loop for clients, made on first use and never closed.

    grpc.aio hands every completion to the loop its operation started on; a completion that arrives
    after that loop was closed (a second client in the same process, as in tests) would fail in
    grpc's poller.  One long-lived loop per serving thread has no such window.
    """
    loop = getattr(_thread_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _thread_loops.loop = asyncio.new_event_loop()
    return loop


def set_result(future: asyncio.Future) -> None:
    """Resolve ``future`` unless it is resolved already (called on its loop from another thread)."""
    if not future.done():
        future.set_result(None)


def on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether this thread is running ``loop`` right now (not while `hide_running_loop` hides it for bot code)."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:  # no loop running on this thread
        return False


#: Sets this thread's running loop: asyncio's hook for loop implementations (in its ``__all__``,
#: though underscored).  Without it, bot code of a single game runs outside the loop like that of
#: several games, which costs more but behaves the same.
hide_running_loop: Optional[Callable[[Any], None]] = getattr(asyncio, "_set_running_loop", None)
