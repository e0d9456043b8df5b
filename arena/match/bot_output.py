"""Where an in-process bot's prints go: away from the program's own stdout, as a bot process's do.

``sys.stdout`` and ``sys.stderr`` are shared by every thread of the process,
and `arena.match.local.LocalSeat` runs a bot's code on worker threads while
the program itself prints (progress, the result, ``--json``) on the main one.
Swapping ``sys.stdout`` for the length of a bot's call would send whatever
any other thread printed meanwhile to the bot's log (and a bot's print that
overlaps the swap back to the program's stdout).  So `routed_output`
replaces both streams, once, with a `RoutedStream` that decides per write:
code running under `bot_output` (a context variable, which belongs to
the thread or trio task that set it) writes to that bot's stream, all other
code to the original stream.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

_TARGET: contextvars.ContextVar[TextIO | None] = contextvars.ContextVar("arena_bot_output", default=None)
_LOCK = threading.Lock()
_ACTIVE = [0, 0]  # bot calls under way (one cut off at its deadline may still print), routed_output blocks


class RoutedStream:
    """A text stream that writes to the calling bot's stream, if any, else to ``original``."""

    def __init__(self, original: TextIO) -> None:
        self.original = original

    def current(self) -> TextIO:
        return _TARGET.get() or self.original

    def write(self, text: str) -> int:
        return self.current().write(text)

    def writelines(self, lines: Any) -> None:
        self.current().writelines(lines)

    def flush(self) -> None:
        self.current().flush()

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno, buffer...: the stream written to
        return getattr(self.current(), name)


@contextmanager
def bot_output(stream: TextIO) -> Iterator[None]:
    """Run the block (a bot's code) with its ``print`` and ``sys.stderr`` writes going to ``stream``."""
    token = _TARGET.set(stream)
    with _LOCK:
        _ACTIVE[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _ACTIVE[0] -= 1
        _TARGET.reset(token)


@contextmanager
def routed_output() -> Iterator[TextIO]:
    """Install `RoutedStream` as ``sys.stdout`` and ``sys.stderr`` for the block; yields the original stderr.

    On the way out of the last such block the original streams come back, unless a bot's call is still under
    way (a bot cut off at its deadline goes on in its thread): then the routing stays, so that its late prints
    still go to its own stream and never into the program's output, until a later block ends with none.
    """
    with _LOCK:
        _ACTIVE[1] += 1
        for name in ("stdout", "stderr"):
            if not isinstance(getattr(sys, name), RoutedStream):
                setattr(sys, name, RoutedStream(getattr(sys, name)))
        stderr = sys.stderr.original
    try:
        yield stderr
    finally:
        with _LOCK:
            _ACTIVE[1] -= 1
            if _ACTIVE == [0, 0]:
                for name in ("stdout", "stderr"):
                    stream = getattr(sys, name)
                    if isinstance(stream, RoutedStream):
                        setattr(sys, name, stream.original)
