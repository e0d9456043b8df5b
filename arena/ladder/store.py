"""The ladder's SQLite store: bots, games, seats and rating snapshots.

One file, WAL mode, so a dashboard or `arena leaderboard` can read while the
server writes.  Every finished game is committed on its own (with
``synchronous=FULL``), so a ``kill -9`` never loses one; a game is written as
``running`` before it starts, and `LadderStore.open` marks whatever is still
``running`` from an earlier process as ``aborted`` (aborted games are never
rated).  The commit of `game_ended` is what makes a result final: the match
runner calls it after the replay's result line is fsynced and tells the bots
only after it returned (`arena.ladder.recovery` has the rules after a crash).  The schema carries a version and is upgraded by forward migrations.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

from arena.ladder.ratings import PairTable, RatedGame, Rating

SCHEMA_VERSION = 1

# Each entry upgrades the schema from version i to i+1; never edit a released one.
_MIGRATIONS: Sequence[str] = (
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
        seed INTEGER NOT NULL,
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
        rating REAL NOT NULL,
        ci REAL,                      -- NULL when undetermined
        games INTEGER NOT NULL,
        at TEXT NOT NULL
    );
    CREATE INDEX snapshots_by_ruleset ON rating_snapshots (ruleset, at);
    """,
)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


# ------------------------------------------------------------------ tokens

_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_token(token: str) -> str:
    """A salted scrypt hash in a self-describing text form."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(token.encode(), salt=salt, dklen=32, **_SCRYPT)
    return f"scrypt${_SCRYPT['n']}${_SCRYPT['r']}${_SCRYPT['p']}${salt.hex()}${digest.hex()}"


def verify_token(token: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        candidate = hashlib.scrypt(
            token.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=len(digest) // 2
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(candidate.hex(), digest)


# ------------------------------------------------------------------ records


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    bot: str
    placement: int | None = None
    points: int | None = None
    strikes: int = 0
    timeouts: int = 0
    think_ms: int = 0
    decisions: int = 0
    forfeited: bool = False


@dataclass(frozen=True)
class GameRecord:
    id: str
    ruleset: str
    options: dict[str, Any]
    seed: int
    set_id: str
    rotation: int
    started_at: str
    ended_at: str | None
    replay_path: str | None
    status: str
    reason: str
    decisions: int
    seats: tuple[SeatRecord, ...]


@dataclass(frozen=True)
class BotTotals:
    """What the leaderboard shows besides the rating."""

    bot: str
    games: int = 0
    wins: int = 0
    timeouts: int = 0
    strikes: int = 0
    forfeits: int = 0


class StoreError(Exception):
    """The database cannot be used (newer schema, not a ladder database...)."""


def _take_server_lock(path: str):
    """Hold ``PATH.lock`` for as long as this store is open, or raise StoreError.

    Recovery marks every ``running`` game as aborted and seals its replay: run
    by a second server on a database a live server is using, it would cut off
    that server's games.  The OS releases the lock when the process dies, so a
    ``kill -9`` never leaves a stale lock behind.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, one server per database is up to the operator
        return None
    lock_file = open(path + ".lock", "a+")
    try:
        fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock_file.seek(0)
        holder = lock_file.read().strip()
        lock_file.close()
        who = f" (pid {holder})" if holder else ""
        raise StoreError(
            f"{path} is in use by another `arena serve`{who}: stop it first, or give another --db"
        ) from None
    lock_file.seek(0)
    lock_file.truncate()
    lock_file.write(str(os.getpid()))
    lock_file.flush()
    return lock_file


class LadderStore:
    """All reads and writes of the ladder database.

    Safe to share between threads: one connection, one lock, short
    transactions.  The server calls it from a worker thread so that a
    commit's fsync never stalls the games.
    """

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db = connection
        self._lock = threading.RLock()
        self.path = path
        self._server_lock = None
        #: Games found ``running`` at open (cut off by a crash), now aborted: (id, replay path).
        self.recovered: list[tuple[str, str | None]] = []

    # ---- opening and migrations

    @classmethod
    def open(cls, path: str | os.PathLike, *, recover: bool = True) -> "LadderStore":
        """Open (creating or upgrading) a database.

        recover: mark games left ``running`` by an earlier process as aborted;
        only the server should do this, never a reader such as `arena leaderboard`.
        """
        path = str(path)
        server_lock = None
        if path != ":memory:":
            if Path(path).is_dir():
                raise StoreError(f"{path} is a directory, not a ladder database file")
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            if recover:
                server_lock = _take_server_lock(path)
        try:
            connection = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as error:
            if server_lock is not None:
                server_lock.close()
            raise StoreError(f"{path}: cannot open as a ladder database: {error}") from None
        store = cls(connection, path)
        store._server_lock = server_lock
        try:
            store._migrate()
        except BaseException:
            store.close()
            raise
        if recover:
            store.recovered = store.abort_running(reason="server restarted")
        return store

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._server_lock is not None:
                self._server_lock.close()  # closing the file releases the lock
                self._server_lock = None

    def schema_version(self) -> int:
        with self._lock:
            try:
                row = self._db.execute("SELECT version FROM schema_version").fetchone()
            except sqlite3.OperationalError:
                return 0
            return int(row[0]) if row else 0

    def _migrate(self) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                row = self._db.execute("SELECT version FROM schema_version").fetchone()
                version = int(row[0]) if row else 0
                if row is None:
                    self._db.execute("INSERT INTO schema_version VALUES (0)")
                if version > SCHEMA_VERSION:
                    raise StoreError(
                        f"{self.path} has schema version {version}, newer than this arena "
                        f"understands ({SCHEMA_VERSION}); upgrade mau-arena"
                    )
                for step in range(version, SCHEMA_VERSION):
                    for statement in _MIGRATIONS[step].split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                    self._db.execute("UPDATE schema_version SET version = ?", (step + 1,))
                self._db.execute("COMMIT")
            except sqlite3.DatabaseError as error:
                self._rollback()
                raise StoreError(f"{self.path}: not a usable ladder database: {error}") from None
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        try:
            self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _write(self, statements: Iterable[tuple[str, Sequence[Any]]]) -> int:
        """Run statements in one transaction, committed durably; returns the last one's row count."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                changed = 0
                for sql, parameters in statements:
                    changed = self._db.execute(sql, parameters).rowcount
                self._db.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
        return changed

    # ---- bots

    def add_bot(self, name: str, token: str) -> None:
        """Register a bot with a token (stored hashed); re-adding a name replaces its token."""
        self._write(
            [
                (
                    "INSERT INTO bots (name, token_hash, first_seen) VALUES (?, ?, NULL) "
                    "ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash",
                    (name, hash_token(token)),
                )
            ]
        )

    def register_bot(self, name: str, token: str) -> bool:
        """Register a new name, or one known only from open registration, with a token.

        Returns False, changing nothing, when the name already holds a token:
        replacing that is `rotate_token`'s job, never a side effect of adding.
        """
        return self._write(
            [
                (
                    "INSERT INTO bots (name, token_hash, first_seen) VALUES (?, ?, NULL) "
                    "ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash WHERE bots.token_hash IS NULL",
                    (name, hash_token(token)),
                )
            ]
        ) == 1

    def rotate_token(self, name: str, token: str) -> bool:
        """Replace a registered bot's token; False if the name holds no token."""
        return self._write(
            [("UPDATE bots SET token_hash = ? WHERE name = ? AND token_hash IS NOT NULL", (hash_token(token), name))]
        ) == 1

    def remove_bot(self, name: str) -> bool:
        """Forget a bot's registration; its games stay in the history."""
        with self._lock:
            exists = self._db.execute("SELECT 1 FROM bots WHERE name = ?", (name,)).fetchone()
        if not exists:
            return False
        self._write([("DELETE FROM bots WHERE name = ?", (name,))])
        return True

    def bot_token_hash(self, name: str) -> tuple[bool, str | None]:
        """(known, token hash): a registered bot has a hash; an open-registration one has None."""
        with self._lock:
            row = self._db.execute("SELECT token_hash FROM bots WHERE name = ?", (name,)).fetchone()
        return (False, None) if row is None else (True, row[0])

    def list_bots(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT name, token_hash IS NOT NULL, first_seen, last_seen, version FROM bots ORDER BY name"
            ).fetchall()
        return [
            {"name": r[0], "registered": bool(r[1]), "first_seen": r[2], "last_seen": r[3], "version": r[4]}
            for r in rows
        ]

    def touch_bot(self, name: str, version: str = "") -> None:
        """Record that a bot connected (creates an open-registration entry if new)."""
        now = utc_now()
        self._write(
            [
                (
                    "INSERT INTO bots (name, token_hash, first_seen, last_seen, version) VALUES (?, NULL, ?, ?, ?) "
                    "ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen, version = excluded.version, "
                    "first_seen = COALESCE(bots.first_seen, excluded.first_seen)",
                    (name, now, now, version),
                )
            ]
        )

    def forget_unplayed(self, name: str | None = None) -> int:
        """Drop open-registration names that never took a seat (one name, or all); returns how many.

        Open registration accepts any name, so a client that connects under ever new names
        would otherwise grow the bots table without bound.  A registered name (with a token)
        and a name with games in the history are kept.
        """
        sql = (
            "DELETE FROM bots WHERE token_hash IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.bot = bots.name)"
        )
        parameters: tuple[Any, ...] = ()
        if name is not None:
            sql += " AND name = ?"
            parameters = (name,)
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                removed = self._db.execute(sql, parameters).rowcount
                self._db.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
        return removed

    def bot_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM bots").fetchone()[0])

    # ---- games

    def game_started(
        self,
        game_id: str,
        ruleset: str,
        options: dict[str, Any],
        seed: int,
        set_id: str,
        rotation: int,
        bots: Sequence[str],
        started_at: str | None = None,
        replay_path: str | None = None,
    ) -> None:
        """Record a game as running (replay_path: its unfinished replay, sealed after a crash)."""
        statements: list[tuple[str, Sequence[Any]]] = [
            (
                "INSERT INTO games (id, ruleset, options, seed, set_id, rotation, started_at, status, replay_path) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?)",
                (game_id, ruleset, json.dumps(options, sort_keys=True), seed, set_id, rotation,
                 started_at or utc_now(), replay_path),
            )
        ]
        statements += [
            ("INSERT INTO seats (game_id, seat, bot) VALUES (?, ?, ?)", (game_id, seat, bot))
            for seat, bot in enumerate(bots)
        ]
        self._write(statements)

    def game_ended(
        self,
        game_id: str,
        status: str,
        seats: Sequence[SeatRecord],
        *,
        ended_at: str | None = None,
        replay_path: str | None = None,
        reason: str = "",
        decisions: int = 0,
    ) -> None:
        """Commit one game's result (its own durable transaction)."""
        if status not in ("finished", "aborted"):
            raise ValueError(f"a game ends finished or aborted, not {status!r}")
        statements: list[tuple[str, Sequence[Any]]] = [
            (
                "UPDATE games SET status = ?, ended_at = ?, replay_path = ?, reason = ?, decisions = ? WHERE id = ?",
                (status, ended_at or utc_now(), replay_path, reason, decisions, game_id),
            )
        ]
        for s in seats:
            statements.append(
                (
                    "INSERT INTO seats (game_id, seat, bot, placement, points, strikes, timeouts, think_ms, "
                    "decisions, forfeited) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (game_id, seat) DO UPDATE SET bot = excluded.bot, placement = excluded.placement, "
                    "points = excluded.points, strikes = excluded.strikes, timeouts = excluded.timeouts, "
                    "think_ms = excluded.think_ms, decisions = excluded.decisions, forfeited = excluded.forfeited",
                    (
                        game_id,
                        s.seat,
                        s.bot,
                        s.placement if status == "finished" else None,
                        s.points if status == "finished" else None,
                        s.strikes,
                        s.timeouts,
                        s.think_ms,
                        s.decisions,
                        int(s.forfeited),
                    ),
                )
            )
        self._write(statements)

    def abort_running(self, reason: str) -> list[tuple[str, str | None]]:
        """Mark every game still ``running`` as aborted; returns their (id, replay path)."""
        with self._lock:
            rows = self._db.execute("SELECT id, replay_path FROM games WHERE status = 'running'").fetchall()
        if rows:
            self._write(
                [
                    (
                        "UPDATE games SET status = 'aborted', reason = ?, ended_at = ? WHERE status = 'running'",
                        (reason, utc_now()),
                    )
                ]
            )
        return [(row[0], row[1]) for row in rows]

    def statuses(self, game_ids: Sequence[str]) -> dict[str, str]:
        """The status of each of these games that has a row (running, finished or aborted)."""
        found: dict[str, str] = {}
        ids = list(game_ids)
        with self._lock:
            for chunk in range(0, len(ids), 500):
                part = ids[chunk : chunk + 500]
                found.update(self._db.execute(
                    f"SELECT id, status FROM games WHERE id IN ({','.join('?' * len(part))})", part
                ).fetchall())
        return found

    def set_replay_path(self, game_id: str, path: str | None) -> None:
        self._write([("UPDATE games SET replay_path = ? WHERE id = ?", (path, game_id))])

    def games(
        self, ruleset: str | None = None, status: str | None = None, limit: int | None = None,
        bot: str | None = None, offset: int = 0, game_id: str | None = None,
    ) -> list[GameRecord]:
        """Games newest first, with their seats (optionally only ``bot``'s, or the one ``game_id``)."""
        where, parameters = [], []
        if ruleset:
            where.append("ruleset = ?")
            parameters.append(ruleset)
        if status:
            where.append("status = ?")
            parameters.append(status)
        if bot:
            where.append("id IN (SELECT game_id FROM seats WHERE bot = ?)")
            parameters.append(bot)
        if game_id is not None:
            where.append("id = ?")
            parameters.append(game_id)
        sql = "SELECT id, ruleset, options, seed, set_id, rotation, started_at, ended_at, replay_path, status, reason, decisions FROM games"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY started_at DESC, id"
        if limit:
            sql += f" LIMIT {int(limit)}"
            if offset:
                sql += f" OFFSET {int(offset)}"
        with self._lock:
            rows = self._db.execute(sql, parameters).fetchall()
            seats: dict[str, list[SeatRecord]] = {}
            if rows:
                ids = [r[0] for r in rows]
                for chunk in range(0, len(ids), 500):
                    part = ids[chunk : chunk + 500]
                    for s in self._db.execute(
                        "SELECT game_id, seat, bot, placement, points, strikes, timeouts, think_ms, decisions, forfeited "
                        f"FROM seats WHERE game_id IN ({','.join('?' * len(part))}) ORDER BY game_id, seat",
                        part,
                    ):
                        seats.setdefault(s[0], []).append(SeatRecord(*s[1:9], forfeited=bool(s[9])))
        return [
            GameRecord(
                id=r[0],
                ruleset=r[1],
                options=json.loads(r[2]),
                seed=r[3],
                set_id=r[4],
                rotation=r[5],
                started_at=r[6],
                ended_at=r[7],
                replay_path=r[8],
                status=r[9],
                reason=r[10],
                decisions=r[11],
                seats=tuple(seats.get(r[0], ())),
            )
            for r in rows
        ]

    def game(self, game_id: str) -> GameRecord | None:
        found = self.games(game_id=game_id, limit=1)
        return found[0] if found else None

    def count_games(self, ruleset: str, status: str) -> int:
        with self._lock:
            return self._db.execute(
                "SELECT COUNT(*) FROM games WHERE ruleset = ? AND status = ?", (ruleset, status)
            ).fetchone()[0]

    def bot_totals(self, bot: str) -> dict[str, dict[str, int]]:
        """One bot's record per ruleset: games (finished and aborted), wins, timeouts, strikes, forfeits."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.ruleset, SUM(g.status = 'finished'), SUM(g.status = 'aborted'), SUM(s.placement = 1), "
                "SUM(s.timeouts), SUM(s.strikes), SUM(s.forfeited), SUM(s.decisions), SUM(s.think_ms) "
                "FROM seats s JOIN games g ON g.id = s.game_id WHERE s.bot = ? GROUP BY g.ruleset ORDER BY 1",
                (bot,),
            ).fetchall()
        keys = ("finished", "aborted", "wins", "timeouts", "strikes", "forfeits", "decisions", "think_ms")
        return {r[0]: {k: int(v or 0) for k, v in zip(keys, r[1:])} for r in rows}

    def finished_placements(self, ruleset: str) -> list[tuple[str, str, dict[str, int]]]:
        """Finished games of a ruleset in the order they ended: (id, ended_at, bot -> placement)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.ended_at, s.bot, s.placement FROM games g JOIN seats s ON s.game_id = g.id "
                "WHERE g.ruleset = ? AND g.status = 'finished' AND s.placement IS NOT NULL "
                "ORDER BY g.ended_at, g.id, s.seat",
                (ruleset,),
            ).fetchall()
        games: dict[str, tuple[str, str, dict[str, int]]] = {}
        for game_id, ended_at, bot, placement in rows:
            games.setdefault(game_id, (game_id, ended_at, {}))[2][bot] = placement
        return [g for g in games.values() if len(g[2]) >= 2]

    def replay_paths(self, game_id: str) -> dict[str, str | None]:
        """{id: replay path} of the game ``game_id``, or of the games whose id ends in ``-game_id``."""
        tail = f"-{game_id}"
        with self._lock:
            rows = self._db.execute(
                "SELECT id, replay_path FROM games WHERE id = ? OR substr(id, -?) = ?", (game_id, len(tail), tail)
            ).fetchall()
        return {row[0]: row[1] for row in rows}

    def rulesets_played(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT ruleset, COUNT(*) FROM games WHERE status = 'finished' GROUP BY ruleset ORDER BY 2 DESC, 1"
            ).fetchall()
        return [r[0] for r in rows]

    def rated_games(self, ruleset: str) -> list[RatedGame]:
        """Finished games of a ruleset in the form the rating fit takes."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.set_id, s.bot, s.placement FROM games g JOIN seats s ON s.game_id = g.id "
                "WHERE g.ruleset = ? AND g.status = 'finished' AND s.placement IS NOT NULL "
                "ORDER BY g.ended_at, g.id, s.seat",
                (ruleset,),
            ).fetchall()
        games: dict[str, RatedGame] = {}
        for game_id, set_id, bot, placement in rows:
            games.setdefault(game_id, RatedGame(set_id, {})).placements[bot] = placement  # type: ignore[index]
        return [g for g in games.values() if len(g.placements) >= 2]

    def pair_table(self, ruleset: str) -> PairTable:
        """The rating fit's input, summed by SQLite: one observation per (set, pair).

        Equivalent to `aggregate(self.rated_games(ruleset))` but the work (and
        the memory) stays in the database, which matters with many games.
        """
        finished = (
            "SELECT s.game_id, g.set_id, s.bot, s.placement FROM seats s JOIN games g ON g.id = s.game_id "
            "WHERE g.ruleset = ? AND g.status = 'finished' AND s.placement IS NOT NULL"
        )
        with self._lock:
            pair_rows = self._db.execute(
                f"WITH f AS ({finished}), "
                "per_set AS (SELECT a.set_id AS set_id, a.bot AS a, b.bot AS b, "
                "  AVG(CASE WHEN a.placement < b.placement THEN 1.0 WHEN a.placement = b.placement THEN 0.5 "
                "      ELSE 0.0 END) AS score "
                "  FROM f a JOIN f b ON a.game_id = b.game_id AND a.bot < b.bot GROUP BY a.set_id, a.bot, b.bot) "
                "SELECT a, b, COUNT(*), SUM(score) FROM per_set GROUP BY a, b",
                (ruleset,),
            ).fetchall()
            bot_rows = self._db.execute(
                f"WITH f AS ({finished}) "
                "SELECT a.bot, COUNT(DISTINCT a.game_id), COUNT(b.bot), "
                "  COALESCE(SUM(CASE WHEN a.placement < b.placement THEN 1.0 "
                "                    WHEN a.placement = b.placement THEN 0.5 ELSE 0.0 END), 0) "
                "FROM f a LEFT JOIN f b ON a.game_id = b.game_id AND a.bot != b.bot GROUP BY a.bot",
                (ruleset,),
            ).fetchall()
        # A game needs two seats to be rated, as in `rated_games`.
        per_bot = {bot: (games, comparisons, points) for bot, games, comparisons, points in bot_rows if comparisons}
        return PairTable.from_totals(pair_rows, per_bot)

    def totals(self, ruleset: str) -> dict[str, BotTotals]:
        """Games, wins (first place), timeouts, strikes and forfeits per bot in finished games."""
        with self._lock:
            rows = self._db.execute(
                "SELECT s.bot, COUNT(*), SUM(s.placement = 1), SUM(s.timeouts), SUM(s.strikes), SUM(s.forfeited) "
                "FROM games g JOIN seats s ON s.game_id = g.id WHERE g.ruleset = ? AND g.status = 'finished' "
                "GROUP BY s.bot",
                (ruleset,),
            ).fetchall()
        return {r[0]: BotTotals(r[0], r[1], r[2] or 0, r[3] or 0, r[4] or 0, r[5] or 0) for r in rows}

    def pair_counts(self, ruleset: str) -> dict[frozenset[str], int]:
        """How many sets each pair of bots has shared a table in (finished games)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT g.set_id, s.bot FROM games g JOIN seats s ON s.game_id = g.id "
                "WHERE g.ruleset = ? AND g.status = 'finished'",
                (ruleset,),
            ).fetchall()
        by_set: dict[str, set[str]] = {}
        for set_id, bot in rows:
            by_set.setdefault(set_id, set()).add(bot)
        counts: dict[frozenset[str], int] = {}
        for bots in by_set.values():
            ordered = sorted(bots)
            for i, a in enumerate(ordered):
                for b in ordered[i + 1 :]:
                    key = frozenset((a, b))
                    counts[key] = counts.get(key, 0) + 1
        return counts

    # ---- ratings

    def save_ratings(self, ruleset: str, ratings: Sequence[Rating]) -> None:
        now = utc_now()
        self._write(
            [
                (
                    "INSERT INTO rating_snapshots (ruleset, bot, rating, ci, games, at) VALUES (?, ?, ?, ?, ?, ?)",
                    (ruleset, r.bot, r.rating, r.ci if r.ci != float("inf") else None, r.games, now),
                )
                for r in ratings
            ]
        )

    def latest_ratings(self, ruleset: str) -> list[tuple[str, float, float | None, int, str]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT bot, rating, ci, games, at FROM rating_snapshots WHERE ruleset = ? AND at = "
                "(SELECT MAX(at) FROM rating_snapshots WHERE ruleset = ?) ORDER BY rating DESC",
                (ruleset, ruleset),
            ).fetchall()
        return [tuple(r) for r in rows]  # type: ignore[misc]
