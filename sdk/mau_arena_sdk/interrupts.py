"""SIGTERM as Ctrl-C: `arena match` and process managers stop a bot with SIGTERM, and it should close as cleanly."""

from __future__ import annotations

import signal
import threading
from typing import Any


def _raise_interrupt(signum: int, frame: Any) -> None:
    """The handler: what Python's own SIGINT handler does."""
    raise KeyboardInterrupt


def install_sigterm_as_interrupt() -> None:
    """SIGTERM (sent by `arena match` and process managers) closes as cleanly as Ctrl-C."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_interrupt)
