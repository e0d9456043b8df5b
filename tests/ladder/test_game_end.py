"""PostgreSQL commits a game's result with one server-side function (`game_end.END_FUNCTION`, schema step 9): held
here to the shared statements it replaced, which SQLite still runs.

One script of results (finished and aborted games of two to four seats, ties, a seat without a place, a bot
seated twice, a set of two games, names whose order differs between collations, results committed twice, a
game another host aborted, a game without a row, a bad seat, group commits with good and refused writes, and
``then`` statements beside each) runs on three stores: PostgreSQL with the function, PostgreSQL made to send the
shared statements instead, and SQLite.  Every outcome (result or exception) and every row of the games, seats,
the fit's totals and the replays must be the same on all three, floats to the bit.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.ladder.store import GameClosed, LadderStore, SeatRecord, UnknownGame
from arena.ladder.store.ladder_store import Call
from arena.ladder.store.replays import PackedReplay

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")

RULESET = "moumou"
#: Names whose order is not the same in every collation ("a-b" < "a_b" < "alpha" < "Beta" in en_US, not in C).
NAMES = ["alpha", "Beta", "a_b", "a-b", "Zoë", "zed"]
TABLES = {
    "games": "SELECT id, status, ended_at, replay_path, reason, decisions FROM games",
    "seats": "SELECT game_id, seat, bot, placement, points, strikes, timeouts, think_ms, decisions, forfeited, errors, "
             "version FROM seats",
    "fit_bots": "SELECT ruleset, bot, games, comparisons, points, wins, timeouts, strikes, forfeits, errors FROM fit_bots",
    "fit_pairs": "SELECT ruleset, a, b, sets, score FROM fit_pairs",
    "fit_set_pairs": "SELECT ruleset, set_id, a, b, games, score FROM fit_set_pairs",
    "replays": "SELECT game_id, encoding, size, sha256, data FROM replays",
    "bots": "SELECT name FROM bots",  # what the `then` statements wrote
}


def seats_of(bots: list[str], places: list[int | None], **extra: Any) -> list[SeatRecord]:
    return [SeatRecord(i, bot, placement=place, points=None if place is None else 10 - place, strikes=i, timeouts=i % 2,
                       think_ms=100 + i, decisions=7 + i, forfeited=i >= 1, errors=i % 3, **extra)
            for i, (bot, place) in enumerate(zip(bots, places))]


def replay_of(text: str) -> PackedReplay:
    return PackedReplay.of(text.encode())


def then_of(tag: str) -> list[tuple[str, tuple]]:
    """A `then` statement that leaves a mark: the bots row of a made-up name."""
    return [("INSERT INTO bots (name, token_hash, first_seen) VALUES (?, NULL, NULL) ON CONFLICT (name) DO NOTHING",
             (f"then-{tag}",))]


def outcome(fn) -> Any:
    try:
        return ("ok", fn())
    except (GameClosed, UnknownGame) as error:
        return (type(error).__name__, str(error))
    except Exception:  # a bad value: the database's own error, which differs between the two
        return ("error",)


def call_outcome(call: Call) -> Any:
    if call.error is None:
        return ("ok", call.result)
    if isinstance(call.error, (GameClosed, UnknownGame)):
        return (type(call.error).__name__, str(call.error))
    return ("error",)


def play(store: LadderStore, raw) -> list[Any]:
    """The script; returns every outcome in order."""
    seen = []
    started = 0

    def start(game_id, bots, set_id=None, rotation=0):
        nonlocal started
        started += 1
        store.game_started(game_id, RULESET, {"n": started}, started, set_id or game_id, rotation, bots,
                           versions=[f"v{i}" for i in range(len(bots))])

    def end(game_id, status, seats, n, **kwargs):
        kwargs.setdefault("ended_at", f"2026-11-28T10:00:{n:02d}.000+00:00")
        kwargs.setdefault("decisions", 10 + n)
        return store.game_ended(game_id, status, seats, then=then_of(f"{game_id}-{n}"), **kwargs)

    # finished games: two seats; four with a tie; three with one seat unplaced; a bot seated twice
    start("g1", ["alpha", "Beta"])
    seen.append(outcome(lambda: end("g1", "finished", seats_of(["alpha", "Beta"], [2, 1]), 1,
                                    replay=replay_of("one"), replay_path="/r/g1.jsonl")))
    start("g2", ["a_b", "a-b", "Zoë", "zed"])
    seen.append(outcome(lambda: end("g2", "finished", seats_of(["a_b", "a-b", "Zoë", "zed"], [1, 2, 2, 4]), 2,
                                    replay=replay_of("two"))))
    start("g3", ["zed", "alpha", "a-b"])
    seen.append(outcome(lambda: end("g3", "finished", seats_of(["zed", "alpha", "a-b"], [2, None, 1]), 3)))
    start("twice", ["Beta", "alpha", "alpha"])
    seen.append(outcome(lambda: end("twice", "finished", seats_of(["Beta", "alpha", "alpha"], [3, 1, 2]), 4,
                                    replay=replay_of("twice"))))
    # a set of two games of one pair (an older database's rotations): its average counts once
    for n, (game_id, places) in enumerate((("s1", [1, 2]), ("s2", [1, 1]), ("s3", [2, 1])), start=5):
        start(game_id, ["Beta", "a-b"], set_id="set1", rotation=n)
        seen.append(outcome(lambda: end(game_id, "finished", seats_of(["Beta", "a-b"], places), n)))
    # an aborted game with seats: no place, no points, not rated; its replay stored
    start("a1", ["Zoë", "a_b"])
    seen.append(outcome(lambda: end("a1", "aborted", seats_of(["Zoë", "a_b"], [1, 2]), 9, reason="seat gone",
                                    replay=replay_of("aborted"))))
    # committed again (a lost reply), then a late abort: the first stands, `then` runs each time
    seen.append(outcome(lambda: end("g1", "finished", seats_of(["alpha", "Beta"], [1, 2]), 10, replay=replay_of("x"))))
    seen.append(outcome(lambda: end("g1", "aborted", [], 11, reason="late abort", replay=replay_of("y"))))
    # another host aborted it: a finished result is refused and writes nothing, `then` neither; an abort stands
    # and keeps its replay when none is stored, not when one is
    start("swept", ["alpha", "zed"])
    raw("UPDATE games SET status = 'aborted', reason = 'host A died (not rated)' WHERE id = 'swept'")
    seen.append(outcome(lambda: end("swept", "finished", seats_of(["alpha", "zed"], [1, 2]), 12, replay=replay_of("r"))))
    seen.append(outcome(lambda: end("swept", "aborted", [], 13, reason="fenced", replay=replay_of("fenced"))))
    seen.append(outcome(lambda: end("swept", "aborted", [], 14, reason="again", replay=replay_of("again"))))
    # no row: refused by name, finished or aborted, nothing written
    seen.append(outcome(lambda: end("ghost", "finished", seats_of(["alpha", "zed"], [1, 2]), 15, replay=replay_of("g"))))
    seen.append(outcome(lambda: end("ghost", "aborted", [], 16, reason="gone")))
    # a bad seat (no bot): the database refuses the whole result, the game stays running
    start("bad", ["alpha", "zed"])
    seen.append(outcome(lambda: end("bad", "finished", [SeatRecord(0, "alpha", placement=1),
                                                        SeatRecord(1, None, placement=2)], 17)))  # type: ignore[arg-type]
    # group commits: good results beside refused ones (each run again alone) and beside each other
    for game_id in ("c1", "c2", "c3", "swept2"):
        start(game_id, ["zed", "Beta"])
    raw("UPDATE games SET status = 'aborted', reason = 'host B died' WHERE id = 'swept2'")

    def ended(game_id, places, n, status="finished"):
        return Call(lambda: store.game_ended_steps(game_id, status, seats_of(["zed", "Beta"], places),
                                                   ended_at=f"2026-11-28T10:01:{n:02d}.000+00:00", decisions=n,
                                                   replay=replay_of(f"group {game_id}"), then=then_of(f"{game_id}-{n}")))

    calls = [ended("c1", [1, 2], 1), ended("swept2", [2, 1], 2), ended("ghost2", [1, 2], 3), ended("c2", [2, 1], 4)]
    store.run_together(calls)
    seen.append([call_outcome(c) for c in calls])
    calls = [ended("c3", [1, 1], 5), ended("c1", [2, 1], 6), ended("bad", [1, 2], 7, status="aborted")]
    store.run_together(calls)
    seen.append([call_outcome(c) for c in calls])
    seen.append(sorted(store.statuses(["g1", "swept", "bad", "c1", "c3", "swept2", "ghost"]).items()))
    return seen


def dump(store: LadderStore) -> dict[str, list]:
    found = {}
    for table, sql in TABLES.items():
        rows = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in store.backend.rows(sql)]
        found[table] = sorted(rows, key=repr)
    return found


def raw_on(store: LadderStore):
    def run(sql: str) -> None:
        with store.backend.transaction():
            store.backend.run(sql)
    return run


@pytest.fixture
def second_postgres_db(postgres, fresh_databases):
    from tests.fresh_databases import drop

    name = fresh_databases.take()
    yield postgres.url.rsplit("/", 1)[0] + "/" + name
    drop(postgres.url, name)


@pytest.fixture
def icu_postgres_db(postgres):
    """A fresh database whose default collation is ICU's en-US, where "a-b" < "Beta" (in C, "Beta" < "a-b")."""
    import psycopg

    from tests.fresh_databases import drop, new_name

    name = new_name()
    with psycopg.connect(postgres.url, autocommit=True) as admin:
        try:
            admin.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu "
                          "ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'")
        except psycopg.Error as error:
            pytest.skip(f"this PostgreSQL cannot make an ICU database ({error}); the other collation is not tried")
    url = postgres.url.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(url, autocommit=True) as db:
        assert db.execute("SELECT 'a-b' < 'Beta'").fetchone()[0]  # the order that must not leak into the totals
    yield url
    drop(postgres.url, name)


def test_the_function_writes_what_the_shared_statements_wrote(icu_postgres_db, second_postgres_db, tmp_path):
    """The function's database collates names in ICU's en-US order; the rows must not show it."""
    stores = {"function": LadderStore.open(icu_postgres_db), "statements": LadderStore.open(second_postgres_db),
              "sqlite": LadderStore.open(tmp_path / "a.db")}
    try:
        assert stores["function"].backend.ends_games_on_the_server
        stores["statements"].backend.ends_games_on_the_server = False  # PostgreSQL, through the shared statements
        outcomes = {name: play(store, raw_on(store)) for name, store in stores.items()}
        dumps = {name: dump(store) for name, store in stores.items()}
    finally:
        for store in stores.values():
            store.close()
    assert outcomes["function"] == outcomes["statements"] == outcomes["sqlite"]
    seen = outcomes["function"]
    assert seen[:10] == [("ok", None)] * 10
    assert seen[10][0] == "GameClosed" and "host A died (not rated)" in seen[10][1]
    assert seen[11:13] == [("ok", None)] * 2
    assert seen[13][0] == seen[14][0] == "UnknownGame" and seen[15] == ("error",)
    assert [o[0] for o in seen[16]] == ["ok", "GameClosed", "UnknownGame", "ok"]
    assert [o[0] for o in seen[17]] == ["ok", "ok", "ok"]
    assert seen[18] == [("bad", "aborted"), ("c1", "finished"), ("c3", "finished"), ("g1", "finished"),
                        ("swept", "aborted"), ("swept2", "aborted")]
    for table in TABLES:
        assert dumps["function"][table] == dumps["statements"][table], table
        assert dumps["function"][table] == dumps["sqlite"][table], table
    written = dumps["function"]
    # what the script means, checked once: `then` ran with every result but the refused ones
    marks = {name for (name,) in written["bots"]}
    assert {"then-g1-1", "then-g1-10", "then-g1-11", "then-swept-13", "then-swept-14", "then-c1-1", "then-c1-6"} <= marks
    assert not marks & {"then-swept-12", "then-ghost-15", "then-ghost-16", "then-bad-17", "then-swept2-2",
                        "then-ghost2-3"}
    replays = {row[0]: row for row in written["replays"]}
    assert replays["swept"][2] == len("fenced") and "bad" in replays and "ghost" not in replays
    pairs = {(a, b): (sets, score) for _r, a, b, sets, score in written["fit_pairs"]}
    assert pairs[("Beta", "a-b")] == (1, 0.5)  # the set of three games: once, at its average (1 + 0.5 + 0) / 3
    assert ("a-b", "Beta") not in pairs
    assert ("Beta", "alpha") in pairs  # code-point order ("B" < "a"), as the client writes it, in any collation


def test_a_result_on_postgresql_is_one_statement_and_a_group_commit_one_round_trip(postgres_db):
    """The point of the function: one statement a result (and one a `then` statement), one message a group commit."""
    store = LadderStore.open(postgres_db)
    try:
        for game_id in ("a", "b", "c"):
            store.game_started(game_id, RULESET, {}, 1, game_id, 0, ["x", "y", "z"])
        seats = seats_of(["x", "y", "z"], [1, 2, 3])
        before = store.stats.snapshot()
        store.game_ended("a", "finished", seats, replay=replay_of("a"), then=then_of("a"))
        after = store.stats.snapshot()
        assert (after["statements"] - before["statements"], after["round_trips"] - before["round_trips"]) == (2, 1)
        calls = [Call(lambda g=g: store.game_ended_steps(g, "finished", seats, replay=replay_of(g), then=then_of(g)))
                 for g in ("b", "c")]
        store.run_together(calls)
        assert all(c.error is None for c in calls)
        assert store.stats.round_trips - after["round_trips"] == 1
        assert store.totals(RULESET) == store.totals_recomputed(RULESET)
        assert store.pair_table(RULESET).n.tolist() == store.pair_table_recomputed(RULESET).n.tolist()
    finally:
        store.close()
