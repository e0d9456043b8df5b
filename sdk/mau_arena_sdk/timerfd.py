"""A Linux ``timerfd`` on CLOCK_MONOTONIC (``time.monotonic``'s clock), through ctypes.

Both ends of the arena wait on one: the SDK's stand-by thread blocks reading a
periodic timer (`sdk.client`), and the server's asyncio loop watches a
non-blocking one armed at trio's next deadline (`arena.server.guestloop`); each
module says why a timerfd.  It lives in the SDK because the SDK ships without
`arena`.  `TimerFd.create` gives None where there is none (not Linux, or no such
libc symbol), and both callers then fall back to their portable path.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Any, Optional

__all__ = ["TimerFd"]


class TimerFd:
    """One timerfd: `set` arms it (once or periodically), `read` takes its expirations."""

    CLOCK_MONOTONIC = 1
    TFD_TIMER_ABSTIME = 1
    TFD_NONBLOCK = 0o4000
    TFD_CLOEXEC = 0o2000000
    _libc: Any = None

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._spec = (ctypes.c_long * 4)()  # struct itimerspec: interval (s, ns), then value (s, ns)
        self._spec_ref = ctypes.byref(self._spec)

    @classmethod
    def create(cls, *, nonblocking: bool = False) -> Optional["TimerFd"]:
        """A disarmed timer, or None where Linux's timerfd is not available."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            if cls._libc is None:
                libc = ctypes.CDLL(None, use_errno=True)
                libc.timerfd_create.argtypes = [ctypes.c_int, ctypes.c_int]
                libc.timerfd_settime.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
                cls._libc = libc
            fd = cls._libc.timerfd_create(cls.CLOCK_MONOTONIC,
                                          cls.TFD_CLOEXEC | (cls.TFD_NONBLOCK if nonblocking else 0))
        except Exception:  # no timerfd in this libc
            return None
        return cls(fd) if fd >= 0 else None

    def set(self, first: float, period: float = 0.0, *, absolute: bool = False) -> None:
        """Fire after ``first`` seconds (at ``first`` on the monotonic clock if ``absolute``), then
        every ``period`` seconds (0: once)."""
        spec = self._spec
        spec[0], spec[1] = _split(period)
        spec[2], spec[3] = _split(first)
        spec[3] = max(1, spec[3]) if spec[2] == 0 else spec[3]  # an all-zero value would disarm it
        self._settime(self.TFD_TIMER_ABSTIME if absolute else 0)

    def disarm(self) -> None:
        for i in range(4):
            self._spec[i] = 0
        self._settime(0)

    def read(self) -> int:
        """The expirations since the last read: waits for one, or, non-blocking, 0 if none."""
        try:
            data = os.read(self.fd, 8)
        except BlockingIOError:
            return 0
        return int.from_bytes(data, sys.byteorder)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _settime(self, flags: int) -> None:
        if self._libc.timerfd_settime(self.fd, flags, self._spec_ref, None) != 0:
            raise OSError(ctypes.get_errno(), "timerfd_settime failed")


def _split(seconds: float) -> tuple[int, int]:
    whole = int(seconds)
    return whole, int((seconds - whole) * 1e9)
