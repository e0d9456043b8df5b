"""The host registry: which `arena serve` processes share a PostgreSQL ladder, and which of them are alive.

Every ``arena serve --db postgresql://...`` is a *host* with a name (``--host-name``,
default ``HOSTNAME:PORT``) and the address bots should use (``--advertise``).  A host
is one row of ``hosts`` plus a session advisory lock on that row's ``lock_key``:

* **alive** while its process holds the lock (PostgreSQL drops it with the session:
  a ``kill -9``, a lost connection) and renews ``lease_until`` every few seconds
  (`HostRegistry.heartbeat`);
* **dead** when both are gone: the lease has expired *and* nobody holds the lock.
  Either alone is not enough: a PostgreSQL restart frees every lock at once while the
  hosts are fine (they re-take their locks within a heartbeat), and a host whose
  heartbeats are late (a long pause) still holds its lock.  Any live host may then
  close the dead host's games (`HostRegistry.sweep_dead`): its running games are
  aborted (never rated) and its seat claims released, so its bots play elsewhere.
* **not judged after an outage**: a host sweeps only after ``grace_s`` (a lease) of steady
  contact of its own, on a database up for as long, so a lease that lapsed because the
  database was away is never taken for a death;
* **fenced** when it was swept all the same (its own connection was lost for longer than a
  lease while the others' was not): its next heartbeat says so (`HostRegistry.heartbeat`
  returns ``"dead"``), the rows of its games are already aborted and never written again
  (`LadderStore.game_ended` takes a result only on a running row), it claims nothing
  while its lease is lapsed (`SeatClaims.claim_in`), and it aborts what it still plays;
* **replaced** when, while it was cut off, the operator started another process under its name
  (which took the free lock and joined: a new ``started_at``).  The old process is then no
  longer this host at all: every renewal and claim is fenced by the lock and by ``started_at``,
  the process's *incarnation*, read at `join` (the lease is renewed only by the session that holds
  the host's lock, for the incarnation that joined last: `HostRegistry.heartbeat`; a claim only for
  the incarnation that joined last: `claims.FENCED_CLAIM_FUNCTION`), so it can neither keep the
  name's lease alive nor seat a game, and the registry raises `HostReplaced` from then on, never
  taking the lock again.  Its `Membership` aborts the games it still plays and stops the process
  (docs/deploy.md, "A replaced host wakes up").

Two processes cannot be the same host: the second one's lock attempt fails (after waiting a
moment, `HostRegistry.lock_wait_s`, in case the holder is a killed process whose backend has not
yet noticed) and it is refused in one line.  At start a host aborts only the games *it* left running
(`HostRegistry.join`); a single `arena serve` on SQLite keeps aborting every running
game, as it always owned the whole database.

Times are the database's clock (``clock_timestamp()``, epoch seconds), never the hosts',
so machines with skewed clocks agree on who is late.  No election, no consensus of our
own: the locks and row locks of PostgreSQL decide.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from arena.ladder.store import bot_hosts
from arena.ladder.store.host_settings import HostSettings, compare
from arena.ladder.store.postgres import LOCK_CLASS, LOCK_WAIT_S, THIS_DATABASE, clock_text, redact, take_session_lock
from arena.ladder.store.records import StoreError

log = logging.getLogger("arena.ladder")

#: The advisory lock class of host locks (``MAH``); the key is ``hosts.lock_key``.
HOST_LOCK_CLASS = 0x4D4148
#: Under LOCK_CLASS: serialises handing out lock keys to new host names.
REGISTRY_LOCK = 3
#: Under LOCK_CLASS: a seat release holds it shared (in its transaction), a host becoming live holds it
#: exclusively, so a release that tells nobody (no other live host) commits before a new host goes live
#: (`SeatClaims.release_statements`).
SEATS_LOCK = 4

NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"
#: SQL over a ``hosts`` row ``h``: whether its process holds its host lock (an advisory lock of *this* database:
#: ``pg_locks`` shows every database's, and two ladders on one server number their hosts' locks alike).
HOST_LOCK_HELD = (
    f"EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND {THIS_DATABASE} "
    f"AND CAST(l.classid AS BIGINT) = {HOST_LOCK_CLASS} AND CAST(l.objid AS BIGINT) = h.lock_key)"
)
#: The NOTIFY channel a host signals when it frees seats (payload: its name), so the others plan again at once.
SEATS_FREED = "mau_arena_seats"


@dataclass(frozen=True)
class DeadHost:
    name: str
    aborted: int   # its running games, now aborted
    released: int  # its seat claims, now released


class HostReplaced(StoreError):
    """Another process joined the ladder under this host's name while this one was cut off from the database:
    this process is no longer that host (it renews nothing, claims nothing, and must stop)."""


class SettingsRefused(StoreError):
    """A starting host's settings differ from a live host's in what decides a rating (`host_settings`)."""


class HostRegistry:
    """This process's membership of a PostgreSQL ladder: its own connection, which holds its host lock,
    and a second one for the seat claims (`work_connection`).

    Thread-safe (one lock around the connection); the ladder calls it from worker threads.
    """

    def __init__(self, url: str, name: str, address: str, concurrency: int, lease_s: float = 10.0,
                 connect_timeout: int = 10, grace_s: float | None = None, lock_wait_s: float = LOCK_WAIT_S,
                 settings: HostSettings | None = None, allow_mixed: bool = False, web: str | None = None) -> None:
        try:
            import psycopg
        except ImportError:
            raise StoreError("several hosts need psycopg 3: pip install 'mau-arena[postgres]'") from None
        self._psycopg = psycopg
        self.url = url
        self.name = name
        self.address = address
        self.concurrency = concurrency
        self.lease_s = lease_s
        #: How long this host must have been in steady contact, and the database up, before it sweeps
        #: others (default a lease: every live host renews within one).
        self.grace_s = lease_s if grace_s is None else grace_s
        #: How long `join` waits for the host lock before refusing: a process of this host that has just
        #: died still holds it until its PostgreSQL backend notices the closed connection and exits.
        self.lock_wait_s = lock_wait_s
        #: What this host plays by, recorded in its row and compared with the live hosts' at `join`
        #: (`host_settings`); None: nothing recorded nor compared.  ``allow_mixed``: a mismatch that affects
        #: ratings is logged instead of refused.
        self.settings = settings
        self.allow_mixed = allow_mixed
        #: Where this host's web view is (a URL for readers), recorded in its row at `join`; None: it serves none.
        self.web = web
        self._connect_timeout = connect_timeout
        self._lock = threading.RLock()
        self._db: Any = None
        self._work_lock = threading.RLock()
        self._work: Any = None
        self._names_lock = threading.RLock()
        self._names: Any = None
        self._key: int | None = None
        #: This process's incarnation of the host: the row's ``started_at`` its `join` wrote (None before).  A
        #: later `join` under the name (a replacement) writes another, which fences this process out.
        self.started: float | None = None
        #: Why this process is no longer the host (`HostReplaced`), "" while it is.
        self.replaced = ""
        self._listener: Any = None  # the connection LISTENing since `join`, until `listen` takes it
        #: When this host's heartbeats began to succeed without a break (monotonic), None after a failure
        #: or a new connection: a host sweeps others only after a whole lease of its own steady contact.
        self._steady_since: float | None = None
        self._connect()

    # ---- the connection

    def _open(self, purpose: str = "") -> Any:
        psycopg = self._psycopg
        try:
            db = psycopg.connect(self.url, autocommit=True, connect_timeout=self._connect_timeout,
                                 application_name=f"mau-arena host {self.name}{purpose}"[:63])
            db.execute("SET synchronous_commit = on")
            db.prepare_threshold = None  # as the store's (`PostgresBackend._open`): the claims bind literals
            return db
        except psycopg.Error as error:
            raise StoreError(f"cannot connect to {redact(self.url)}: {' '.join(str(error).split())}") from None

    def _connect(self) -> None:
        self._db = self._open()
        self._steady_since = None

    def _relock(self, db: Any, key: int) -> None:
        """On a new connection after `join`: take the host lock again, as this host's incarnation only.

        Not when another process has joined under this name meanwhile (its ``started_at`` is not ours:
        `HostReplaced`), checked before the lock (a replacement that died since leaves the lock free) and
        again under it (one that joined while this one waited).  A lock held by another session while the
        row is still ours (this host's old session, not yet ended by the server; or a replacement between
        its lock and its row) is refused for now (StoreError): the next heartbeat tries again."""
        self._check_incarnation(db)
        if not take_session_lock(db, HOST_LOCK_CLASS, key, self.lock_wait_s):
            self._check_incarnation(db)
            raise StoreError(f"cannot take the lock of host {self.name!r} again yet: another session holds it "
                             "(this host's old session, not yet ended by the database, or another `arena serve` "
                             "under this name)")
        self._check_incarnation(db)

    def _check_incarnation(self, db: Any) -> None:
        """Raise `HostReplaced` (and remember it) if the host's row was written by another process's `join`."""
        if self.started is None:
            return
        row = db.execute("SELECT started_at FROM hosts WHERE name = %s", (self.name,)).fetchone()
        if row is None or float(row[0]) != self.started:
            self._replaced()

    def _replaced(self) -> None:
        self.replaced = (f"host name {self.name!r} was taken over by another `arena serve` while this process was cut "
                         "off from the database: this process is no longer that host")
        raise HostReplaced(self.replaced)

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """The registry's connection, reconnected (and the host lock re-taken) if it was lost.

        A connection is kept only once it holds the lock (after `join`): one whose lock is refused is
        closed, never used for a heartbeat, and the next call tries again.  Once another process has joined
        under this name (`HostReplaced`) every call raises, without connecting."""
        with self._lock:
            if self.replaced:
                raise HostReplaced(self.replaced)
            if self._db is None or self._db.closed or self._db.broken:
                db = self._open()
                try:
                    if self._key is not None:
                        self._relock(db, self._key)
                except BaseException:
                    db.close()
                    raise
                self._db = db
                self._steady_since = None
            yield self._db

    @contextmanager
    def work_connection(self) -> Iterator[Any]:
        """The connection for seat claims, releases and the cluster's counts (`SeatClaims`), reconnected if lost.

        Apart from `connection`, which holds the host lock and renews the lease: a heartbeat or a
        sweep never waits behind a round of claims, nor a claim behind a sweep.  It holds no lock
        of its own (a claim checks the host's lease in the database, under a row lock).
        """
        with self._work_lock:
            if self._work is None or self._work.closed or self._work.broken:
                self._work = self._open(" (claims)")
            yield self._work

    @contextmanager
    def names_connection(self) -> Iterator[Any]:
        """The connection for the bots' hosts (`bot_hosts.BotHosts`: a Hello's check of where else its name is
        connected), reconnected if lost: apart from the others, so a login never waits behind a planning read
        or a heartbeat, nor they behind a login."""
        with self._names_lock:
            if self._names is None or self._names.closed or self._names.broken:
                self._names = self._open(" (names)")
            yield self._names

    def _take_lock(self, key: int) -> None:
        """Take the host lock, waiting up to `lock_wait_s` for it; refuse in one line if it stays held.

        The wait is for the common case of a restart: the previous process was killed a moment ago,
        and its backend, which holds the lock, has not yet seen the connection close
        (`postgres.take_session_lock`).
        """
        taken = take_session_lock(self._db, HOST_LOCK_CLASS, key, self.lock_wait_s)
        if not taken:
            holder = self._db.execute(
                "SELECT a.application_name, COALESCE(host(a.client_addr), 'local socket'), a.pid "
                "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
                f"AND l.granted AND {THIS_DATABASE} AND CAST(l.classid AS BIGINT) = %s AND CAST(l.objid AS BIGINT) = %s",
                (HOST_LOCK_CLASS, key),
            ).fetchone()
            who = f" ({holder[0]} from {holder[1]})" if holder else ""
            raise StoreError(
                f"host name {self.name!r} is in use by a live `arena serve` on {redact(self.url)}{who}: "
                "give this one another --host-name"
            )

    # ---- joining and leaving

    def join(self) -> list[tuple[str, str | None]]:
        """Become a live host; abort the games an earlier process of this host left running.

        Returns those games' (id, replay path), for `arena.ladder.recovery`.  Raises StoreError
        when another live process already is this host, or (`SettingsRefused`, the registry then
        closed) when its settings would rate games by other rules than a live host's.  Running games
        no host ever claimed (left by an `arena serve` from before hosts existed) are aborted too.
        """
        try:
            return self._join()
        except SettingsRefused:
            self.close()  # the host lock goes with the session
            raise

    def _join(self) -> list[tuple[str, str | None]]:
        with self.connection() as db:
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_CLASS, REGISTRY_LOCK))
                row = db.execute("SELECT lock_key FROM hosts WHERE name = %s", (self.name,)).fetchone()
                if row is None:
                    key = db.execute("SELECT COALESCE(MAX(lock_key), 0) + 1 FROM hosts").fetchone()[0]
                    db.execute(
                        f"INSERT INTO hosts (name, address, lock_key, concurrency, started_at, lease_until, state) "
                        f"VALUES (%s, %s, %s, %s, {NOW}, {NOW}, 'stopped')",
                        (self.name, self.address, key, self.concurrency),
                    )
                else:
                    key = row[0]
            self._take_lock(key)
            self._key = key
            # Listening before this host is live: a release that sees it live tells it (`SeatClaims.release_statements`).
            if self._listener is None:
                self._listener = self._open_listener()
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_CLASS, SEATS_LOCK))
                if self.settings is not None:  # under the lock: of two hosts starting at once, the second sees the first
                    self._compare_settings(db)  # (a refusal rolls this back: the host never goes live)
                (started,) = db.execute(
                    f"UPDATE hosts SET address = %s, concurrency = %s, started_at = {NOW}, "
                    f"lease_until = {NOW} + %s, state = 'live', settings = %s, web = %s WHERE name = %s "
                    "RETURNING started_at",
                    (self.address, self.concurrency, self.lease_s,
                     None if self.settings is None else self.settings.to_json(), self.web, self.name),
                ).fetchone()
                rows = db.execute(
                    "SELECT g.id, g.replay_path FROM games g WHERE g.status = 'running' AND ("
                    " EXISTS (SELECT 1 FROM seat_claims c WHERE c.game_id = g.id AND c.host = %s)"
                    " OR NOT EXISTS (SELECT 1 FROM seat_claims c WHERE c.game_id = g.id))",
                    (self.name,),
                ).fetchall()
                _abort(db, [r[0] for r in rows], "server restarted")
                db.execute(f"UPDATE seat_claims SET released_at = {NOW} WHERE host = %s AND released_at IS NULL",
                           (self.name,))
                bot_hosts.clear(db, self.name)  # a new process has no bot connected yet (and dead hosts' rows go)
        self.started = float(started)
        self._steady_since = time.monotonic()
        log.info("joined the ladder as host %s (%s)", self.name, self.address)
        return [(r[0], r[1]) for r in rows]

    def _compare_settings(self, db: Any) -> None:
        """Refuse (StoreError, one line) settings that would rate this host's games by other rules than a live
        host's, unless `allow_mixed`; log the other differences (`host_settings.compare`)."""
        rows = db.execute(
            f"SELECT name, settings FROM hosts WHERE state = 'live' AND lease_until >= {NOW} AND name <> %s "
            "AND settings IS NOT NULL ORDER BY name", (self.name,)).fetchall()
        refusals: list[str] = []
        for name, text in rows:
            try:
                theirs = HostSettings.from_json(text)
            except (ValueError, AttributeError, TypeError):
                log.warning("host %s recorded settings this release cannot read; not compared", name)
                continue
            refused, warned = compare(self.settings, theirs, name)
            refusals += refused
            for line in warned:
                log.warning("settings differ: %s", line)
        if not refusals:
            return
        if self.allow_mixed:
            for line in refusals:
                log.warning("settings differ (allowed by --allow-mixed-settings; ratings mix both): %s", line)
            return
        more = f" (and {len(refusals) - 1} more)" if len(refusals) > 1 else ""
        raise SettingsRefused(f"this host's games would be rated by other rules than the live hosts': {refusals[0]}{more}; "
                         "give every host the same settings, or --allow-mixed-settings")

    def leave(self) -> None:
        """A clean stop: release what this host still claims, mark it stopped, drop the lock.

        Only as the host's incarnation: a process replaced under its name (`HostReplaced`) touches neither
        the row nor the claims, which are the replacement's."""
        if self.replaced:
            self.close()
            return
        try:
            with self.connection() as db:
                with db.transaction():
                    mine = db.execute("SELECT started_at FROM hosts WHERE name = %s FOR UPDATE",
                                      (self.name,)).fetchone()
                    if self.started is not None and (mine is None or float(mine[0]) != self.started):
                        self._replaced()
                    db.execute(f"UPDATE seat_claims SET released_at = {NOW} WHERE host = %s AND released_at IS NULL",
                               (self.name,))
                    bot_hosts.clear(db, self.name)
                    db.execute("UPDATE hosts SET state = 'stopped', lease_until = " + NOW + " WHERE name = %s",
                               (self.name,))
        except HostReplaced:
            log.warning("%s: its row and claims are left to the process that took the name", self.replaced)
        except (self._psycopg.Error, StoreError) as error:
            log.warning("could not mark host %s stopped: %s", self.name, error)
        self.close()

    def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._work_lock:
            if self._work is not None:
                self._work.close()
        with self._names_lock:
            if self._names is not None:
                self._names.close()
        with self._lock:
            if self._db is not None:
                self._db.close()  # ends the session, and with it the host lock

    # ---- while serving

    def heartbeat(self) -> str | None:
        """Renew this host's lease (and its lock, after a lost connection); returns the state it renewed.

        ``"dead"`` means another host took this one for dead meanwhile and closed its games (its
        lease lapsed and its lock was free: a connection lost for longer than a lease while the
        database stayed up): the caller must abort what it still plays (those rows are already
        aborted, the seats released).  The host is live again from this heartbeat on.

        Fenced: the lease is renewed only by the session that holds the host's lock, and only for this
        process's incarnation (``started_at`` as its `join` wrote it).  A row another process joined
        under raises `HostReplaced`; a session without the lock (never kept by `connection`, so a
        defence only) raises StoreError and is dropped, to be reconnected by the next heartbeat.
        """
        try:
            with self.connection() as db:
                with db.transaction():
                    # FOR NO KEY UPDATE (the lease and state are no key): the starts' claims hold this row FOR KEY
                    # SHARE (schema step 8), and neither waits for the other; a sweep's FOR UPDATE waits for both.
                    row = db.execute("SELECT state, started_at FROM hosts WHERE name = %s FOR NO KEY UPDATE",
                                     (self.name,)).fetchone()
                    if self.started is not None and (row is None or float(row[1]) != self.started):
                        self._replaced()
                    if row and row[0] != "live":  # live again (after a sweep): as `join`, after every release in flight
                        db.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_CLASS, SEATS_LOCK))
                    renewed = db.execute(
                        f"UPDATE hosts SET lease_until = {NOW} + %s, state = 'live' WHERE name = %s AND EXISTS ("
                        "SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = pg_backend_pid() "
                        "AND CAST(l.classid AS BIGINT) = %s AND CAST(l.objid AS BIGINT) = hosts.lock_key)",
                        (self.lease_s, self.name, HOST_LOCK_CLASS),
                    ).rowcount
                    if row and not renewed and self._key is not None:
                        raise StoreError(f"the session of host {self.name!r} does not hold its lock: not renewed")
        except HostReplaced:
            self._steady_since = None
            raise
        except StoreError:
            self._steady_since = None
            self._drop()
            raise
        except BaseException:
            self._steady_since = None
            raise
        if self._steady_since is None:
            self._steady_since = time.monotonic()
        return row[0] if row else None

    def _drop(self) -> None:
        """Close the registry's connection: the next call opens another (and takes the lock on it)."""
        with self._lock:
            if self._db is not None:
                self._db.close()

    def steady(self) -> bool:
        """True once this host has renewed its lease without a break for ``grace_s`` (see `sweep_dead`)."""
        return self._steady_since is not None and time.monotonic() - self._steady_since >= self.grace_s

    def live_hosts(self) -> list[tuple[str, str, int]]:
        """(name, address, concurrency) of every host with a current lease, this one first."""
        with self.connection() as db:
            rows = db.execute(
                f"SELECT name, address, concurrency FROM hosts WHERE state = 'live' AND lease_until >= {NOW} "
                "ORDER BY name"
            ).fetchall()
        rows = [tuple(r) for r in rows]
        return sorted(rows, key=lambda r: r[0] != self.name)

    def sweep_dead(self) -> list[DeadHost]:
        """Close the games of every dead host (lease expired and lock free): aborted, claims released.

        Only a host in steady contact sweeps, and only a database that has been up, for ``grace_s``: a
        lease that lapsed while the database was away (restarting, or unreachable for the sweeper
        too) says nothing of the host, so after any outage every host first gets that long to
        renew its own (arena/ladder/README.md, "Fencing").
        """
        found: list[DeadHost] = []
        with self.connection() as db:
            if not self.steady():  # (checked on the connection: a reconnection just now starts the grace)
                return found
            with db.transaction():
                dead = db.execute(
                    f"SELECT h.name FROM hosts h WHERE h.state = 'live' AND h.lease_until < {NOW} AND h.name <> %s "
                    f"AND CAST(EXTRACT(EPOCH FROM pg_postmaster_start_time()) AS DOUBLE PRECISION) < {NOW} - %s "
                    "AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted "
                    f"  AND {THIS_DATABASE} AND CAST(l.classid AS BIGINT) = %s AND CAST(l.objid AS BIGINT) = h.lock_key) "
                    "FOR UPDATE SKIP LOCKED",
                    (self.name, self.grace_s, HOST_LOCK_CLASS),
                ).fetchall()
                for (name,) in dead:
                    games = db.execute(
                        "SELECT g.id FROM games g WHERE g.status = 'running' "
                        "AND EXISTS (SELECT 1 FROM seat_claims c WHERE c.game_id = g.id AND c.host = %s)",
                        (name,),
                    ).fetchall()
                    _abort(db, [g[0] for g in games], f"host {name} died (not rated)")
                    released = db.execute(
                        f"UPDATE seat_claims SET released_at = {NOW} WHERE host = %s AND released_at IS NULL", (name,)
                    ).rowcount
                    db.execute("UPDATE hosts SET state = 'dead' WHERE name = %s", (name,))
                    found.append(DeadHost(name, len(games), released))
                if found:
                    db.execute("SELECT pg_notify(%s, %s)", (SEATS_FREED, self.name))
        for host in found:
            log.warning("host %s is gone (lease expired, lock free): %d running games aborted, %d seats released",
                        host.name, host.aborted, host.released)
        return found


    def _open_listener(self) -> Any:
        """A connection of its own (a LISTEN must not share the one that runs transactions), listening."""
        db = self._open(" (listen)")
        try:
            db.execute(f"LISTEN {SEATS_FREED}")
        except BaseException:
            db.close()
            raise
        return db

    def listen(self, wake: Callable[[], None], stopped: threading.Event) -> None:
        """Block until ``stopped``: call ``wake()`` whenever another host frees seats (LISTEN/NOTIFY).

        On the connection that `join` opened (listening before this host went live), then, after a
        lost connection, on a new one.  ``wake()`` is also called once each time listening begins:
        a notice sent while nobody listened is lost, but a plan after the LISTEN sees its seats
        free.  A missed notice would cost at most the scheduler's one-second re-plan, so this is
        only what makes the others quick.
        """
        psycopg = self._psycopg
        while not stopped.is_set():
            try:
                db, self._listener = self._listener, None
                with db if db is not None else self._open_listener() as db:
                    wake()
                    while not stopped.is_set():
                        for notice in db.notifies(timeout=1.0):
                            if notice.payload != self.name:
                                wake()
            except (psycopg.Error, StoreError):
                stopped.wait(1.0)


def _abort(db: Any, game_ids: Sequence[str], reason: str) -> None:
    """Abort these games if still running, dated by the database's clock (as every game time: `Backend.clock`)."""
    if game_ids:
        db.execute(
            f"UPDATE games SET status = 'aborted', reason = %s, ended_at = {clock_text()} "
            "WHERE status = 'running' AND id = ANY(%s)",
            (reason, list(game_ids)),
        )


def default_host_name(port: int) -> str:
    import socket

    return f"{socket.gethostname()}:{port}"


__all__ = ["DeadHost", "HostRegistry", "HostReplaced", "SettingsRefused", "default_host_name", "HOST_LOCK_CLASS", "SEATS_LOCK"]
