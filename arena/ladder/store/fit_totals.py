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
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Sequence

from arena.ladder.store.backend import Backend

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


def add_game(backend: Backend, game_id: str, seats: Sequence[Any]) -> None:
    """Add one newly finished game (its `SeatRecord`s); inside the caller's transaction.

    Only writes, and none needs a result: the ruleset and set come from the game's row and a set's
    previous totals from ``fit_set_pairs`` inside the statements, so on PostgreSQL they all go with
    the commit (`Backend.send`), with no round trip of their own.
    """
    def score(mine: int, theirs: int) -> float:
        return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0

    placements = [(s.bot, s.placement) for s in seats if s.placement is not None]
    for seat in seats:
        others = [p for b, p in placements if b != seat.bot] if seat.placement is not None else []
        points = sum(score(seat.placement, p) for p in others)
        backend.send(
            "INSERT INTO fit_bots (ruleset, bot, games, comparisons, points, wins, timeouts, strikes, forfeits, errors) "
            "SELECT ruleset, ?, 1, ?, ?, ?, ?, ?, ?, ? FROM games WHERE id = ? "
            "ON CONFLICT (ruleset, bot) DO UPDATE SET games = fit_bots.games + 1, "
            "comparisons = fit_bots.comparisons + excluded.comparisons, points = fit_bots.points + excluded.points, "
            "wins = fit_bots.wins + excluded.wins, timeouts = fit_bots.timeouts + excluded.timeouts, "
            "strikes = fit_bots.strikes + excluded.strikes, forfeits = fit_bots.forfeits + excluded.forfeits, "
            "errors = fit_bots.errors + excluded.errors",
            (seat.bot, len(others), points, int(seat.placement == 1), seat.timeouts, seat.strikes,
             int(seat.forfeited), seat.errors, game_id),
        )
    for (a, pa), (b, pb) in combinations(sorted(placements), 2):
        if a == b:
            continue
        result = score(pa, pb)
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


def rebuild(backend: Backend) -> None:
    """Recompute the tables from the games (inside the caller's transaction)."""
    for table in ("fit_set_pairs", "fit_pairs", "fit_bots"):
        backend.run(f"DELETE FROM {table}")
    for statement in REBUILD.split(";"):
        if statement.strip():
            backend.run(statement)
