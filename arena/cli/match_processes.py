"""The bot processes of `arena match`: launching them with their logs, and stopping them in order."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path
from typing import BinaryIO, Sequence

from arena.cli.match_bots import BotSpec

#: How long a stopped bot gets to exit after SIGTERM before it is killed.
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

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                return
            try:
                self.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def stop_all(processes: Sequence[BotProcess]) -> None:
    for process in processes:  # signal all first, so they wind down together
        if process.process.poll() is None:
            try:
                process.process.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
    for process in processes:
        process.stop()
