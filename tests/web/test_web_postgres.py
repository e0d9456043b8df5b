"""`arena web --db postgresql://...`: the same pages and API from a PostgreSQL ladder, as a real process."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the web view needs uvicorn (pip install -e '.[test]')")

from arena.ladder.store import LadderStore  # noqa: E402

from .test_web_api import BOTS, SEED, play  # noqa: E402
from .web_process import serve_web, stop  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=20) as response:
        return json.load(response)


def test_arena_web_serves_a_postgresql_ladder(postgres_db, tmp_path):
    store = LadderStore.open(postgres_db)
    for n in range(3):
        play(store, tmp_path / "replays", f"pg{n}", "maumau", [BOTS[n % 2], BOTS[(n + 1) % 2]], SEED + n)
    store.close()
    web, url = serve_web(postgres_db, tmp_path, "--replays", str(tmp_path / "replays"))
    try:
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
        stop(web)
    assert web.returncode in (0, 130)
