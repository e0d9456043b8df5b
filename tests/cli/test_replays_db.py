"""`arena replays --db` and `arena replay GAME_ID --db` with the replays a ladder database keeps, as a user runs them.

Real moumou games (`arena match --local`), their files imported into a real
PostgreSQL ladder (`arena replays DIR --db URL --import`), then read back from a
folder with no replay files: by the full id, by the short id, listed, verified.
"""

from __future__ import annotations

import json
import re

import pytest

from arena.ladder.store import LadderStore, SeatRecord
from arena.replay import load

from .conftest import ROOT

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")


def test_replays_imported_into_a_database_are_served_from_a_folder_without_files(tmp_path, postgres_db, arena_here):
    work = tmp_path / "host"
    work.mkdir()
    played = arena_here("match", ROOT / "sample_bots" / "random_bot.py", ROOT / "sample_bots" / "greedy_bot.py",
                       "--game", "moumou", "--games", "2", "--seed", "7", "--local", "--replays", work / "replays",
                       cwd=work)
    assert played.status == 0, played.err
    files = sorted((work / "replays").rglob("*.jsonl"))
    assert len(files) == 2
    store = LadderStore.open(postgres_db, recover=False)  # the games as a ladder recorded them, files only
    for path in files:
        replay = load(path)
        game_id = replay.header.game_id
        store.game_started(game_id, "moumou", {}, replay.header.seed, game_id, 0, list(replay.header.names))
        store.game_ended(game_id, "finished",
                         [SeatRecord(i, name, placement=p, points=0) for i, (name, p)
                          in enumerate(zip(replay.header.names, replay.result["placements"]))],
                         replay_path=str(path), decisions=len(replay.decisions))
    store.close()

    empty = tmp_path / "elsewhere"
    empty.mkdir()
    nothing = arena_here("replays", "--db", postgres_db, cwd=empty)
    assert nothing.status == 0 and "no replays kept in" in nothing.out
    imported = arena_here("replays", work / "replays", "--db", postgres_db, "--import", cwd=empty)
    assert imported.status == 0, imported.err
    assert re.search(r"stored 2 replays in ", imported.out), imported.out
    again = arena_here("replays", work / "replays", "--db", postgres_db, "--import", cwd=empty)
    assert "stored 0 replays" in again.out  # nothing twice

    rows = json.loads(arena_here("replays", "--db", postgres_db, "--json", cwd=empty).out)
    by_id = {row["game_id"]: row for row in rows}
    assert set(by_id) == {load(p).header.game_id for p in files}
    for path in files:
        row = by_id[load(path).header.game_id]
        assert row["bytes"] == path.stat().st_size and 0 < row["stored_bytes"] < row["bytes"]
        assert row["status"] == "finished" and row["outcome"].startswith(("winner ", "tied "))
    table = arena_here("replays", "--db", postgres_db, "--game", "moumou", "--limit", "1", cwd=empty)
    assert table.status == 0 and table.out.count("finished") == 1, table.out

    game_id = load(files[0]).header.game_id
    verified = arena_here("replay", game_id, "--db", postgres_db, "--verify", cwd=empty)
    assert verified.status == 0 and verified.out.startswith("OK "), verified.out + verified.err
    short = arena_here("replay", game_id.rsplit("-", 1)[1], "--db", postgres_db, "--step", "1", cwd=empty)
    assert short.status == 0 and short.out.strip(), short.err
    assert list(empty.iterdir()) == []


def test_replays_db_refuses_unclear_combinations_in_one_line(tmp_path, arena_here):
    both = arena_here("replays", tmp_path, "--db", tmp_path / "a.db")
    assert both.status == 2 and "not both" in both.err and both.err.count("\n") == 1
    alone = arena_here("replays", "--import", "--db", tmp_path / "a.db")
    assert alone.status == 2 and "give both DIR and --db" in alone.err
    missing = arena_here("replays", "--db", tmp_path / "none.db")
    assert missing.status == 2 and "no ladder database at" in missing.err


def test_replays_db_refuses_a_bot_name_the_database_does_not_know(tmp_path, arena_here):
    """The README's rule: a bot name the database does not know is a usage error (exit 2); a known bot with no
    replay kept is an empty list (exit 0). The unknown name listed nothing and exited 0."""
    db = tmp_path / "a.db"
    store = LadderStore.open(str(db), recover=False)
    store.touch_bot("alpha")
    store.close()
    known = arena_here("replays", "--db", db, "--bot", "alpha")
    assert known.status == 0 and "no replays kept in" in known.out, known
    unknown = arena_here("replays", "--db", db, "--bot", "nobody")
    assert (unknown.status, unknown.err, unknown.out) == (2, f"arena: error: no bot named 'nobody' in {db}\n", "")
    as_json = arena_here("replays", "--db", db, "--bot", "nobody", "--json")
    assert as_json.status == 2 and as_json.out == ""
