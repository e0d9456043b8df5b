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


@pytest.fixture
def arena_here(capsys, monkeypatch):
    """`run_arena`'s twin for commands whose process is not what a test checks: ``arena.cli.main`` in this
    process, in ``cwd`` with ``COLUMNS`` set, its stdout and stderr captured (a Python start-up and the
    imports saved: some 0.7 s a command on 2 cores).  An uncaught exception, which a user would see as a
    traceback, fails the test instead of landing in ``err``."""
    from arena.cli import main

    def run(*args, cwd: Path | None = None, timeout: float = 60.0, columns: int = 200) -> Ran:
        capsys.readouterr()  # what came before is not this command's
        with monkeypatch.context() as patch:
            patch.setenv("COLUMNS", str(columns))
            patch.delenv("FORCE_COLOR", raising=False)
            patch.chdir(cwd or ROOT)
            try:
                status = main([str(arg) for arg in args])
            except SystemExit as exit_:  # argparse's own usage errors
                status = exit_.code
        out, err = capsys.readouterr()
        return Ran(status, out, err)

    return run
