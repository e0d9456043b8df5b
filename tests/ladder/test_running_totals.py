"""The fit's running totals kept in memory (`RunningTotals`) equal the store's, value for value.

A SQLite ladder's director no longer reads ``fit_pairs`` and ``fit_bots`` back at every refit: it
seeds `RunningTotals` from the store once and adds each finished result it committed.  The standings
it shows are then those the store's totals give only if the two hold exactly the same numbers, so the
comparison here is exact (`numpy.array_equal`, ``==``), not approximate.
"""

from __future__ import annotations

import random

import numpy as np

from arena.ladder.standings import standings_from
from arena.ladder.store import LadderStore, SeatRecord
from arena.ladder.store.fit_totals import RunningTotals


def _result(rng: random.Random, seats: list[str]) -> list[SeatRecord]:
    size = len(seats)
    return [SeatRecord(i, bot, placement=rng.randint(1, size), points=rng.randint(0, 9),  # ties included
                       strikes=rng.randint(0, 2), timeouts=rng.randint(0, 2), forfeited=rng.random() < 0.1,
                       errors=rng.randint(0, 1))
            for i, bot in enumerate(seats)]


def _assert_same(running: RunningTotals, store: LadderStore, ruleset: str, fit: bool = True) -> None:
    mine, theirs = running.table(), store.pair_table(ruleset)
    assert mine.bots == theirs.bots
    for field in ("n", "s", "games", "comparisons", "points"):
        assert np.array_equal(getattr(mine, field), getattr(theirs, field)), field
        assert getattr(mine, field).dtype == getattr(theirs, field).dtype, field
    assert running.totals() == store.totals(ruleset)
    if fit:
        assert standings_from(mine, running.totals()) == standings_from(theirs, store.totals(ruleset))


def test_running_totals_equal_the_stores_after_every_game(tmp_path):
    rng = random.Random(7)
    store = LadderStore.open(":memory:")
    bots = [f"bot{i}" for i in range(9)]
    # An older database's history first: sets of several games (rotations, fractional scores), an abort,
    # a game of a ruleset not fitted here, and a bot that never compared with anyone (a lone seat).
    for number in range(12):
        table = rng.sample(bots[:6], rng.choice([2, 3]))
        for rotation in range(len(table)):
            game_id = f"old{number}-{rotation}"
            store.game_started(game_id, "moumou", {}, number, f"set{number}", rotation, table)
            store.game_ended(game_id, "aborted" if rng.random() < 0.1 else "finished", _result(rng, table))
    store.game_started("lone", "moumou", {}, 1, "lone", 0, ["solo"])
    store.game_ended("lone", "finished", _result(rng, ["solo"]))
    store.game_started("other", "maumau", {}, 1, "other", 0, ["bot0", "bot1"])
    store.game_ended("other", "finished", _result(rng, ["bot0", "bot1"]))
    running = RunningTotals(store.pair_table("moumou"), store.totals("moumou"))
    _assert_same(running, store, "moumou")
    # Then the ladder's own games, sets of one, newcomers among them (bot6..bot8 grow the matrices).
    for number in range(100):
        table = rng.sample(bots, rng.choice([2, 2, 3, 4]))
        game_id = f"g{number}"
        store.game_started(game_id, "moumou", {}, number, game_id, 0, table)
        seats = _result(rng, table)
        if rng.random() < 0.1:
            store.game_ended(game_id, "aborted", seats)  # never counted
        else:
            store.game_ended(game_id, "finished", seats)
            running.add_game(seats)
        if number % 10 == 0:
            _assert_same(running, store, "moumou")
    _assert_same(running, store, "moumou")


def test_running_totals_start_empty_and_grow_past_their_first_matrices(tmp_path):
    rng = random.Random(3)
    store = LadderStore.open(":memory:")
    running = RunningTotals(store.pair_table("moumou"), store.totals("moumou"))
    assert running.table().bots == [] and running.totals() == {}
    bots = [f"b{i:03d}" for i in range(70)]  # more than the matrices' first size
    for number in range(120):
        table = rng.sample(bots, 2)
        store.game_started(f"g{number}", "moumou", {}, number, f"g{number}", 0, table)
        seats = _result(rng, table)
        store.game_ended(f"g{number}", "finished", seats)
        running.add_game(seats)
    _assert_same(running, store, "moumou", fit=False)


def test_a_ladder_s_standings_from_its_running_totals_are_the_stores(tmp_path):
    """The director fits from its running totals (no read of the store per refit); what it shows equals a
    fit of the store's totals after the run, row for row."""
    import trio

    from test_deals import RULESETS, FakeHandle

    from arena.ladder.director import LadderDirector, LadderSettings
    from arena.ladder.standings import compute_standings

    store = LadderStore.open(":memory:")
    try:
        director = LadderDirector(store, LadderSettings(
            players=dict(RULESETS), replays=tmp_path / "replays", max_games=60, handle_signals=False,
            refit_s=60.0, concurrency=6))
        reads = []
        pair_table = store.pair_table
        store.pair_table = lambda ruleset: reads.append(ruleset) or pair_table(ruleset)
        trio.run(director, FakeHandle([f"bot{i}" for i in range(6)]))
        assert sorted(reads) == sorted(RULESETS)  # read once, at the start: never by a refit
        del store.pair_table
        for ruleset in RULESETS:
            assert director.standings[ruleset] == compute_standings(store, ruleset, director.view.connected)
    finally:
        store.close()


def test_the_dashboard_s_live_elo_is_every_bot_s_rating_after_each_run(tmp_path):
    """The dashboard's live Elo takes only each game's seats (in place, not a copy of every bot's per game):
    after a ladder, and after a second one that loads the first's history, it shows exactly the ratings of
    every bot that played, as the director's incremental Elo has them."""
    import trio

    from test_deals import RULESETS, FakeHandle

    from arena.ladder.director import LadderDirector, LadderSettings
    db = tmp_path / "ladder.db"
    for run, games in enumerate((40, 30)):
        store = LadderStore.open(db)
        try:
            director = LadderDirector(store, LadderSettings(
                players=dict(RULESETS), replays=tmp_path / "replays", max_games=games, handle_signals=False,
                refit_s=60.0, concurrency=6))
            trio.run(director, FakeHandle([f"bot{i}" for i in range(7)]))
            for ruleset in RULESETS:
                shown = director.view.live_elo[ruleset]
                assert shown == director.fits.live_elo.ratings(ruleset)  # what a copy of every bot's gave
                assert set(shown) == {bot for game in store.rated_games(ruleset) for bot in game.placements}
        finally:
            store.close()


def test_a_shared_ladder_s_running_totals_from_the_changed_rows_equal_the_stores(postgres_db):
    """A host of a shared ladder keeps the totals from the rows written since its last read (`fit_totals.changes`,
    `RunningTotals.put`): equal to the store's after every read, with results committed by another host's
    connection and one held in a transaction that began before later ones committed (a read in between must
    not count it, and the first read after its commit must), and a read with nothing new brings nothing."""
    import psycopg

    from arena.ladder.store import game_end

    rng = random.Random(11)
    host, other = LadderStore.open(postgres_db, shared=True), LadderStore.open(postgres_db, shared=True)
    late = psycopg.connect(postgres_db, autocommit=True)
    bots = [f"bot{i}" for i in range(8)]
    try:
        # An older history: sets of several games, and rows written before the step (no transaction id).
        for number in range(6):
            table = rng.sample(bots[:5], 2)
            for rotation in range(2):
                game_id = f"old{number}-{rotation}"
                host.game_started(game_id, "moumou", {}, number, f"set{number}", rotation, table)
                host.game_ended(game_id, "finished", _result(rng, table))
        with psycopg.connect(postgres_db, autocommit=True) as admin:
            admin.execute("UPDATE fit_pairs SET changed = NULL WHERE a = 'bot0' OR b = 'bot0'")
            admin.execute("UPDATE fit_bots SET changed = NULL WHERE bot = 'bot0'")
        at, pairs, rows = host.fit_changes("moumou", None)
        running = RunningTotals.of_rows(pairs, rows)
        _assert_same(running, host, "moumou")
        for number in range(60):
            # while the late result holds its bots' rows (20..40), the others play without them (they would wait)
            table = rng.sample(bots[:6] if 20 <= number <= 40 else bots, rng.choice([2, 2, 3, 4]))
            if number == 20:
                table = bots[6:]
            game_id = f"g{number}"
            store = host if number % 2 else other
            if number == 20:  # this result's transaction takes its id now and commits after the next ones
                host.game_started(game_id, "moumou", {}, number, game_id, 0, table)
                sql, parameters = game_end.call(game_id, "finished", _result(rng, table), ended_at="2026-11-28",
                                                replay_path=None, reason="", decisions=3, replay=None)
                late.execute("BEGIN")
                late.execute(sql.replace("?", "%s"), parameters)
                continue
            store.game_started(game_id, "moumou", {}, number, game_id, 0, table)
            store.game_ended(game_id, "aborted" if rng.random() < 0.1 else "finished", _result(rng, table))
            if number == 40:
                late.execute("COMMIT")
            if number % 7 == 0:
                at, pairs, rows = host.fit_changes("moumou", at)
                running.put(pairs, rows)
                _assert_same(running, host, "moumou")
        at, pairs, rows = host.fit_changes("moumou", at)
        running.put(pairs, rows)
        _assert_same(running, host, "moumou")
        assert host.count_games("moumou", "finished") == sum(1 for g in host.rated_games("moumou"))
        assert host.fit_changes("moumou", at)[1:] == ([], [])
    finally:
        late.close()
        other.close()
        host.close()
