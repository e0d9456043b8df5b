"""The ladder schema and its forward migrations, applied the same way to SQLite and PostgreSQL.

``MIGRATIONS[i]`` upgrades the schema from version ``i`` to ``i + 1``; the
version lives in the one-row table ``schema_version``.  `migrate` runs when a
writer opens the store (`arena serve`, `arena bots add`), in one transaction with the schema locked (`Backend.lock_schema`),
so two processes starting together neither apply a step twice nor see half of
one, and a database newer than this code is refused with `StoreError` before
anything is touched.  A reader (`arena leaderboard`, `arena web`, `arena replays --db`...) runs
`require_current` instead: it creates and migrates nothing, and refuses a database without a
ladder (`NoLadder`) or with an older schema (`OldSchema`) in one line.  Never edit a released
step; add one.

A step is the shared SQL both databases run (a string, split at its ``;``), or a `Step`
that also has SQL of one database's own: PostgreSQL's server-side functions and storage
settings, which SQLite has no words for.  The version counts every step on both
databases, so a step one of them skips still moves its version on, and the version check
stays one number: a database at version N has every step up to N that applies to it.

The SQL is the portable subset both databases take.  Types are chosen so each
means the same in both: ``BIGINT`` for 63-bit seeds (SQLite's ``INTEGER``
affinity), ``DOUBLE PRECISION`` for ratings (SQLite's ``REAL``, an 8-byte
float, where PostgreSQL's ``REAL`` would be 4 bytes), integers 0/1 for flags.
Version 1 is written that way; a SQLite database created by the earlier text
(``INTEGER`` seed, ``REAL`` rating) has the same column affinities and needs
no step.

Why a list here and not a migration library: the schema is small, the runner
below is a dozen lines, and it keeps the ``schema_version`` table every
existing database already has.  A library (yoyo-migrations, alembic) would add
its own bookkeeping tables and a bridge from ``schema_version``, and alembic an
ORM, for nothing these steps need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

from arena.ladder.store import bot_hosts, claims, fit_totals, game_end, game_start, replays
from arena.ladder.store.backend import Backend
from arena.ladder.store.records import NoLadder, OldSchema, StoreError


@dataclass(frozen=True)
class Step:
    """A schema step with SQL of one database's own: ``shared`` (split at its ``;``) runs on both
    databases first, then the statements given for this one (`Backend.dialect`), each whole (a
    function's body holds ``;`` of its own).  A database with none of its own runs only ``shared``
    (possibly nothing), and its version moves on all the same."""

    shared: str = ""
    postgresql: Sequence[str] = ()
    sqlite: Sequence[str] = ()

    def statements(self, dialect: str) -> list[str]:
        own = {"postgresql": self.postgresql, "sqlite": self.sqlite}
        if dialect not in own:
            raise ValueError(f"no schema steps for a {dialect!r} database")
        return [*_split(self.shared), *own[dialect]]


def _split(sql: str) -> list[str]:
    return [statement for statement in sql.split(";") if statement.strip()]


def statements(step: "str | Step", dialect: str) -> list[str]:
    """The statements one step runs on a database of this dialect."""
    return step.statements(dialect) if isinstance(step, Step) else _split(step)


MIGRATIONS: Sequence[Union[str, Step]] = (
    """
    CREATE TABLE bots (
        name TEXT PRIMARY KEY,
        token_hash TEXT,              -- NULL: an open-registration bot (loopback only)
        first_seen TEXT,
        last_seen TEXT,
        version TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        ruleset TEXT NOT NULL,
        options TEXT NOT NULL,        -- JSON
        seed BIGINT NOT NULL,
        set_id TEXT NOT NULL,
        rotation INTEGER NOT NULL DEFAULT 0,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        replay_path TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'aborted')),
        reason TEXT NOT NULL DEFAULT '',
        decisions INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX games_by_ruleset ON games (ruleset, status);
    CREATE TABLE seats (
        game_id TEXT NOT NULL REFERENCES games (id),
        seat INTEGER NOT NULL,
        bot TEXT NOT NULL,
        placement INTEGER,
        points INTEGER,
        strikes INTEGER NOT NULL DEFAULT 0,
        timeouts INTEGER NOT NULL DEFAULT 0,
        think_ms INTEGER NOT NULL DEFAULT 0,
        decisions INTEGER NOT NULL DEFAULT 0,
        forfeited INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX seats_by_bot ON seats (bot);
    CREATE TABLE rating_snapshots (
        ruleset TEXT NOT NULL,
        bot TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        ci DOUBLE PRECISION,          -- NULL when undetermined
        games INTEGER NOT NULL,
        at TEXT NOT NULL
    );
    CREATE INDEX snapshots_by_ruleset ON rating_snapshots (ruleset, at);
    """,
    # 2: per seat, the decisions where the bot's own code failed and its SDK answered a fallback
    # (Answer.bot_error), shown beside timeouts and strikes; and the version the bot declared for
    # that game (Hello.bot_version), so a bot's page can show its record per version.
    """
    ALTER TABLE seats ADD COLUMN errors INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE seats ADD COLUMN version TEXT NOT NULL DEFAULT '';
    """,
    # 3: several `arena serve` hosts on one PostgreSQL database (arena/ladder/README.md, "Several hosts").
    # Created in SQLite too (one schema for both), where nothing writes them.  Times are the
    # database's own clock in epoch seconds, so hosts on machines with skewed clocks agree.
    """
    CREATE TABLE hosts (
        name TEXT PRIMARY KEY,
        address TEXT NOT NULL,        -- HOST:PORT bots should use (--advertise)
        lock_key INTEGER NOT NULL UNIQUE,  -- its advisory lock, held by the live process
        concurrency INTEGER NOT NULL DEFAULT 0,
        started_at DOUBLE PRECISION NOT NULL,
        lease_until DOUBLE PRECISION NOT NULL,
        state TEXT NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'stopped', 'dead'))
    );
    CREATE TABLE bot_slots (
        bot TEXT PRIMARY KEY          -- the row a seat claim locks: one claimer per bot at a time
    );
    CREATE TABLE seat_claims (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        bot TEXT NOT NULL,
        ruleset TEXT NOT NULL,
        host TEXT NOT NULL,
        cap INTEGER NOT NULL,         -- the most games at once the claim allowed the bot
        busy INTEGER NOT NULL,        -- the bot's open claims over all hosts with this one
        claimed_at DOUBLE PRECISION NOT NULL,
        released_at DOUBLE PRECISION,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX open_claims_by_bot ON seat_claims (bot) WHERE released_at IS NULL;
    CREATE INDEX open_claims_by_host ON seat_claims (host) WHERE released_at IS NULL;
    CREATE INDEX claims_by_time ON seat_claims (claimed_at);
    """,
    # 4: the rating fit's running totals (fit_totals.py): a fit reads a few rows per pair of bots
    # instead of summing every finished game (2 s at 100,000 games); filled here from the games so far.
    fit_totals.SCHEMA + fit_totals.REBUILD,
    # 5: each finished or aborted game's sealed replay, zlib-packed (replays.py), so any host and
    # `arena replay --db URL` can serve any game.  Written on PostgreSQL only; a SQLite ladder keeps
    # its replays as files and leaves the table empty.  Older games stay files (`arena replays --db
    # URL --import DIR` stores them).
    replays.SCHEMA,
    # 6: the id of the transaction that claimed a seat (PostgreSQL's xid8, `pg_current_xact_id()`), so a
    # host reads only the claims committed since its last planning round (`SeatClaims.load`) instead of
    # every claim since it started.  SQLite takes the type name and leaves the column empty (nothing
    # claims seats there); claims from before this step have none and are read by their time alone.
    """
    ALTER TABLE seat_claims ADD COLUMN claim_xid xid8;
    CREATE INDEX claims_by_xid ON seat_claims (claim_xid);
    """,
    # 7, PostgreSQL's own (nothing on SQLite): a seat claim's checks and rows in one server-side function
    # (`claims.CLAIM_FUNCTION`: one statement a start instead of four, its plans kept by the server), a
    # release in another (`claims.RELEASE_FUNCTION`: one statement instead of two), and
    # the replays' bytes stored as they come: they are zlib-packed already, so PostgreSQL's own compression
    # of a large value (TOAST's pglz) only spent the server's CPU to find that out.
    Step(postgresql=(
        "ALTER TABLE replays ALTER COLUMN data SET STORAGE EXTERNAL",
        claims.CLAIM_FUNCTION_7,
        claims.RELEASE_FUNCTION,
    )),
    # 8, PostgreSQL's own: a seat claim locks its host's row FOR KEY SHARE, not FOR SHARE (`claims.CLAIM_FUNCTION`),
    # so a heartbeat's renewal of the lease (FOR NO KEY UPDATE, `HostRegistry.heartbeat`) neither waits for the
    # starts in flight nor holds up the next ones; a sweep (FOR UPDATE) still skips a host that is claiming.
    Step(postgresql=(claims.CLAIM_FUNCTION,)),
    # 9: a game's result commit in one server-side function, PostgreSQL's own (`game_end.END_FUNCTION`,
    # ``mau_end_game``): the fenced update, the seats, the fit's totals and the replay in one statement instead
    # of some eight, each bound on the host and parsed and planned by the server; and the transaction that
    # last wrote each row of the fit's totals (``changed``, shared; empty on SQLite), so a host of a shared
    # ladder refits from the rows new since its last read (`fit_totals.changes`), not from every pair.
    Step(shared=fit_totals.CHANGED_COLUMNS, postgresql=(game_end.END_FUNCTION,)),
    # 10: a game's start in one server-side function, PostgreSQL's own (`game_start.START_FUNCTION`,
    # ``mau_start_game``): the seat claim (``mau_claim_seats``, called from it), the game's row and its seats in
    # one statement instead of three (the two inserts each bound on the host and parsed and planned by the server).
    Step(postgresql=(game_start.START_FUNCTION,)),
    # 11, PostgreSQL's own: the fit's totals indexed by the transaction that last wrote each row
    # (`fit_totals.CHANGED_INDEXES`), so a refit's read of the changed rows (`fit_totals.changes`) does not scan every
    # pair (at 1,000 bots some 90,000 rows).  Building them holds off the results' writes of those rows meanwhile.
    Step(postgresql=fit_totals.CHANGED_INDEXES),
    # 12: a registered bot's owner (`arena bots add NAME --owner WHO`): the scheduler never seats two bots of
    # one owner at a table, so an author cannot pair his bots to feed one of them rating or seat them together
    # to share their hands.  NULL: the bot is nobody else's (open registration, or no owner given).
    "ALTER TABLE bots ADD COLUMN owner TEXT",
    # 13: each host's settings that decide how its games are played (time control, rulesets with their table size
    # and options; lease and hold), JSON (`host_settings.HostSettings`): a starting host compares them with the live
    # hosts' and refuses to join a ladder whose games it would play by other rules.  NULL: a host of an older release.
    "ALTER TABLE hosts ADD COLUMN settings TEXT",
    # 14: the games by status, newest first: the web view's running games (`LadderStore.games(status="running")`, each
    # /live read) and the start-up sweeps of running games read a handful of rows, where without it they scanned and
    # sorted every game ever played (34 ms a read at 200,000 games on SQLite; `games_by_ruleset` leads with the ruleset).
    "CREATE INDEX games_by_status ON games (status, started_at)",
    # 15, PostgreSQL's own: a seat claim and a start fenced by the claiming process's incarnation of its host (the row's
    # ``started_at`` its join wrote): a process cut off while the operator started a replacement under its name claims
    # nothing, even once the replacement has died (`claims.FENCED_CLAIM_FUNCTION`, `game_start.FENCED_START_FUNCTION`).
    # New signatures beside steps 8 and 10's, which a host of an older release still calls.
    Step(postgresql=(claims.FENCED_CLAIM_FUNCTION, game_start.FENCED_START_FUNCTION)),
    # 16: where each host's web view is (`arena serve --web`, or `--web-advertise`: a URL readers open), written at its join
    # (NULL: it serves no web view, or it is a host of an older release, which never writes it), so `arena hosts`,
    # /api/v1/hosts and a game another host runs can point readers there.  On SQLite too (one schema), never written.
    "ALTER TABLE hosts ADD COLUMN web TEXT",
    # 17: which hosts each bot is connected to, and from which client program (`bot_hosts`, ``Hello.instance``): a host
    # admits a name only while no other live host has it from another program, so two programs (two versions of a bot)
    # cannot play under one name and rating on two hosts.  On SQLite too (one schema), never written.  A host of an older
    # release writes no rows: the rule holds among the hosts of this release.
    bot_hosts.SCHEMA,
)

SCHEMA_VERSION = len(MIGRATIONS)


def read_version(backend: Backend) -> int:
    """The database's schema version (0: none yet)."""
    try:
        row = backend.rows("SELECT version FROM schema_version")
    except backend.errors:
        return 0
    return int(row[0][0]) if row else 0


def migrate(backend: Backend, target: int = SCHEMA_VERSION) -> tuple[int, int] | None:
    """Bring the schema up to ``target``, or raise StoreError for a database newer than this code.

    Returns (the version found, ``target``) when it applied steps (0: it created the schema), None when
    the database was at ``target`` already: then it is only read, with no write lock nor the right to
    create tables.
    """
    version = read_version(backend)
    if version == target:
        return None
    _refuse_newer(backend, version, target)
    with backend.transaction():
        backend.lock_schema()
        backend.run("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = backend.rows("SELECT version FROM schema_version")
        version = int(row[0][0]) if row else 0
        if not row:
            backend.run("INSERT INTO schema_version (version) VALUES (0)")
        _refuse_newer(backend, version, target)
        for step in range(version, target):
            for statement in statements(MIGRATIONS[step], backend.dialect):
                backend.run(statement)
            backend.run("UPDATE schema_version SET version = ?", (step + 1,))
    return (version, target) if version < target else None


def require_current(backend: Backend, target: int = SCHEMA_VERSION) -> None:
    """A reader's check: the database holds a ladder at ``target``; else `NoLadder`, `OldSchema` or (newer)
    StoreError, one line each.  Reads the version only: it never creates or migrates anything."""
    version = read_version(backend)
    if version == target:
        return
    _refuse_newer(backend, version, target)
    if version == 0:
        raise NoLadder(f"no ladder database at {backend.name}: it holds no Mau Arena schema")
    backup = "pg_dump" if backend.dialect == "postgresql" else "a copy of the file"
    raise OldSchema(
        f"{backend.name} has schema version {version}, older than this arena's ({target}); back it up ({backup}), "
        "then start `arena serve` of this release on it once to upgrade it (docs/deploy.md, \"Upgrading\")"
    )


def _refuse_newer(backend: Backend, version: int, target: int) -> None:
    if version > target:
        raise StoreError(
            f"{backend.name} has schema version {version}, newer than this arena understands ({target}); "
            "upgrade mau-arena"
        )
