"""Start a child process with SIGINT as a terminal's foreground job has it.

A shell without job control (a CI step, `cmd &` in a script) starts its background commands with
SIGINT ignored, and their children inherit that; Python then installs no KeyboardInterrupt handler,
so a test that sends Ctrl-C's signal to the arena would wait for nothing.  Pass
``preexec_fn=sigint_as_at_a_terminal`` to `subprocess.Popen` for a child that a test interrupts.
"""

from __future__ import annotations

import signal


def sigint_as_at_a_terminal() -> None:
    """In the child, before exec: SIGINT back to its default disposition (Python maps it to KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
