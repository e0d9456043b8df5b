"""scripts/selective_stopping.py, the measurement behind the leaderboard's ranking rule (arena/ladder/ranking.py):
a small run prints one line per rule and attacker, and bad flags are refused in one line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "selective_stopping.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_a_small_run_prints_each_rule_and_attacker_and_is_the_same_for_the_same_seed():
    ran = run("--sigmas", "0,1.96", "--seasons", "3", "--games", "200", "--modes", "stop,return")
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [["k=0", "stop"], ["k=0", "return"], ["k=1.96", "stop"],
                                                     ["k=1.96", "return"]]
    assert all(re.search(r"x 1st in \d/3, true best 1st in \d/3, x's mean rank \d\.\d\d$", line) for line in lines)
    assert run("--sigmas", "0,1.96", "--seasons", "3", "--games", "200", "--modes", "stop,return").stdout == ran.stdout


@pytest.mark.parametrize("flags, words", [(["--sigmas", "x"], "numbers separated by commas"),
                                          (["--sigmas", "-1"], "0 or more"), (["--sigmas", "nan"], "0 or more"),
                                          (["--seasons", "0"], "at least 1"), (["--modes", "stop,sulk"], "unknown sulk"),
                                          (["--newcomer", "--seasons", "1"], "at least 2 seasons")])
def test_bad_flags_are_refused_in_one_line(flags, words):
    ran = run(*flags)
    assert ran.returncode == 2 and words in ran.stderr and "Traceback" not in ran.stderr, ran.stderr
