"""The bot processes of `arena match`: launching them with their logs, and stopping them in order.

Each bot runs in a session (and process group) of its own, so a stop reaches what it started too (a wrapper
script's interpreter, a helper process).  Stopping is SIGTERM to the group, then SIGCONT (a process stopped
with SIGSTOP or Ctrl-Z takes its SIGTERM only once it runs again, as systemd does it), then SIGKILL to the
group for whatever is left after `STOP_GRACE_S`: a bot that hangs, in a loop that blocks or ignores SIGTERM,
or stopped and never continued, cannot hold `arena match` past that.  Several bots share one grace period.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import BinaryIO, Sequence

from arena.cli.match_bots import BotSpec

#: How long stopped bots get to exit after SIGTERM before they are killed (one period for all of them).
STOP_GRACE_S = 3.0


def begin_log(log: BinaryIO, restart_note: str | None = None) -> int:
    """Start this match's part of a bot's log (opened with "ab"): after a line saying what came before, if
    anything did.  Returns where the log ended before (where this match's part starts)."""
    earlier = log.tell()  # "ab" opens at the end: the size of what is there already
    if restart_note:
        log.write(f"\n--- arena match: {restart_note} ---\n".encode())
    elif earlier:
        when = time.strftime("%Y-%m-%d %H:%M:%S")
        log.write(f"\n--- arena match {when}: a new match; the earlier output is above ---\n".encode())
    log.flush()
    return earlier


class BotProcess:
    """A launched bot: its process and ``LOG_DIR/NAME.log``, which holds its stdout and stderr.

    A log that already holds output (an earlier match's, with ``--log-dir``) is
    never overwritten: this process's output is appended after a
    ``--- arena match ...: a new match ---`` line.  ``restart_note`` starts a
    restarted bot: its output is appended to the same log after that line, so
    the log tells the whole story.  ``section_start`` is where this match's part
    of the log begins (a restart is given its predecessor's): `tail` reads no
    further back, so an earlier match's output is never shown as this one's.
    """

    def __init__(self, spec: BotSpec, arena: str, concurrency: int, log_dir: Path, restart_note: str | None = None,
                 section_start: int | None = None):
        self.spec = spec
        self.log_path = log_dir / f"{spec.name}.log"
        #: Set just before `stop_all` kills it (SIGKILL): it had not exited within the grace period.
        self.killed = False
        argv = [*spec.argv, "--arena", arena, "--name", spec.name, "--parallel", str(concurrency)]
        with open(self.log_path, "ab") as log:
            earlier = begin_log(log, restart_note)
            self.section_start = earlier if section_start is None else section_start
            # A session of its own: Ctrl-C reaches `arena match` only, which then stops the bots in order.
            self.process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )

    @property
    def name(self) -> str:
        return self.spec.name

    def tail(self, lines: int = 15) -> str:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(self.section_start)
                text = log.read().decode(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.rstrip().splitlines()[-lines:])

    def describe_failure(self, what: str) -> str:
        tail = self.tail()
        shown = "\n    ".join(tail.splitlines()) if tail else "(no output)"
        return f"bot {self.name} ({self.spec.source}) {what}; its log is {self.log_path}; its last output:\n    {shown}"

    def signal_group(self, signum: int) -> None:
        """Send ``signum`` to the bot's process group (its own session: the bot and what it started)."""
        try:
            os.killpg(self.process.pid, signum)
        except (ProcessLookupError, PermissionError):  # the group is gone (PermissionError: macOS's word for it)
            pass

    def terminate(self) -> None:
        """Ask the bot to exit: SIGTERM to its group, then SIGCONT so that a stopped one gets it."""
        self.signal_group(signal.SIGTERM)
        self.signal_group(signal.SIGCONT)

    def stop(self, grace_s: float = STOP_GRACE_S) -> bool:
        """`terminate`, then SIGKILL to the group if the bot has not exited within ``grace_s``; True if it
        had to be killed."""
        return bool(stop_all([self], grace_s))


def stop_all(processes: Sequence[BotProcess], grace_s: float = STOP_GRACE_S) -> list[BotProcess]:
    """Stop every bot: SIGTERM (and SIGCONT) to each group at once, one shared ``grace_s`` for all to exit,
    then SIGKILL to the groups of those still running.  Returns those that had to be killed.  A Ctrl-C while
    it waits kills them at once (then raises it)."""
    for process in processes:  # signal all first, so they wind down together
        process.terminate()  # a bot that exited may have left children in its group: they are told too
    deadline = time.monotonic() + grace_s
    killed = []
    try:
        for process in processes:
            try:
                process.process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                killed.append(process)
    except KeyboardInterrupt:
        for process in processes:
            process.signal_group(signal.SIGKILL)
            process.process.wait()
        raise
    for process in killed:
        process.killed = True  # before the signal: whoever waits for its exit learns why it came
    for process in processes:
        process.signal_group(signal.SIGKILL)  # what the leader left behind, and the leader if it hangs
    for process in killed:
        process.process.wait()
    return killed
