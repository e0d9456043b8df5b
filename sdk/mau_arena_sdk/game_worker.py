"""A game's own thread, for the games whose bot calls the client hands off (see `mau_arena_sdk.client`)."""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any, Callable


class GameWorker:
    """One game's thread: runs that game's calls one after another, in order.

    What a one-thread ``ThreadPoolExecutor`` did, without its per-call Future, work item, lock and
    idle-thread bookkeeping (nobody waited on the Futures): a hand-off is one ``SimpleQueue.put``.
    Like the executor's, the thread is not a daemon: calls already handed over (a game's
    ``on_game_end``) still run before the process exits.
    """

    def __init__(self, name: str) -> None:
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._name = name

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self._name)
            self._thread.start()
        self._calls.put((fn, args))

    def _run(self) -> None:
        get = self._calls.get
        while (call := get()) is not None:
            fn, args = call
            try:
                fn(*args)
            except Exception:  # the calls handed over catch their own errors; this is a last resort
                logging.getLogger("mau_arena_sdk").exception("%s failed", getattr(fn, "__qualname__", fn))

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Stop after the calls already handed over (dropped first with ``cancel_futures``)."""
        if cancel_futures:
            while True:
                try:
                    self._calls.get_nowait()
                except queue.Empty:
                    break
        if self._thread is None:
            return
        self._calls.put(None)
        if wait and self._thread is not threading.current_thread():
            self._thread.join()
