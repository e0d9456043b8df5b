"""A child process's output, line by line, for tests that wait for what it says (`arena serve`'s lines)."""

from __future__ import annotations

import queue
import re
import subprocess
import threading


class Lines:
    """A process's output lines, read by a thread into a queue (no buffered line is ever missed)."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.queue: "queue.Queue[str | None]" = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(process.stdout,), daemon=True).start()

    def _pump(self, stream) -> None:
        for line in stream:
            self.queue.put(line)
        self.queue.put(None)

    def until(self, pattern: str, timeout: float = 30.0) -> re.Match:
        """The first line from here on that matches ``pattern``; fails with what was seen if none comes in time."""
        while True:
            try:
                line = self.queue.get(timeout=timeout)
            except queue.Empty:
                line = None
            if line is None:
                raise AssertionError(f"no line matching {pattern!r} in: {''.join(self.seen)}")
            self.seen.append(line)
            found = re.search(pattern, line)
            if found:
                return found

    def rest(self, timeout: float = 60.0) -> str:
        """Every line seen, with the rest up to the end of the output (which must come within ``timeout``)."""
        while True:
            try:
                line = self.queue.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"the output did not end within {timeout} s: {''.join(self.seen)}") from None
            if line is None:
                return "".join(self.seen)
            self.seen.append(line)
