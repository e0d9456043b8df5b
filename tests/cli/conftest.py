"""Run the real ``arena`` command in a subprocess, as a user or a script would."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Ran:
    status: int
    out: str
    err: str


def run_arena(*args: str, cwd: Path | None = None, timeout: float = 60.0, columns: int = 200) -> Ran:
    """``python -m arena ARGS`` with stdout and stderr captured (pipes: not a terminal)."""
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONPATH": str(ROOT)}
    env.pop("FORCE_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-m", "arena", *map(str, args)], capture_output=True, text=True, timeout=timeout,
        cwd=str(cwd or ROOT), env=env, stdin=subprocess.DEVNULL,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def arena():
    return run_arena
