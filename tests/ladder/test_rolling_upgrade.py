"""A rolling upgrade through schema steps 10-11 (docs/deploy.md, section 7): two hosts of different releases
share one PostgreSQL at the current schema, claiming seats for the same bots at once.

Host "old" runs the release before step 10: its store records a start with the shared statements (the claim's
call, ``mau_claim_seats`` of step 7, then the two inserts guarded by the claim's rows:
`LadderStore.game_started_steps` with ``starts_games_on_the_server`` False); host "new" with step 10's
``mau_start_game``.  Both are registered hosts (`HostRegistry`), each with its own store, as `arena serve` has;
both end games through the real end path (``mau_end_game``, step 9, which both releases have), freeing the seats
in the result's commit (`SeatClaims.release_statements`).

1. Lockstep, each way: one host's group commit holds a start's claim in flight (its bots' rows locked, not yet
   committed: the start after it, which shares a bot, waits to read until the other host has claimed) while the
   other host claims: a table with a locked bot is refused at once (never waited for), a table of other bots
   claimed, a bot at its cap through the other host's committed claim refused; then the held group commit goes
   on, its second start counting the other host's claims.
2. A race: both hosts on their own threads claim tables from overlapping sets of bots with caps of 1 to 3, in
   group commits of one or two starts, and end their games (finished, some aborted) as they go.
3. One table started and ended by each host with the same values.

Then, from the database: no bot ever over its cap across both hosts, no seat booked twice, every claim released
(`claim_audit`); every finished game rated once (the fit's running totals equal those recomputed from the rows,
and each bot's rated games the finished games the hosts recorded for it, a result committed again changing
nothing); the rows each host wrote of the same shape, and those of (3) the same but for the game's id and host.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import pytest
from claim_audit import audit_claims
from test_claims import host

from arena.ladder.store import SCHEMA_VERSION, LadderStore, SeatRecord
from arena.ladder.store.ladder_store import Call

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")

RULESET = "moumou"
LEASE = 600.0  # seconds: no heartbeat in this test, and no lease may lapse while it runs on a loaded machine
WAIT = 60.0  # seconds: the most a host waits for the other to reach a point of the lockstep (then it fails)
CAPS = {"a": 1, "b": 2, "c": 1, "d": 2, "e": 1, "f": 2, "g": 2, "h": 1, "i": 3, "j": 1, "k": 2, "l": 3}
POOLS = {"old": "abcdefghi", "new": "defghijkl"}  # the race's bots: d-i on both hosts
ROUNDS = 100


@dataclass(eq=False)
class Start(Call):
    """A start for `LadderStore.run_together`, with its game's id and bots."""

    game: str = ""
    bots: tuple[str, ...] = ()


class Host:
    """One host of a release: its store (its own connection), its registry and claims, and what it recorded."""

    def __init__(self, url: str, name: str, on_the_server: bool) -> None:
        self.name = name
        self.store = LadderStore.open(url, shared=True)
        self.store.backend.starts_games_on_the_server = on_the_server  # False: the release before step 10
        self.registry, self.claims = host(url, name, lease_s=LEASE)
        self.claims.ensure_bots(list(CAPS))
        self.open: list[tuple[str, tuple[str, ...]]] = []  # started, not ended: (game, bots)
        self.refused = 0  # starts not recorded (a claim refused)
        self.ended: dict[str, str] = {}  # game -> finished or aborted
        self.results: dict[str, list[SeatRecord]] = {}  # the finished games' seats
        self.number = 0

    def start_call(self, bots: Sequence[str], game: str | None = None, options: dict[str, Any] | None = None,
                   set_id: str | None = None, **values: Any) -> Start:
        """A start of these bots with its seats claimed at their caps, as the director makes it (`Call.keys`)."""
        if game is None:
            self.number += 1
            game = f"{self.name}-{self.number}"
        seated = tuple(bots)
        return Start(lambda: self.store.game_started_steps(game, RULESET, options or {}, 1, set_id or game, 0, seated,
                                                           claim=self.claims.claim_in(seated, CAPS), **values),
                     keys=frozenset(seated), game=game, bots=seated)

    def started(self, calls: Sequence[Start]) -> list[bool]:
        """Run the starts in one group commit; returns which were recorded (a claim refused: not recorded)."""
        self.store.run_together(calls)
        for call in calls:
            assert call.error is None, call.error
            if call.result:
                self.open.append((call.game, call.bots))
            else:
                self.refused += 1
        return [call.result for call in calls]

    def start(self, *bots: str) -> bool:
        return self.started([self.start_call(bots)])[0]

    def end(self, games: Sequence[tuple[str, tuple[str, ...]]], rng: random.Random, abort: Callable[[str], bool],
            **values: Any) -> None:
        """End these games in one group commit (finished with placements drawn from rng, or aborted), each
        freeing its seats in its commit."""
        calls = []
        for game, bots in games:
            self.open.remove((game, bots))
            status = "aborted" if abort(game) else "finished"
            order = rng.sample(range(1, len(bots) + 1), len(bots))
            seats = [SeatRecord(seat, bot, placement=order[seat], points=10 * order[seat], strikes=seat,
                                think_ms=100 + seat, decisions=3) for seat, bot in enumerate(bots)]
            self.ended[game] = status
            if status == "finished":
                self.results[game] = seats
            calls.append(Call(lambda game=game, status=status, seats=seats: self.store.game_ended_steps(
                game, status, seats, reason="" if status == "finished" else "a seat left", decisions=6,
                then=self.claims.release_statements(game), **values)))
        self.store.run_together(calls)
        assert all(call.error is None for call in calls), [call.error for call in calls]

    def close(self) -> None:
        self.registry.close()
        self.store.close()


def held_after(steps, reached: threading.Event, go: threading.Event):
    """A start's steps that begin only once the other host has acted: in a group commit behind a start sharing
    a bot, they run after that start's claim went to the database, its transaction still open."""
    reached.set()
    assert go.wait(WAIT), "the other host never finished its claims"
    return (yield from steps)


def while_held(holder: Host, first: Start, second: Start, other: Callable[[], Any]) -> tuple[list[bool], Any]:
    """``holder`` runs ``first`` and ``second`` (sharing a bot) in one group commit on a thread of its own, and
    ``other`` runs while ``first``'s claim is in flight; returns (holder's outcomes, other's)."""
    reached, go = threading.Event(), threading.Event()
    inner = second.fn
    second.fn = lambda: held_after(inner(), reached, go)
    outcome: dict[str, Any] = {}

    def hold() -> None:
        try:
            outcome["held"] = holder.started([first, second])
        except BaseException as error:  # the main thread reports it
            outcome["error"] = error

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert reached.wait(WAIT), "the holder's group commit never reached its second start"
        done = other()
    finally:
        go.set()
        thread.join(WAIT)
    assert not thread.is_alive() and "error" not in outcome, outcome
    return outcome["held"], done


def race(one: Host, seed: int) -> None:
    """A host's share of the race: claim tables from its pool, end its games as it goes, end them all last."""
    rng = random.Random(seed)
    pool = POOLS[one.name]
    for _round in range(ROUNDS):
        tables = [rng.sample(pool, rng.choice((2, 2, 3))) for _ in range(rng.choice((1, 2)))]
        one.started([one.start_call(bots) for bots in tables])
        if len(one.open) >= 3:
            one.end(one.open[: rng.choice((1, 2))], rng, abort=lambda game: rng.random() < 0.15)
    one.end(list(one.open), rng, abort=lambda game: False)


def shared_at_once(claims: Sequence[tuple]) -> set[str]:
    """The bots that were in games on both hosts at some moment (`claim_audit`'s rows, on the database's clock)."""
    events: dict[str, list[tuple[float, int, str]]] = {}
    for _game, _seat, bot, host_name, _cap, _busy, claimed, released in claims:
        events.setdefault(bot, []).extend([(claimed, 1, host_name), (released, -1, host_name)])
    shared = set()
    for bot, steps in events.items():
        held = {"old": 0, "new": 0}
        for _at, step, host_name in sorted(steps, key=lambda e: (e[0], e[1])):
            held[host_name] += step
            if held["old"] and held["new"]:
                shared.add(bot)
    return shared


def shape(row: Sequence[Any]) -> tuple[str | None, ...]:
    return tuple(None if value is None else type(value).__name__ for value in row)


def rows_by_host(store: LadderStore, sql: str) -> dict[str, list[tuple]]:
    """The rows a query returns, by the host that claimed the game: the query's first column is the game's id."""
    found: dict[str, list[tuple]] = {}
    for host_name, *row in store.backend.rows(
            f"SELECT c.host, r.* FROM ({sql}) r JOIN (SELECT DISTINCT game_id, host FROM seat_claims) c "
            "ON c.game_id = r.game_id"):
        found.setdefault(host_name, []).append(tuple(row))
    return found


GAMES = ("SELECT id AS game_id, ruleset, options, seed, set_id, rotation, started_at, status, replay_path, ended_at, "
         "reason, decisions FROM games")
SEATS = ("SELECT game_id, seat, bot, version, placement, points, strikes, timeouts, think_ms, decisions, forfeited, "
         "errors FROM seats")
CLAIMS = ("SELECT game_id, seat, bot, ruleset, cap, busy, claim_xid IS NOT NULL, released_at IS NOT NULL "
          "FROM seat_claims")


def test_hosts_of_the_releases_before_and_after_step_10_share_claims_caps_and_results(postgres_db):
    old, new = Host(postgres_db, "old", on_the_server=False), Host(postgres_db, "new", on_the_server=True)
    rng = random.Random(14)
    try:
        assert old.store.schema_version() == SCHEMA_VERSION >= 11  # steps 10 and 11 applied
        assert not old.store.backend.starts_games_on_the_server and new.store.backend.starts_games_on_the_server

        # 1. old's claim of a and b in flight: new skips what it locks, and claims the rest.
        held, other = while_held(old, old.start_call("ab"), old.start_call("bc"),
                                 lambda: [new.start("a", "d"), new.start("d", "e"), new.start("b", "f")])
        assert other == [False, True, False]  # a, then b, locked by old's claim: refused, never waited for
        assert held == [True, True]  # b's second game (cap 2), counted after its first in the same commit
        # new's claim of d and f in flight: old skips d; e is at its cap of 1 through new's committed claim.
        held, other = while_held(new, new.start_call("df"), new.start_call("fh"),
                                 lambda: [old.start("d", "g"), old.start("e", "g"), old.start("g", "h")])
        assert other == [False, False, True]
        assert held == [True, False]  # h at its cap of 1 through old's claim (the older release's statements)
        assert {bot: n for bot, n in new.store.backend.rows(
            "SELECT bot, COUNT(*) FROM seat_claims WHERE released_at IS NULL GROUP BY bot")} == {
            "a": 1, "b": 2, "c": 1, "d": 2, "e": 1, "f": 1, "g": 1, "h": 1}
        for one in (old, new):
            one.end(list(one.open), rng, abort=lambda game: game == "old-2")

        # 2. the race, both hosts at once on overlapping bots.
        failures: list[BaseException] = []

        def run(one: Host, seed: int) -> None:
            try:
                race(one, seed)
            except BaseException as error:  # the main thread reports it
                failures.append(error)

        refused = {one.name: one.refused for one in (old, new)}
        threads = [threading.Thread(target=run, args=(one, seed)) for one, seed in ((old, 1), (new, 2))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not failures, failures
        assert all(len(one.ended) > 20 and one.refused > refused[one.name] for one in (old, new)), {
            one.name: (len(one.ended), one.refused - refused[one.name]) for one in (old, new)}  # claims met caps

        # 3. the same table, started and ended the same way by each host: old sends three statements, new one.
        values = dict(options={"deal": {"hand": 7}, "n": 3}, set_id="same", versions=["1.0"],
                      started_at="2026-11-29T06:00:00.000+00:00", replay_path="/r/same.part")
        sent = {}
        for one in (old, new):
            before = one.store.stats.statements
            assert one.started([one.start_call("kl", game=f"same-{one.name}", **values)]) == [True]
            sent[one.name] = one.store.stats.statements - before
            one.end(list(one.open), random.Random(3), abort=lambda game: False,
                    ended_at="2026-11-29T06:01:00.000+00:00")
        assert sent == {"old": 3, "new": 1}

        # Claims: no bot over its cap, no seat booked twice, every claim released, over both hosts.
        claims = audit_claims(postgres_db)
        assert {claim[3] for claim in claims} == {"old", "new"}
        assert shared_at_once(claims)  # the race had bots in games on both hosts at the same moment

        # Results: every finished game rated once, the aborted never.
        store = new.store
        recorded = {**old.ended, **new.ended}
        assert dict(store.backend.rows("SELECT id, status FROM games")) == recorded
        finished = {**old.results, **new.results}
        rated = {}
        for seats in finished.values():
            for seat in seats:
                rated[seat.bot] = rated.get(seat.bot, 0) + 1
        totals = store.totals(RULESET)
        assert {bot: row.games for bot, row in totals.items()} == rated
        assert totals == store.totals_recomputed(RULESET)
        table, recomputed = store.pair_table(RULESET), store.pair_table_recomputed(RULESET)
        assert table.bots == recomputed.bots
        for field in ("n", "s", "games", "comparisons", "points"):
            assert np.allclose(getattr(table, field), getattr(recomputed, field)), field
        assert len(store.rated_games(RULESET)) == len(finished)
        for one in (old, new):  # a result committed again (its reply lost): nothing changes
            game, seats = next(iter(one.results.items()))
            one.store.game_ended(game, "finished", seats, then=one.claims.release_statements(game))
        assert store.totals(RULESET) == totals

        # Rows: each host's of the same shape; the same table's the same, but for its id and host.
        for sql in (GAMES, SEATS, CLAIMS):
            written = rows_by_host(store, sql)
            assert {shape(row) for row in written["old"]} == {shape(row) for row in written["new"]}, sql
            same = {name: sorted(row[1:] for row in rows if row[0] == f"same-{name}") for name, rows in written.items()}
            assert same["old"] and same["old"] == same["new"], sql
    finally:
        old.close()
        new.close()
