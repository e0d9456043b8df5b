"""PostgreSQL records a game's start with one server-side function (`game_start.START_FUNCTION`, schema step 10):
held here to the shared statements it replaced (the claim's call and the two guarded inserts), which SQLite runs
without the claim.

One script of starts runs on three stores: PostgreSQL with the function, PostgreSQL made to send the shared
statements instead, and SQLite.  Starts of a ladder of one host (two to four seats, fewer versions than seats,
none, a replay path, nested options; a duplicate id, a seat without a bot, a group commit of good and bad starts)
run on all three (one of them seats a bot twice: a start without a claim has no caps to keep); claimed starts
(granted, refused at a cap, refused while another transaction claims a bot, refused under a lapsed lease, two
claims of one bot in one group commit, and one seating a bot twice, which the store refuses before any
statement: `test_claim_seats_a_bot_once.py`) on the two PostgreSQL stores, SQLite having no claims.  Every outcome and every row of the games, the seats and the claims must be the same.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.ladder.store import LadderStore
from arena.ladder.store.claims import SeatClaims
from arena.ladder.store.hosts import HostRegistry
from arena.ladder.store.ladder_store import Call

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")

RULESET = "moumou"
TABLES = {
    "games": "SELECT id, ruleset, options, seed, set_id, rotation, started_at, status, replay_path, ended_at FROM games",
    "seats": "SELECT game_id, seat, bot, version, placement, points, strikes FROM seats",
}
#: After the claimed starts: the hosts' joins abort the games of a host without a name (the first starts) at the
#: database's clock, so ended_at is left out; and the claims' audit rows but their times.
CLAIMED = {"games": "SELECT id, ruleset, options, seed, set_id, rotation, started_at, status, replay_path FROM games",
           "seats": TABLES["seats"],
           "claims": "SELECT game_id, seat, bot, ruleset, host, cap, busy, released_at IS NULL FROM seat_claims"}


def outcome(fn) -> Any:
    try:
        return ("ok", fn())
    except ValueError as error:  # the store's own refusal (a claimed start seating a bot twice)
        return ("ValueError", str(error))
    except Exception:  # the database's own error (a duplicate id, a seat without a bot), which differs between them
        return ("error",)


def call_outcome(call: Call) -> Any:
    return ("ok", call.result) if call.error is None else ("error",)


def play_alone(store: LadderStore) -> list[Any]:
    """The starts of a ladder of one host (no claims); returns every outcome in order."""
    seen = []

    def start(game_id, bots, n, **kwargs):
        return store.game_started(game_id, RULESET, {"n": n, "deal": {"hand": 7, "jokers": [1, 2]}}, 2**62 + n,
                                  f"set-{game_id}", n % 3, bots, started_at=f"2026-11-29T01:00:{n:02d}.000+00:00",
                                  **kwargs)

    seen.append(outcome(lambda: start("g1", ["alpha", "Beta"], 1, versions=["1.0", "2.0"])))
    seen.append(outcome(lambda: start("g2", ["a", "b", "c", "d"], 2, versions=["x"], replay_path="/r/g2.part")))
    seen.append(outcome(lambda: start("g3", ["Zoë", "zed", "Zoë"], 3)))  # no versions; a bot seated twice
    seen.append(outcome(lambda: start("g1", ["alpha", "Beta"], 4)))  # the same id again: refused, g1 stands
    seen.append(outcome(lambda: start("bad", ["alpha", None], 5)))  # a seat without a bot: nothing recorded

    def started(game_id, bots, n):
        return Call(lambda: store.game_started_steps(game_id, RULESET, {}, n, game_id, 0, bots, versions=["v"] * 2,
                                                     started_at=f"2026-11-29T01:01:{n:02d}.000+00:00"))

    calls = [started("c1", ["x", "y"], 1), started("g2", ["x", "y"], 2), started("c2", ["y", "z"], 3)]
    store.run_together(calls)  # the duplicate fails the shared transaction: each start runs again alone
    seen.append([call_outcome(c) for c in calls])
    return seen


def play_claimed(store: LadderStore, url: str) -> list[Any]:
    """Claimed starts on a shared PostgreSQL ladder (hosts A and B); returns every outcome in order."""
    import psycopg

    registries = [HostRegistry(url, name, f"{name}.example:1", concurrency=4, lease_s=60) for name in ("A", "B")]
    for registry in registries:
        registry.join()
    claims_a, claims_b = (SeatClaims(registry) for registry in registries)
    claims_a.ensure_bots(["x", "y", "z", "w", "v"])
    seen = []

    def start(claims, game_id, bots, caps):
        return store.game_started(game_id, RULESET, {}, 1, game_id, 0, bots, versions=["v"] * len(bots),
                                  started_at="2026-11-29T01:02:00.000+00:00", claim=claims.claim_in(bots, caps))

    try:
        seen.append(outcome(lambda: start(claims_a, "k1", ["x", "y"], {"x": 2, "y": 1})))
        seen.append(outcome(lambda: start(claims_b, "k2", ["x", "y"], {"x": 2, "y": 1})))  # y at its cap
        seen.append(outcome(lambda: start(claims_b, "k3", ["z", "x"], {"z": 1, "x": 2})))  # x's second
        seen.append(outcome(lambda: start(claims_a, "kw", ["w", "v", "w"], {"w": 1, "v": 1})))  # w seated twice
        seen.append(outcome(lambda: start(claims_a, "k4", ["z", "w"], {"z": 1, "w": 1})))  # z at its cap
        with psycopg.connect(url) as other:  # another host claiming w this very moment: refused, never waited for
            other.execute("SELECT bot FROM bot_slots WHERE bot = 'w' FOR UPDATE")
            seen.append(outcome(lambda: start(claims_a, "k5", ["w", "v"], {"w": 1, "v": 1})))
        with registries[1].connection() as db:  # B's lease lapsed: B claims nothing until it renews
            db.execute("UPDATE hosts SET lease_until = lease_until - 3600 WHERE name = 'B'")
        seen.append(outcome(lambda: start(claims_b, "k6", ["w", "v"], {"w": 1, "v": 1})))
        seen.append(outcome(lambda: start(claims_a, "k1", ["v"], {"v": 1})))  # an id claimed before: refused whole

        def started(game_id, bots):
            return Call(lambda: store.game_started_steps(game_id, RULESET, {}, 1, game_id, 0, bots,
                                                         started_at="2026-11-29T01:03:00.000+00:00",
                                                         claim=claims_a.claim_in(bots, {bot: 1 for bot in bots})),
                        keys=frozenset(bots))

        calls = [started("m1", ["w", "v"]), started("m2", ["v", "y"]), started("m3", ["w"])]
        store.run_together(calls)  # v's and w's second claims count the first: refused
        seen.append([call_outcome(c) for c in calls])
        assert claims_a.release("k1") == 2
        seen.append(outcome(lambda: start(claims_a, "k7", ["y"], {"y": 1})))  # y free again
    finally:
        for registry in registries:
            registry.close()
    return seen


def dump(store: LadderStore, tables: dict[str, str]) -> dict[str, list]:
    return {table: sorted(store.backend.rows(sql), key=repr) for table, sql in tables.items()}


@pytest.fixture
def second_postgres_db(postgres, fresh_databases):
    from tests.fresh_databases import drop

    name = fresh_databases.take()
    yield postgres.url.rsplit("/", 1)[0] + "/" + name
    drop(postgres.url, name)


def test_the_function_records_what_the_shared_statements_recorded(postgres_db, second_postgres_db, tmp_path):
    urls = {"function": postgres_db, "statements": second_postgres_db}
    stores = {"function": LadderStore.open(postgres_db, shared=True),
              "statements": LadderStore.open(second_postgres_db, shared=True),
              "sqlite": LadderStore.open(tmp_path / "a.db")}
    try:
        assert stores["function"].backend.starts_games_on_the_server
        assert not stores["sqlite"].backend.starts_games_on_the_server
        stores["statements"].backend.starts_games_on_the_server = False  # PostgreSQL, through the shared statements
        alone = {name: play_alone(store) for name, store in stores.items()}
        alone_rows = {name: dump(store, TABLES) for name, store in stores.items()}
        claimed = {name: play_claimed(stores[name], url) for name, url in urls.items()}
        claimed_rows = {name: dump(stores[name], CLAIMED) for name in urls}
    finally:
        for store in stores.values():
            store.close()
    assert alone["function"] == alone["statements"] == alone["sqlite"]
    assert alone["function"] == [("ok", True)] * 3 + [("error",)] * 2 + [[("ok", True), ("error",), ("ok", True)]]
    for table in TABLES:
        assert alone_rows["function"][table] == alone_rows["statements"][table] == alone_rows["sqlite"][table], table
    rows = alone_rows["function"]
    assert {game[0] for game in rows["games"]} == {"g1", "g2", "g3", "c1", "c2"}  # nothing of "bad"
    assert ("g2", 1, "b", "") in {seat[:4] for seat in rows["seats"]}  # a seat past the versions: ""
    g1 = next(game for game in rows["games"] if game[0] == "g1")
    assert g1[2] == '{"deal": {"hand": 7, "jokers": [1, 2]}, "n": 1}' and g1[3] == 2**62 + 1  # the first stands

    assert claimed["function"] == claimed["statements"]
    twice = ("ValueError", "a claimed start seats each bot once, and this one seats 'w' twice: ['w', 'v', 'w']")
    assert claimed["function"] == [("ok", True), ("ok", False), ("ok", True), twice, ("ok", False), ("ok", False),
                                   ("ok", False), ("error",), [("ok", True), ("ok", False), ("ok", False)],
                                   ("ok", True)]
    for table in claimed_rows["function"]:
        assert claimed_rows["function"][table] == claimed_rows["statements"][table], table
    rows = claimed_rows["function"]
    assert {game[0] for game in rows["games"]} - {game[0] for game in alone_rows["function"]["games"]} == {
        "k1", "k3", "m1", "k7"}  # nothing of a refused claim
    assert [claim[:7] for claim in rows["claims"] if claim[0] == "k3"] == [
        ("k3", 0, "z", RULESET, "B", 1, 1), ("k3", 1, "x", RULESET, "B", 2, 2)]
    assert not [claim for claim in rows["claims"] if claim[0] == "kw"]  # refused before any statement


def test_a_claimed_start_is_one_statement_and_a_group_commit_of_starts_one_round_trip(postgres_db):
    store = LadderStore.open(postgres_db, shared=True)
    registry = HostRegistry(postgres_db, "A", "A.example:1", concurrency=8, lease_s=60)
    registry.join()
    claims = SeatClaims(registry)
    claims.ensure_bots(["a", "b", "c", "d", "e", "f"])
    try:
        before = store.stats.snapshot()
        assert store.game_started("s1", RULESET, {}, 1, "s1", 0, ["a", "b"], claim=claims.claim_in(["a", "b"], {"a": 2, "b": 2}))
        after = store.stats.snapshot()
        # alone: the call, then the COMMIT (a transaction of its own, `drive`, does not send them together)
        assert (after["statements"] - before["statements"], after["round_trips"] - before["round_trips"]) == (1, 2)
        calls = [Call(lambda bots=bots, g=g: store.game_started_steps(g, RULESET, {}, 1, g, 0, bots,
                                                                       claim=claims.claim_in(bots, {b: 2 for b in bots})),
                      keys=frozenset(bots))
                 for g, bots in (("s2", ["c", "d"]), ("s3", ["e", "f"]), ("s4", ["a", "b"]))]
        store.run_together(calls)
        assert [c.result for c in calls] == [True, True, True]
        done = store.stats.snapshot()
        # one statement a start, and one message for them all, the COMMIT with it (BEGIN is counted apart)
        assert done["round_trips"] - after["round_trips"] == 1
        assert done["statements"] - after["statements"] == 3
        assert store.statuses(["s1", "s2", "s3", "s4"]) == dict.fromkeys(["s1", "s2", "s3", "s4"], "running")
    finally:
        registry.close()
        store.close()
