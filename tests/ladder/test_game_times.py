"""A game's times are the database's clock, whatever the host's: ``games.started_at`` and ``ended_at``, and the
replay's ``stored_at``, on SQLite and on a real PostgreSQL.

The red team's skew case for games (as tests/cli/test_bots_last_seen.py for a bot's last seen): a host of a shared
ladder whose clock is ten minutes fast dated its games ten minutes ahead, so the web view's "Latest results" (newest
first by ``started_at``) listed its games above every game the other hosts played in those ten minutes, the rating
history (by ``ended_at``) put them out of order, and a game started on one host and aborted by another's sweep was
timed by two clocks.  Here every clock the host reads is ten minutes fast (the store's, the director's, the match
runner's, the replay's), and every time the database keeps must still lie between two readings of the database's
own clock taken around the run.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import trio
from test_replay_commit import RealGames

import toy_ladder_game
from arena.ladder.director import LadderDirector, LadderSettings
from arena.ladder.store import LadderStore, PackedReplay, SeatRecord
from arena.ladder.typical_game import ladder_typical_game

FAST = timedelta(minutes=10)


@pytest.fixture(autouse=True)
def ruleset():
    with toy_ladder_game.registered() as name:
        yield name


def fast_now() -> str:
    return (datetime.now(timezone.utc) + FAST).isoformat(timespec="milliseconds")


@pytest.fixture
def fast_host(monkeypatch):
    """Every clock of this process the ladder could date a game by, ten minutes fast (the database's stays true)."""
    from arena.ladder import director
    from arena.ladder.store import hosts, ladder_store, records
    from arena.match import runner
    from arena.replay import format as replay_format

    for module, name in ((records, "utc_now"), (ladder_store, "utc_now"), (director, "utc_now"),
                         (hosts, "utc_now"), (runner, "_utc_now"), (replay_format, "utc_now")):
        monkeypatch.setattr(module, name, fast_now, raising=False)  # (hosts reads none now: before, its sweeps did)


def database_now(store: LadderStore) -> str:
    """The database's clock, read apart (SQLite's is this process's own, which the test leaves true)."""
    return store.backend.rows(f"SELECT {store.backend.clock()}")[0][0]


def replay_times(store: LadderStore) -> dict[str, str]:
    return dict(store.backend.rows("SELECT game_id, stored_at FROM replays"))


def test_a_fast_hosts_ladder_games_are_dated_by_the_database(db, tmp_path, fast_host):
    """The real director and match runner (in-process seats): finished games, an abort mid-game and a seat gone
    before its game, each started, ended and its replay stored at the database's time."""
    store = LadderStore.open(db)
    handle = RealGames([f"bot{i}" for i in range(4)], store)
    settings = LadderSettings(players={toy_ladder_game.NAME: 2}, replays=tmp_path / "replays",
                              handle_signals=False, refit_s=60.0, concurrency=2)
    try:
        before = database_now(store)
        handle.director = LadderDirector(store, settings)
        trio.run(handle.director, handle)
        after = database_now(store)
        games = store.games()
        stored = replay_times(store)
        assert {g.status for g in games} == {"finished", "aborted"} and len(stored) == len(games)
        for game in games:
            assert before <= game.started_at <= game.ended_at <= after, (game.id, before, game.started_at,
                                                                          game.ended_at, after)
            assert game.ended_at <= stored[game.id] <= after, (game.id, stored[game.id])
        # so the ladder's typical game (what a joining host's scheduler assumes) is the games' length, not ten minutes
        assert ladder_typical_game(store) < 60
    finally:
        store.close()


def test_starts_ends_aborts_and_stored_replays_are_the_databases_time(db, fast_host):
    """The store's writes one by one: a start and an end without a time, the recovery's abort of what was running,
    a replay stored apart (recovery, an import); a time given explicitly is still written as given."""
    store = LadderStore.open(db, recover=False)
    packed = PackedReplay.of(b'{"game_id": "x"}\n')
    try:
        before = database_now(store)
        store.game_started("g1", "moumou", {}, 1, "s1", 0, ["a", "b"])
        store.game_ended("g1", "finished", [SeatRecord(0, "a", 1, 0), SeatRecord(1, "b", 2, 0)], replay=packed)
        store.game_started("g2", "moumou", {}, 2, "s2", 0, ["a", "b"])
        store.abort_running("server restarted")
        assert store.store_replay("g2", packed)
        store.game_started("g3", "moumou", {}, 3, "s3", 0, ["a", "b"], started_at="2026-01-02T03:04:05.000+00:00")
        store.game_ended("g3", "aborted", [], ended_at="2026-01-02T03:05:06.000+00:00")
        after = database_now(store)
        games = {g.id: g for g in store.games()}
        stored = replay_times(store)
        for game_id in ("g1", "g2"):
            game = games[game_id]
            assert before <= game.started_at <= game.ended_at <= stored[game_id] <= after, (game, stored)
        assert (games["g3"].started_at, games["g3"].ended_at) == ("2026-01-02T03:04:05.000+00:00",
                                                                  "2026-01-02T03:05:06.000+00:00")
        # the web view's latest results, newest first, are in the order the games were played
        assert [g.id for g in store.games(status="finished")] == ["g1"]
        assert [g.id for g in store.games()] == ["g2", "g1", "g3"]
    finally:
        store.close()


def test_a_fast_hosts_aborts_at_join_and_sweep_are_the_databases_time(postgres_db, fast_host):
    """PostgreSQL's host registry: the games a restarting host left running, aborted at its join, and a dead host's
    games, aborted by another host's sweep, are dated by the database too (the registries' clocks were fast)."""
    from seat_claim import claim
    from test_claims import host, lapse, wait_gone

    store = LadderStore.open(postgres_db, shared=True)
    try:
        before = database_now(store)
        store.game_started("left", "moumou", {}, 1, "left", 0, ["a", "b"])  # claimed by no host: an older release's
        sweeper, _ = host(postgres_db, "sweeper")  # its join aborts "left"
        dying, dying_claims = host(postgres_db, "dying")
        assert claim(store, dying_claims, "cut", ("a", "b"), {"a": 1, "b": 1})
        lapse(dying)
        dying.close()  # its session, and its lock, gone: dead
        wait_gone(sweeper, "dying")
        assert [d.name for d in sweeper.sweep_dead()] == ["dying"]
        after = database_now(store)
        left, cut = store.game("left"), store.game("cut")
        assert (left.status, left.reason) == ("aborted", "server restarted")
        assert (cut.status, cut.reason) == ("aborted", "host dying died (not rated)")
        for game in (left, cut):
            assert before <= game.started_at <= game.ended_at <= after, (game, before, after)
        sweeper.close()
    finally:
        store.close()
