"""Seats claimed with a game's start and freed with its end, and who is told, on a real PostgreSQL.

* a claim in the start's transaction (`SeatClaims.claim_in` through `LadderStore.game_started`)
  records the start with it, or nothing when a bot is at its cap;
* the seats are freed in the end's commit (`SeatClaims.release_statements` through
  `LadderStore.game_ended`), also when the row had ended already (a host taken for dead);
* a host alone sends no NOTIFY when it frees seats; once another host is live, every release
  tells it;
* the race of a host joining while a release is in flight: the release either sees the new host
  live (and tells it) or commits before the new host is live (and the new host sees the seats
  free), never neither.
"""

from __future__ import annotations

import queue
import threading
import time

import pytest
from seat_claim import claim

from arena.ladder.store import LadderStore, SeatRecord
from arena.ladder.store.claims import SeatClaims
from arena.ladder.store.hosts import SEATS_FREED, HostRegistry

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")


def host(url: str, name: str) -> tuple[HostRegistry, SeatClaims]:
    registry = HostRegistry(url, name, f"{name}.example:1", concurrency=4)
    registry.join()
    return registry, SeatClaims(registry)


def notices_before_a_marker(listener, url: str) -> list[str]:
    """The payloads of the SEATS_FREED notices committed so far: a marker is sent after them, and notices
    arrive in commit order, so those read before the marker are all there were (no waiting for silence)."""
    with psycopg.connect(url, autocommit=True) as other:
        other.execute("SELECT pg_notify(%s, 'marker')", (SEATS_FREED,))
    found = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for notice in listener.notifies(timeout=1.0):
            if notice.payload == "marker":
                return found
            found.append(notice.payload)
    raise AssertionError("the marker notice never arrived")


def open_claims(url: str) -> dict[str, int]:
    with psycopg.connect(url, autocommit=True) as db:
        return dict(db.execute("SELECT bot, COUNT(*) FROM seat_claims WHERE released_at IS NULL GROUP BY bot"))


def test_the_start_claims_its_seats_and_the_end_frees_them_in_the_same_commits(postgres_db):
    store = LadderStore.open(postgres_db, shared=True)
    a, claims = host(postgres_db, "A")
    claims.ensure_bots(["x", "y", "z"])
    caps = {"x": 1, "y": 1, "z": 1}

    def start(game: str, bots: list[str]) -> bool:
        return store.game_started(game, "moumou", {}, 1, game, 0, bots,
                                  claim=claims.claim_in(bots, caps))

    assert start("g1", ["x", "y"])
    assert store.game("g1").status == "running" and open_claims(postgres_db) == {"x": 1, "y": 1}
    assert not start("g2", ["y", "z"])  # y is at its cap: no claim, and no game either
    assert store.game("g2") is None and open_claims(postgres_db) == {"x": 1, "y": 1}
    store.game_ended("g1", "finished", [SeatRecord(0, "x", placement=1), SeatRecord(1, "y", placement=2)],
                     then=claims.release_statements("g1"))
    assert store.game("g1").status == "finished" and open_claims(postgres_db) == {}
    assert start("g2", ["y", "z"])
    # An end that finds its row ended already (another host aborted it) still frees the seats.
    with psycopg.connect(postgres_db, autocommit=True) as db:
        db.execute("UPDATE games SET status = 'aborted' WHERE id = 'g2'")
    store.game_ended("g2", "aborted", [], reason="seat unavailable", then=claims.release_statements("g2"))
    assert open_claims(postgres_db) == {}
    a.close()
    store.close()


def test_two_claims_of_one_bot_in_one_group_commit_count_each_other(postgres_db):
    """A group commit's starts read their claims' checks side by side, in one round trip, unless they
    share a bot (`Call.keys`): then the later one reads after the earlier one's claim, so a bot at its
    cap gets one of them, never both.  A start's rows go in its claim's read, guarded by the claim's rows
    (a refused claim records no game), so the last read carries the COMMIT."""
    import functools

    from arena.ladder.store.ladder_store import Call

    store = LadderStore.open(postgres_db, shared=True)
    a, claims = host(postgres_db, "A")
    claims.ensure_bots(["w", "x", "y", "z"])

    def start(game: str, bots: list[str]) -> Call:
        caps = dict.fromkeys(bots, 1)
        return Call(functools.partial(store.game_started_steps, game, "moumou", {}, 1, game, 0, bots,
                                      claim=claims.claim_in(bots, caps)),
                    keys=frozenset(bots))

    trips = store.stats.round_trips
    calls = [start("g1", ["x", "y"]), start("g2", ["z", "x"])]
    store.run_together(calls)
    assert store.stats.round_trips - trips == 2  # g1's claim, then g2's after it with the commit
    assert [c.result for c in calls] == [True, False] and [c.error for c in calls] == [None, None]
    assert store.game("g2") is None and open_claims(postgres_db) == {"x": 1, "y": 1}
    store.game_ended("g1", "aborted", [], reason="test", then=claims.release_statements("g1"))
    trips = store.stats.round_trips
    calls = [start("g3", ["x", "y"]), start("g4", ["z", "w"])]
    store.run_together(calls)
    assert [c.result for c in calls] == [True, True]
    assert open_claims(postgres_db) == {"w": 1, "x": 1, "y": 1, "z": 1}
    assert store.stats.round_trips - trips == 1  # both claims and the commit in one message
    a.close()
    store.close()


def test_a_host_alone_tells_nobody_and_a_second_host_hears_every_release(postgres_db):
    store = LadderStore.open(postgres_db, shared=True)
    a, claims_a = host(postgres_db, "A")
    with psycopg.connect(postgres_db, autocommit=True) as listener:
        listener.execute(f"LISTEN {SEATS_FREED}")
        assert claim(store, claims_a, "g1", ("x", "y"), {"x": 1, "y": 1})
        assert claims_a.release("g1") == 2
        assert notices_before_a_marker(listener, postgres_db) == []  # nobody else is live
        b, _ = host(postgres_db, "B")
        assert claim(store, claims_a, "g2", ("x", "y"), {"x": 1, "y": 1})
        assert claims_a.release("g2") == 2
        store.game_started("g3", "moumou", {}, 1, "g3", 0, ["x", "y"],
                           claim=claims_a.claim_in(["x", "y"], {"x": 1, "y": 1}))
        store.game_ended("g3", "aborted", [], reason="test", then=claims_a.release_statements("g3"))
        assert notices_before_a_marker(listener, postgres_db) == ["A", "A"]
        assert claims_a.release("g3") == 0  # nothing left to free: nobody is told
        assert notices_before_a_marker(listener, postgres_db) == []
    a.close(), b.close()
    store.close()


def test_a_host_joining_while_a_release_is_in_flight_is_told_or_sees_the_seats_free(postgres_db):
    store = LadderStore.open(postgres_db, shared=True)
    a, claims_a = host(postgres_db, "A")
    assert claim(store, claims_a, "g1", ("x", "y"), {"x": 1, "y": 1})
    joiner = HostRegistry(postgres_db, "B", "B.example:1", concurrency=4)
    joined = threading.Event()
    # A's release has run its statements (no other host was live: it tells nobody), not yet committed.
    backend = store.backend
    with backend.transaction():
        for sql, parameters in claims_a.release_statements("g1"):
            backend.send(sql, parameters)
        assert backend.rows("SELECT 1") == [(1,)]  # (sends the queued statements)
        thread = threading.Thread(target=lambda: (joiner.join(), joined.set()))
        thread.start()
        # B waits to go live until that release has committed.
        deadline = time.monotonic() + 30
        with psycopg.connect(postgres_db, autocommit=True) as watcher:
            while not watcher.execute(
                    "SELECT 1 FROM pg_stat_activity WHERE application_name = 'mau-arena host B' "
                    "AND wait_event_type = 'Lock' AND wait_event = 'advisory'").fetchone():
                assert time.monotonic() < deadline, "B's join never waited for the release in flight"
                assert not joined.is_set()
    assert joined.wait(30)
    thread.join(30)
    # B went live after the release: its first look sees the seats free.
    claims_b = SeatClaims(joiner)
    assert claims_b.load(0.0, ["x", "y"]).busy == {}
    # The other order: B live first (listening since its join), then A's release tells it.
    woken: queue.Queue[str] = queue.Queue()
    stopped = threading.Event()
    listening = threading.Thread(target=joiner.listen, args=(lambda: woken.put("wake"), stopped))
    listening.start()
    try:
        assert woken.get(timeout=30) == "wake"  # once as it starts listening: a plan sees what it missed
        assert claim(store, claims_a, "g2", ("x", "y"), {"x": 1, "y": 1})
        assert claims_a.release("g2") == 2
        assert woken.get(timeout=30) == "wake"
        assert claim(store, claims_b, "g3", ("x", "y"), {"x": 1, "y": 1})
        assert claims_b.release("g3") == 2  # B's own release does not wake B
        assert claim(store, claims_a, "g4", ("x", "y"), {"x": 1, "y": 1})
        assert claims_a.release("g4") == 2
        assert woken.get(timeout=30) == "wake" and woken.empty()
    finally:
        stopped.set()
        listening.join(30)
    a.close(), joiner.close()
    store.close()
