"""A game's result commit on PostgreSQL, whole, as one server-side function (schema step 9).

`LadderStore.game_ended_steps` records a game's end: the fenced update of its row (only a
``running`` row takes a result), its seats, the rating fit's running totals (`fit_totals`),
its replay (`replays`), then the caller's ``then`` statements (a shared ladder's release of
the game's seats, `SeatClaims.release_statements`, with its ``NOTIFY``).  On SQLite those
are statements of the shared SQL, and cost no message.  On PostgreSQL they were some nine
statements a game, each bound to its values on the ladder's host (`postgres.Binder`) and
parsed and planned by the server; `END_FUNCTION` (``mau_end_game``) does all but ``then``
in one call, its plans kept by the server, so a result is two statements (the call and the
release), sent with the commit: a group commit of results is still one message.

It keeps what the statements did, case by case (arena/ladder/README.md, "Fencing"):

* a ``running`` row takes the result: the row, the seats, the fit's totals (a ``finished``
  game once, now) and the replay (replacing one stored); returns ``'ended'``;
* a row that ended already stands, and nothing changes (a commit whose reply was lost, a second
  abort), except that an abort meeting a row another host aborted stores its replay if none is
  stored (a fenced host's games); returns the row's status, and ``then`` runs after it;
* a ``finished`` result meeting an ``aborted`` row raises `CLOSED` (`GameClosed`), and a game
  without a row `UNKNOWN` (`UnknownGame`): the transaction fails, so nothing of it is written,
  ``then`` included, as when the store raised those itself.  In a group commit the shared
  transaction fails and `LadderStore.run_together` runs each write again alone, as before;
  `refusal` turns the server's error back into the store's exception.

Each row of ``fit_pairs`` and ``fit_bots`` it writes takes this transaction's id (``changed``), so a host of a
shared ladder reads only the rows new since its last refit (`fit_totals.changes`).

The fit's terms are worked out on the server from the placements, as `fit_totals.game_terms`
works them out: per bot (grouped: a bot's seats add up to what one statement a seat added), and
per pair of seated bots in the order `game_terms` gives them, one pair after the other (two seats
of one bot would make a pair twice: the second reads the set's totals the first wrote).  Names
compare in code-point order (``COLLATE "C"``: Python's order for a UTF-8 database), whatever the
database's collation, so a pair's row is (a, b) with a < b as the client wrote it.  The replay's
``stored_at`` and the game's ``ended_at`` are the database's clock when the call runs (`call`), as on SQLite, never
the host's: hosts with skewed clocks would order the ladder's results, and time its games, each by its own.
"""

from __future__ import annotations

from typing import Any, Sequence

from arena.ladder.store.records import GameClosed, SeatRecord, StoreError, UnknownGame
from arena.ladder.store.replays import PackedReplay

#: The SQLSTATEs `END_FUNCTION` raises (its own class, "MA"): a game without a row, and a finished result
#: meeting a row another host aborted.  DETAIL holds the game's id, HINT (`CLOSED`) the abort's reason.
UNKNOWN = "MAU01"
CLOSED = "MAU02"

_SCORE = "CASE WHEN {a} < {b} THEN 1.0 WHEN {a} = {b} THEN 0.5 ELSE 0.0 END"

#: Schema step 9 (PostgreSQL's own).  Keep it equivalent to the statements of the SQLite path of
#: `LadderStore.game_ended_steps` (`tests/ladder/test_store.py` and `tests/ladder/test_game_end.py` run both);
#: no ``?`` in it (the shared SQL's placeholder).
END_FUNCTION = f"""
CREATE OR REPLACE FUNCTION mau_end_game(
    p_game TEXT, p_status TEXT, p_ended_at TEXT, p_replay_path TEXT, p_reason TEXT, p_decisions INTEGER,
    p_seats INTEGER[], p_bots TEXT[], p_placements INTEGER[], p_points INTEGER[], p_strikes INTEGER[],
    p_timeouts INTEGER[], p_think_ms INTEGER[], p_seat_decisions INTEGER[], p_forfeited INTEGER[], p_errors INTEGER[],
    p_encoding TEXT, p_size INTEGER, p_sha256 TEXT, p_data BYTEA, p_stored_at TEXT)
RETURNS TEXT LANGUAGE plpgsql VOLATILE AS $end$
DECLARE
    v_ruleset TEXT;
    v_set TEXT;
    v_status TEXT;
    v_reason TEXT;
    v_pair RECORD;
BEGIN
    -- the fence: only a running row takes a result (its lock first: a sweep of this host came first, or waits)
    UPDATE games SET status = p_status, ended_at = p_ended_at, replay_path = p_replay_path, reason = p_reason,
                     decisions = p_decisions
    WHERE id = p_game AND status = 'running'
    RETURNING ruleset, set_id INTO v_ruleset, v_set;
    IF NOT FOUND THEN
        SELECT status, reason INTO v_status, v_reason FROM games WHERE id = p_game;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING ERRCODE = '{UNKNOWN}', DETAIL = p_game,
                MESSAGE = 'mau-arena: game ' || p_game || ' has no row in this database';
        END IF;
        IF v_status = 'aborted' AND p_status = 'finished' THEN
            RAISE EXCEPTION USING ERRCODE = '{CLOSED}', DETAIL = p_game, HINT = v_reason,
                MESSAGE = 'mau-arena: game ' || p_game || ' was already closed as aborted';
        END IF;
        IF v_status = 'aborted' AND p_data IS NOT NULL THEN
            -- another host aborted it (this one was taken for dead): this abort's replay, unless one is stored
            INSERT INTO replays (game_id, encoding, size, sha256, data, stored_at)
            VALUES (p_game, p_encoding, p_size, p_sha256, p_data, p_stored_at)
            ON CONFLICT (game_id) DO NOTHING;
        END IF;
        RETURN v_status;  -- ended already (the same result again, or a second abort): it stands
    END IF;
    INSERT INTO seats (game_id, seat, bot, placement, points, strikes, timeouts, think_ms, decisions, forfeited, errors)
    SELECT p_game, s.seat, s.bot, s.placement, s.points, s.strikes, s.timeouts, s.think_ms, s.decisions, s.forfeited,
           s.errors
    FROM unnest(p_seats, p_bots, p_placements, p_points, p_strikes, p_timeouts, p_think_ms, p_seat_decisions,
                p_forfeited, p_errors)
         AS s (seat, bot, placement, points, strikes, timeouts, think_ms, decisions, forfeited, errors)
    ON CONFLICT (game_id, seat) DO UPDATE SET bot = excluded.bot, placement = excluded.placement,
        points = excluded.points, strikes = excluded.strikes, timeouts = excluded.timeouts,
        think_ms = excluded.think_ms, decisions = excluded.decisions, forfeited = excluded.forfeited,
        errors = excluded.errors;
    IF p_status = 'finished' THEN
        -- the fit's totals, a game once (a running row, just now): per bot, its seats' games, comparisons, points...
        INSERT INTO fit_bots (ruleset, bot, games, comparisons, points, wins, timeouts, strikes, forfeits, errors,
                              changed)
        SELECT v_ruleset, s.bot, COUNT(*), SUM(c.comparisons), SUM(c.points),
               SUM(CASE WHEN s.placement = 1 THEN 1 ELSE 0 END), SUM(s.timeouts), SUM(s.strikes), SUM(s.forfeited),
               SUM(s.errors), pg_current_xact_id()
        FROM unnest(p_bots, p_placements, p_strikes, p_timeouts, p_forfeited, p_errors)
             AS s (bot, placement, strikes, timeouts, forfeited, errors)
        CROSS JOIN LATERAL (
            SELECT COUNT(*) AS comparisons,
                   COALESCE(SUM({_SCORE.format(a="s.placement", b="o.placement")}), 0) AS points
            FROM unnest(p_bots, p_placements) AS o (bot, placement)
            WHERE s.placement IS NOT NULL AND o.placement IS NOT NULL AND o.bot <> s.bot) c
        GROUP BY s.bot
        ON CONFLICT (ruleset, bot) DO UPDATE SET games = fit_bots.games + excluded.games,
            comparisons = fit_bots.comparisons + excluded.comparisons, points = fit_bots.points + excluded.points,
            wins = fit_bots.wins + excluded.wins, timeouts = fit_bots.timeouts + excluded.timeouts,
            strikes = fit_bots.strikes + excluded.strikes, forfeits = fit_bots.forfeits + excluded.forfeits,
            errors = fit_bots.errors + excluded.errors, changed = excluded.changed;
        -- ...and per pair (a < b), in `game_terms`' order: the set's average moves from total/games to
        -- (total + result)/(games + 1) (a new set: to result, and counts once more), read before it is updated
        FOR v_pair IN
            WITH p AS (SELECT o.bot, o.placement, row_number() OVER (ORDER BY o.bot COLLATE "C", o.placement) AS k
                       FROM unnest(p_bots, p_placements) AS o (bot, placement) WHERE o.placement IS NOT NULL)
            SELECT x.bot AS a, y.bot AS b,
                   CAST({_SCORE.format(a="x.placement", b="y.placement")} AS DOUBLE PRECISION) AS result
            FROM p x JOIN p y ON x.k < y.k AND x.bot <> y.bot
            ORDER BY x.k, y.k
        LOOP
            INSERT INTO fit_pairs (ruleset, a, b, sets, score, changed)
            SELECT v_ruleset, v_pair.a, v_pair.b, CASE WHEN f.games IS NULL THEN 1 ELSE 0 END,
                   CASE WHEN f.games IS NULL THEN v_pair.result
                        ELSE (f.score + v_pair.result) / (f.games + 1) - f.score / f.games END,
                   pg_current_xact_id()
            FROM (SELECT 1) one
            LEFT JOIN fit_set_pairs f
                   ON f.ruleset = v_ruleset AND f.set_id = v_set AND f.a = v_pair.a AND f.b = v_pair.b
            ON CONFLICT (ruleset, a, b) DO UPDATE SET sets = fit_pairs.sets + excluded.sets,
                score = fit_pairs.score + excluded.score, changed = excluded.changed;
            INSERT INTO fit_set_pairs (ruleset, set_id, a, b, games, score)
            VALUES (v_ruleset, v_set, v_pair.a, v_pair.b, 1, v_pair.result)
            ON CONFLICT (ruleset, set_id, a, b) DO UPDATE SET games = fit_set_pairs.games + 1,
                score = fit_set_pairs.score + excluded.score;
        END LOOP;
    END IF;
    IF p_data IS NOT NULL THEN
        INSERT INTO replays (game_id, encoding, size, sha256, data, stored_at)
        VALUES (p_game, p_encoding, p_size, p_sha256, p_data, p_stored_at)
        ON CONFLICT (game_id) DO UPDATE SET encoding = excluded.encoding, size = excluded.size,
            sha256 = excluded.sha256, data = excluded.data, stored_at = excluded.stored_at;
    END IF;
    RETURN 'ended';
END
$end$
"""

_CALL = ("SELECT mau_end_game(?, ?, {ended_at}, ?, ?, ?, " + ", ".join(["CAST(? AS INTEGER[])", "CAST(? AS TEXT[])"]
                                                                       + ["CAST(? AS INTEGER[])"] * 8)
         + ", ?, ?, ?, ?, {stored_at})")


def call(game_id: str, status: str, seats: Sequence[SeatRecord], *, ended_at: str | None, replay_path: str | None,
         reason: str, decisions: int, replay: PackedReplay | None, clock: str = "") -> tuple[str, list[Any]]:
    """The statement (shared SQL) that ends a game through `END_FUNCTION`, with its values: the seats column by
    column (a placement and points only for a finished game, as the SQLite path writes them).  ``ended_at`` None,
    and the replay's ``stored_at`` always: the database's clock when the call runs (``clock``, `Backend.clock`'s
    SQL: arguments the server works out, so the function is unchanged), never the host's."""
    if (ended_at is None or replay is not None) and not clock:
        raise ValueError("a result dated by the database needs its clock")
    finished = status == "finished"
    sql = _CALL.format(ended_at=clock if ended_at is None else "?", stored_at=clock if replay is not None else "?")
    return sql, [
        game_id, status, *(() if ended_at is None else (ended_at,)), replay_path, reason, decisions,
        [s.seat for s in seats], [s.bot for s in seats],
        [s.placement if finished else None for s in seats], [s.points if finished else None for s in seats],
        [s.strikes for s in seats], [s.timeouts for s in seats], [s.think_ms for s in seats],
        [s.decisions for s in seats], [int(s.forfeited) for s in seats], [s.errors for s in seats],
        *((replay.encoding, replay.size, replay.sha256, replay.data) if replay is not None
          else (None, None, None, None, None)),
    ]


def refusal(error: BaseException) -> StoreError | None:
    """The store's exception for a database error that is `END_FUNCTION` refusing a result (None for any other)."""
    state = getattr(error, "sqlstate", None)
    if state not in (UNKNOWN, CLOSED):
        return None
    diag = error.diag  # type: ignore[attr-defined]
    game_id = diag.message_detail or ""
    if state == UNKNOWN:
        return UnknownGame(game_id)
    return GameClosed(game_id, "aborted", diag.message_hint or "")
