"""`LadderStore`: every read and write of the ladder, written once over either backend.

Bots, games, seats and rating snapshots.  Every finished game is committed on
its own, durably (`Backend.transaction`), so a ``kill -9`` never loses one; a
game is written as ``running`` before it starts, and `LadderStore.open` marks
whatever is still ``running`` from an earlier process as ``aborted`` (aborted
games are never rated).  The commit of `game_ended` is what makes a result
final: the match runner calls it after the replay's result line is fsynced and
tells the bots only after it returned (`arena.ladder.recovery` has the rules
after a crash).  The queries are the portable SQL `backend.py` describes,
with ``?`` placeholders; nothing here knows which database it talks to.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from arena.ladder.ranking import leaderboard_order
from arena.ladder.ratings import PairTable, RatedGame, Rating
from arena.ladder.store import fit_totals, game_end, game_start, host_list, replays, running_on
from arena.ladder.store.backend import Backend, Read, Steps, drive
from arena.ladder.store.game_start import SeatClaim
from arena.ladder.store.migrations import migrate, read_version, require_current
from arena.ladder.store.replays import PackedReplay
from arena.ladder.store.records import (BotTotals, GameClosed, GameRecord, NoLadder, SeatRecord, StoreError,
                                        UnknownGame, utc_now)
from arena.ladder.store.tokens import hash_token


@dataclass(eq=False)
class Call:
    """One write for `LadderStore.run_together`: a store method with its arguments bound, and
    afterwards its result or the exception it raised.

    ``before`` and ``after`` are work of the caller's that must come just before the write is
    committed and just after (a replay's result line fsynced before its game's result commits,
    the replay sealed once it has), run on the same thread as the commit: one hand-off to a
    worker thread per game end instead of one for each step.  ``before`` runs ahead of the
    transaction, outside it; if it raises, the write is not made and ``error`` is its exception.
    ``after`` runs only once the write is committed; what it returns or raises is kept in
    ``after_result`` / ``after_error`` and does not undo the write.

    ``fn`` may return a write in steps (`backend.Steps`: a generator of this store's ``*_steps``
    methods) instead of its result: `run_together` then runs the steps of all such writes side by
    side, so their reads go to the database together (on PostgreSQL one round trip for the reads of
    every start and result of a group commit, instead of one each).  ``keys`` (a start's bots) keep
    two writes that read what the other writes (two claims of one bot) from reading side by side:
    the later one takes its steps once the earlier one has queued its last statement.
    """

    fn: Callable[[], Any]
    result: Any = None
    error: BaseException | None = None
    done: bool = False
    before: Callable[[], Any] | None = None
    after: Callable[[], Any] | None = None
    after_result: Any = None
    after_error: BaseException | None = None
    keys: frozenset[str] = frozenset()
    #: False: this write need not be durable when `run_together` returns, only visible, and durable with
    #: the next durable commit (`Backend.transaction`'s ``durable``); a group commit is durable if any of
    #: its writes asks for it.  A SQLite ladder's game starts: no bot is told anything a start records.
    durable: bool = True


def count_if(condition: str) -> str:
    """How many rows meet a condition, in SQL both databases take (PostgreSQL cannot SUM a boolean)."""
    return f"SUM(CASE WHEN {condition} THEN 1 ELSE 0 END)"


def _if_claimed(sql: str, parameters: Sequence[Any], game_id: str) -> tuple[str, list[Any]]:
    """An ``INSERT INTO t (columns) VALUES (...), ...`` of a game's start as an insert that writes only if the
    game's seats were claimed in this transaction (its ``seat_claims`` rows exist: a game id is new, so
    no other transaction's are there), to go in the claim's own read (`LadderStore.game_started_steps`)."""
    head, values = sql.split(" VALUES ", 1)
    return (f"{head} SELECT * FROM (VALUES {values}) AS v WHERE EXISTS (SELECT 1 FROM seat_claims WHERE game_id = ?)",
            [*parameters, game_id])


def open_backend(db: str | os.PathLike) -> Backend:
    """The backend for a ``--db`` value: a ``postgresql://`` URL, or else a SQLite file path (or ``:memory:``)."""
    from arena.ladder.store.postgres import PostgresBackend, is_postgres_url

    if is_postgres_url(db):
        return PostgresBackend(str(db))
    from arena.ladder.store.sqlite import SqliteBackend

    return SqliteBackend(db)


@contextmanager
def _refusals() -> Iterator[None]:
    """A result the database refused as the store refuses one (PostgreSQL's `game_end.END_FUNCTION`: the game has
    no row, or another host aborted it) raises the store's exception (`UnknownGame`, `GameClosed`), not the driver's."""
    try:
        yield
    except StoreError:
        raise
    except Exception as error:
        refused = game_end.refusal(error)
        if refused is None:
            raise
        raise refused from None


def _in_own_transaction(steps: Callable[..., Steps]) -> Callable[..., Any]:
    """The method that runs the write `steps` (a ``*_steps`` method) in a transaction of its own and
    returns what the steps return: one signature and one docstring for both forms of a write."""

    @functools.wraps(steps)
    def write(self: "LadderStore", *args: Any, **kwargs: Any) -> Any:
        with _refusals(), self._transaction():
            return drive(self.backend, steps(self, *args, **kwargs))

    write.__name__ = write.__qualname__ = steps.__name__.removesuffix("_steps")
    return write


class LadderStore:
    """All reads and writes of the ladder database.

    Safe to share between threads: one connection, one lock, short
    transactions.  The server calls it from a worker thread so that a
    commit's fsync never stalls the games.
    """

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._lock = threading.RLock()
        self._together = False  # inside `run_together`: writes join its one transaction
        #: Where the data lives (a path, or a URL without its password), for messages.
        self.path = backend.name
        #: Games found ``running`` at open (cut off by a crash), now aborted: (id, replay path).
        self.recovered: list[tuple[str, str | None]] = []
        #: (the schema version found, the version now) when this open created (0) or upgraded the schema.
        self.upgraded: tuple[int, int] | None = None
        self._siblings: list[LadderStore] = []
        #: The store this one is a `sibling` of (its game starts' connection), None for a store opened itself.
        self.sibling_of: LadderStore | None = None

    # ---- opening and migrations

    @classmethod
    def open(cls, db: str | os.PathLike, *, recover: bool = True, shared: bool = False,
             upgrade: bool = True) -> "LadderStore":
        """Open (creating or upgrading) a database: a SQLite file path or a ``postgresql://`` URL.

        upgrade: create the schema in an empty database, or migrate an older one (`store.upgraded` says
        so).  False for a reader (`arena leaderboard`, `arena web`...): it changes nothing, and a database
        without a ladder or with an older schema is refused (`NoLadder`, `OldSchema`).

        recover: this is the server: claim the database (a second `arena serve`
        is refused) and mark games left ``running`` by an earlier process as
        aborted.  Never for a reader such as `arena leaderboard`.

        shared: this is one of several hosts on a PostgreSQL database: no claim of the
        whole database and no recovery here; the host registry claims the host's name and
        aborts only that host's games (`arena.ladder.store.hosts`).
        """
        from arena.ladder.store.postgres import is_postgres_url

        if not upgrade and not is_postgres_url(db) and str(db) != ":memory:" and not os.path.exists(db):
            raise NoLadder(f"no ladder database at {db}")  # (connecting would make an empty file)
        backend = open_backend(db)
        store = cls(backend)
        try:
            recover = recover and not shared
            if recover:
                backend.claim_server()
            try:
                if upgrade:
                    store.upgraded = migrate(backend)
                else:
                    require_current(backend)
            except backend.errors as error:
                raise StoreError(f"{backend.name}: not a usable ladder database: {' '.join(str(error).split())}") from None
            if recover:
                store.recovered = store.abort_running(reason="server restarted")
        except BaseException:
            store.close()
            raise
        return store

    def close(self) -> None:
        for sibling in self._siblings:
            sibling.close()
        with self._lock:
            self.backend.close()

    def sibling(self) -> "LadderStore":
        """A store on the same database with a connection of its own, for writes that need not wait behind
        this store's (the ladder's game starts, beside its results); on SQLite, this store itself (one
        writer at a time).  Closed with this store; its statements count in this store's `stats`."""
        twin = self.backend.twin()
        if twin is None:
            return self
        sibling = LadderStore(twin)
        sibling.sibling_of = self
        self._siblings.append(sibling)
        return sibling

    @property
    def stats(self) -> Any:
        """The backend's `StatementStats`: statements and write transactions run through this store (and its
        siblings) so far."""
        if not self._siblings:
            return self.backend.stats
        return type(self.backend.stats).summed([self.backend.stats, *(s.backend.stats for s in self._siblings)])

    def schema_version(self) -> int:
        with self._lock:
            return read_version(self.backend)

    # ---- the ways in

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """A write transaction of its own, or the one `run_together` holds open."""
        with self._lock:
            if self._together:
                yield
                return
            with self.backend.transaction():
                yield

    def run_together(self, calls: Sequence["Call"]) -> None:
        """Run several writes (each a `Call` of this store's methods) in one transaction: one commit
        (one fsync) for all of them, durable together when this returns.

        The ladder's group commit: with dozens of games at once, results and new games arrive
        faster than one durable commit each can keep up with.  Each call's result or exception is
        kept on it.  If the shared transaction fails, each call is run again on its own, so one
        bad write takes no other down.

        Each call's ``before`` runs first, ahead of the transaction (a call whose ``before`` raised
        is left out), and its ``after`` once its write is committed (`Call`).
        """
        ready = []
        for call in calls:
            if call.before is not None:
                try:
                    call.before()
                except Exception as error:  # the caller gets it; its write is not made
                    call.error = error
                    continue
            ready.append(call)
        with self._lock:
            try:
                self._together = True
                try:
                    with self.backend.transaction(durable=any(call.durable for call in ready)):
                        stepping = []
                        for call in ready:
                            call.result = call.fn()
                            if inspect.isgenerator(call.result):
                                stepping.append(call)
                        self._step_together(stepping)
                finally:
                    self._together = False
            except Exception:
                for call in ready:
                    call.result = call.error = None
                    try:
                        with _refusals():
                            call.result = call.fn()
                            if inspect.isgenerator(call.result):
                                with self.backend.transaction():
                                    call.result = drive(self.backend, call.result)
                    except Exception as error:  # the caller gets it
                        call.error = error
        for call in ready:
            if call.after is not None and call.error is None:
                try:
                    call.after_result = call.after()
                except Exception as error:  # the write stands; the caller decides what the failure means
                    call.after_error = error

    def _step_together(self, calls: list[Call]) -> None:
        """Run the steps (``call.result``, a generator) of these writes side by side in the open transaction:
        in each pass every write takes its next step (queues its statements and asks for its next `Read`),
        then all the reads asked for go together (`Backend.flush`); each call's result is its steps' return.

        A write whose ``keys`` meet those of a write before it in ``calls`` that has not finished waits
        for that one: its reads then come after the other's last statements, as if run one after the other.
        """
        steps: list[tuple[Call, Steps]] = [(call, call.result) for call in calls]
        reads: dict[int, Read] = {}
        committed = False
        while steps:
            held: set[str] = set()
            waiting = []
            last = True  # every write still stepping asked for its last read in this pass
            for call, generator in steps:
                if committed:  # the COMMIT went with the last reads: each write only takes its answer
                    try:
                        generator.send(reads.pop(id(call)))
                        call.error = RuntimeError("a write read again after its read marked last")
                    except StopIteration as done:
                        call.result = done.value
                    except Exception as error:  # committed all the same; the caller gets it
                        call.error = error
                    continue
                if not call.keys & held:
                    try:
                        read = generator.send(reads.pop(id(call))) if id(call) in reads else next(generator)
                    except StopIteration as done:  # its last statements are queued: a later write may read after them
                        call.result = done.value
                        continue
                    self.backend.defer(read)
                    reads[id(call)] = read
                    last = last and read.last
                else:
                    last = False  # it reads in a later pass
                held |= call.keys
                waiting.append((call, generator))
            if committed:
                return
            # The reads of this pass are the transaction's last statements: its COMMIT goes with them
            # (PostgreSQL: one round trip for a group commit whose writes read once, as the starts').
            committed = bool(waiting) and last and self.backend.merges_commit
            self.backend.flush(commit=committed)
            steps = waiting

    def _rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return self.backend.rows(sql, parameters)

    def _write(self, statements: Iterable[tuple[str, Sequence[Any]]]) -> int:
        """Run statements in one transaction, committed durably; returns how many rows they changed."""
        with self._transaction():
            return sum(self.backend.run(sql, parameters) for sql, parameters in statements)

    def _send(self, statements: Iterable[tuple[str, Sequence[Any]]]) -> None:
        """`_write` when no count is wanted: on PostgreSQL the statements go without a round trip each."""
        with self._transaction():
            for sql, parameters in statements:
                self.backend.send(sql, parameters)

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

    def register_bot(self, name: str, token: str, owner: str | None = None) -> bool:
        """Register a new name, or one known only from open registration, with a token (and an owner: see
        `set_owner`).

        Returns False, changing nothing, when the name already holds a token:
        replacing that is `rotate_token`'s job, never a side effect of adding.
        """
        return self._write(
            [
                (
                    "INSERT INTO bots (name, token_hash, first_seen, owner) VALUES (?, ?, NULL, ?) "
                    "ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash, owner = excluded.owner "
                    "WHERE bots.token_hash IS NULL",
                    (name, hash_token(token), owner),
                )
            ]
        ) == 1

    def set_owner(self, name: str, owner: str | None) -> bool:
        """Give a registered bot an owner (None: none).  The ladder never seats two bots of one owner at one
        table; a bot takes its owner with it at each connection (`bot_access`).  False if the name holds no
        token: an open-registration name proves nothing, so an owner would bind nobody."""
        return self._write(
            [("UPDATE bots SET owner = ? WHERE name = ? AND token_hash IS NOT NULL", (owner, name))]
        ) == 1

    def rotate_token(self, name: str, token: str) -> bool:
        """Replace a registered bot's token; False if the name holds no token."""
        return self._write(
            [("UPDATE bots SET token_hash = ? WHERE name = ? AND token_hash IS NOT NULL", (hash_token(token), name))]
        ) == 1

    def remove_bot(self, name: str) -> bool:
        """Forget a bot's registration; its games stay in the history."""
        return self._write([("DELETE FROM bots WHERE name = ?", (name,))]) > 0

    def bot_token_hash(self, name: str) -> tuple[bool, str | None]:
        """(known, token hash): a registered bot has a hash; an open-registration one has None."""
        return self.bot_access(name)[:2]

    def bot_access(self, name: str) -> tuple[bool, str | None, str | None]:
        """(known, token hash, owner) in one read: what a Hello is checked by (`arena.ladder.auth`)."""
        rows = self._rows("SELECT token_hash, owner FROM bots WHERE name = ?", (name,))
        return (False, None, None) if not rows else (True, rows[0][0], rows[0][1])

    def list_bots(self) -> list[dict[str, Any]]:
        """Every known bot.  ``last_seen``: when a host last saw it, connected or leaving (`touch_bot` at its
        arrival and departure, `note_seen` while it stays connected)."""
        rows = self._rows(
            "SELECT name, CASE WHEN token_hash IS NULL THEN 0 ELSE 1 END, first_seen, last_seen, version, owner "
            "FROM bots ORDER BY name"
        )
        return [
            {"name": r[0], "registered": bool(r[1]), "owner": r[5], "first_seen": r[2], "last_seen": r[3],
             "version": r[4]}
            for r in rows
        ]

    def touch_bot(self, name: str, version: str = "") -> None:
        """Record that a bot connected (creates an open-registration entry if new), at the database's clock
        (`Backend.clock`: the same for every host of a shared ladder).  (``WHERE true``: SQLite would read the
        ``ON CONFLICT`` of an insert from a select as a join's ``ON``.)"""
        self._send(
            [
                (
                    "INSERT INTO bots (name, token_hash, first_seen, last_seen, version) "
                    f"SELECT ?, NULL, t.now, t.now, ? FROM (SELECT {self.backend.clock()} AS now) t "
                    "WHERE true ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen, version = excluded.version, "
                    "first_seen = COALESCE(bots.first_seen, excluded.first_seen)",
                    (name, version),
                )
            ]
        )

    def note_seen(self, names: Sequence[str], at: str | None = None, unless_since: str | None = None,
                  unless_within_s: float | None = None) -> int:
        """Record that these bots are still connected (``last_seen`` = ``at``, default now), in one statement a
        500 names; returns how many rows changed.  A row is never moved back, nor written again when its
        ``last_seen`` is at or after ``unless_since`` (another host of a shared ladder, which the same bot is
        connected to, noted it a moment ago).  No row is created: a connected bot has one (`touch_bot`).

        Without ``at``, now is the database's clock (`Backend.clock`), and so is ``unless_within_s`` (seconds
        before it, instead of ``unless_since``): a host whose own clock was fast dated the row in the future,
        where the never-back rule pinned it for as long as the clock was off.  A row dated after the
        database's now (written so by such a host) is then written again."""
        names = list(names)
        heal = ""
        if at is not None:
            at_sql, at_values = "?", (at,)
            floor_sql, floor_values = "?", (at if unless_since is None else min(unless_since, at),)  # ISO text: ordered
        else:
            now = self.backend.clock()
            at_sql, at_values = now, ()
            if unless_within_s is not None:
                floor_sql, floor_values = self.backend.clock(back=True), (unless_within_s,)
            elif unless_since is not None:
                floor_sql, floor_values = "?", (unless_since,)
            else:
                floor_sql, floor_values = now, ()
            heal = f" OR last_seen > {now}"
        statements = []
        for chunk in range(0, len(names), 500):
            part = names[chunk : chunk + 500]
            statements.append((
                f"UPDATE bots SET last_seen = {at_sql} WHERE name IN ({','.join('?' * len(part))}) "
                f"AND (last_seen IS NULL OR last_seen < {floor_sql}{heal})",
                (*at_values, *part, *floor_values),
            ))
        return self._write(statements) if statements else 0

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
        return self._write([(sql, parameters)])

    def bot_count(self) -> int:
        return int(self._rows("SELECT COUNT(*) FROM bots")[0][0])

    # ---- games

    def game_started_steps(
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
        versions: Sequence[str] | None = None,
        claim: SeatClaim | None = None,
    ) -> Steps:
        """Record a game as running (replay_path: its unfinished replay, sealed after a crash), in steps
        (`run_together` runs them in its transaction; `game_started` in a transaction of its own): returns
        True when it was recorded.

        versions: what each seat's bot declared (Hello.bot_version), in seat order.
        started_at: None (the ladder's starts): the database's clock when the start is written (`Backend.clock`), the
        one clock every host of a shared ladder reads, so a host whose own clock is off neither reorders the games nor
        times them wrong (`typical_game`); a time given is written as it is (tests, imports).
        claim: a shared ladder's seat claim (`SeatClaims.claim_in`), made first in the same transaction: when
        it is refused nothing is recorded and neither is this game: returns False.  The claim is then as
        durable as the start, in one commit.  On PostgreSQL the whole start is one call of a server-side
        function (`game_start.START_FUNCTION`, schema step 10) that takes the same steps; with a claim it is
        the start's one read (its answer: recorded or not), the start's last (`Read.last`), so a group commit
        of starts sends its ``COMMIT`` with them: one round trip (`run_together`); without one it reads nothing.
        A claimed start that seats a bot twice raises ValueError before any statement (`SeatClaim.check`).
        """
        bots = list(bots)
        if claim is not None:
            claim.check(bots)
        versions = list(versions or ())[: len(bots)]
        versions += [""] * (len(bots) - len(versions))
        clock = self.backend.clock()
        if self.backend.starts_games_on_the_server:
            statement = game_start.call(game_id, ruleset, options, seed, set_id, rotation, bots, versions,
                                        started_at=started_at or None, replay_path=replay_path, claim=claim,
                                        clock=clock)
            if claim is None:
                self.backend.send(*statement)
                return True
            answer = yield Read([statement], last=True)
            return bool(answer.rows[0] and answer.rows[0][0][0])
        given = (started_at,) if started_at else ()
        statements: list[tuple[str, Sequence[Any]]] = [
            (
                "INSERT INTO games (id, ruleset, options, seed, set_id, rotation, started_at, status, replay_path) "
                f"VALUES (?, ?, ?, ?, ?, ?, {'?' if given else clock}, 'running', ?)",
                (game_id, ruleset, game_start.options_text(options), seed, set_id, rotation, *given, replay_path),
            )
        ]
        if bots:  # every seat in one statement (one to parse and plan, not one a seat)
            statements.append((
                "INSERT INTO seats (game_id, seat, bot, version) VALUES " + ", ".join(["(?, ?, ?, ?)"] * len(bots)),
                [value for seat, bot in enumerate(bots) for value in (game_id, seat, bot, versions[seat])],
            ))
        if claim is None:
            for sql, parameters in statements:
                self.backend.send(sql, parameters)
            return True
        # The claim and the rows in one read, each insert guarded by the claim's rows (a refused claim leaves
        # none, so they insert nothing): the PostgreSQL statements the function replaced (SQLite claims nothing).
        answer = yield Read([claim.call(game_id, ruleset, bots),
                             *(_if_claimed(sql, parameters, game_id) for sql, parameters in statements)], last=True)
        return bool(answer.rows[0] and answer.rows[0][0][0])

    def game_ended_steps(
        self,
        game_id: str,
        status: str,
        seats: Sequence[SeatRecord],
        *,
        ended_at: str | None = None,
        replay_path: str | None = None,
        reason: str = "",
        decisions: int = 0,
        replay: PackedReplay | None = None,
        then: Sequence[tuple[str, Sequence[Any]]] = (),
    ) -> Steps:
        """Commit one game's result, in steps (`run_together` runs them in its transaction, with others;
        `game_ended` in a transaction of its own, durable when it returns): on SQLite the fenced update is
        the one read (a second one only when the row had ended already).  On PostgreSQL it reads nothing:
        the whole result is one call of a server-side function (`game_end.END_FUNCTION`, schema step 9) that
        takes the same steps, followed by ``then``, all sent with the ``COMMIT`` (so a group commit of results
        is one message); where it raises, the transaction fails (in a group commit `run_together` runs each
        write again alone) and the store raises the same exception as below (`game_end.refusal`).

        Only a ``running`` row takes a result, and an ended one is never written again (a game
        ends once): the fence that keeps a host which was taken for dead (and whose games another
        host aborted) from overwriting those rows (arena/ladder/README.md, "Fencing").  So:

        * the row is already ``finished`` (this commit reached the database before, and its reply
          was lost with the connection): nothing changes;
        * the row is ``aborted`` and this is an abort: nothing changes (the first reason stays);
        * the row is ``aborted`` and this is a finished result: `GameClosed` is raised, nothing
          changes, and the runner tells the seats the game was aborted;
        * there is no row (the start was never recorded here): `UnknownGame` is raised, nothing
          changes (``then`` included: a game without a row claimed no seats).

        ended_at: None (the ladder's results): the database's clock when the end is written, as ``started_at`` (by the
        fenced update itself, in the transaction that makes the result durable before its bots are told, as before);
        the replay's ``stored_at`` is always the database's clock.

        replay: the game's replay text (`PackedReplay.of`), stored in the same transaction
        (`arena.ladder.store.replays`) with the result it records; an abort meeting a row another
        host aborted keeps its replay there if none is stored (a fenced host's games).

        then: statements (shared SQL) committed with the end whatever the row was, unless this
        raises: what the game held is freed with it (a shared ladder's seat claims,
        `SeatClaims.release_statements`).
        """
        if status not in ("finished", "aborted"):
            raise ValueError(f"a game ends finished or aborted, not {status!r}")
        clock = self.backend.clock()
        if self.backend.ends_games_on_the_server:
            self.backend.send(*game_end.call(game_id, status, seats, ended_at=ended_at or None,
                                             replay_path=replay_path, reason=reason, decisions=decisions,
                                             replay=replay, clock=clock))
            for sql, parameters in then:
                self.backend.send(sql, parameters)
            return
        given = (ended_at,) if ended_at else ()
        update = (
            f"UPDATE games SET status = ?, ended_at = {'?' if given else clock}, replay_path = ?, reason = ?, "
            "decisions = ? WHERE id = ? AND status = 'running'",
            (status, *given, replay_path, reason, decisions, game_id),
        )
        statements: list[tuple[str, Sequence[Any]]] = []
        if seats:  # every seat in one statement (one to parse and plan, not one a seat)
            statements.append(
                (
                    "INSERT INTO seats (game_id, seat, bot, placement, points, strikes, timeouts, think_ms, "
                    "decisions, forfeited, errors) VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(seats))
                    + " ON CONFLICT (game_id, seat) DO UPDATE SET bot = excluded.bot, placement = excluded.placement, "
                    "points = excluded.points, strikes = excluded.strikes, timeouts = excluded.timeouts, "
                    "think_ms = excluded.think_ms, decisions = excluded.decisions, forfeited = excluded.forfeited, "
                    "errors = excluded.errors",
                    [
                        value
                        for s in seats
                        for value in (
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
                            s.errors,
                        )
                    ],
                )
            )
        # The conditional update takes the row's lock first (PostgreSQL): a host sweeping this
        # game's host at the same moment either comes first (and this changes nothing) or waits.
        updated = yield Read([update])
        if not updated.counts[0]:
            row = (yield Read([("SELECT status, reason FROM games WHERE id = ?", (game_id,))])).rows[0]
            if not row:
                raise UnknownGame(game_id)
            if row and row[0][0] == "aborted" and status == "finished":
                raise GameClosed(game_id, row[0][0], row[0][1])
            if row and row[0][0] == "aborted" and replay is not None:
                # another host aborted it (this one was taken for dead): the abort this host
                # recorded after `GameClosed` is its replay, kept unless one is stored already
                self.backend.send(*replays.put_statement(game_id, replay, clock, replace=False))
            for sql, parameters in then:
                self.backend.send(sql, parameters)
            return  # ended already (the same result again, or a second abort): it stands
        self._send_end(game_id, status, seats, [*statements, *then], replay)

    def _send_end(self, game_id: str, status: str, seats: Sequence[SeatRecord],
                  statements: Sequence[tuple[str, Sequence[Any]]], replay: PackedReplay | None) -> None:
        """The rest of a result whose fenced update took the running row: its statements, the fit's totals
        (a game once, when it becomes finished: a running row, just now) and its replay."""
        for sql, parameters in statements:
            self.backend.send(sql, parameters)
        if status == "finished":
            fit_totals.add_game(self.backend, game_id, seats)
        if replay is not None:
            self.backend.send(*replays.put_statement(game_id, replay, self.backend.clock()))

    #: The same writes, each in a transaction of its own (returning what its steps return).
    game_started = _in_own_transaction(game_started_steps)
    game_ended = _in_own_transaction(game_ended_steps)

    def abort_running(self, reason: str) -> list[tuple[str, str | None]]:
        """Mark every game still ``running`` as aborted; returns their (id, replay path)."""
        with self._lock, self.backend.transaction():
            rows = self.backend.rows("SELECT id, replay_path FROM games WHERE status = 'running'")
            if rows:
                self.backend.run(
                    f"UPDATE games SET status = 'aborted', reason = ?, ended_at = {self.backend.clock()} "
                    "WHERE status = 'running'",
                    (reason,),
                )
        return [(row[0], row[1]) for row in rows]

    def statuses(self, game_ids: Sequence[str]) -> dict[str, str]:
        """The status of each of these games that has a row (running, finished or aborted)."""
        found: dict[str, str] = {}
        ids = list(game_ids)
        for chunk in range(0, len(ids), 500):
            part = ids[chunk : chunk + 500]
            found.update(self._rows(f"SELECT id, status FROM games WHERE id IN ({','.join('?' * len(part))})", part))
        return found

    def store_replay(self, game_id: str, replay: PackedReplay, *, replace: bool = False) -> bool:
        """Store a game's replay outside its result's commit (recovery, an import); True if written.

        replace=False keeps a replay already stored (the one committed with the result).  A game
        with no row is not stored (False).
        """
        with self._lock, self.backend.transaction():
            if not self.backend.rows("SELECT 1 FROM games WHERE id = ?", (game_id,)):
                return False
            return replays.put(self.backend, game_id, replay, replace=replace) > 0

    def stored_replay(self, game_id: str) -> PackedReplay | None:
        """The game's replay as stored in the database (None: not stored; a SQLite ladder keeps files)."""
        with self._lock:
            return replays.get(self.backend, game_id)

    def replay_text(self, game_id: str) -> bytes | None:
        """The game's stored replay text, checked (`StoredReplayError` if damaged); None if not stored."""
        packed = self.stored_replay(game_id)
        return None if packed is None else packed.unpack(game_id)

    def running_on(self, game_ids: Sequence[str]) -> dict[str, "running_on.RunningOn"]:
        """{game id: the host running it} of these games that are running on a host of a shared ladder."""
        with self._lock:
            return running_on.running_on(self.backend, game_ids)

    def hosts(self) -> list["host_list.HostRow"]:
        """Every host of a shared ladder (live ones first), with its state and the games it runs now; [] on SQLite."""
        with self._lock:
            return host_list.host_rows(self.backend)

    def rulesets_in_play(self) -> list[str]:
        """The rulesets of the games the live hosts of a shared ladder run now ([] on SQLite: no seat claims)."""
        with self._lock:
            return host_list.rulesets_in_play(self.backend)

    def stored_replays(self, game_ids: Sequence[str]) -> set[str]:
        """Which of these games have their replay in the database."""
        with self._lock:
            return replays.stored(self.backend, game_ids)

    def stored_replay_sizes(self, game_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """{game id: (bytes of the replay text, bytes stored)} of these games' stored replays."""
        found: dict[str, tuple[int, int]] = {}
        ids = list(game_ids)
        for chunk in range(0, len(ids), 500):
            part = ids[chunk : chunk + 500]
            for game_id, size, packed in self._rows(
                f"SELECT game_id, size, length(data) FROM replays WHERE game_id IN ({','.join('?' * len(part))})",
                part,
            ):
                found[game_id] = (int(size), int(packed))
        return found

    def set_replay_path(self, game_id: str, path: str | None) -> None:
        self._write([("UPDATE games SET replay_path = ? WHERE id = ?", (path, game_id))])

    def games(
        self, ruleset: str | None = None, status: str | None = None, limit: int | None = None,
        bot: str | None = None, offset: int = 0, game_id: str | None = None, stored_replay: bool = False,
        lost_replay: bool = False,
    ) -> list[GameRecord]:
        """Games newest first, with their seats (optionally only ``bot``'s, or the one ``game_id``;
        stored_replay: only games whose replay is in the database; with lost_replay too, also the aborted
        games that have no replay anywhere, neither stored nor a file: those a crash cut off, a dead host's)."""
        where, parameters = [], []
        if stored_replay and lost_replay:
            where.append("(id IN (SELECT game_id FROM replays) OR (status = 'aborted' AND replay_path IS NULL))")
        elif stored_replay:
            where.append("id IN (SELECT game_id FROM replays)")
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
            rows = self.backend.rows(sql, parameters)
            seats: dict[str, list[SeatRecord]] = {}
            ids = [r[0] for r in rows]
            for chunk in range(0, len(ids), 500):
                part = ids[chunk : chunk + 500]
                for s in self.backend.rows(
                    "SELECT game_id, seat, bot, placement, points, strikes, timeouts, think_ms, decisions, forfeited, "
                    f"errors FROM seats WHERE game_id IN ({','.join('?' * len(part))}) ORDER BY game_id, seat",
                    part,
                ):
                    seats.setdefault(s[0], []).append(SeatRecord(*s[1:9], forfeited=bool(s[9]), errors=s[10]))
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
        return int(self._rows("SELECT COUNT(*) FROM games WHERE ruleset = ? AND status = ?", (ruleset, status))[0][0])

    def bot_totals(self, bot: str) -> dict[str, dict[str, int]]:
        """One bot's record per ruleset: games (finished and aborted), wins, timeouts, strikes, forfeits, errors."""
        finished, aborted = count_if("g.status = 'finished'"), count_if("g.status = 'aborted'")
        rows = self._rows(
            f"SELECT g.ruleset, {finished}, {aborted}, "
            f"{count_if('s.placement = 1')}, SUM(s.timeouts), SUM(s.strikes), SUM(s.forfeited), SUM(s.decisions), "
            "SUM(s.think_ms), SUM(s.errors) FROM seats s JOIN games g ON g.id = s.game_id WHERE s.bot = ? "
            "GROUP BY g.ruleset ORDER BY 1",
            (bot,),
        )
        keys = ("finished", "aborted", "wins", "timeouts", "strikes", "forfeits", "decisions", "think_ms", "errors")
        return {r[0]: {k: int(v or 0) for k, v in zip(keys, r[1:])} for r in rows}

    def bot_versions(self, bot: str) -> list[dict[str, Any]]:
        """The bot's record per declared version, oldest version first: when it was seen (its first game's
        start; its last finished game's end, or the start of a later one still running or aborted: as
        `list_bots`), its games (finished), first places, and its mean placement score (1 for first, 0 for
        last, ties shared)."""
        finished = "g.status = 'finished'"
        rows = self._rows(
            "SELECT s.version, MIN(g.started_at), "
            f"MAX(CASE WHEN {finished} THEN g.ended_at ELSE g.started_at END), "
            f"{count_if(finished)}, {count_if(finished + ' AND s.placement = 1')}, "
            f"SUM(CASE WHEN {finished} AND n.seats > 1 THEN (n.seats - s.placement) * 1.0 / (n.seats - 1) END) "
            "FROM seats s JOIN games g ON g.id = s.game_id "
            "JOIN (SELECT game_id, COUNT(*) AS seats FROM seats GROUP BY game_id) n ON n.game_id = s.game_id "
            "WHERE s.bot = ? GROUP BY s.version ORDER BY 2",
            (bot,),
        )
        return [
            {"version": version, "first_seen": first, "last_seen": last, "games": int(games or 0),
             "wins": int(wins or 0),  # PostgreSQL sums to a Decimal: a float for JSON
             "score": round(float(score) / games, 4) if games and score is not None else None}
            for version, first, last, games, wins, score in rows
        ]

    def finished_placements(self, ruleset: str) -> list[tuple[str, str, dict[str, int]]]:
        """Finished games of a ruleset in the order they ended: (id, ended_at, bot -> placement)."""
        rows = self._rows(
            "SELECT g.id, g.ended_at, s.bot, s.placement FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.ruleset = ? AND g.status = 'finished' AND s.placement IS NOT NULL "
            "ORDER BY g.ended_at, g.id, s.seat",
            (ruleset,),
        )
        games: dict[str, tuple[str, str, dict[str, int]]] = {}
        for game_id, ended_at, bot, placement in rows:
            games.setdefault(game_id, (game_id, ended_at, {}))[2][bot] = placement
        return [g for g in games.values() if len(g[2]) >= 2]

    def replay_paths(self, game_id: str) -> dict[str, str | None]:
        """{id: replay path} of the game ``game_id``, or of the games whose id ends in ``-game_id``."""
        tail = f"-{game_id}"
        rows = self._rows(  # the id's last characters, by length: no LIKE pattern to escape
            "SELECT id, replay_path FROM games WHERE id = ? OR substr(id, length(id) - ? + 1) = ?",
            (game_id, len(tail), tail),
        )
        return {row[0]: row[1] for row in rows}

    def rulesets_played(self) -> list[str]:
        rows = self._rows(
            "SELECT ruleset, COUNT(*) FROM games WHERE status = 'finished' GROUP BY ruleset ORDER BY 2 DESC, 1"
        )
        return [r[0] for r in rows]

    def rated_games(self, ruleset: str) -> list[RatedGame]:
        """Finished games of a ruleset in the form the rating fit takes."""
        rows = self._rows(
            "SELECT g.id, g.set_id, s.bot, s.placement FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.ruleset = ? AND g.status = 'finished' AND s.placement IS NOT NULL "
            "ORDER BY g.ended_at, g.id, s.seat",
            (ruleset,),
        )
        games: dict[str, RatedGame] = {}
        for game_id, set_id, bot, placement in rows:
            games.setdefault(game_id, RatedGame(set_id, {})).placements[bot] = placement  # type: ignore[index]
        return [g for g in games.values() if len(g.placements) >= 2]

    def pair_table(self, ruleset: str) -> PairTable:
        """The rating fit's input: one observation per (set, pair), from the running totals
        (`fit_totals`) that each finished game updates, so a fit costs a few rows per pair of bots.

        Equivalent to `aggregate(self.rated_games(ruleset))` and to `pair_table_recomputed`.
        """
        with self._lock:
            pair_rows, per_bot = fit_totals.read(self.backend, ruleset)
        return PairTable.from_totals(pair_rows, per_bot)

    def pair_table_recomputed(self, ruleset: str) -> PairTable:
        """The same input summed from every finished game by the database: what `pair_table` did
        before the running totals (kept as the reference for tests and scripts/bench_ratings.py)."""
        finished = (
            "SELECT s.game_id, g.set_id, s.bot, s.placement FROM seats s JOIN games g ON g.id = s.game_id "
            "WHERE g.ruleset = ? AND g.status = 'finished' AND s.placement IS NOT NULL"
        )
        score = (
            "CASE WHEN a.placement < b.placement THEN 1.0 WHEN a.placement = b.placement THEN 0.5 ELSE 0.0 END"
        )
        with self._lock:
            pair_rows = self.backend.rows(
                f"WITH f AS ({finished}), "
                f"per_set AS (SELECT a.set_id AS set_id, a.bot AS a, b.bot AS b, AVG({score}) AS score "
                "  FROM f a JOIN f b ON a.game_id = b.game_id AND a.bot < b.bot GROUP BY a.set_id, a.bot, b.bot) "
                "SELECT a, b, COUNT(*), CAST(SUM(score) AS DOUBLE PRECISION) FROM per_set GROUP BY a, b",
                (ruleset,),
            )
            bot_rows = self.backend.rows(
                f"WITH f AS ({finished}) "
                "SELECT a.bot, COUNT(DISTINCT a.game_id), COUNT(b.bot), "
                f"  CAST(COALESCE(SUM({score}), 0) AS DOUBLE PRECISION) "
                "FROM f a LEFT JOIN f b ON a.game_id = b.game_id AND a.bot != b.bot GROUP BY a.bot",
                (ruleset,),
            )
        # A game needs two seats to be rated, as in `rated_games`.
        per_bot = {bot: (games, comparisons, points) for bot, games, comparisons, points in bot_rows if comparisons}
        return PairTable.from_totals(pair_rows, per_bot)

    def fit_changes(self, ruleset: str, since: str | None
                    ) -> tuple[str, list[tuple[str, str, int, float]], list[tuple[Any, ...]]]:
        """A shared PostgreSQL ladder's rows of the fit's totals written since the snapshot ``since`` (None: every
        row), with the snapshot to give next time (`fit_totals.changes`, `fit_totals.RunningTotals.put`)."""
        with self._lock:
            return fit_totals.changes(self.backend, ruleset, since)

    def totals(self, ruleset: str) -> dict[str, BotTotals]:
        """Games, wins (first place), timeouts, strikes, forfeits and errors per bot in finished games
        (from the running totals, `fit_totals`)."""
        with self._lock:
            rows = fit_totals.bot_records(self.backend, ruleset)
        return {r[0]: BotTotals(r[0], int(r[1]), *(int(v or 0) for v in r[2:])) for r in rows}

    def totals_recomputed(self, ruleset: str) -> dict[str, BotTotals]:
        """`totals` summed from every finished game by the database (the reference, as `pair_table_recomputed`)."""
        rows = self._rows(
            f"SELECT s.bot, COUNT(*), {count_if('s.placement = 1')}, SUM(s.timeouts), SUM(s.strikes), "
            "SUM(s.forfeited), SUM(s.errors) FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.ruleset = ? AND g.status = 'finished' GROUP BY s.bot",
            (ruleset,),
        )
        return {r[0]: BotTotals(r[0], int(r[1]), *(int(v or 0) for v in r[2:])) for r in rows}

    def pair_counts(self, ruleset: str) -> dict[frozenset[str], int]:
        """How many sets each pair of bots has shared a table in (finished games)."""
        rows = self._rows(
            "SELECT DISTINCT g.set_id, s.bot FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.ruleset = ? AND g.status = 'finished'",
            (ruleset,),
        )
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
        self._send(
            [
                (
                    "INSERT INTO rating_snapshots (ruleset, bot, rating, ci, games, at) VALUES (?, ?, ?, ?, ?, ?)",
                    (ruleset, r.bot, r.rating, r.ci if r.ci != float("inf") else None, r.games, now),
                )
                for r in ratings
            ]
        )

    def latest_ratings(self, ruleset: str) -> list[tuple[str, float, float | None, int, str]]:
        """The last snapshot's rows (bot, rating, 95% half-width or None while unbounded, games, at), in the
        leaderboard's order (`arena.ladder.ranking`: by the lower end of the interval, not the rating)."""
        rows = self._rows(
            "SELECT bot, rating, ci, games, at FROM rating_snapshots WHERE ruleset = ? AND at = "
            "(SELECT MAX(at) FROM rating_snapshots WHERE ruleset = ?)",
            (ruleset, ruleset),
        )
        return leaderboard_order(
            [tuple(r) for r in rows],  # type: ignore[misc]
            lambda r: (r[0], r[1], math.inf if r[2] is None else r[2]),
        )
