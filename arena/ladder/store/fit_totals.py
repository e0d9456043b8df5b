"""The running totals the rating fit reads, kept up to date as games finish.

The Bradley-Terry fit needs, per ruleset, only (a) for every pair of bots the number of sets
they shared and the sum of a's per-set average score against b, and (b) for every bot its
rated games, pairwise comparisons and points.  Summing those over every finished game at each
fit took 2 s at 100,000 games (scripts/bench_ratings.py), and every host and `arena leaderboard`
pays it.  So the totals live in three tables, updated in the transaction that commits a game:

* ``fit_set_pairs``: per (set, pair) the games and score so far, so that a set of several games
  (an older database's rotations) still counts once, at its average;
* ``fit_pairs``: per pair the sets and the sum of their averages (what `PairTable.from_totals` takes);
* ``fit_bots``: per bot its games, comparisons and points, and the leaderboard's wins, timeouts,
  strikes, forfeits and errors (those too were summed over every game at each request).

A game adds to them once, when it first becomes ``finished`` (the caller checks), so committing a
result again changes nothing.  `REBUILD` computes the same tables from the games and seats (the
schema step that adds them fills them with it); tests check the two agree.

`RunningTotals` keeps the same numbers in memory: for a server that is the tables' only writer (a SQLite
ladder's director), seeded from them once, it adds each game as `add_game` does (`game_terms`); for a host
of a shared PostgreSQL ladder, where every host writes them, it takes the rows that changed since its last
read (`changes`, `RunningTotals.put`: each row of ``fit_pairs`` and ``fit_bots`` carries the id of the
transaction that last wrote it, ``changed``, schema step 9), so a refit reads what is new, not every pair.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from arena.ladder.store.backend import Backend

if TYPE_CHECKING:
    from arena.ladder.ratings import PairTable
    from arena.ladder.store.records import BotTotals

_SCORE = "CASE WHEN x.placement < y.placement THEN 1.0 WHEN x.placement = y.placement THEN 0.5 ELSE 0.0 END"

SCHEMA = """
    CREATE TABLE fit_set_pairs (
        ruleset TEXT NOT NULL, set_id TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,
        games INTEGER NOT NULL, score DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (ruleset, set_id, a, b)
    );
    CREATE TABLE fit_pairs (
        ruleset TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,
        sets INTEGER NOT NULL, score DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (ruleset, a, b)
    );
    CREATE TABLE fit_bots (
        ruleset TEXT NOT NULL, bot TEXT NOT NULL,
        games INTEGER NOT NULL, comparisons INTEGER NOT NULL, points DOUBLE PRECISION NOT NULL,
        wins INTEGER NOT NULL, timeouts INTEGER NOT NULL, strikes INTEGER NOT NULL,
        forfeits INTEGER NOT NULL, errors INTEGER NOT NULL,
        PRIMARY KEY (ruleset, bot)
    );
"""

#: Fill the (empty) tables from the finished games: the same sums the fit took before them.
REBUILD = f"""
    INSERT INTO fit_set_pairs (ruleset, set_id, a, b, games, score)
        SELECT g.ruleset, g.set_id, x.bot, y.bot, COUNT(*), SUM({_SCORE})
        FROM seats x JOIN seats y ON x.game_id = y.game_id AND x.bot < y.bot JOIN games g ON g.id = x.game_id
        WHERE g.status = 'finished' AND x.placement IS NOT NULL AND y.placement IS NOT NULL
        GROUP BY g.ruleset, g.set_id, x.bot, y.bot;
    INSERT INTO fit_pairs (ruleset, a, b, sets, score)
        SELECT ruleset, a, b, COUNT(*), SUM(score / games) FROM fit_set_pairs GROUP BY ruleset, a, b;
    INSERT INTO fit_bots (ruleset, bot, games, comparisons, points, wins, timeouts, strikes, forfeits, errors)
        SELECT g.ruleset, x.bot, COUNT(*), COALESCE(SUM(c.comparisons), 0), COALESCE(SUM(c.points), 0),
               SUM(CASE WHEN x.placement = 1 THEN 1 ELSE 0 END), SUM(x.timeouts), SUM(x.strikes),
               SUM(x.forfeited), SUM(x.errors)
        FROM seats x JOIN games g ON g.id = x.game_id
        LEFT JOIN (SELECT x.game_id AS game_id, x.seat AS seat, COUNT(*) AS comparisons, SUM({_SCORE}) AS points
                   FROM seats x JOIN seats y ON y.game_id = x.game_id AND y.bot != x.bot
                   WHERE x.placement IS NOT NULL AND y.placement IS NOT NULL GROUP BY x.game_id, x.seat) c
               ON c.game_id = x.game_id AND c.seat = x.seat
        WHERE g.status = 'finished'
        GROUP BY g.ruleset, x.bot;
"""


def _score(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def game_terms(seats: Sequence[Any]) -> tuple[list[tuple[Any, int, float]], list[tuple[str, str, float]]]:
    """What one finished game adds to the totals: per seat (the seat, its pairwise comparisons, its pairwise
    points), and per pair of seated bots in name order (a, b, a's result).  Seats have ``bot`` and
    ``placement`` (None: not rated); `add_game` writes these, `RunningTotals.add_game` adds them in memory."""
    placements = [(s.bot, s.placement) for s in seats if s.placement is not None]
    per_seat = []
    for seat in seats:
        others = [p for b, p in placements if b != seat.bot] if seat.placement is not None else []
        per_seat.append((seat, len(others), sum(_score(seat.placement, p) for p in others)))
    pairs = [(a, b, _score(pa, pb)) for (a, pa), (b, pb) in combinations(sorted(placements), 2) if a != b]
    return per_seat, pairs


def add_game(backend: Backend, game_id: str, seats: Sequence[Any]) -> None:
    """Add one newly finished game (its `SeatRecord`s); inside the caller's transaction.

    Only writes, and none needs a result: the ruleset and set come from the game's row and a set's
    previous totals from ``fit_set_pairs`` inside the statements, so on PostgreSQL they all go with
    the commit (`Backend.send`), with no round trip of their own.
    """
    per_seat, pairs = game_terms(seats)
    for seat, comparisons, points in per_seat:
        backend.send(
            "INSERT INTO fit_bots (ruleset, bot, games, comparisons, points, wins, timeouts, strikes, forfeits, errors) "
            "SELECT ruleset, ?, 1, ?, ?, ?, ?, ?, ?, ? FROM games WHERE id = ? "
            "ON CONFLICT (ruleset, bot) DO UPDATE SET games = fit_bots.games + 1, "
            "comparisons = fit_bots.comparisons + excluded.comparisons, points = fit_bots.points + excluded.points, "
            "wins = fit_bots.wins + excluded.wins, timeouts = fit_bots.timeouts + excluded.timeouts, "
            "strikes = fit_bots.strikes + excluded.strikes, forfeits = fit_bots.forfeits + excluded.forfeits, "
            "errors = fit_bots.errors + excluded.errors",
            (seat.bot, comparisons, points, int(seat.placement == 1), seat.timeouts, seat.strikes,
             int(seat.forfeited), seat.errors, game_id),
        )
    for a, b, result in pairs:
        # The set's average moves from total/games to (total + result)/(games + 1) (a new set: to result,
        # and counts once more), read from the set's row before the statement after this one updates it.
        backend.send(
            "INSERT INTO fit_pairs (ruleset, a, b, sets, score) "
            "SELECT g.ruleset, ?, ?, CASE WHEN p.games IS NULL THEN 1 ELSE 0 END, "
            "CASE WHEN p.games IS NULL THEN ? ELSE (p.score + ?) / (p.games + 1) - p.score / p.games END "
            "FROM games g LEFT JOIN fit_set_pairs p ON p.ruleset = g.ruleset AND p.set_id = g.set_id "
            "AND p.a = ? AND p.b = ? WHERE g.id = ? "
            "ON CONFLICT (ruleset, a, b) DO UPDATE SET sets = fit_pairs.sets + excluded.sets, "
            "score = fit_pairs.score + excluded.score",
            (a, b, result, result, a, b, game_id),
        )
        backend.send(
            "INSERT INTO fit_set_pairs (ruleset, set_id, a, b, games, score) "
            "SELECT ruleset, set_id, ?, ?, 1, ? FROM games WHERE id = ? "
            "ON CONFLICT (ruleset, set_id, a, b) DO UPDATE SET games = fit_set_pairs.games + 1, "
            "score = fit_set_pairs.score + excluded.score",
            (a, b, result, game_id),
        )


def bot_records(backend: Backend, ruleset: str) -> list[tuple[Any, ...]]:
    """Per bot: (bot, games, wins, timeouts, strikes, forfeits, errors) over its finished games."""
    return backend.rows(
        "SELECT bot, games, wins, timeouts, strikes, forfeits, errors FROM fit_bots WHERE ruleset = ?", (ruleset,))


def read(backend: Backend, ruleset: str) -> tuple[list[tuple[Any, ...]], dict[str, tuple[int, int, float]]]:
    """(pair rows (a, b, sets, score of a), per-bot (games, comparisons, points)) for `PairTable.from_totals`."""
    pairs = backend.rows("SELECT a, b, sets, score FROM fit_pairs WHERE ruleset = ?", (ruleset,))
    bots = backend.rows("SELECT bot, games, comparisons, points FROM fit_bots WHERE ruleset = ?", (ruleset,))
    # A game needs two seats to be rated, as in `rated_games`.
    per_bot = {bot: (int(games), int(comparisons), float(points)) for bot, games, comparisons, points in bots
               if comparisons}
    return [(a, b, int(sets), float(score)) for a, b, sets, score in pairs], per_bot


#: Schema step 9, shared: the transaction that last wrote a row of the fit's totals (PostgreSQL's xid8, written by
#: `game_end.END_FUNCTION`), for `changes`.  SQLite takes the type name and leaves it empty (nothing reads it
#: there); rows written before the step have none and are read by a first read, which reads every row.
CHANGED_COLUMNS = """
    ALTER TABLE fit_pairs ADD COLUMN changed xid8;
    ALTER TABLE fit_bots ADD COLUMN changed xid8;
"""


#: Schema step 11, PostgreSQL's own: the indexes `changes` reads the rows through.  At 100,000 games among 1,000 bots
#: (90,000 pair rows) the read scanned the ruleset's rows, 17-23 ms at every refit (each `refit_s`, on every host),
#: and through them 0.7-0.9 ms; a result's commit (its updates of those rows no longer HOT updates) went from
#: 0.31-0.40 to 0.45 ms at 1,000 bots and stayed within the noise at 200 (arena/ladder/README.md, thirteenth session).
CHANGED_INDEXES = (
    "CREATE INDEX fit_pairs_by_changed ON fit_pairs (ruleset, changed)",
    "CREATE INDEX fit_bots_by_changed ON fit_bots (ruleset, changed)",
)


def changes(backend: Backend, ruleset: str, since: str | None
            ) -> tuple[str, list[tuple[str, str, int, float]], list[tuple[Any, ...]]]:
    """A shared PostgreSQL ladder's rows of the fit's totals (PostgreSQL only): every row when ``since`` is None,
    else the rows written by transactions that the snapshot ``since`` (what the last call returned) could not see
    and this statement's can.  Returns (this statement's snapshot, pair rows (a, b, sets, score), bot rows (bot,
    games, comparisons, points, wins, timeouts, strikes, forfeits, errors)).

    One statement, so both tables are read under one snapshot: a result's rows of both come together.  A row
    changed again by a transaction still running is read once that one has committed (it is invisible to this
    snapshot, so the next call takes it), and a row is never read back unchanged: the same rule as the seat
    claims' tally (`claims.ClaimTally`).  The rows are found through their indexes on (ruleset, changed)
    (`CHANGED_INDEXES`, schema step 11), not by a scan of every pair.
    """
    where = "ruleset = ?"
    parameters: list[Any] = [ruleset]
    if since is not None:
        where += (" AND changed >= pg_snapshot_xmin(CAST(? AS pg_snapshot)) "
                  "AND NOT pg_visible_in_snapshot(changed, CAST(? AS pg_snapshot))")
        parameters += [since, since]
    rows = backend.rows(
        "SELECT CAST(s.at AS TEXT), r.kind, r.a, r.b, r.n1, r.n2, r.n3, r.n4, r.n5, r.n6, r.n7, r.x "
        "FROM (SELECT pg_current_snapshot() AS at) s LEFT JOIN ("
        f"SELECT 'p' AS kind, a, b, sets AS n1, 0 AS n2, 0 AS n3, 0 AS n4, 0 AS n5, 0 AS n6, 0 AS n7, score AS x "
        f"FROM fit_pairs WHERE {where} "
        f"UNION ALL SELECT 'b', bot, NULL, games, comparisons, wins, timeouts, strikes, forfeits, errors, points "
        f"FROM fit_bots WHERE {where}) r ON TRUE",
        parameters * 2,
    )
    pairs, bots = [], []
    for at, kind, a, b, n1, n2, n3, n4, n5, n6, n7, x in rows:
        if kind == "p":
            pairs.append((a, b, int(n1), float(x)))
        elif kind == "b":
            bots.append((a, int(n1), int(n2), float(x), int(n3), int(n4), int(n5), int(n6), int(n7)))
    return rows[0][0], pairs, bots


def rebuild(backend: Backend) -> None:
    """Recompute the tables from the games (inside the caller's transaction)."""
    for table in ("fit_set_pairs", "fit_pairs", "fit_bots"):
        backend.run(f"DELETE FROM {table}")
    for statement in REBUILD.split(";"):
        if statement.strip():
            backend.run(statement)


class RunningTotals:
    """One ruleset's totals in memory, kept as the tables keep them: for a server that is their only writer.

    A refit used to read ``fit_pairs`` and ``fit_bots`` back (and build the fit's matrices from the rows)
    every time, about as much CPU as the fit itself at 200 bots.  A SQLite ladder has one writer, its
    `arena serve`, so its director seeds this from the store once and adds each game whose finished
    result it committed (`add_game`, the same terms as the `add_game` that writes them, `game_terms`):
    `table` and `totals` then equal `LadderStore.pair_table` and `LadderStore.totals` value for value
    (`tests/ladder/test_running_totals.py`).  Every game it adds must be a set of one (the ladder's own
    games: its set id is its game id), which is what makes a pair's score move by the game's result.
    """

    _GROW = 64

    def __init__(self, table: "PairTable", totals: "Mapping[str, BotTotals]") -> None:
        """Seed from the store's own `pair_table` and `totals` of the ruleset."""
        import numpy as np

        self._np = np
        self._index: dict[str, int] = {}  # bot -> its row in the matrices below (order of arrival)
        self._sets = np.zeros((0, 0))  # [index of a, index of b] for a < b by name: fit_pairs.sets
        self._score = np.zeros((0, 0))  # likewise: fit_pairs.score
        #: bot -> [games, comparisons, points, wins, timeouts, strikes, forfeits, errors] (fit_bots' columns)
        self._bots: dict[str, list] = {}
        for bot, t in totals.items():
            self._bots[bot] = [t.games, 0, 0.0, t.wins, t.timeouts, t.strikes, t.forfeits, t.errors]
        rows = [self._row(bot) for bot in table.bots]
        for k, bot in enumerate(table.bots):
            record = self._bots.setdefault(bot, [int(table.games[k]), 0, 0.0, 0, 0, 0, 0, 0])
            record[1], record[2] = int(table.comparisons[k]), float(table.points[k])
        at = np.ix_(rows, rows)
        # table.bots is in name order, so its upper triangle holds the (a < b) rows as read
        self._sets[at] = np.triu(table.n, k=1)
        self._score[at] = np.triu(table.s, k=1)

    @classmethod
    def of_rows(cls, pairs: Sequence[tuple[str, str, int, float]], bots: Sequence[tuple[Any, ...]]) -> "RunningTotals":
        """Seeded from every row of the tables as `changes` returns them (a shared ladder's host)."""
        from arena.ladder.ratings import PairTable

        running = cls(PairTable.from_totals([], {}), {})
        running.put(pairs, bots)
        return running

    def _row(self, bot: str) -> int:
        row = self._index.get(bot)
        if row is None:
            row = self._index[bot] = len(self._index)
            if row >= self._sets.shape[0]:
                size = row + self._GROW
                for name in ("_sets", "_score"):
                    grown = self._np.zeros((size, size))
                    old = getattr(self, name)
                    grown[: old.shape[0], : old.shape[1]] = old
                    setattr(self, name, grown)
        return row

    def add_game(self, seats: Sequence[Any]) -> None:
        """A finished game of one set, committed: what `add_game` wrote in its transaction."""
        per_seat, pairs = game_terms(seats)
        for seat, comparisons, points in per_seat:
            record = self._bots.get(seat.bot)
            if record is None:  # the row's insert: its values as they come
                self._bots[seat.bot] = [1, comparisons, points, int(seat.placement == 1), seat.timeouts, seat.strikes,
                                        int(seat.forfeited), seat.errors]
                continue
            record[0] += 1
            record[1] += comparisons
            record[2] += points
            record[3] += int(seat.placement == 1)
            record[4] += seat.timeouts
            record[5] += seat.strikes
            record[6] += int(seat.forfeited)
            record[7] += seat.errors
        for a, b, result in pairs:
            i, j = self._row(a), self._row(b)
            self._sets[i, j] += 1
            self._score[i, j] += result

    def put(self, pairs: Sequence[tuple[str, str, int, float]], bots: Sequence[tuple[Any, ...]]) -> None:
        """Rows of the tables as they are now (`changes`: pair rows (a, b, sets, score) with a < b, bot rows (bot,
        games, comparisons, points, wins, timeouts, strikes, forfeits, errors)) in place of what was kept."""
        for bot, games, comparisons, points, wins, timeouts, strikes, forfeits, errors in bots:
            self._bots[bot] = [games, comparisons, points, wins, timeouts, strikes, forfeits, errors]
        for a, b, sets, score in pairs:
            i, j = self._row(a), self._row(b)
            self._sets[i, j] = sets
            self._score[i, j] = score

    def table(self) -> "PairTable":
        """`LadderStore.pair_table`: the same bots, matrices and per-bot arrays, built as `PairTable.from_totals`
        builds them from the rows (a bot is in it once it has a pairwise comparison)."""
        from arena.ladder.ratings import PairTable

        np = self._np
        bots = sorted(bot for bot, record in self._bots.items() if record[1])
        rows = [self._row(bot) for bot in bots]
        at = np.ix_(rows, rows)
        sets, score = self._sets[at], self._score[at]  # upper triangle: the pairs (a < b)
        # from_totals adds each row to zeros: n[i,j] = n[j,i] = sets, s[i,j] = score, s[j,i] = sets - score
        return PairTable(
            bots=bots,
            n=sets + sets.T,
            s=score + (sets - score).T,
            games=np.array([self._bots[b][0] for b in bots], dtype=int),
            comparisons=np.array([self._bots[b][1] for b in bots], dtype=int),
            points=np.array([self._bots[b][2] for b in bots], dtype=float),
        )

    def totals(self) -> "dict[str, BotTotals]":
        """`LadderStore.totals`: every bot with a finished game."""
        from arena.ladder.store.records import BotTotals

        return {bot: BotTotals(bot, int(r[0]), int(r[3]), int(r[4]), int(r[5]), int(r[6]), int(r[7]))
                for bot, r in self._bots.items()}
