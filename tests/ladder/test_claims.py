"""The host registry and seat claims on a real PostgreSQL, without servers: the rules at their source.

* claims racing from two hosts on many threads never put a bot over its cap, and a game's
  seats are claimed all or none;
* a host is dead only when its lease has expired *and* its lock is free: a live host with a
  late heartbeat keeps its games; once its session is gone, another host aborts its running
  games (unrated) and frees its bots;
* a host restarting under its name aborts only its own running games, never another live host's,
  and waits for the lock its killed process's backend still holds rather than refusing;
* a host sweeps nobody before it has been in steady contact for its grace, and a host that was
  swept while it lived (fenced) learns it at its next heartbeat, claims nothing while its lease
  is lapsed, and its results never overwrite the rows the sweep aborted;
* a host replaced under its name while it was cut off (another process joined as it) renews nothing,
  claims nothing and leaves the replacement's row alone, also once the replacement has died, whose
  games are then swept as any dead host's;
* the fairness counts a host reads incrementally (only the claims committed since its last
  read) equal a full count of every claim since it started, after every step of a random history.
"""

from __future__ import annotations

import threading
import time

import pytest
from dying_session import successor_outcome
from seat_claim import claim

from arena.ladder.store import LadderStore, StoreError
from arena.ladder.store.claims import SeatClaims
from arena.ladder.store.hosts import HOST_LOCK_CLASS, HostRegistry, HostReplaced

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")


def host(url: str, name: str, lease_s: float = 10.0, grace_s: float = 0.0) -> tuple[HostRegistry, SeatClaims]:
    registry = HostRegistry(url, name, f"{name}.example:1", concurrency=4, lease_s=lease_s, grace_s=grace_s)
    registry.join()
    return registry, SeatClaims(registry)


def test_racing_claims_from_two_hosts_never_exceed_a_bots_cap(postgres_db):
    # Each host claims in its games' starts on its own store connection, as the director does.
    store_a, store_b = LadderStore.open(postgres_db, shared=True), LadderStore.open(postgres_db, shared=True)
    (a, claims_a), (b, claims_b) = host(postgres_db, "A"), host(postgres_db, "B")
    bots = ["x", "y", "z"]
    caps = {bot: 2 for bot in bots}
    won: list[tuple[str, tuple[str, ...]]] = []
    lock = threading.Lock()

    def claimer(store: LadderStore, claims: SeatClaims, prefix: str) -> None:
        for i in range(40):
            seats = (bots[i % 3], bots[(i + 1) % 3])
            game = f"{prefix}{i}"
            if claim(store, claims, game, seats, caps):  # threads of one host take turns on its store
                with lock:
                    won.append((game, seats))

    threads = [threading.Thread(target=claimer, args=(s, c, f"{name}{t}-"))
               for name, s, c in (("A", store_a, claims_a), ("B", store_b, claims_b)) for t in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Nothing was released: every bot holds at most its cap, and every claimed game holds both its seats.
    held: dict[str, int] = {}
    for _game, seats in won:
        for bot in seats:
            held[bot] = held.get(bot, 0) + 1
    assert held and all(count <= 2 for count in held.values()), held
    with a.connection() as db:
        rows = db.execute("SELECT game_id, COUNT(*), MAX(busy), MAX(cap) FROM seat_claims GROUP BY game_id").fetchall()
        per_bot = dict(db.execute("SELECT bot, COUNT(*) FROM seat_claims WHERE released_at IS NULL GROUP BY bot"))
    assert {r[0] for r in rows} == {game for game, _ in won} and all(r[1] == 2 and r[2] <= r[3] == 2 for r in rows)
    assert per_bot == held
    # A game is recorded exactly when its seats were claimed.
    assert {g.id for g in store_a.games(status="running")} == {game for game, _ in won}
    # Released seats are free again, on the other host too.
    for game, _seats in won:
        (claims_a if game.startswith("A") else claims_b).release(game)
    assert claim(store_b, claims_b, "after", ("x", "y"), caps)
    a.close(), b.close()
    store_a.close(), store_b.close()


def test_a_claim_is_refused_whole_for_a_bot_at_its_cap_or_being_claimed_and_its_rows_keep_the_audit(postgres_db):
    import psycopg

    store = LadderStore.open(postgres_db, shared=True)
    registry, claims = host(postgres_db, "A")
    assert claim(store, claims, "g1", ("x", "y"), {"x": 2, "y": 1})
    assert not claim(store, claims, "g2", ("x", "y"), {"x": 2, "y": 1})  # y at its cap of 1
    assert claim(store, claims, "g3", ("x", "z"), {"x": 2, "z": 1})  # x's second game, within its cap of 2
    assert not claim(store, claims, "g4", ("z", "x"), {"z": 5, "x": 2})  # x at its cap now
    # Another transaction holding a bot's row (another host claiming it this moment): refused, never waited for.
    claims.ensure_bots(["w", "v"])
    with psycopg.connect(postgres_db) as other:
        assert other.execute("SELECT bot FROM bot_slots WHERE bot = 'w' FOR UPDATE").fetchall() == [("w",)]
        assert not claim(store, claims, "g5", ("w", "v"), {"w": 1, "v": 1})
    assert claim(store, claims, "g6", ("w", "v"), {"w": 1, "v": 1})
    with registry.connection() as db:
        rows = db.execute("SELECT game_id, seat, bot, cap, busy, host FROM seat_claims ORDER BY game_id, seat").fetchall()
    assert rows == [("g1", 0, "x", 2, 1, "A"), ("g1", 1, "y", 1, 1, "A"), ("g3", 0, "x", 2, 2, "A"),
                    ("g3", 1, "z", 1, 1, "A"), ("g6", 0, "w", 1, 1, "A"), ("g6", 1, "v", 1, 1, "A")]
    assert {g.id for g in store.games()} == {"g1", "g3", "g6"}  # nothing of a refused game recorded
    assert claims.release("g1", "g3") == 4 and claims.release("g1") == 0
    assert claim(store, claims, "g7", ("y", "x"), {"y": 1, "x": 1})
    registry.close()
    store.close()


def test_a_heartbeat_does_not_wait_for_a_claim_in_flight_and_a_sweep_still_skips_its_host(postgres_db):
    """A claim holds its host's row FOR KEY SHARE until its start commits (schema step 8; FOR SHARE before): the
    host's heartbeat renews the lease beside it (it waited for every start in flight, and the starts after it
    waited for the heartbeat), while a sweep's FOR UPDATE SKIP LOCKED still passes the host by."""
    import psycopg

    store = LadderStore.open(postgres_db, shared=True)  # the schema, at this code's version
    registry, claims = host(postgres_db, "A")
    claims.ensure_bots(["x", "y"])
    with psycopg.connect(postgres_db) as start, psycopg.connect(postgres_db, autocommit=True) as sweeper:
        assert start.execute("SELECT mau_claim_seats('g1', 'moumou', 'A', ARRAY['x', 'y'], ARRAY[1, 1])"
                             ).fetchone() == (True,)  # in flight: its transaction is open
        with registry.connection() as db:
            db.execute("SET lock_timeout = '2s'")  # a wait for the claim fails the heartbeat instead of hanging
        assert registry.heartbeat() == "live"
        assert sweeper.execute("SELECT name FROM hosts WHERE name = 'A' FOR UPDATE SKIP LOCKED").fetchall() == []
        start.commit()
    with registry.connection() as db:
        assert db.execute("SELECT game_id, bot FROM seat_claims ORDER BY bot").fetchall() == [("g1", "x"), ("g1", "y")]
    registry.close()
    store.close()


def test_a_host_is_dead_only_without_lease_and_lock_and_then_its_games_are_aborted(postgres_db):
    store = LadderStore.open(postgres_db, shared=True)
    survivor, _ = host(postgres_db, "live", lease_s=60)
    doomed, doomed_claims = host(postgres_db, "doomed")
    assert claim(store, doomed_claims, "g1", ("x", "y"), {"x": 1, "y": 1})
    lapse(doomed)
    # Lease long expired, but the process still holds its lock (a late heartbeat): alive.
    assert survivor.sweep_dead() == []
    assert store.game("g1").status == "running"
    doomed.close()  # the process is gone: PostgreSQL drops its session lock
    wait_gone(survivor, "doomed")
    dead = survivor.sweep_dead()
    assert [(d.name, d.aborted, d.released) for d in dead] == [("doomed", 1, 2)]
    game = store.game("g1")
    assert game.status == "aborted" and game.reason == "host doomed died (not rated)"
    assert not store.rated_games("moumou")
    assert [address for _n, address, _c in survivor.live_hosts()] == ["live.example:1"]
    survivor.close()
    store.close()


def wait_gone(observer: HostRegistry, name: str) -> None:
    """Until the server has ended host ``name``'s session (a closed connection's backend exits a moment later)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with observer.connection() as db:
            if not db.execute("SELECT 1 FROM pg_stat_activity WHERE application_name = %s",
                              (f"mau-arena host {name}",)).fetchone():
                return
    raise AssertionError(f"the session of host {name} did not end")


def lapse(registry: HostRegistry) -> None:
    """As if the host's heartbeats had stopped an hour ago."""
    with registry.connection() as db:
        db.execute("UPDATE hosts SET lease_until = lease_until - 3600 WHERE name = %s", (registry.name,))


def test_a_host_swept_while_it_lived_is_fenced_and_its_results_change_nothing(postgres_db):
    from arena.ladder.store import GameClosed, SeatRecord

    store = LadderStore.open(postgres_db, shared=True)
    survivor, _ = host(postgres_db, "live")
    cut_off, cut_claims = host(postgres_db, "cut")
    assert claim(store, cut_claims, "g1", ("x", "y"), {"x": 1, "y": 1})
    # Its connections are lost (its lock goes with them) for longer than its lease: the survivor sweeps it.
    lapse(cut_off)
    with survivor.connection() as db:
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                   "WHERE application_name LIKE 'mau-arena host cut%'")
    wait_gone(survivor, "cut")
    assert [(d.name, d.aborted, d.released) for d in survivor.sweep_dead()] == [("cut", 1, 2)]
    # Back, before its heartbeat: no claim while its lease is lapsed (no game either), and its result
    # changes nothing.
    import psycopg

    with pytest.raises(psycopg.OperationalError):  # the lost connection, noticed; the next call reconnects
        cut_claims.ensure_bots(["w"])
    assert not claim(store, cut_claims, "g2", ("x", "y"), {"x": 1, "y": 1}) and store.game("g2") is None
    with pytest.raises(GameClosed):
        store.game_ended("g1", "finished", [SeatRecord(0, "x", placement=1), SeatRecord(1, "y", placement=2)])
    game = store.game("g1")
    assert (game.status, game.reason) == ("aborted", "host cut died (not rated)") and not store.rated_games("moumou")
    # Its heartbeat (on its own connection, lost too) says it was swept, and makes it live again: it claims as before.
    with pytest.raises(psycopg.OperationalError):
        cut_off.heartbeat()
    assert cut_off.heartbeat() == "dead"
    assert cut_off.heartbeat() == "live"
    assert claim(store, cut_claims, "g2", ("x", "y"), {"x": 1, "y": 1})
    survivor.close(), cut_off.close()
    store.close()


def test_a_host_replaced_while_cut_off_renews_and_claims_nothing_and_its_dead_replacement_is_swept(postgres_db):
    """The red team's zombie host (attacks/a2b_zombie_plays.py), at its source: host h1 is cut off (its sessions
    ended) for longer than its lease and swept; the operator starts a replacement under the name h1, which plays;
    the old process is not dead.  Its claims are refused while the replacement lives (h1's lease is current and
    its lock held: only the old process's incarnation is not h1's any more).  Then the replacement dies (kill -9:
    its session and lock gone, its lease left) and the old process comes back: it must not take the free lock
    nor renew h1's lease (it renewed it on a session without the lock at every heartbeat, so h1 never died and
    the replacement's games and claims stayed open), claim nothing, and leave the row alone as it stops; so h1
    is dead as soon as its lease lapses, and the replacement's games are swept as any dead host's."""
    import psycopg

    store = LadderStore.open(postgres_db, shared=True)
    survivor, _ = host(postgres_db, "live", lease_s=3600)
    old, old_claims = host(postgres_db, "h1")
    assert claim(store, old_claims, "g1", ("a", "b"), {"a": 1, "b": 1})
    lapse(old)
    with survivor.connection() as db:
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'mau-arena host h1%'")
    wait_gone(survivor, "h1")
    assert [(d.name, d.aborted, d.released) for d in survivor.sweep_dead()] == [("h1", 1, 2)]
    replacement, new_claims = host(postgres_db, "h1")  # the operator's replacement, same name
    assert claim(store, new_claims, "g2", ("a", "b"), {"a": 1, "b": 1})
    # The old process claims nothing, although h1's lease is current and its lock held (by the replacement).
    with pytest.raises(psycopg.OperationalError):  # (its work connection was lost; the next call reconnects)
        old_claims.ensure_bots(["c", "d"])
    assert not claim(store, old_claims, "g3", ("c", "d"), {"c": 1, "d": 1}) and store.game("g3") is None

    def lease() -> tuple:
        with survivor.connection() as db:
            return db.execute("SELECT state, lease_until, started_at FROM hosts WHERE name = 'h1'").fetchone()

    def lock_holders() -> list:
        with survivor.connection() as db:
            return db.execute("SELECT l.pid FROM pg_locks l JOIN hosts h ON CAST(l.objid AS BIGINT) = h.lock_key "
                              "WHERE l.locktype = 'advisory' AND l.granted AND CAST(l.classid AS BIGINT) = %s "
                              "AND h.name = 'h1'", (HOST_LOCK_CLASS,)).fetchall()

    replacement.close()  # killed: its session and lock go, its lease stays
    wait_gone(survivor, "h1")
    renewed = lease()
    assert renewed[0] == "live" and not lock_holders()
    # The old process wakes up: its first heartbeat finds its connection lost, the next one finds h1 replaced
    # (before taking the free lock), and every one after says so without touching the database.
    with pytest.raises(psycopg.OperationalError):
        old.heartbeat()
    for _ in range(3):
        with pytest.raises(HostReplaced, match="host name 'h1' was taken over by another `arena serve`"):
            old.heartbeat()
    assert lease() == renewed and not lock_holders()
    assert not claim(store, old_claims, "g4", ("c", "d"), {"c": 1, "d": 1}) and store.game("g4") is None
    old.leave()  # its clean stop leaves the row and the replacement's claims alone
    assert lease() == renewed
    with survivor.connection() as db:
        assert db.execute("SELECT COUNT(*) FROM seat_claims WHERE game_id = 'g2' AND released_at IS NULL"
                          ).fetchone() == (2,)
    with survivor.connection() as db:  # (its lease runs out, as nobody renews it)
        db.execute("UPDATE hosts SET lease_until = lease_until - 3600 WHERE name = 'h1'")
    assert [(d.name, d.aborted, d.released) for d in survivor.sweep_dead()] == [("h1", 1, 2)]
    game = store.game("g2")
    assert (game.status, game.reason) == ("aborted", "host h1 died (not rated)") and not store.rated_games("moumou")
    survivor.close()
    store.close()


def test_a_host_sweeps_nobody_before_a_grace_of_steady_contact(postgres_db):
    """After a database outage every lease has lapsed: a host that has just (re)connected waits its grace."""
    LadderStore.open(postgres_db, shared=True).close()
    sweeper, _ = host(postgres_db, "sweeper", grace_s=3600)
    gone, _ = host(postgres_db, "gone")
    lapse(gone)
    gone.close()
    wait_gone(sweeper, "gone")
    assert not sweeper.steady() and sweeper.sweep_dead() == []
    with sweeper.connection() as db:
        assert db.execute("SELECT state FROM hosts WHERE name = 'gone'").fetchone() == ("live",)
    sweeper.grace_s = 0.0  # (a grace gone by)
    assert [d.name for d in sweeper.sweep_dead()] == ["gone"]
    sweeper.close()


def test_a_restarting_host_aborts_only_its_own_games_and_a_live_name_is_refused(postgres_db):
    store = LadderStore.open(postgres_db, shared=True)
    other, other_claims = host(postgres_db, "other")
    mine, mine_claims = host(postgres_db, "mine")
    assert claim(store, other_claims, "theirs", ("a", "b"), {"a": 1, "b": 1})
    assert claim(store, mine_claims, "ours", ("c", "d"), {"c": 1, "d": 1})
    with pytest.raises(StoreError, match="host name 'mine' is in use by a live `arena serve`"):
        HostRegistry(postgres_db, "mine", "x:1", 4, lock_wait_s=0.1).join()
    mine.close()  # killed
    again = HostRegistry(postgres_db, "mine", "mine.example:2", 4)
    assert again.join() == [("ours", None)]
    assert store.game("ours").status == "aborted" and store.game("theirs").status == "running"
    assert claim(store, SeatClaims(again), "next", ("c", "d"), {"c": 1, "d": 1})  # its seats were released
    again.close(), other.close()
    store.close()


def test_a_restart_waits_for_the_lock_its_dying_process_still_holds(postgres_db):
    # A killed host's backend holds its lock until it sees the connection close; a restart in that
    # moment used to be refused as "in use by a live `arena serve`" (a flake in CI).
    store = LadderStore.open(postgres_db, shared=True)
    first, _ = host(postgres_db, "mine")
    first.close()
    key = store.backend.rows("SELECT lock_key FROM hosts WHERE name = 'mine'")[0][0]
    restarted = HostRegistry(postgres_db, "mine", "mine.example:2", 4, lock_wait_s=60.0)
    assert successor_outcome(postgres_db, HOST_LOCK_CLASS, key, restarted.join) == {"result": []}
    with pytest.raises(StoreError, match="host name 'mine' is in use by a live `arena serve`"):
        HostRegistry(postgres_db, "mine", "x:1", 4, lock_wait_s=0.1).join()
    restarted.close()
    store.close()


# The fairness counts as the database summed them before `ClaimTally` (every claim since, at every round).
FULL_GAMES = "SELECT ruleset, bot, COUNT(*) FROM seat_claims WHERE claimed_at >= %s GROUP BY ruleset, bot"
FULL_PAIRS = ("SELECT a.ruleset, a.bot, b.bot, COUNT(*) FROM seat_claims a JOIN seat_claims b "
              "ON b.game_id = a.game_id AND a.bot < b.bot WHERE a.claimed_at >= %s GROUP BY a.ruleset, a.bot, b.bot")


def full_counts(db, since: float) -> tuple[dict, dict]:
    games: dict[str, dict[str, int]] = {}
    pairs: dict[str, dict[frozenset[str], int]] = {}
    for ruleset, bot, n in db.execute(FULL_GAMES, (since,)):
        games.setdefault(ruleset, {})[bot] = n
    for ruleset, a, b, n in db.execute(FULL_PAIRS, (since,)):
        pairs.setdefault(ruleset, {})[frozenset((a, b))] = n
    return games, pairs


def test_the_incremental_fairness_counts_equal_a_full_count_over_a_random_history(postgres_db):
    """`SeatClaims.load` reads only the claims committed since its last read and hands on what they add,
    yet the sums of its games and pairings equal the full count's after every step: claims on two hosts, releases, and claims whose transaction
    commits only after a read that could not see them (in any order)."""
    import random

    import psycopg

    store = LadderStore.open(postgres_db, shared=True)
    (a, claims_a), (b, claims_b) = host(postgres_db, "A"), host(postgres_db, "B")
    rng = random.Random(15)
    bots = [f"bot{i}" for i in range(7)]
    caps = {bot: 1000 for bot in bots}
    for i in range(5):  # before the reader's start: not counted
        claim(store, claims_b, f"old{i}", rng.sample(bots, 2), caps)
    since = claims_a.now()
    reference = psycopg.connect(postgres_db, autocommit=True)
    late: list[psycopg.Connection] = []  # transactions that claimed and have not committed yet
    # Each read hands on only what it counted first: their sums are the counts.
    summed_games: dict[str, dict[str, int]] = {}
    summed_pairs: dict[str, dict[frozenset[str], int]] = {}

    def add(load) -> None:
        for summed, new in ((summed_games, load.games), (summed_pairs, load.pairs)):
            for ruleset, counts in new.items():
                into = summed.setdefault(ruleset, {})
                for key, n in counts.items():
                    into[key] = into.get(key, 0) + n

    claimed: list[str] = []
    for step in range(80):
        action = rng.random()
        seats = rng.sample(bots, rng.choice((2, 2, 3, 4)))
        ruleset = rng.choice(("moumou", "mose"))
        if action < 0.45:
            claims = claims_a if rng.random() < 0.5 else claims_b
            if claim(store, claims, f"g{step}", seats, caps, ruleset):
                claimed.append(f"g{step}")
        elif action < 0.6 and len(late) < 3:  # claimed as `SeatClaims.claim_in` does, committed later
            db = psycopg.connect(postgres_db)
            db.execute(
                "INSERT INTO seat_claims (game_id, seat, bot, ruleset, host, cap, busy, claimed_at, claim_xid) "
                "SELECT %s, s.seat - 1, s.bot, %s, 'B', 1000, 1, "
                "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION), pg_current_xact_id() "
                "FROM unnest(CAST(%s AS TEXT[])) WITH ORDINALITY AS s (bot, seat)", (f"late{step}", ruleset, seats))
            late.append(db)
        elif action < 0.75 and late:
            db = late.pop(rng.randrange(len(late)))
            (db.commit if rng.random() < 0.8 else db.rollback)()
            db.close()
        elif action < 0.85 and claimed:
            claims_a.release(*rng.sample(claimed, min(len(claimed), rng.randint(1, 3))))
        add(load := claims_a.load(since, bots))
        assert load.fresh == (step == 0)
        games, pairs = full_counts(reference, since)
        assert (summed_games, summed_pairs) == (games, pairs), step
        assert (claims_a.tally.games, claims_a.tally.pairs) == (games, pairs), step
    for db in late:
        db.commit()
        db.close()
    add(claims_a.load(since, bots))
    assert (summed_games, summed_pairs) == full_counts(reference, since)
    assert sum(map(sum, (g.values() for g in summed_games.values()))) > 60
    # A round with nothing new reads nothing but its snapshot.
    with a.work_connection() as db:
        assert [row[1:] for row in db.execute(*claims_a.tally.query()).fetchall()] == [(None, None, None, None)]
    reference.close(), a.close(), b.close(), store.close()


@pytest.fixture
def other_ladder_db(postgres, fresh_databases):
    """A second fresh database on the same server as `postgres_db`: another ladder beside it."""
    from tests.fresh_databases import drop

    name = fresh_databases.take()
    yield postgres.url.rsplit("/", 1)[0] + "/" + name
    drop(postgres.url, name)


def test_another_databases_host_locks_on_the_same_server_neither_keep_a_dead_host_alive_nor_name_a_holder(
        postgres_db, other_ladder_db):
    """Advisory locks belong to their database, but ``pg_locks`` lists every database's: two ladders on one server
    hand out the same lock keys (1, 2, ...).  A dead host here is swept while the other ladder's host with its key
    is alive, and a refusal names the holder here, not a session of the other ladder."""
    import psycopg

    store = LadderStore.open(postgres_db, shared=True)
    LadderStore.open(other_ladder_db, shared=True).close()
    survivor, _ = host(postgres_db, "live")       # key 1
    doomed, doomed_claims = host(postgres_db, "doomed")  # key 2
    there = [host(other_ladder_db, name)[0] for name in ("old-1", "old-2")]  # keys 1 and 2 of the other ladder
    keys = {r.name: store.backend.rows("SELECT lock_key FROM hosts WHERE name = ?", (r.name,))[0][0]
            for r in (survivor, doomed)}
    assert keys == {"live": 1, "doomed": 2}
    assert claim(store, doomed_claims, "g1", ("x", "y"), {"x": 1, "y": 1})
    lapse(doomed)
    doomed.close()
    wait_gone(survivor, "doomed")
    assert [(d.name, d.aborted, d.released) for d in survivor.sweep_dead()] == [("doomed", 1, 2)]
    assert store.game("g1").status == "aborted"
    # The other ladder's hosts are untouched (its sweeps see this ladder's locks no more than this one sees its).
    with there[0].connection() as db:
        assert db.execute("SELECT name, state FROM hosts ORDER BY name").fetchall() == [("old-1", "live"), ("old-2", "live")]

    # Refusals: the other ladder holds this one's server lock number many times over (shared), and this ladder's
    # holder is one session; the message names that one (without the database condition, one of the others at random).
    from arena.ladder.store.postgres import LOCK_CLASS, SERVER_LOCK

    for registry in there:
        registry.close()
    crowd = [psycopg.connect(other_ladder_db, autocommit=True, application_name=f"other ladder {i}") for i in range(8)]
    for session in crowd:
        session.execute("SELECT pg_advisory_lock_shared(%s, %s)", (LOCK_CLASS, SERVER_LOCK))
        session.execute("SELECT pg_advisory_lock_shared(%s, %s)", (HOST_LOCK_CLASS, 1))
    server = LadderStore.open(postgres_db, recover=True)  # `arena serve` on SQLite's terms: the whole database
    try:
        with pytest.raises(StoreError) as refused:
            LadderStore.open(postgres_db, recover=True)
        assert "(mau-arena pid" in str(refused.value) and "other ladder" not in str(refused.value)
        with pytest.raises(StoreError) as refused:
            HostRegistry(postgres_db, "live", "x:1", 4, lock_wait_s=0.1).join()
        assert "(mau-arena host live from" in str(refused.value) and "other ladder" not in str(refused.value)
    finally:
        server.close()
        for session in crowd:
            session.close()
    survivor.close()
    store.close()


def test_a_host_with_other_rating_rules_than_a_live_host_is_refused_and_other_differences_are_warned(
        postgres_db, caplog):
    """Results from every host go into one rating: a host whose time control, strikes, table size or options of a
    shared ruleset differ from a live host's is refused in one line naming the setting and the host (unless
    allow_mixed); a different lease, hold or ruleset list is only warned."""
    import logging

    from arena.ladder.store.host_settings import HostSettings

    def settings(move_ms=1000, max_strikes=3, lease_s=10.0, rulesets=None) -> HostSettings:
        return HostSettings(time_control={"move_ms": move_ms, "bank_ms": 0, "increment_ms": 0, "first_move_ms": 0,
                                          "max_strikes": max_strikes},
                            rulesets=rulesets or {"moumou": (2, {})}, lease_s=lease_s)

    LadderStore.open(postgres_db, shared=True).close()
    first = HostRegistry(postgres_db, "a", "a:1", 4, settings=settings())
    first.join()
    for other, line in (
        (settings(move_ms=500), "--move-ms 500 here, 1000 on live host a"),
        (settings(max_strikes=5), "--max-strikes 5 here, 3 on live host a"),
        (settings(rulesets={"moumou": (3, {})}), "--players moumou=3 here, 2 on live host a"),
        (settings(rulesets={"moumou": (2, {"hand": 7})}), "moumou options (hand=7) here, (defaults) on live host a"),
    ):
        refused = HostRegistry(postgres_db, "b", "b:1", 4, settings=other)
        with pytest.raises(StoreError, match="would be rated by other rules than the live hosts'") as error:
            refused.join()
        assert line in str(error.value) and "--allow-mixed-settings" in str(error.value) and "\n" not in str(error.value)
        with first.connection() as db:  # never live, and its lock is free again
            assert db.execute("SELECT state FROM hosts WHERE name = 'b'").fetchone() == ("stopped",)
            assert [name for name, _a, _c in first.live_hosts()] == ["a"]
    caplog.set_level(logging.WARNING, logger="arena.ladder")
    mixed = HostRegistry(postgres_db, "b", "b:1", 4, settings=settings(move_ms=500), allow_mixed=True)
    mixed.join()
    assert "--move-ms 500 here, 1000 on live host a" in caplog.text
    mixed.leave()  # (a clean stop: no longer live)
    caplog.clear()
    lenient = HostRegistry(postgres_db, "c", "c:1", 4, settings=settings(
        lease_s=5.0, rulesets={"moumou": (2, {}), "maumau": (2, {})}))
    lenient.join()  # joins: a lease and the list of rulesets do not change how a shared ruleset's games are rated
    assert "--host-lease 5 here, 10.0 on live host a" in caplog.text
    assert "--game differs from live host a: only here maumau; only there none" in caplog.text
    with first.connection() as db:
        recorded = HostSettings.from_json(db.execute("SELECT settings FROM hosts WHERE name = 'c'").fetchone()[0])
    assert recorded == settings(lease_s=5.0, rulesets={"moumou": (2, {}), "maumau": (2, {})})
    lenient.close(), first.close()
