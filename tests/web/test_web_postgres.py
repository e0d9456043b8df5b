"""`arena web --db postgresql://...`: the same pages and API from a PostgreSQL ladder, as a real process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("hypercorn", reason="the web view needs hypercorn (pip install -e '.[test]')")

from arena.ladder.store import LadderStore  # noqa: E402

from .test_web_api import BOTS, SEED, play  # noqa: E402
from .test_web_live import Lines  # noqa: E402
from tests.terminal_signals import sigint_as_at_a_terminal  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=20) as response:
        return json.load(response)


def test_arena_web_serves_a_postgresql_ladder(postgres_db, tmp_path):
    store = LadderStore.open(postgres_db)
    for n in range(3):
        play(store, tmp_path / "replays", f"pg{n}", "maumau", [BOTS[n % 2], BOTS[(n + 1) % 2]], SEED + n)
    store.close()
    web = subprocess.Popen(
        [sys.executable, "-m", "arena", "web", "--db", postgres_db, "--replays", str(tmp_path / "replays"),
         "--listen", "127.0.0.1:0"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        preexec_fn=sigint_as_at_a_terminal)
    try:
        url = Lines(web).until(r"web view on (http://\S+)").group(1)
        standings = get(f"{url}api/v1/standings/maumau")["standings"]
        assert {row["bot"] for row in standings} == set(BOTS[:2]) and sum(row["games"] for row in standings) == 6
        games = get(f"{url}api/v1/games")["games"]
        assert {g["game_id"] for g in games} == {"pg0", "pg1", "pg2"}
        replay = get(f"{url}api/v1/games/pg1/replay")
        assert replay["frames"] and "seed" not in json.dumps(replay["header"] if "header" in replay else {})
        bot = get(f"{url}api/v1/bots/greedy")
        assert bot["rulesets"]["maumau"]["finished"] == 3 and [v["version"] for v in bot["versions"]] == ["1"]
        with urllib.request.urlopen(url, timeout=20) as page:
            assert b"<html" in page.read().lower()
    finally:
        os.killpg(web.pid, signal.SIGINT)
        try:
            web.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(web.pid, signal.SIGKILL)
            web.wait()
    assert web.returncode in (0, 130)
