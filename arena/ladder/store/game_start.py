"""A game's start on PostgreSQL, whole, as one server-side function (schema step 10).

`LadderStore.game_started_steps` records a game as ``running``: its row in ``games`` and one
row a seat in ``seats``, and, on a ladder shared by several hosts, only if its seats are claimed
in the same transaction (`SeatClaim`, made by `SeatClaims.claim_in`).  Through the shared SQL that
is three statements: the claim (``mau_claim_seats``, `claims.CLAIM_FUNCTION`) and the two inserts,
each guarded by the claim's rows (``WHERE EXISTS``: a refused claim leaves none, so they write
nothing), all three in one read.  Each insert was bound to its values on the ladder's host
(`postgres.Binder`) and parsed and planned by the server at every start.  `START_FUNCTION`
(``mau_start_game``) does the three in one call, its plans kept by the server:

* with a claim: the claim first (the same function, so the same checks, locks and audit rows);
  refused, it writes nothing more and returns false; claimed, it inserts the rows and returns true;
* without one (a ladder of one host): it inserts the rows and returns true.

A start with a claim is then still one read (its answer says whether the game was recorded), the
start's last, so a group commit of starts keeps its one round trip with the ``COMMIT`` (`run_together`);
a start without a claim reads nothing, as before.  A duplicate game id, a seat without a bot, fail the
transaction as the inserts did.  On SQLite, which has no claims, the start stays the two inserts
of the shared SQL (`tests/ladder/test_game_start.py` holds the three paths to the same rows).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence


@dataclass(frozen=True)
class SeatClaim:
    """What a start must claim before it records anything (a shared ladder, `SeatClaims.claim_in`): the
    claiming host's name and each bot's cap (the most games it may be in at once, this one included)."""

    host: str
    caps: Mapping[str, int]
    #: The claiming process's incarnation of its host (`HostRegistry.started`): a claim made by a process that
    #: another has replaced under the host's name is refused (`claims.FENCED_CLAIM_FUNCTION`).  None: unchecked.
    started: float | None = None

    def check(self, bots: Sequence[str]) -> None:
        """Refuse a table that seats a bot twice (ValueError, naming the bot), before anything is sent.

        The claim (``mau_claim_seats``) checks each seat against the bot's open claims before this one, so
        both seats of a bot seated twice would pass a cap of 1.  The scheduler seats distinct bots
        (`arena.ladder.scheduler`), so such a table is a caller's mistake, refused here on every path
        (`LadderStore.game_started_steps`), rather than a schema step for a case no caller makes."""
        seen: set[str] = set()
        for bot in bots:
            if bot in seen:
                raise ValueError(f"a claimed start seats each bot once, and this one seats {bot!r} twice: {list(bots)}")
            seen.add(bot)

    def call(self, game_id: str, ruleset: str, bots: Sequence[str]) -> tuple[str, list[Any]]:
        """The claim alone, ``mau_claim_seats`` (shared SQL): one row, true when every seat was claimed.  With an
        incarnation, step 15's fenced claim; without one, step 8's (as the releases before step 15 call it)."""
        values = [game_id, ruleset, self.host, list(bots), [self.caps[bot] for bot in bots]]
        if self.started is None:
            return "SELECT mau_claim_seats(?, ?, ?, CAST(? AS TEXT[]), CAST(? AS INTEGER[]))", values
        return ("SELECT mau_claim_seats(?, ?, ?, CAST(? AS TEXT[]), CAST(? AS INTEGER[]), CAST(? AS DOUBLE PRECISION))",
                [*values, self.started])


#: Schema step 10 (PostgreSQL's own).  Keep it equivalent to the statements `LadderStore.game_started_steps`
#: sends without it (`tests/ladder/test_game_start.py` runs both, and SQLite); no ``?`` in it (the shared SQL's
#: placeholder).  The claim is ``mau_claim_seats`` itself, whatever step last defined it.
START_FUNCTION = """
CREATE OR REPLACE FUNCTION mau_start_game(
    p_game TEXT, p_ruleset TEXT, p_options TEXT, p_seed BIGINT, p_set TEXT, p_rotation INTEGER, p_started_at TEXT,
    p_replay_path TEXT, p_bots TEXT[], p_versions TEXT[], p_host TEXT, p_caps INTEGER[])
RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $start$
BEGIN
    -- a shared ladder's claim, whole (p_host NULL: a ladder of one host claims nothing); refused: nothing written
    IF p_host IS NOT NULL AND NOT mau_claim_seats(p_game, p_ruleset, p_host, p_bots, p_caps) THEN
        RETURN FALSE;
    END IF;
    INSERT INTO games (id, ruleset, options, seed, set_id, rotation, started_at, status, replay_path)
    VALUES (p_game, p_ruleset, p_options, p_seed, p_set, p_rotation, p_started_at, 'running', p_replay_path);
    INSERT INTO seats (game_id, seat, bot, version)
    SELECT p_game, s.seat - 1, s.bot, s.version
    FROM unnest(p_bots, p_versions) WITH ORDINALITY AS s (bot, version, seat);
    RETURN TRUE;
END
$start$
"""

#: Schema step 15 (PostgreSQL's own), beside step 10's (kept for the hosts of a release before it): the same start,
#: its claim fenced by the claiming process's incarnation of its host (``p_incarnation``, `SeatClaim.started`; NULL: not
#: checked), through the claim function of the same step (`claims.FENCED_CLAIM_FUNCTION`).
FENCED_START_FUNCTION = (
    START_FUNCTION
    .replace("p_host TEXT, p_caps INTEGER[])", "p_host TEXT, p_caps INTEGER[], p_incarnation DOUBLE PRECISION)")
    .replace("mau_claim_seats(p_game, p_ruleset, p_host, p_bots, p_caps)",
             "mau_claim_seats(p_game, p_ruleset, p_host, p_bots, p_caps, p_incarnation)")
)
assert FENCED_START_FUNCTION.count("p_incarnation") == 2, "the start function's text changed: fence it again"

_CALL = ("SELECT mau_start_game(?, ?, ?, ?, ?, ?, {started_at}, ?, CAST(? AS TEXT[]), CAST(? AS TEXT[]), ?, "
         "CAST(? AS INTEGER[]), CAST(? AS DOUBLE PRECISION))")


def options_text(options: Mapping[str, Any]) -> str:
    """A game's options as its row keeps them (JSON, keys sorted), on every path."""
    return json.dumps(options, sort_keys=True)


def call(game_id: str, ruleset: str, options: Mapping[str, Any], seed: int, set_id: str, rotation: int,
         bots: Sequence[str], versions: Sequence[str], *, started_at: str | None, replay_path: str | None,
         claim: SeatClaim | None, clock: str = "") -> tuple[str, list[Any]]:
    """The statement (shared SQL) that records a start through `START_FUNCTION`, with its values (versions: one
    a seat, as the shared statements write them).  ``started_at`` None: the database's clock when the call runs
    (``clock``, `Backend.clock`'s SQL), an argument the server works out, so the function is unchanged."""
    if started_at is None and not clock:
        raise ValueError("a start without its time needs the database's clock")
    given = () if started_at is None else (started_at,)
    return _CALL.format(started_at=clock if started_at is None else "?"), [
        game_id, ruleset, options_text(options), seed, set_id, rotation, *given, replay_path, list(bots),
        list(versions), None if claim is None else claim.host,
        None if claim is None else [claim.caps[bot] for bot in bots],
        None if claim is None else claim.started,
    ]
