"""`kill -9` a busy ladder again and again: every game a bot was told had finished is finished, rated and replayable.

A real `arena serve` process (the toy ruleset, 8 concurrent games) plays 8
loadbot sessions (2 games at once each) that log every GameEnded they are
told.  The server is killed with SIGKILL at moments picked from that log: just
after the n-th GameEnded since it started (n random), which is exactly where
an arena that told before it committed loses games.  After each kill the
server restarts on the same database and replay folder (its start runs the
recovery); at the end the database, the rating inputs and the replays (in the
database, committed with each result) are compared with what the bots were told.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import pytest

from arena.ladder.recovery import recover_replays
from arena.ladder.store import LadderStore
from arena.replay import load, verify
import toy_ladder_game
from test_serve_e2e import RULESET, Server, start_bots, stop_bots

BOTS = ",".join(f"bot{i}" for i in range(8))


@pytest.fixture(autouse=True)
def ruleset():
    """The replays are verified in this process: it must know the servers' ruleset."""
    with toy_ladder_game.registered() as name:
        yield name


def told(log: Path) -> list[dict]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.endswith("}")]


def wait_for_lines(log: Path, count: int, server: Server, timeout: float) -> None:
    """Return as soon as the bots have logged ``count`` GameEnded lines (polled every 2 ms, bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and log.read_bytes().count(b"\n") >= count:
            return
        assert server.process.poll() is None, f"the server died by itself: {server.rest()}"
        time.sleep(0.002)
    raise AssertionError(f"timed out after {timeout} s waiting for {count} GameEnded lines")


def crash_again_and_again(tmp_path: Path, kills: int, seed: int) -> dict:
    rng = random.Random(seed)
    log = tmp_path / "ended.jsonl"
    found = {"cut_off": 0, "sealed_after_commit": 0}
    for _ in range(kills):
        server = Server(tmp_path, "--concurrency", "8", "--max-games-per-bot", "2")
        found["cut_off"] += _count(server.rest(), "games cut off by the last shutdown")
        found["sealed_after_commit"] += _count(server.rest(), "finished games' replays left unsealed")
        bots = start_bots(server.port, BOTS, "--max-games", "2", "--style", "first", "--ended-log", str(log))
        try:
            before = len(told(log))
            wait_for_lines(log, before + rng.randint(1, 40), server, timeout=60)
            os.kill(server.process.pid, signal.SIGKILL)
            server.process.wait(10)
        finally:
            server.kill()
            stop_bots(bots)
    # Each start above ran the recovery of the kill before it (`arena serve` does it before listening);
    # the last kill's is run here with the same call, which saves a server start.
    store = LadderStore.open(tmp_path / "ladder.db")
    try:
        recovery = recover_replays(store, tmp_path / "replays")
        assert not recovery.problems
        found["cut_off"] += len(store.recovered)
        found["sealed_after_commit"] += recovery.renamed
    finally:
        store.close()
    return {**check(tmp_path, log, kills), **found}


def _count(output: str, what: str) -> int:
    """The number a start-up line of `arena serve` reports (0 when the line is absent)."""
    for line in output.splitlines():
        if what in line:
            return int(line.split()[0])
    return 0


def check(tmp_path: Path, log: Path, kills: int) -> dict:
    lines = told(log)
    finished_told = {line["game_id"] for line in lines if all(p >= 1 for p in line["placements"])}
    aborted_told = {line["game_id"] for line in lines} - finished_told
    store = LadderStore.open(tmp_path / "ladder.db", recover=False)
    try:
        games = {game.id: game for game in store.games()}
        finished = {game_id for game_id, game in games.items() if game.status == "finished"}
        lost = sorted(finished_told - finished)
        assert not lost, f"told finished but not finished in the database: {[(g, games.get(g)) for g in lost]}"
        assert not aborted_told & finished, "a game told aborted is finished in the database"
        assert "running" not in {game.status for game in games.values()}
        rated = store.rated_games(RULESET)
        assert len(rated) == len(finished)  # every finished game is a rating input, nothing else is
        stored = tmp_path / "stored"
        stored.mkdir(exist_ok=True)
        for game_id in finished:
            game = games[game_id]
            assert all(seat.placement for seat in game.seats), game
            # the replay was committed with the result: in the database, whole, and no file of it
            assert game.replay_path is None, game
            text = store.replay_text(game_id)
            assert text is not None, f"finished game {game_id} has no replay in the database"
            path = stored / f"{game_id}.jsonl"
            path.write_bytes(text)
            replay = load(path)
            assert replay.status == "finished" and replay.header.game_id == game_id
            assert list(replay.result["placements"]) == [seat.placement for seat in game.seats]
            report = verify(path)
            assert report.ok and report.complete, report.summary()
            # the ladder hashes every 16th position and the last (LadderSettings.replay_hash_every)
            assert [d.i for d in replay.decisions if d.hash is not None] == sorted(
                {*range(16, len(replay.decisions) + 1, 16), len(replay.decisions)})
        for game in games.values():
            text = store.replay_text(game.id) if game.status == "aborted" else None
            if text is not None:  # an abort the server committed itself (a crash's games have none)
                path = stored / f"{game.id}.jsonl"
                path.write_bytes(text)
                assert load(path).status == "aborted"
    finally:
        store.close()
    assert not list((tmp_path / "replays").rglob("*.jsonl*")), "a ladder game wrote a replay file"
    return {"kills": kills, "told_finished": len(finished_told), "finished": len(finished),
            "aborted": sum(game.status == "aborted" for game in games.values())}


def test_kill_9_at_a_few_busy_moments_loses_no_game_a_bot_was_told_had_finished(tmp_path):
    figures = crash_again_and_again(tmp_path, kills=2, seed=1)
    print(f"crash test: {figures}")
    assert figures["told_finished"] >= 2


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_kill_9_at_many_busy_moments_loses_no_game_a_bot_was_told_had_finished(tmp_path, seed):
    figures = crash_again_and_again(tmp_path, kills=12, seed=100 + seed)
    print(f"crash test seed {seed}: {figures}")
    assert figures["told_finished"] >= 12
