"""`arena replay GAME_ID` and `arena replays --db` for games that have no replay: a running game, and a game
aborted when its host died (a crash keeps no replay), beside an id the database does not know at all.

The database is a real SQLite ladder written through `LadderStore`, as `arena serve` and its recovery leave it;
the commands run in this process (`arena_here`), with their exit status and output as a user sees them."""

from __future__ import annotations

import json
import socket

import pytest

from arena.ladder.store import LadderStore, PackedReplay, SeatRecord

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


def test_replays_db_lists_the_aborted_games_without_a_replay_with_their_reason(ladder, tmp_path, arena_here):
    store = LadderStore.open(ladder, recover=False)
    try:  # a finished game whose replay the database keeps, beside the dead host's game
        kept = "20261129T203700-kept0001"
        store.game_started(kept, "moumou", {}, 3, "s3", 0, ["a", "b"])
        store.game_ended(kept, "finished", [SeatRecord(0, "a", 1, 0), SeatRecord(1, "b", 2, 5)], decisions=40,
                         replay=PackedReplay.of(b'{"game_id": "kept0001"}\n' * 20))  # listed by its sizes only
    finally:
        store.close()
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    rows = json.loads(arena_here("replays", "--db", ladder, "--json", cwd=empty).out)
    by_id = {row["game_id"]: row for row in rows}
    assert set(by_id) == {kept, DEAD}, rows  # the running game has no replay yet, and is no aborted game
    assert by_id[kept]["has_replay"] and by_id[kept]["bytes"] > 0 and by_id[kept]["outcome"] == "winner a"
    dead = by_id[DEAD]
    assert dead["status"] == "aborted" and not dead["has_replay"] and dead["bytes"] is None, dead
    assert dead["outcome"] == "host B stopped heartbeating (taken for dead)" and dead["bots"] == ["a", "b"]
    table = arena_here("replays", "--db", ladder, cwd=empty)
    assert table.status == 0, table.err
    line = next(line for line in table.out.splitlines() if DEAD in line)
    assert "aborted" in line and "no replay" in line and "host B stopped heartbeating" in line, table.out
    assert "a game cut off by a crash" in table.out
    only_kept = json.loads(arena_here("replays", "--db", ladder, "--json", "--bot", "a", "--limit", "1", cwd=empty).out)
    assert [row["game_id"] for row in only_kept] == [kept]  # newest first, filters as before


def test_a_database_that_cannot_be_read_is_named_with_its_error_not_taken_for_a_missing_game(tmp_path, arena_here):
    """A replay asked of a database that cannot be opened (not a ladder, or a server that is down) says why: it
    was reported as "no replay of game ..." (a usage error), as if the game did not exist."""
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    junk = tmp_path / "notes.db"
    junk.write_text("not a database\n" * 100)
    broken = arena_here("replay", "somegame", "--db", str(junk), "--step", "0", cwd=empty)
    assert broken.status == 1 and broken.err.count("\n") == 1, broken
    assert "not a database" in broken.err and "no replay of game" not in broken.err, broken.err
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")
    with socket.socket() as probe:  # a loopback port bound and not listening: a connection is refused at once
        probe.bind(("127.0.0.1", 0))
        url = f"postgresql://127.0.0.1:{probe.getsockname()[1]}/ladder"
        down = arena_here("replay", "somegame", "--db", url, "--step", "0", cwd=empty)
    assert down.status == 1 and "cannot connect" in down.err and "no replay of game" not in down.err, down.err
    # a replay file in the folder is still found while the database is away
    (empty / "replays").mkdir()
    game = "20261129T230000-file0001"
    (empty / "replays" / f"{game}.jsonl").write_text("")
    from arena.cli.find_replay import find_replay
    assert find_replay(game, str(junk), empty / "replays") == empty / "replays" / f"{game}.jsonl"
