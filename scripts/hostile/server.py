"""An `arena serve` subprocess on 127.0.0.1, port 0: started, measured, stopped, never left behind."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"arena listening on (\S+):(\d+)")


def python_env() -> dict[str, str]:
    """The environment for child Pythons: the checkout first on the path."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return {**os.environ, "PYTHONPATH": path}


def register_bot(db: Path, name: str) -> str:
    """`arena bots add NAME --db DB`; returns the token it printed."""
    done = subprocess.run([sys.executable, "-m", "arena", "bots", "add", name, "--db", str(db)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, env=python_env())
    match = re.search(r"--token (\S+)", done.stdout)
    if done.returncode != 0 or not match:
        raise RuntimeError(f"arena bots add {name} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    return match.group(1)


def rss_mb(pid: int) -> Optional[float]:
    """Resident set size of a process in MB (Linux /proc), None when unavailable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def cpu_s(pid: int) -> Optional[float]:
    """User + system CPU time of a process in seconds (Linux /proc), None when unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class ArenaProcess:
    """``python -m arena serve --host 127.0.0.1 --plain ARGS`` (ARGS name the port) with its output in ``log``."""

    def __init__(self, args: list[str], log: Path) -> None:
        self.args = args
        self.log = log
        self.process: Optional[subprocess.Popen] = None
        self.address = ""
        self.stopping = False
        self.exit_code: Optional[int] = None
        self._listening = threading.Event()
        self._log_file = None
        self._pump_thread: Optional[threading.Thread] = None

    def start(self, timeout_s: float = 60.0) -> str:
        """Start it; return HOST:PORT once it listens.  Raises RuntimeError with its output if it does not."""
        self._log_file = open(self.log, "w", encoding="utf-8", errors="replace")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--host", "127.0.0.1", "--plain", *self.args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
            errors="replace", cwd=ROOT, env=python_env(),
        )
        self._pump_thread = threading.Thread(target=self._pump, daemon=True)
        self._pump_thread.start()
        if not self._listening.wait(timeout_s) or not self.address:
            self.kill()
            raise RuntimeError(f"arena serve did not start listening within {timeout_s:g} s:\n{self.tail()}")
        return self.address

    def _pump(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self._log_file.write(line)
            self._log_file.flush()
            match = LISTENING.search(line)
            if match and not self.address:
                self.address = f"{match.group(1)}:{match.group(2)}"
                self._listening.set()
        self._listening.set()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def rss_mb(self) -> Optional[float]:
        return rss_mb(self.pid) if self.alive() else None

    def cpu_s(self) -> Optional[float]:
        return cpu_s(self.pid) if self.alive() else None

    @property
    def crashed(self) -> bool:
        """It died before it was asked to stop, or stopped with a failure status."""
        if self.process is None:
            return False
        code = self.process.poll()
        if code is None:
            return False
        return not self.stopping or code != 0

    def stop(self, timeout_s: float) -> Optional[int]:
        """Ctrl-C (drain), then Ctrl-C again (abort), then SIGKILL; returns the exit status."""
        self.stopping = True
        if self.process is None:
            return None
        for signum, wait_s in ((signal.SIGINT, timeout_s), (signal.SIGINT, 10.0), (signal.SIGKILL, 10.0)):
            if self.process.poll() is not None:
                break
            self.process.send_signal(signum)
            try:
                self.process.wait(wait_s)
            except subprocess.TimeoutExpired:
                continue
        self.exit_code = self.process.poll()
        return self.exit_code

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def close(self) -> None:
        """Kill it if it still runs and finish its log."""
        self.kill()
        if self._pump_thread is not None:
            self._pump_thread.join(5)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def error_lines(self) -> list[str]:
        """Tracebacks and ERROR log lines the server printed."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return []
        return [line for line in text.splitlines() if line.startswith(("Traceback", "ERROR", "CRITICAL"))]
