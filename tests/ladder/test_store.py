"""The SQLite store: schema, game lifecycle, recovery after a crash, tokens."""

from __future__ import annotations

import sqlite3

import pytest

from arena.ladder.store import SCHEMA_VERSION, LadderStore, SeatRecord, StoreError, hash_token, verify_token


def finish(store, game_id, set_id, placements, rotation=0, ruleset="moumou"):
    bots = list(placements)
    store.game_started(game_id, ruleset, {"x": 1}, 42, set_id, rotation, bots)
    store.game_ended(
        game_id,
        "finished",
        [SeatRecord(i, b, placement=p, points=0, strikes=1, timeouts=2) for i, (b, p) in enumerate(placements.items())],
        replay_path=f"/r/{game_id}.jsonl",
        decisions=10,
    )


def test_new_database_has_current_schema_and_wal(tmp_path):
    store = LadderStore.open(tmp_path / "a.db")
    assert store.schema_version() == SCHEMA_VERSION
    mode = sqlite3.connect(tmp_path / "a.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_newer_schema_is_refused_with_a_clear_error(tmp_path):
    LadderStore.open(tmp_path / "a.db").close()
    raw = sqlite3.connect(tmp_path / "a.db")
    raw.execute("UPDATE schema_version SET version = 99")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match="newer"):
        LadderStore.open(tmp_path / "a.db")


def test_not_a_database_is_a_clear_error(tmp_path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError):
        LadderStore.open(path)


def test_finished_games_feed_ratings_and_totals(tmp_path):
    store = LadderStore.open(tmp_path / "a.db")
    finish(store, "g1", "s1", {"a": 1, "b": 2})
    finish(store, "g2", "s1", {"b": 1, "a": 2}, rotation=1)
    finish(store, "g3", "s2", {"a": 1, "b": 2})
    rated = store.rated_games("moumou")
    assert [g.set_id for g in rated] == ["s1", "s1", "s2"]
    assert rated[1].placements == {"b": 1, "a": 2}
    totals = store.totals("moumou")
    assert (totals["a"].games, totals["a"].wins, totals["a"].strikes, totals["a"].timeouts) == (3, 2, 3, 6)
    assert store.pair_counts("moumou") == {frozenset({"a", "b"}): 2}
    game = store.games(status="finished", limit=1)[0]
    assert game.replay_path.endswith(".jsonl") and len(game.seats) == 2 and game.options == {"x": 1}


def test_running_games_are_aborted_on_reopen_and_not_rated(tmp_path):
    store = LadderStore.open(tmp_path / "a.db")
    finish(store, "g1", "s1", {"a": 1, "b": 2})
    store.game_started("g2", "moumou", {}, 7, "s1", 1, ["b", "a"])
    store.close()
    store = LadderStore.open(tmp_path / "a.db")
    statuses = {g.id: (g.status, g.reason) for g in store.games()}
    assert statuses["g1"] == ("finished", "")
    assert statuses["g2"][0] == "aborted"
    assert len(store.rated_games("moumou")) == 1
    # A reader does not touch games a live server is playing.
    store.game_started("g3", "moumou", {}, 8, "s2", 0, ["a", "b"])
    reader = LadderStore.open(tmp_path / "a.db", recover=False)
    assert {g.id: g.status for g in reader.games()}["g3"] == "running"


def test_tokens_are_stored_hashed_and_verified(tmp_path):
    store = LadderStore.open(tmp_path / "a.db")
    store.add_bot("greedy", "s3cret-token")
    known, stored = store.bot_token_hash("greedy")
    assert known and "s3cret-token" not in stored
    assert verify_token("s3cret-token", stored)
    assert not verify_token("wrong", stored)
    assert not verify_token("s3cret-token", "garbage")
    assert hash_token("same") != hash_token("same")  # salted
    assert store.bot_token_hash("nobody") == (False, None)
    assert [b["name"] for b in store.list_bots()] == ["greedy"]
    assert store.remove_bot("greedy") and not store.remove_bot("greedy")


def test_ratings_snapshots_round_trip(tmp_path):
    from arena.ladder.ratings import Rating

    store = LadderStore.open(tmp_path / "a.db")
    store.save_ratings("moumou", [Rating("a", 1550.0, 30.0, 10, 0.6), Rating("b", 1450.0, float("inf"), 1, 0.4)])
    rows = store.latest_ratings("moumou")
    assert rows[0][:4] == ("a", 1550.0, 30.0, 10)
    assert rows[1][2] is None


def test_database_aggregation_matches_the_python_one(tmp_path):
    """`pair_table` (SQL) and `aggregate(rated_games)` (Python) must give the fit the same input."""
    import random

    import numpy as np

    from arena.ladder.ratings import aggregate, fit_bradley_terry

    rng = random.Random(4)
    store = LadderStore.open(tmp_path / "a.db")
    bots = ["a", "b", "c", "d", "e"]
    for set_number in range(40):
        size = rng.choice([2, 2, 3])
        table = rng.sample(bots, size)
        for rotation in range(size):
            seats = table[rotation:] + table[:rotation]
            game_id = f"g{set_number}-{rotation}"
            store.game_started(game_id, "moumou", {}, set_number, f"s{set_number}", rotation, seats)
            status = "aborted" if rng.random() < 0.1 else "finished"
            placements = [rng.randint(1, size) for _ in seats]  # ties included
            store.game_ended(game_id, status, [SeatRecord(i, b, placement=p, points=0) for i, (b, p) in enumerate(zip(seats, placements))])
    from_sql = store.pair_table("moumou")
    in_python = aggregate(store.rated_games("moumou"))
    assert from_sql.bots == in_python.bots
    for field in ("n", "s", "games", "comparisons", "points"):
        assert np.allclose(getattr(from_sql, field), getattr(in_python, field)), field
    assert [r.rating for r in fit_bradley_terry(from_sql)] == pytest.approx(
        [r.rating for r in fit_bradley_terry(store.rated_games("moumou"))]
    )


def test_a_second_server_cannot_take_a_database_in_use(tmp_path):
    """Recovery by a second `arena serve` would abort the live server's running games."""
    server = LadderStore.open(tmp_path / "a.db")
    server.game_started("g1", "moumou", {}, 7, "s1", 0, ["a", "b"])
    with pytest.raises(StoreError, match="in use by another `arena serve`"):
        LadderStore.open(tmp_path / "a.db")
    assert {g.id: g.status for g in server.games()}["g1"] == "running"
    LadderStore.open(tmp_path / "a.db", recover=False).close()  # readers are never locked out
    server.close()
    LadderStore.open(tmp_path / "a.db").close()  # released on close


def test_open_names_that_never_played_are_forgotten_the_others_kept(tmp_path):
    store = LadderStore.open(tmp_path / "a.db")
    store.add_bot("registered", "token")
    for name in ("played", "seated-in-a-running-game", "passer-by", "another"):
        store.touch_bot(name)
    finish(store, "g1", "g1", {"played": 1, "registered": 2})
    store.game_started("g2", "moumou", {}, 7, "g2", 0, ["seated-in-a-running-game", "played"])
    assert store.forget_unplayed("played") == 0
    assert store.forget_unplayed("passer-by") == 1
    assert store.bot_count() == 4
    assert store.forget_unplayed() == 1  # "another"
    assert {b["name"] for b in store.list_bots()} == {"registered", "played", "seated-in-a-running-game"}
    store.close()
