"""`arena replay GAME_ID` and `arena replays --db` for games that have no replay: a running game, and a game
aborted when its host died (a crash keeps no replay), beside an id the database does not know at all.

The database is a real SQLite ladder written through `LadderStore`, as `arena serve` and its recovery leave it;
the commands run in this process (`arena_here`), with their exit status and output as a user sees them."""

from __future__ import annotations

import pytest

from arena.ladder.store import LadderStore, SeatRecord

DEAD = "20261129T203500-dead0001"  # aborted when its host died: no replay anywhere
RUNNING = "20261129T203600-run00001"


@pytest.fixture
def ladder(tmp_path) -> str:
    db = tmp_path / "arena.db"
    store = LadderStore.open(db, recover=False)
    try:
        store.game_started(DEAD, "moumou", {}, 1, "s1", 0, ["a", "b"])
        store.abort_running("host B stopped heartbeating (taken for dead)")  # what a live host does to its games
        store.game_started(RUNNING, "moumou", {}, 2, "s2", 0, ["a", "b"])
    finally:
        store.close()
    return str(db)


def test_a_game_without_a_replay_is_a_runtime_failure_an_unknown_id_a_usage_error(ladder, tmp_path, arena_here):
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    dead = arena_here("replay", DEAD, "--db", ladder, "--step", "0", cwd=empty)
    assert dead.status == 1, dead  # the request is right; the replay does not exist (it was 2, a usage error)
    assert dead.err.count("\n") == 1 and f"game {DEAD} (aborted: host B stopped heartbeating" in dead.err, dead.err
    assert "has no replay" in dead.err and dead.out == ""
    short = arena_here("replay", "dead0001", "--db", ladder, "--verify", cwd=empty)  # the dashboard's short id
    assert short.status == 1 and "has no replay" in short.err, short
    running = arena_here("replay", RUNNING, "--db", ladder, "--step", "0", cwd=empty)
    assert running.status == 1 and f"game {RUNNING} is still running" in running.err, running
    # an id naming no game is a bad argument, as a missing replay file is (README: 2 for a bad file argument)
    unknown = arena_here("replay", "nosuchgame", "--db", ladder, "--step", "0", cwd=empty)
    assert unknown.status == 2 and "no replay of game 'nosuchgame'" in unknown.err, unknown
    assert unknown.err.count("\n") == 1
