"""A claimed start seats each bot once: the store refuses a claim that names one bot twice, before any statement.

The claim (``mau_claim_seats``, schema step 7, called by step 10's ``mau_start_game`` too) checks each seat
against the bot's open claims counted before this one, so the two seats of a bot seated twice would both pass a
cap of 1 and the bot would hold two games at once.  The scheduler builds tables of distinct bots, so nothing
asks for one; `LadderStore.game_started_steps` raises ValueError naming the bot instead, on every path: SQLite
(which has no claims), PostgreSQL with the function, and PostgreSQL through the older release's statements.
A start without a claim (a ladder of one host) still seats what it is given (`test_game_start.py`'s "g3").
"""

from __future__ import annotations

import pytest

from arena.ladder.store import LadderStore
from arena.ladder.store.claims import SeatClaims
from arena.ladder.store.game_start import SeatClaim
from arena.ladder.store.hosts import HostRegistry
from arena.ladder.store.ladder_store import Call

RULESET = "moumou"
ROWS = {"games": "SELECT id FROM games", "seats": "SELECT game_id, seat, bot FROM seats"}


@pytest.fixture(params=["sqlite", "postgresql-function", "postgresql-statements"])
def ladder(request, tmp_path):
    """(store, claim maker): a store, and a function making the claim its start would carry (host "A")."""
    if request.param == "sqlite":
        store = LadderStore.open(tmp_path / "a.db")
        yield store, lambda bots, caps: SeatClaim("A", {bot: caps[bot] for bot in bots})
        store.close()
        return
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")
    url = request.getfixturevalue("postgres_db")
    store = LadderStore.open(url, shared=True)
    store.backend.starts_games_on_the_server = request.param == "postgresql-function"
    registry = HostRegistry(url, "A", "A.example:1", concurrency=4, lease_s=60)
    registry.join()
    claims = SeatClaims(registry)
    claims.ensure_bots(["x", "y", "z"])
    yield store, claims.claim_in
    registry.close()
    store.close()


def written(store: LadderStore) -> dict[str, list]:
    tables = dict(ROWS)
    if store.backend.dialect == "postgresql":
        tables["claims"] = "SELECT game_id, seat, bot, busy FROM seat_claims"
    return {table: sorted(store.backend.rows(sql)) for table, sql in tables.items()}


def test_a_claim_seating_a_bot_twice_is_refused_naming_it_and_writes_nothing(ladder):
    store, claim_in = ladder
    empty = written(store)
    bots = ["x", "y", "x"]
    with pytest.raises(ValueError, match="'x' twice"):
        store.game_started("g1", RULESET, {}, 1, "g1", 0, bots, claim=claim_in(bots, {"x": 1, "y": 1}))
    assert written(store) == empty


@pytest.mark.parametrize("ladder", ["postgresql-function", "postgresql-statements"], indirect=True)
def test_in_a_group_commit_only_the_start_seating_a_bot_twice_is_refused(ladder):
    """The director's way in: the shared transaction fails, each start runs again alone (`run_together`)."""
    store, claim_in = ladder

    def start(game_id, bots):
        return Call(lambda: store.game_started_steps(game_id, RULESET, {}, 1, game_id, 0, bots,
                                                     claim=claim_in(bots, dict.fromkeys(bots, 1))),
                    keys=frozenset(bots))

    calls = [start("g1", ["x", "y"]), start("g2", ["z", "z"])]
    store.run_together(calls)
    assert calls[0].error is None and calls[0].result is True
    assert isinstance(calls[1].error, ValueError) and "'z' twice" in str(calls[1].error)
    assert written(store) == {"games": [("g1",)], "seats": [("g1", 0, "x"), ("g1", 1, "y")],
                              "claims": [("g1", 0, "x", 1), ("g1", 1, "y", 1)]}
