"""scripts/engine_digest.py: the same games give the same digest; another game another one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "engine_digest.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_digest_is_reproducible_and_tells_games_apart():
    first = run("maumau", "--players", "3", "--games", "4")
    again = run("maumau", "--players", "3", "--games", "4")
    other = run("maumau", "--players", "3", "--games", "4", "--options", '{"quick": true}')
    assert first.returncode == 0 and "digest=" in first.stdout
    assert first.stdout == again.stdout
    assert other.stdout.split("digest=")[1] != first.stdout.split("digest=")[1]


def test_bad_arguments_are_clear_errors():
    unknown = run("no-such-game")
    assert unknown.returncode == 2 and "unknown ruleset 'no-such-game'" in unknown.stderr
    bad = run("maumau", "--options", "{oops")
    assert bad.returncode == 2 and "--options is not JSON" in bad.stderr
