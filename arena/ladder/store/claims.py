"""Seat claims: how hosts sharing one PostgreSQL ladder keep every bot within its games at once.

A host seats a table only after claiming every seat in the database, in the transaction
that records the game's start (`SeatClaims.claim_in`, through `LadderStore.game_started`
or, in a group commit, `LadderStore.game_started_steps`; the start's server-side function
``mau_start_game`` calls the claim's, `arena.ladder.store.game_start`), and only while its own lease
is current (a host whose lease lapsed may be swept at any moment: it claims nothing until
it has renewed), and only as the host's incarnation that joined last (a process replaced under
its name while it was cut off claims nothing: `FENCED_CLAIM_FUNCTION`, schema step 15):

1. lock the bots' rows of ``bot_slots`` with ``FOR UPDATE SKIP LOCKED``, in name order:
   if another host is claiming one of these bots at this very moment, the row is skipped
   and this table is simply not started now (the scheduler plans again soon): no host
   ever waits on another, and no two claims for one bot interleave;
2. count each bot's open claims over all hosts (``seat_claims`` rows not released);
3. refuse the table if any bot would go over its cap (``min(its max_games, the arena's
   --max-games-per-bot, its share of the cluster's slots)``), else insert one row per
   seat, recording the cap and the count it was checked against.

The open claims *are* the busy counts: there is no counter that a crash could leave
wrong.  A seat is released in the transaction that records its game's end
(`SeatClaims.release_statements`, through `LadderStore.game_ended`), so it is free on
every host the moment the result is durable, or apart when that end could not be
recorded (`SeatClaims.release`); either wakes the other live hosts' schedulers with
``NOTIFY`` (`HostRegistry.listen`), and a host alone tells nobody.  The claims of a
host that died are released by whichever live host finds it dead
(`arena.ladder.store.hosts`).  Rows are kept afterwards: ``(bot, claimed_at,
released_at)`` on the database's clock is the audit that shows, after the fact, that
no bot was ever over its cap and no seat was booked twice.

`SeatClaims.load` gives the scheduler the cluster's view: each bot's busy count and
the games and pairings scheduled on every host since a moment, so its fairness rules
compare counts over the whole ladder rather than one host's share of it; and every live host's
concurrency and open games, and the hosts each new claim was on, so a host can leave a game to
a less-loaded one that its bots reach (`arena.ladder.host_balance`).  It reads the claims since
that moment once, then at each planning round only the claims committed
since its last read (`ClaimTally`), and hands on only what they add: a round costs the
new claims, not the host's history (copying and merging every pairing's count each
round grew with the ladder's age, up to every pair of connected bots).

Steps 1-3 and the insert are one server-side function, `CLAIM_FUNCTION` (``mau_claim_seats``, made
by schema step 7, PostgreSQL's own): one statement a claim, where the four it replaces each cost
the host its binding and parsing and the server its parsing and planning (a PL/pgSQL function
keeps its plans).  Inside it each statement takes a snapshot of its own (a volatile function,
read committed), so the count after the locks sees every claim committed before them, as the
separate statements did.

Round trips: a claim is its start's one read (`backend.Read`), sent with the statements queued
before it and, in a group commit, with the reads of every other start of that commit
(`LadderStore.run_together`); since schema step 10 the claim and the start's own rows are one call of
``mau_start_game`` (`arena.ladder.store.game_start`), which writes the rows only when the claim took every
seat (a refused claim writes nothing), so the read is the start's last
(`Read.last`) and the group commit's ``COMMIT`` goes with it: a group commit of starts is one round
trip (two when two of its starts share a bot: the later one reads after the earlier one's claim).
A release costs none (its statements go with the result's commit), a load one message on
the registry's work connection (`HostRegistry.work_connection`).  So a game's seats cost
no transaction, no durable commit and no worker-thread call of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable, Mapping, Sequence

from arena.ladder.store.game_start import SeatClaim
from arena.ladder.store.hosts import NOW, SEATS_FREED, SEATS_LOCK, HostRegistry
from arena.ladder.store.postgres import LOCK_CLASS, Binder, results, roll_back


def _claim_function(host_lock: str) -> str:
    """`CLAIM_FUNCTION` with the lock it takes on its host's row (a released schema step keeps its own text)."""
    return _CLAIM_FUNCTION.replace("FOR SHARE;", f"{host_lock};")


#: A seat claim, whole (steps 1-3 above and the rows), as one server-side function (schema step 7): true
#: when every seat is claimed, false when nothing was (this host's lease lapsed, a bot is being claimed by
#: another transaction, or a bot would go over its cap).  Keep it equivalent to the statements it replaced
#: (`tests/ladder/test_claims.py` checks the refusals and the audit rows).  No ``?`` in it: the shared
#: SQL's placeholder.  Step 7's text, with ``FOR SHARE`` on the host's row.
_CLAIM_FUNCTION = f"""
CREATE OR REPLACE FUNCTION mau_claim_seats(p_game TEXT, p_ruleset TEXT, p_host TEXT, p_bots TEXT[], p_caps INTEGER[])
RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $claim$
DECLARE
    v_busy INTEGER[];
BEGIN
    -- only under a current lease; the share lock keeps a sweep of this host (FOR UPDATE SKIP LOCKED) out
    PERFORM 1 FROM hosts WHERE name = p_host AND state = 'live' AND lease_until >= {NOW} FOR SHARE;
    IF NOT FOUND THEN
        RETURN FALSE;
    END IF;
    -- every bot's row, in name order; one being claimed by another transaction is skipped: refused
    IF (SELECT COUNT(*) FROM (SELECT bot FROM bot_slots WHERE bot = ANY(p_bots) ORDER BY bot
                              FOR UPDATE SKIP LOCKED) locked)
       < (SELECT COUNT(DISTINCT b) FROM unnest(p_bots) AS b) THEN
        RETURN FALSE;
    END IF;
    -- counted after the locks (a snapshot of its own): every claim of these bots committed before them
    SELECT array_agg(COALESCE(c.n, 0) + 1 ORDER BY s.i) INTO v_busy
    FROM unnest(p_bots) WITH ORDINALITY AS s (bot, i)
    LEFT JOIN (SELECT bot, COUNT(*) AS n FROM seat_claims WHERE bot = ANY(p_bots) AND released_at IS NULL
               GROUP BY bot) c ON c.bot = s.bot;
    IF EXISTS (SELECT 1 FROM unnest(v_busy, p_caps) AS x (busy, cap) WHERE x.busy > x.cap) THEN
        RETURN FALSE;
    END IF;
    -- one time for every seat (a statement's clock), and the transaction's id for `ClaimTally`
    INSERT INTO seat_claims (game_id, seat, bot, ruleset, host, cap, busy, claimed_at, claim_xid)
    SELECT p_game, s.seat - 1, s.bot, p_ruleset, p_host, s.cap, s.busy, t.at, pg_current_xact_id()
    FROM (SELECT {NOW} AS at) t, unnest(p_bots, p_caps, v_busy) WITH ORDINALITY AS s (bot, cap, busy, seat);
    RETURN TRUE;
END
$claim$
"""

#: Schema step 7's claim function: its host's row ``FOR SHARE``, which made the host's heartbeat (an update of
#: its lease, ``FOR UPDATE`` first) wait for every start in flight, and the starts behind the heartbeat.
CLAIM_FUNCTION_7 = _claim_function("FOR SHARE")
#: The claim function since step 8: ``FOR KEY SHARE``, which a heartbeat's update of the lease (``FOR NO KEY
#: UPDATE``: no key column changes) does not wait for, while a sweep (``FOR UPDATE SKIP LOCKED``) still skips
#: a host with a claim in flight, so a claim and a sweep of its host never interleave.
CLAIM_FUNCTION = _claim_function("FOR KEY SHARE")
#: The claim function since step 15, beside step 8's (kept for the hosts of a release before it): with the claiming
#: process's incarnation of its host (``p_incarnation``, the row's ``started_at`` its `HostRegistry.join` wrote), refused
#: when another process has joined under the host's name since.  A process cut off from the database while the
#: operator started a replacement under its name (which may have died since, leaving the lease to lapse) so seats
#: nothing: only a live incarnation claims, and the lease it claims under is its own.  NULL: not checked.
FENCED_CLAIM_FUNCTION = (
    CLAIM_FUNCTION
    .replace("p_caps INTEGER[])", "p_caps INTEGER[], p_incarnation DOUBLE PRECISION)")
    .replace(f"lease_until >= {NOW} FOR KEY SHARE;",
             f"lease_until >= {NOW}\n      AND (p_incarnation IS NULL OR started_at = p_incarnation) FOR KEY SHARE;")
)
assert FENCED_CLAIM_FUNCTION.count("p_incarnation") == 3, "the claim function's text changed: fence it again"


#: A release, whole, as one server-side function (schema step 7): under `hosts.SEATS_LOCK` shared (the
#: lock class and key are its arguments), frees the open claims of these games, and tells the other live
#: hosts (``NOTIFY``, delivered at commit) when it freed any; returns how many.  Equivalent to the two
#: statements it replaced (`tests/ladder/test_seats_freed.py` checks who is told, and when).
RELEASE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION mau_release_seats(p_games TEXT[], p_host TEXT, p_channel TEXT, p_lock_class INTEGER,
                                             p_lock INTEGER)
RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $release$
DECLARE
    v_freed BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(p_lock_class, p_lock);
    UPDATE seat_claims SET released_at = {NOW} WHERE game_id = ANY(p_games) AND released_at IS NULL;
    GET DIAGNOSTICS v_freed = ROW_COUNT;
    IF v_freed > 0 AND EXISTS (SELECT 1 FROM hosts WHERE state = 'live' AND name <> p_host) THEN
        PERFORM pg_notify(p_channel, p_host);
    END IF;
    RETURN v_freed;
END
$release$
"""


@dataclass
class ClusterLoad:
    """What every host has scheduled, as the database says now."""

    busy: dict[str, int] = field(default_factory=dict)                      # bot -> open claims on the other hosts
    #: The games and pairings scheduled on every host that this read counted first (ruleset -> bot or pair ->
    #: games): the counts since ``since`` are the sums over the reads (`ClaimTally`), never copied whole.
    games: dict[str, dict[str, int]] = field(default_factory=dict)
    pairs: dict[str, dict[frozenset[str], int]] = field(default_factory=dict)
    slots: int = 0                                                          # the live hosts' concurrency, summed
    #: Every live host's (concurrency, open games): how loaded each is (`arena.ladder.host_balance`).
    hosts: dict[str, tuple[int, int]] = field(default_factory=dict)
    since: float = 0.0
    fresh: bool = False  # the first read since ``since``: its counts are all of them
    #: bot -> the hosts its claims that this read counted first were on (a bot claimed on a host has a session
    #: there: `arena.ladder.host_balance` leaves a game only to a host its bots have played on)
    hosts_of: dict[str, set[str]] = field(default_factory=dict)


class ClaimTally:
    """The games and pairings claimed on every host since ``since``, summed over the reads so far.

    Exact without reading a claim twice or missing one that committed late: each claim row
    carries its transaction's id (``claim_xid``), and each read keeps the snapshot it ran
    under (``pg_current_snapshot()``, the statement's own).  The next read takes the rows
    that snapshot could not see (their transaction had not committed, or had not begun)
    and the statement's snapshot can: every claim is counted once, at the first read
    after its commit, whatever order the hosts' transactions commit in.  A transaction
    older than the snapshot's ``xmin`` was visible to it, so the read scans the index on
    ``claim_xid`` from there only.
    """

    def __init__(self, since: float) -> None:
        self.since = since
        self.snapshot: str | None = None  # the last read's snapshot; None: nothing read yet
        self.games: dict[str, dict[str, int]] = {}
        self.pairs: dict[str, dict[frozenset[str], int]] = {}

    def query(self) -> tuple[str, tuple]:
        """The read of the claims this tally has not seen: (sql, parameters); at least one row (the snapshot)."""
        columns = ("SELECT CAST(s.at AS TEXT), c.game_id, c.ruleset, c.bot, c.host "
                   "FROM (SELECT pg_current_snapshot() AS at) s ")
        if self.snapshot is None:
            return columns + "LEFT JOIN seat_claims c ON c.claimed_at >= %s", (self.since,)
        return (columns + "LEFT JOIN seat_claims c ON c.claim_xid >= pg_snapshot_xmin(CAST(%s AS pg_snapshot)) "
                "AND NOT pg_visible_in_snapshot(c.claim_xid, CAST(%s AS pg_snapshot)) AND c.claimed_at >= %s",
                (self.snapshot, self.snapshot, self.since))

    def add(self, rows: Iterable[tuple[str, str | None, str | None, str | None, str | None]],
            hosts_of: dict[str, set[str]] | None = None
            ) -> tuple[dict[str, dict[str, int]], dict[str, dict[frozenset[str], int]]]:
        """Count the rows `query` returned (every seat of a game commits together, so a game's rows come together);
        returns what they added: (ruleset -> bot -> games, ruleset -> pair -> games).  hosts_of: bot -> the hosts
        of its claims among them, filled in."""
        by_game: dict[str, list[tuple[str, str]]] = {}
        new_games: dict[str, dict[str, int]] = {}
        new_pairs: dict[str, dict[frozenset[str], int]] = {}
        for snapshot, game_id, ruleset, bot, host in rows:
            self.snapshot = snapshot
            if game_id is None:
                continue
            if hosts_of is not None:
                hosts_of.setdefault(bot, set()).add(host)
            by_game.setdefault(game_id, []).append((ruleset, bot))
            for counts in (self.games.setdefault(ruleset, {}), new_games.setdefault(ruleset, {})):
                counts[bot] = counts.get(bot, 0) + 1
        for seats in by_game.values():
            for (ruleset, a), (_, b) in combinations(seats, 2):
                if a != b:
                    key = frozenset((a, b))
                    for pairs in (self.pairs.setdefault(ruleset, {}), new_pairs.setdefault(ruleset, {})):
                        pairs[key] = pairs.get(key, 0) + 1
        return new_games, new_pairs


class SeatClaims:
    def __init__(self, registry: HostRegistry) -> None:
        self.registry = registry
        self._known: set[str] = set()
        self._literal = Binder()  # for the work connection
        self.tally: ClaimTally | None = None

    def now(self) -> float:
        with self.registry.work_connection() as db:
            return float(db.execute(f"SELECT {NOW}").fetchone()[0])

    @property
    def known(self) -> set[str]:
        """The bots whose ``bot_slots`` row this host has made sure of (they can be claimed)."""
        return self._known

    def ensure_bots(self, bots: Sequence[str]) -> None:
        """Give new bots their ``bot_slots`` row (outside any claim, so a claim never waits on an insert)."""
        new = sorted(set(bots) - self._known)
        if not new:
            return
        with self.registry.work_connection() as db:
            db.execute("INSERT INTO bot_slots (bot) SELECT unnest(CAST(%s AS TEXT[])) ON CONFLICT DO NOTHING", (new,))
        self._known.update(new)

    def claim_in(self, bots: Sequence[str], caps: Mapping[str, int]) -> SeatClaim:
        """The claim of every seat of a game (seat i is bots[i]) or none, for the transaction that records its
        start (`LadderStore.game_started(claim=...)`), which records nothing when a bot is busy, being claimed,
        or this host's lease has lapsed.

        It is `CLAIM_FUNCTION`'s call, which checks and inserts, made by the start's own server-side function
        (`game_start.START_FUNCTION`): one statement and one read for the start, in a round trip shared with the
        group commit's other reads; its rows commit with the start, so the claim is durable with it, one commit
        for both (and for every start and result of the same group commit).  On refusal the rows the checks
        locked stay locked until that transaction ends, so another host's claim of these bots skips them for as
        long.  Two claims of one bot in one transaction must not read side by side (the second must count the
        first: `Call.keys`).
        """
        return SeatClaim(self.registry.name, {bot: caps[bot] for bot in bots}, self.registry.started)

    def release_statements(self, *game_ids: str) -> list[tuple[str, tuple]]:
        """These games are over: the statements that free their seats, for the transaction that records
        their end (shared SQL, ``?`` placeholders; the ladder's result commit), so the seats are free on every
        host the moment the result is durable.  The first element of the last one's row: how many.

        The other live hosts are told (``NOTIFY``, delivered when the transaction commits); a host
        alone tells nobody.  A host that joins meanwhile misses nothing: this transaction holds
        `hosts.SEATS_LOCK` shared, which a host takes exclusively to become live (after it began
        to listen, `HostRegistry.join`), so either the release's check already sees the new host
        live (and it is told), or the new host goes live after this commit (and sees the seats free).
        """
        return [("SELECT mau_release_seats(CAST(? AS TEXT[]), ?, ?, ?, ?)",
                 (list(game_ids), self.registry.name, SEATS_FREED, LOCK_CLASS, SEATS_LOCK))]

    def release(self, *game_ids: str) -> int:
        """These games are over: their seats are free again (the other hosts are told).  Returns how many.

        One transaction for any number of games (the ones that ended while the last release ran),
        on the work connection; the ladder frees a game's seats in its result's commit instead
        (`release_statements`), and comes here only for a game whose end was not recorded.
        """
        if not game_ids:
            return 0
        with self.registry.work_connection() as db:
            try:
                statements = [self._literal(db, _format(sql), parameters)
                              for sql, parameters in self.release_statements(*game_ids)]
                freed = results(db, ["BEGIN", *statements, "COMMIT"])[-2]
                return int(freed[0][0]) if freed else 0
            except BaseException:
                roll_back(db)
                raise

    def load(self, since: float, bots: Sequence[str]) -> ClusterLoad:
        """Busy counts on the other hosts (of every bot with an open claim there: this host counts its own
        games itself), and the games and pairings every host scheduled since ``since`` that the reads
        before this one had not counted (all of them in the first: ``fresh``; the sums so far are
        ``self.tally``'s).  New bots among ``bots`` get their ``bot_slots`` row first, so they can be claimed."""
        load = ClusterLoad(since=since)
        self.ensure_bots(bots)
        with self.registry.work_connection() as db:
            if self.tally is None or self.tally.since != since:
                self.tally = ClaimTally(since)
                load.fresh = True
            tally = self.tally
            busy, slots, rows = results(db, [
                # every open claim (as many as the cluster's slots hold), not those of a list of every
                # connected bot: binding and parsing that list cost more than the rows it leaves out
                self._literal(db, "SELECT bot, COUNT(*) FROM seat_claims WHERE released_at IS NULL AND host <> %s "
                              "GROUP BY bot", (self.registry.name,)),
                # each live host's concurrency and open games (its open claims' games, on their partial index)
                "SELECT h.name, h.concurrency, (SELECT COUNT(DISTINCT c.game_id) FROM seat_claims c "
                "WHERE c.host = h.name AND c.released_at IS NULL) "
                f"FROM hosts h WHERE h.state = 'live' AND h.lease_until >= {NOW}",
                self._literal(db, *tally.query()),
            ])
            load.busy = {bot: int(n) for bot, n in busy or ()}
            load.hosts = {name: (int(concurrency), int(games)) for name, concurrency, games in slots or ()}
            load.slots = sum(concurrency for concurrency, _games in load.hosts.values())
            load.games, load.pairs = tally.add(rows or [], load.hosts_of)
        return load


def _format(sql: str) -> str:
    """A statement of the shared SQL (``?`` placeholders, no ``%``) for psycopg on the work connection."""
    return sql.replace("?", "%s")
