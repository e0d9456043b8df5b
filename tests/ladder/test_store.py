"""The ladder store, the same suite over both backends: schema, game lifecycle, recovery after a crash, tokens.

Every test taking ``db`` runs twice: on a SQLite file in a temporary folder and
on a fresh database of a real PostgreSQL (tests/postgres_server.py; that half
skips, saying what to install, where PostgreSQL's programs are missing).
"""

from __future__ import annotations

import sqlite3

import pytest

from arena.ladder.store import fit_totals
from arena.ladder.store import (SCHEMA_VERSION, GameClosed, LadderStore, SeatRecord, StoreError, UnknownGame,
                                hash_token, verify_token)


def raw(db: str, sql: str) -> list:
    """Run SQL on the database behind the store's back (as an operator or another version would)."""
    if db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db, autocommit=True) as connection:
            cursor = connection.execute(sql)
            return cursor.fetchall() if cursor.description else []
    connection = sqlite3.connect(db)
    try:
        rows = connection.execute(sql).fetchall()
        connection.commit()
        return rows
    finally:
        connection.close()


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


def test_new_database_has_current_schema(db):
    store = LadderStore.open(db)
    assert store.schema_version() == SCHEMA_VERSION
    store.close()
    LadderStore.open(db).close()  # opening again applies nothing twice
    assert raw(db, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


def test_the_running_games_are_read_through_an_index_not_a_scan_of_every_game(db):
    """The web view reads the running games on every /live request, and a start-up sweep reads them too: without the
    index (step 14) each read scanned and sorted every game ever played."""
    LadderStore.open(db).close()
    query = "SELECT id FROM games WHERE status = 'running' ORDER BY started_at DESC, id LIMIT 500"
    if db.startswith("postgresql://"):  # an empty table is cheapest to scan: ask for the plan an index allows
        import psycopg

        with psycopg.connect(db, autocommit=True) as connection:
            connection.execute("SET enable_seqscan = off")
            plan = " ".join(row[0] for row in connection.execute("EXPLAIN " + query).fetchall())
    else:
        plan = " ".join(str(row[-1]) for row in raw(db, "EXPLAIN QUERY PLAN " + query))
    assert "games_by_status" in plan, plan


def test_a_step_of_one_database_s_own_runs_only_there_and_moves_both_versions_on(db, monkeypatch):
    from arena.ladder.store import migrations

    store = LadderStore.open(db)
    store.close()
    # The step of PostgreSQL's own in the released list: its functions and storage there, nothing on SQLite.
    if db.startswith("postgresql://"):
        assert raw(db, "SELECT attstorage FROM pg_attribute WHERE attrelid = 'replays'::regclass "
                       "AND attname = 'data'") == [("e",)]
        # (step 15 fenced the claim and the start with new signatures beside steps 8 and 10's: the older releases')
        assert sorted(raw(db, "SELECT proname, pronargs FROM pg_proc WHERE proname LIKE 'mau_%'")) == [
            ("mau_claim_seats", 5), ("mau_claim_seats", 6), ("mau_end_game", 21), ("mau_release_seats", 5),
            ("mau_start_game", 12), ("mau_start_game", 13)]
        # step 11: the refit's read of the changed rows goes through indexes (`fit_totals.CHANGED_INDEXES`)
        assert sorted(raw(db, "SELECT indexdef FROM pg_indexes WHERE indexname LIKE 'fit_%_by_changed'")) == [
            ("CREATE INDEX fit_bots_by_changed ON public.fit_bots USING btree (ruleset, changed)",),
            ("CREATE INDEX fit_pairs_by_changed ON public.fit_pairs USING btree (ruleset, changed)",)]
    else:
        assert raw(db, "SELECT name FROM sqlite_master WHERE name LIKE 'fit_%_by_changed'") == []
    # A later step with SQL for each database runs the shared part, then only this database's own.
    step = migrations.Step(shared="CREATE TABLE later (n INTEGER)",
                           postgresql=("INSERT INTO later VALUES (1)",), sqlite=("INSERT INTO later VALUES (2)",))
    monkeypatch.setattr(migrations, "MIGRATIONS", (*migrations.MIGRATIONS, step))
    store = LadderStore.open(db)
    migrations.migrate(store.backend, SCHEMA_VERSION + 1)
    assert store.schema_version() == SCHEMA_VERSION + 1
    store.close()
    assert raw(db, "SELECT n FROM later") == [(1 if db.startswith("postgresql://") else 2,)]
    with pytest.raises(ValueError, match="no schema steps for a 'oracle' database"):
        step.statements("oracle")


def test_step_16_gives_the_hosts_table_a_web_address_and_the_rows_before_it_keep_working(db):
    """Schema step 16 (``hosts.web``) on a ladder whose hosts table has rows written at step 15: they stay as they were,
    with no web address (what a host of an older release leaves, as it never writes one)."""
    from arena.ladder.store import migrations, open_backend

    backend = open_backend(db)
    try:
        migrations.migrate(backend, 15)
        backend.run("INSERT INTO hosts (name, address, lock_key, concurrency, started_at, lease_until, state) "
                    "VALUES ('old', 'old.example:1', 1, 4, 1, 2, 'stopped')")
        assert migrations.migrate(backend, 16) == (15, 16)
        assert backend.rows("SELECT name, address, concurrency, state, web FROM hosts") == [
            ("old", "old.example:1", 4, "stopped", None)]
    finally:
        backend.close()
    store = LadderStore.open(db)
    try:
        if db.startswith("postgresql://"):  # `arena hosts` and /api/v1/hosts read it: none
            assert [(h.name, h.web, h.to_dict()["web"]) for h in store.hosts()] == [("old", None, None)]
    finally:
        store.close()


def test_a_sqlite_database_is_in_wal_mode(tmp_path):
    LadderStore.open(tmp_path / "a.db").close()
    mode = sqlite3.connect(tmp_path / "a.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_newer_schema_is_refused_with_a_clear_error(db):
    LadderStore.open(db).close()
    raw(db, "UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match=f"schema version 99, newer than this arena understands \\({SCHEMA_VERSION}\\)"):
        LadderStore.open(db)
    with pytest.raises(StoreError, match="newer"):
        LadderStore.open(db, recover=False)  # readers too: they would misread it
    assert raw(db, "SELECT version FROM schema_version") == [(99,)]  # and nothing was touched


def test_a_database_that_is_not_a_ladder_one_is_a_clear_error(db):
    raw(db, "CREATE TABLE schema_version (release TEXT)")  # someone else's table of that name
    with pytest.raises(StoreError, match="not a usable ladder database"):
        LadderStore.open(db)


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError):
        LadderStore.open(path)


@pytest.mark.parametrize("recover", [True, False])
def test_a_database_in_a_missing_folder_is_refused_and_the_folder_not_made(tmp_path, recover):
    """As `arena serve --db` refuses it: a mistyped path leaves no folders behind (the store made them)."""
    db = tmp_path / "no" / "such" / "ladder.db"
    with pytest.raises(StoreError) as refused:
        LadderStore.open(db, recover=recover)
    assert str(refused.value) == f"{db}: the folder {db.parent} does not exist (it is not created: make it first)"
    assert list(tmp_path.iterdir()) == []


def test_a_database_under_a_file_is_refused_in_one_line(tmp_path):
    (tmp_path / "plain-file").write_text("not a folder")
    db = tmp_path / "plain-file" / "ladder.db"
    with pytest.raises(StoreError) as refused:
        LadderStore.open(db)
    assert str(refused.value) == f"{db}: {db.parent} is a file, not a folder"


def test_finished_games_feed_ratings_and_totals(db):
    store = LadderStore.open(db)
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


def test_running_games_are_aborted_on_reopen_and_not_rated(db):
    store = LadderStore.open(db)
    finish(store, "g1", "s1", {"a": 1, "b": 2})
    store.game_started("g2", "moumou", {}, 7, "s1", 1, ["b", "a"])
    store.close()
    store = LadderStore.open(db)
    statuses = {g.id: (g.status, g.reason) for g in store.games()}
    assert statuses["g1"] == ("finished", "")
    assert statuses["g2"][0] == "aborted"
    assert len(store.rated_games("moumou")) == 1
    # A reader does not touch games a live server is playing.
    store.game_started("g3", "moumou", {}, 8, "s2", 0, ["a", "b"])
    reader = LadderStore.open(db, recover=False)
    assert {g.id: g.status for g in reader.games()}["g3"] == "running"


def test_tokens_are_stored_hashed_and_verified(db):
    store = LadderStore.open(db)
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


def test_ratings_snapshots_round_trip(db):
    from arena.ladder.ratings import Rating

    store = LadderStore.open(db)
    store.save_ratings("moumou", [Rating("a", 1550.123456789, 30.5, 10, 0.6), Rating("b", 1450.0, float("inf"), 1, 0.4)])
    rows = store.latest_ratings("moumou")
    assert rows[0][:4] == ("a", 1550.123456789, 30.5, 10)  # a double, not PostgreSQL's 4-byte REAL
    assert rows[1][2] is None


def test_database_aggregation_matches_the_python_one(db):
    """`pair_table` (SQL) and `aggregate(rated_games)` (Python) must give the fit the same input."""
    import random

    import numpy as np

    from arena.ladder.ratings import aggregate, fit_bradley_terry

    rng = random.Random(4)
    store = LadderStore.open(db)
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
            records = [SeatRecord(i, b, placement=p, points=0) for i, (b, p) in enumerate(zip(seats, placements))]
            store.game_ended(game_id, status, records)
            if status == "finished":
                last_finished = (game_id, records)
    in_python = aggregate(store.rated_games("moumou"))
    # the running totals, the same sums recomputed by the database, and the totals rebuilt from the games
    from_totals, recomputed = store.pair_table("moumou"), store.pair_table_recomputed("moumou")
    with store._lock, store.backend.transaction():
        fit_totals.rebuild(store.backend)
    rebuilt = store.pair_table("moumou")
    for from_sql in (from_totals, recomputed, rebuilt):
        assert from_sql.bots == in_python.bots
        for field in ("n", "s", "games", "comparisons", "points"):
            assert np.allclose(getattr(from_sql, field), getattr(in_python, field)), field
    assert store.totals("moumou") == store.totals_recomputed("moumou")
    # committing a finished game's result again (after an outage, by recovery) adds nothing
    store.game_ended(*last_finished[:1], "finished", last_finished[1])
    assert np.allclose(store.pair_table("moumou").n, rebuilt.n) and np.allclose(store.pair_table("moumou").s, rebuilt.s)
    assert [r.rating for r in fit_bradley_terry(from_totals)] == pytest.approx(
        [r.rating for r in fit_bradley_terry(store.rated_games("moumou"))]
    )


def test_a_second_server_cannot_take_a_database_in_use(db):
    """Recovery by a second `arena serve` would abort the live server's running games."""
    server = LadderStore.open(db)
    server.game_started("g1", "moumou", {}, 7, "s1", 0, ["a", "b"])
    with pytest.raises(StoreError, match="in use by another `arena serve`"):
        LadderStore.open(db)
    assert {g.id: g.status for g in server.games()}["g1"] == "running"
    LadderStore.open(db, recover=False).close()  # readers are never locked out
    server.close()
    LadderStore.open(db).close()  # released on close


def test_a_restarted_server_waits_for_the_claim_its_killed_process_still_holds(postgres_db):
    """A server killed a moment ago holds its claim until its backend sees the connection close; the
    restart in that moment was refused as "in use" (a test that closes and reopens failed once so)."""
    from dying_session import successor_outcome

    from arena.ladder.store.postgres import LOCK_CLASS, SERVER_LOCK

    killed = LadderStore.open(postgres_db)
    killed.game_started("g1", "moumou", {}, 7, "s1", 0, ["a", "b"])
    killed.close()
    outcome = successor_outcome(postgres_db, LOCK_CLASS, SERVER_LOCK, lambda: LadderStore.open(postgres_db))
    restarted = outcome["result"]
    assert restarted.recovered == [("g1", None)] and restarted.game("g1").status == "aborted"
    restarted.close()


def test_open_names_that_never_played_are_forgotten_the_others_kept(db):
    store = LadderStore.open(db)
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


def test_a_sixty_three_bit_seed_round_trips(db):
    """Ladder seeds are 63-bit (`secrets.randbits(63)`): PostgreSQL's INTEGER would refuse them."""
    store = LadderStore.open(db)
    store.game_started("g1", "moumou", {"deck": [1, 2]}, 2**63 - 1, "s1", 0, ["a", "b"])
    game = store.game("g1")
    assert (game.seed, game.options, game.status) == (2**63 - 1, {"deck": [1, 2]}, "running")
    store.close()


def test_a_game_end_is_one_transaction(db):
    """A result is all committed or not at all: a failing seat row leaves the game running, as before."""
    store = LadderStore.open(db)
    store.game_started("g1", "moumou", {}, 7, "s1", 0, ["a", "b"])
    with pytest.raises(Exception):
        store.game_ended("g1", "finished", [SeatRecord(0, "a", placement=1), SeatRecord(1, None, placement=2)])  # type: ignore[arg-type]
    game = store.game("g1")
    assert game.status == "running" and [s.placement for s in game.seats] == [None, None]
    store.game_ended("g1", "finished", [SeatRecord(0, "a", placement=1), SeatRecord(1, "b", placement=2)])
    assert store.statuses(["g1", "nope"]) == {"g1": "finished"}
    assert store.bot_totals("a") == {"moumou": {"finished": 1, "aborted": 0, "wins": 1, "timeouts": 0, "strikes": 0,
                                                "forfeits": 0, "decisions": 0, "think_ms": 0, "errors": 0}}
    store.close()


def test_a_group_commit_runs_each_writes_before_ahead_of_it_and_its_after_once_it_is_committed(db):
    """`Call.before`/`after`: a replay's result line fsynced before the commit, the seal after it, on
    the commit's thread.  A failing ``before`` keeps its write out and no other; ``after`` sees the
    write committed; a failing ``after`` does not undo it; a write that fails gets no ``after``."""
    from arena.ladder.store.ladder_store import Call

    store = LadderStore.open(db)
    store.game_started("g1", "moumou", {}, 7, "g1", 0, ["a", "b"])
    store.game_started("g2", "moumou", {}, 8, "g2", 0, ["a", "b"])
    store.game_started("g3", "moumou", {}, 9, "g3", 0, ["a", "b"])
    seats = [SeatRecord(0, "a", placement=1), SeatRecord(1, "b", placement=2)]
    seen: list[str] = []

    def before(game_id):
        seen.append(f"before {game_id}: {store.statuses([game_id])[game_id]}")
        if game_id == "g2":
            raise OSError("disk full")

    def after(game_id):
        # read on a connection of its own: committed, not merely written in the store's transaction
        status = raw(db, f"SELECT status FROM games WHERE id = '{game_id}'")[0][0]
        seen.append(f"after {game_id}: {status}")
        if game_id == "g3":
            raise OSError("rename failed")
        return game_id

    def ended(game_id):
        return Call(lambda: store.game_ended(game_id, "finished", seats), before=lambda: before(game_id),
                    after=lambda: after(game_id))

    store.game_started("g4", "moumou", {}, 10, "g4", 0, ["a", "b"])
    bad_seats = [SeatRecord(0, "a", placement=1), SeatRecord(1, None, placement=2)]  # type: ignore[arg-type]
    refused = Call(lambda: store.game_ended("g4", "finished", bad_seats), after=lambda: seen.append("after g4"))
    calls = [ended("g1"), ended("g2"), ended("g3"), refused]
    store.run_together(calls)
    g1, g2, g3, _ = calls
    assert seen == ["before g1: running", "before g2: running", "before g3: running",
                    "after g1: finished", "after g3: finished"]
    assert (g1.error, g1.after_result, g1.after_error) == (None, "g1", None)
    assert isinstance(g2.error, OSError) and store.statuses(["g2"]) == {"g2": "running"}
    assert g3.error is None and isinstance(g3.after_error, OSError) and store.statuses(["g3"]) == {"g3": "finished"}
    assert refused.error is not None and store.statuses(["g4"]) == {"g4": "running"}
    store.close()


def test_a_group_commit_takes_its_writes_steps_side_by_side(db):
    """Writes in steps (`LadderStore.game_started_steps`, `game_ended_steps`) in one group commit: each
    gets its own result; their reads go to the database together (on PostgreSQL a result reads nothing
    in a group commit: the whole group and its COMMIT are one message); and when one of them fails the
    shared transaction (a result meeting a row another host aborted, or one committed before whose
    reply was lost), each is run again alone, and nothing is counted twice."""
    import functools

    from arena.ladder.store.ladder_store import Call

    store = LadderStore.open(db)
    for game_id in ("r1", "r2", "r3", "swept"):
        store.game_started(game_id, "moumou", {}, 1, game_id, 0, ["a", "b"])
    seats = [SeatRecord(0, "a", placement=1), SeatRecord(1, "b", placement=2)]

    def start(game_id):
        return Call(functools.partial(store.game_started_steps, game_id, "moumou", {}, 2, game_id, 0, ["c", "d"]))

    def end(game_id):
        return Call(lambda: store.game_ended_steps(game_id, "finished", seats))

    trips = store.stats.round_trips
    calls = [start("s1"), end("r1"), start("s2"), end("r2")]
    store.run_together(calls)
    if db.startswith("postgresql://"):
        assert store.stats.round_trips - trips == 1  # the fenced updates checked on the server: one message
    assert [(c.result, c.error) for c in calls] == [(True, None), (None, None), (True, None), (None, None)]
    assert store.statuses(["s1", "s2", "r1", "r2"]) == {"s1": "running", "s2": "running", "r1": "finished",
                                                       "r2": "finished"}
    totals = store.totals("moumou")
    calls = [end("r1"), end("r2")]  # committed again (their replies lost): nothing changes, no error
    store.run_together(calls)
    assert [(c.result, c.error) for c in calls] == [(None, None), (None, None)]
    assert store.totals("moumou") == totals == store.totals_recomputed("moumou")
    raw(db, "UPDATE games SET status = 'aborted', reason = 'host A died (not rated)' WHERE id = 'swept'")
    calls = [start("s3"), end("swept"), end("r3")]
    store.run_together(calls)
    assert calls[0].result is True and isinstance(calls[1].error, GameClosed) and calls[2].error is None
    assert store.statuses(["s3", "swept", "r3"]) == {"s3": "running", "swept": "aborted", "r3": "finished"}
    assert len(store.rated_games("moumou")) == 3
    store.close()


def test_a_write_that_sends_after_its_last_read_is_refused_and_its_group_commit_stands(postgres_db):
    """On PostgreSQL a group commit whose writes all ask for their last read (`Read.last`) sends its COMMIT
    with those reads: a write that then sends more is a bug, refused (the statement would run outside the
    transaction), and only that write gets the error; the others are committed."""
    import functools

    from arena.ladder.store.backend import Read
    from arena.ladder.store.ladder_store import Call

    store = LadderStore.open(postgres_db)

    def bad():
        yield Read([("SELECT 1", ())], last=True)
        store.backend.send("INSERT INTO bots (name, token_hash, first_seen) VALUES ('late', NULL, NULL)")

    def good(name):
        store.backend.send("INSERT INTO bots (name, token_hash, first_seen) VALUES (?, NULL, NULL)", (name,))
        answer = yield Read([("SELECT COUNT(*) FROM bots WHERE name = ?", (name,))], last=True)
        return answer.rows[0][0][0]

    calls = [Call(functools.partial(good, "early")), Call(bad)]
    trips = store.stats.round_trips
    store.run_together(calls)
    assert store.stats.round_trips - trips == 1
    assert calls[0].result == 1 and calls[0].error is None
    assert isinstance(calls[1].error, RuntimeError)
    assert [bot["name"] for bot in store.list_bots()] == ["early"]
    store.close()


def test_an_ended_game_is_never_written_again(db):
    """The fence of a host taken for dead: a result meets a row another host aborted and changes nothing."""
    store = LadderStore.open(db)
    result = [SeatRecord(0, "a", placement=1, points=3), SeatRecord(1, "b", placement=2, points=0)]
    store.game_started("swept", "moumou", {}, 7, "swept", 0, ["a", "b"])
    raw(db, "UPDATE games SET status = 'aborted', reason = 'host A died (not rated)' WHERE id = 'swept'")
    with pytest.raises(GameClosed, match="already closed as aborted \\(host A died"):
        store.game_ended("swept", "finished", result, replay_path="/r/swept.jsonl", decisions=9)
    store.game_ended("swept", "aborted", [], reason="server shutting down")  # a second abort: the first stands
    game = store.game("swept")
    assert (game.status, game.reason, game.replay_path, game.decisions) == ("aborted", "host A died (not rated)", None, 0)
    assert [s.placement for s in game.seats] == [None, None] and not store.rated_games("moumou")
    # A result committed again (its first reply lost with the connection) changes nothing, and counts once.
    store.game_started("twice", "moumou", {}, 8, "twice", 0, ["a", "b"])
    store.game_ended("twice", "finished", result, decisions=5)
    store.game_ended("twice", "finished", [SeatRecord(0, "a", placement=2), SeatRecord(1, "b", placement=1)])
    store.game_ended("twice", "aborted", [], reason="late abort")
    game = store.game("twice")
    assert (game.status, game.decisions, [s.placement for s in game.seats]) == ("finished", 5, [1, 2])
    assert store.totals("moumou")["a"].games == 1 and store.totals("moumou")["a"].wins == 1
    store.close()


def test_a_result_for_a_game_without_a_row_is_an_error_and_stores_nothing(db):
    """A result (or an abort) whose start was never recorded here is refused by name, alone or in a group
    commit beside good writes, and leaves no seat rows, replay or totals behind."""
    from arena.ladder.store.ladder_store import Call
    from arena.ladder.store.replays import PackedReplay

    store = LadderStore.open(db)
    result = [SeatRecord(0, "a", placement=1, points=3), SeatRecord(1, "b", placement=2, points=0)]
    with pytest.raises(UnknownGame, match="game ghost has no row in this database"):
        store.game_ended("ghost", "finished", result, decisions=4, replay=PackedReplay.of(b'{"x": 1}\n'))
    with pytest.raises(UnknownGame):
        store.game_ended("ghost", "aborted", [], reason="server shutting down")
    store.game_started("real", "moumou", {}, 7, "real", 0, ["a", "b"])
    calls = [Call(lambda: store.game_ended_steps("ghost", "finished", result)),
             Call(lambda: store.game_ended_steps("real", "finished", result))]
    store.run_together(calls)
    assert isinstance(calls[0].error, UnknownGame) and calls[1].error is None
    assert store.game("ghost") is None and store.replay_text("ghost") is None
    assert store.statuses(["ghost", "real"]) == {"real": "finished"}
    assert store.totals("moumou")["a"].games == 1  # the real game's only
    store.close()


def test_processes_opening_a_new_database_together_migrate_it_once(db):
    """Readers and a server starting at the same moment: the schema lock makes one migrate, the others wait."""
    import threading

    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def open_one() -> None:
        try:
            barrier.wait(timeout=10)
            LadderStore.open(db, recover=False).close()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    assert raw(db, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


# The schema as every SQLite ladder database written before the PostgreSQL backend has it (version 1).
SCHEMA_V1_AS_RELEASED = """
    CREATE TABLE schema_version (version INTEGER NOT NULL);
    INSERT INTO schema_version VALUES (1);
    CREATE TABLE bots (name TEXT PRIMARY KEY, token_hash TEXT, first_seen TEXT, last_seen TEXT,
        version TEXT NOT NULL DEFAULT '');
    CREATE TABLE games (id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, options TEXT NOT NULL, seed INTEGER NOT NULL,
        set_id TEXT NOT NULL, rotation INTEGER NOT NULL DEFAULT 0, started_at TEXT NOT NULL, ended_at TEXT,
        replay_path TEXT, status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'aborted')),
        reason TEXT NOT NULL DEFAULT '', decisions INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX games_by_ruleset ON games (ruleset, status);
    CREATE TABLE seats (game_id TEXT NOT NULL REFERENCES games (id), seat INTEGER NOT NULL, bot TEXT NOT NULL,
        placement INTEGER, points INTEGER, strikes INTEGER NOT NULL DEFAULT 0, timeouts INTEGER NOT NULL DEFAULT 0,
        think_ms INTEGER NOT NULL DEFAULT 0, decisions INTEGER NOT NULL DEFAULT 0,
        forfeited INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game_id, seat));
    CREATE INDEX seats_by_bot ON seats (bot);
    CREATE TABLE rating_snapshots (ruleset TEXT NOT NULL, bot TEXT NOT NULL, rating REAL NOT NULL, ci REAL,
        games INTEGER NOT NULL, at TEXT NOT NULL);
    CREATE INDEX snapshots_by_ruleset ON rating_snapshots (ruleset, at);
    INSERT INTO bots VALUES ('old', 'scrypt$16384$8$1$00$00', '2026-01-01', '2026-01-02', 'v1');
    INSERT INTO games VALUES ('g0', 'moumou', '{}', 9223372036854775807, 's0', 0, '2026-01-01T00:00:00', '2026-01-01T00:01:00',
        '/r/g0.jsonl', 'finished', '', 6);
    INSERT INTO seats VALUES ('g0', 0, 'old', 1, 0, 0, 0, 5, 3, 0), ('g0', 1, 'other', 2, 0, 1, 0, 7, 3, 0);
    INSERT INTO games VALUES ('g1', 'moumou', '{}', 8, 's1', 0, '2026-01-01T00:02:00', NULL, '/r/g1.jsonl.part', 'running', '', 0);
    INSERT INTO seats VALUES ('g1', 0, 'old', NULL, NULL, 0, 0, 0, 0, 0), ('g1', 1, 'other', NULL, NULL, 0, 0, 0, 0, 0);
    INSERT INTO rating_snapshots VALUES ('moumou', 'old', 1512.25, 80.5, 1, '2026-01-01T00:01:00');
"""


def test_a_sqlite_database_written_with_the_released_schema_keeps_working(tmp_path):
    path = tmp_path / "old.db"
    connection = sqlite3.connect(path)
    connection.executescript(SCHEMA_V1_AS_RELEASED)
    connection.close()
    store = LadderStore.open(path)
    assert store.schema_version() == SCHEMA_VERSION >= 2  # migrated forward: the errors column added
    assert store.recovered == [("g1", "/r/g1.jsonl.part")]
    assert [g.id for g in store.games(status="finished")] == ["g0"]
    assert store.game("g0").seed == 2**63 - 1
    assert store.rated_games("moumou")[0].placements == {"old": 1, "other": 2}
    assert store.totals("moumou")["other"].strikes == 1
    assert store.totals("moumou")["other"].errors == 0  # rows written before the column count none
    assert store.latest_ratings("moumou") == [("old", 1512.25, 80.5, 1, "2026-01-01T00:01:00")]
    # the fit's running totals were filled from the old games by the schema step that made them
    old_games, recomputed = store.pair_table("moumou"), store.pair_table_recomputed("moumou")
    assert old_games.bots == recomputed.bots and (old_games.n == recomputed.n).all() and (old_games.s == recomputed.s).all()
    finish(store, "g2", "s2", {"old": 2, "new": 1})
    assert {b["name"] for b in store.list_bots()} == {"old"}
    assert len(store.rated_games("moumou")) == 2
    store.close()


def test_an_unreachable_or_malformed_postgresql_url_is_one_clear_line(postgres):
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")
    import socket

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(StoreError) as refused:
        LadderStore.open(f"postgresql://arena:s3cret@127.0.0.1:{port}/arena", recover=False)
    message = str(refused.value)
    assert message.startswith(f"cannot connect to postgresql://arena:***@127.0.0.1:{port}/arena: ")
    assert "\n" not in message and "s3cret" not in message
    with pytest.raises(StoreError, match="cannot connect to postgresql://127.0.0.1:notaport/arena"):
        LadderStore.open("postgresql://127.0.0.1:notaport/arena", recover=False)
    with pytest.raises(StoreError, match='database "no_such_db" does not exist'):
        LadderStore.open(postgres.url.rsplit("/", 1)[0] + "/no_such_db", recover=False)


def test_a_postgresql_commit_is_durable_even_where_the_database_defaults_to_asynchronous(postgres_db):
    """The runner tells bots a result once `game_ended` returned: that commit must be on disk, whatever
    the operator set as the database's default (asynchronous commit can lose the last transactions)."""
    raw(postgres_db, f"ALTER DATABASE {postgres_db.rsplit('/', 1)[1]} SET synchronous_commit = off")
    assert raw(postgres_db, "SHOW synchronous_commit") == [("off",)]
    store = LadderStore.open(postgres_db)
    assert store.backend.rows("SHOW synchronous_commit") == [("on",)]
    store.close()


def test_registration_never_replaces_a_token_rotation_only_replaces_one(db):
    store = LadderStore.open(db)
    store.touch_bot("open-one")
    assert store.register_bot("open-one", "first")  # an open-registration name takes a token
    assert not store.register_bot("open-one", "second")  # a held name is never taken over
    assert verify_token("first", store.bot_token_hash("open-one")[1])
    assert store.rotate_token("open-one", "second") and verify_token("second", store.bot_token_hash("open-one")[1])
    assert not store.rotate_token("nobody", "x")
    store.touch_bot("never-registered")
    assert not store.rotate_token("never-registered", "x")
    store.close()


def test_replay_paths_by_id_or_by_the_ids_last_part(db):
    store = LadderStore.open(db)
    for game_id in ("l-20261124-abc123", "l-20261125-abc123", "xabc123", "abc123"):
        store.game_started(game_id, "moumou", {}, 1, "s", 0, ["a", "b"], replay_path=f"/r/{game_id}.jsonl")
    assert store.replay_paths("abc123") == {
        "abc123": "/r/abc123.jsonl", "l-20261124-abc123": "/r/l-20261124-abc123.jsonl",
        "l-20261125-abc123": "/r/l-20261125-abc123.jsonl",
    }
    assert store.replay_paths("20261124-abc123") == {"l-20261124-abc123": "/r/l-20261124-abc123.jsonl"}
    assert store.replay_paths("a%") == {} and store.replay_paths("nothing-like-it") == {}
    store.close()


def test_a_read_only_postgresql_role_can_read_a_ladder(postgres_db):
    """`arena web` or `arena leaderboard` under a role that may only SELECT: an up-to-date schema is only read."""
    store = LadderStore.open(postgres_db)
    finish(store, "g1", "s1", {"a": 1, "b": 2})
    store.close()
    name = postgres_db.rsplit("/", 1)[1]
    raw(postgres_db, "DROP ROLE IF EXISTS ladder_reader")
    raw(postgres_db, "CREATE ROLE ladder_reader LOGIN")
    raw(postgres_db, f"GRANT CONNECT ON DATABASE {name} TO ladder_reader")
    raw(postgres_db, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO ladder_reader")
    reader = LadderStore.open(postgres_db.replace("//arena@", "//ladder_reader@"), recover=False)
    try:
        assert reader.rulesets_played() == ["moumou"] and reader.totals("moumou")["a"].wins == 1
        with pytest.raises(Exception, match="permission denied"):
            reader.touch_bot("intruder")
    finally:
        reader.close()
        raw(postgres_db, "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ladder_reader")
        raw(postgres_db, f"REVOKE ALL ON DATABASE {name} FROM ladder_reader")
        raw(postgres_db, "DROP ROLE ladder_reader")


def test_a_registered_bots_owner_is_stored_read_with_its_token_and_kept_by_a_new_one(db):
    store = LadderStore.open(db)
    try:
        assert store.register_bot("ann-1", "t1", owner="ann")
        store.touch_bot("walkin")
        assert store.bot_access("ann-1")[0] and verify_token("t1", store.bot_access("ann-1")[1])
        assert store.bot_access("ann-1")[2] == "ann" and store.bot_access("walkin") == (True, None, None)
        assert store.bot_access("nobody") == (False, None, None)
        assert store.rotate_token("ann-1", "t2") and store.bot_access("ann-1")[2] == "ann"
        assert store.set_owner("ann-1", "bea") and store.bot_access("ann-1")[2] == "bea"
        assert not store.set_owner("walkin", "bea")  # an open-registration name binds nobody
        assert not store.set_owner("nobody", "bea")
        assert store.register_bot("walkin", "t3", owner="cy")  # claimed: its owner comes with the token
        assert not store.register_bot("walkin", "t4", owner="dee")  # a held name keeps token and owner
        assert {b["name"]: b["owner"] for b in store.list_bots()} == {"ann-1": "bea", "walkin": "cy"}
        assert store.set_owner("ann-1", None) and store.bot_access("ann-1")[2] is None
    finally:
        store.close()
