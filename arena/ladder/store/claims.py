"""Seat claims: how hosts sharing one PostgreSQL ladder keep every bot within its games at once.

A host seats a table only after claiming every seat in the database, in one short
transaction (`SeatClaims.claim`), and only while its own lease is current (a host whose
lease lapsed may be swept at any moment: it claims nothing until it has renewed):

1. lock the bots' rows of ``bot_slots`` with ``FOR UPDATE SKIP LOCKED``, in name order:
   if another host is claiming one of these bots at this very moment, the row is skipped
   and this table is simply not started now (the scheduler plans again soon): no host
   ever waits on another, and no two claims for one bot interleave;
2. count each bot's open claims over all hosts (``seat_claims`` rows not released);
3. refuse the table if any bot would go over its cap (``min(its max_games, the arena's
   --max-games-per-bot, its share of the cluster's slots)``), else insert one row per
   seat, recording the cap and the count it was checked against.

The open claims *are* the busy counts: there is no counter that a crash could leave
wrong.  A seat is released when its game has ended (`SeatClaims.release`, which also
wakes the other hosts' schedulers with ``NOTIFY``, see `HostRegistry.listen`); the claims
of a host that died are released by whichever live host finds it dead
(`arena.ladder.store.hosts`).  Rows are kept afterwards: ``(bot, claimed_at,
released_at)`` on the database's clock is the audit that shows, after the fact, that
no bot was ever over its cap and no seat was booked twice.

`SeatClaims.load` gives the scheduler the cluster's view: each bot's busy count and
the games and pairings scheduled on every host since a moment, so its fairness rules
compare counts over the whole ladder rather than one host's share of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from arena.ladder.store.hosts import NOW, SEATS_FREED, HostRegistry


@dataclass
class ClusterLoad:
    """What every host has scheduled, as the database says now."""

    busy: dict[str, int] = field(default_factory=dict)                      # bot -> open claims
    games: dict[str, dict[str, int]] = field(default_factory=dict)          # ruleset -> bot -> games since
    pairs: dict[str, dict[frozenset[str], int]] = field(default_factory=dict)  # ruleset -> pair -> games since
    slots: int = 0                                                          # the live hosts' concurrency, summed
    since: float = 0.0


class SeatClaims:
    def __init__(self, registry: HostRegistry) -> None:
        self.registry = registry
        self._known: set[str] = set()

    def now(self) -> float:
        with self.registry.connection() as db:
            return float(db.execute(f"SELECT {NOW}").fetchone()[0])

    def ensure_bots(self, bots: Sequence[str]) -> None:
        """Give new bots their ``bot_slots`` row (outside any claim, so a claim never waits on an insert)."""
        new = sorted(set(bots) - self._known)
        if not new:
            return
        with self.registry.connection() as db:
            db.execute("INSERT INTO bot_slots (bot) SELECT unnest(CAST(%s AS TEXT[])) ON CONFLICT DO NOTHING", (new,))
        self._known.update(new)

    def claim(self, game_id: str, ruleset: str, bots: Sequence[str], caps: Mapping[str, int]) -> bool:
        """Claim every seat of a game (seat i is bots[i]) or none; False when a bot is busy or being claimed."""
        psycopg = self.registry._psycopg
        self.ensure_bots(bots)
        claimed = False
        with self.registry.connection() as db:
            with db.transaction():
                # Only under a current lease: a host whose lease lapsed may be swept at any moment (its
                # claims released), so it claims nothing until it has renewed.  The share lock keeps a
                # sweep of this host (FOR UPDATE SKIP LOCKED) from interleaving with the claim.
                if db.execute(
                    f"SELECT 1 FROM hosts WHERE name = %s AND state = 'live' AND lease_until >= {NOW} FOR SHARE",
                    (self.registry.name,),
                ).fetchone() is None:
                    raise psycopg.Rollback()
                locked = db.execute(
                    "SELECT bot FROM bot_slots WHERE bot = ANY(%s) ORDER BY bot FOR UPDATE SKIP LOCKED", (list(bots),)
                ).fetchall()
                if len(locked) < len(set(bots)):
                    raise psycopg.Rollback()
                busy = dict(db.execute(
                    "SELECT bot, COUNT(*) FROM seat_claims WHERE bot = ANY(%s) AND released_at IS NULL GROUP BY bot",
                    (list(bots),),
                ).fetchall())
                if any(busy.get(bot, 0) + 1 > caps[bot] for bot in bots):
                    raise psycopg.Rollback()
                with db.cursor() as cursor:
                    cursor.executemany(
                        "INSERT INTO seat_claims (game_id, seat, bot, ruleset, host, cap, busy, claimed_at) "
                        f"VALUES (%s, %s, %s, %s, %s, %s, %s, {NOW})",
                        [(game_id, seat, bot, ruleset, self.registry.name, caps[bot], busy.get(bot, 0) + 1)
                         for seat, bot in enumerate(bots)],
                    )
                claimed = True
        return claimed

    def release(self, game_id: str) -> int:
        """The game is over: its seats are free again (the other hosts are told).  Returns how many."""
        with self.registry.connection() as db:
            with db.transaction():
                released = db.execute(
                    f"UPDATE seat_claims SET released_at = {NOW} WHERE game_id = %s AND released_at IS NULL", (game_id,)
                ).rowcount
                if released:
                    db.execute("SELECT pg_notify(%s, %s)", (SEATS_FREED, self.registry.name))
            return released

    def load(self, since: float, bots: Sequence[str]) -> ClusterLoad:
        """Busy counts of these bots, and the games and pairings every host scheduled since ``since``."""
        load = ClusterLoad(since=since)
        with self.registry.connection() as db:
            load.busy = {bot: int(n) for bot, n in db.execute(
                "SELECT bot, COUNT(*) FROM seat_claims WHERE bot = ANY(%s) AND released_at IS NULL GROUP BY bot",
                (list(bots),),
            ).fetchall()}
            for ruleset, bot, n in db.execute(
                "SELECT ruleset, bot, COUNT(*) FROM seat_claims WHERE claimed_at >= %s GROUP BY ruleset, bot", (since,)
            ).fetchall():
                load.games.setdefault(ruleset, {})[bot] = int(n)
            for ruleset, a, b, n in db.execute(
                "SELECT a.ruleset, a.bot, b.bot, COUNT(*) FROM seat_claims a JOIN seat_claims b "
                "ON b.game_id = a.game_id AND a.bot < b.bot WHERE a.claimed_at >= %s GROUP BY a.ruleset, a.bot, b.bot",
                (since,),
            ).fetchall():
                load.pairs.setdefault(ruleset, {})[frozenset((a, b))] = int(n)
            load.slots = int(db.execute(
                f"SELECT COALESCE(SUM(concurrency), 0) FROM hosts WHERE state = 'live' AND lease_until >= {NOW}"
            ).fetchone()[0])
        return load
