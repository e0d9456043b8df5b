"""The hosts of a shared ladder as an operator reads them: who they are, whether they are live, what they play now.

Read-only, from the rows the host registry (`arena.ladder.store.hosts`) and the seat claims
(`arena.ladder.store.claims`) keep: ``hosts`` (name, address, web view, concurrency, start, lease, stored state) and
the open ``seat_claims`` (released when a game ends).  Nothing here writes, so `arena hosts`, `arena web --db`
and any host's web view may read them with a read-only role.

A host's state is the registry's own judgement (hosts.py): ``live`` while its lease is current, or while it
still holds its host lock (a late heartbeat is not a death); ``dead`` once the lease has run out *and* the lock
is free, even before a live host's sweep has marked its row; ``stopped`` after a clean stop.  Times are the
database's clock (epoch seconds), as the registry writes them, so a reader's own clock does not matter.

A SQLite ladder has no host rows (one `arena serve` owns the file): every query here finds nothing there.

The functions take a `Backend` (the caller holds the store's lock), as ``running_on.py`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from arena.ladder.store.backend import Backend
from arena.ladder.store.hosts import HOST_LOCK_HELD, NOW

#: The games a host runs now: its open seat claims' games that are still running.
_GAMES_NOW = (
    "(SELECT COUNT(DISTINCT c.game_id) FROM seat_claims c JOIN games g ON g.id = c.game_id AND g.status = 'running' "
    "WHERE c.host = h.name AND c.released_at IS NULL)"
)


@dataclass(frozen=True)
class HostRow:
    """One host of a shared ladder, as read at ``now`` (the database's clock, epoch seconds)."""

    name: str  # `arena serve --host-name`
    address: str  # the HOST:PORT it serves bots and Spectate on (`--advertise`)
    state: str  # live, stopped or dead (see the module's doc)
    since: float  # live: when it (re)joined; stopped: when it stopped; dead: when its lease ran out
    lease_until: float  # the end of the lease its last heartbeat renewed (a stop sets it to the moment it stopped)
    concurrency: int  # its --concurrency: games it may run at once
    games: int  # games it runs now (its open seat claims)
    now: float
    web: str | None = None  # where its web view is (`arena serve --web`, `--web-advertise`), None: none, or unknown

    @property
    def lease_left_s(self) -> float:
        """Seconds the lease still runs (negative: how long ago it ran out)."""
        return self.lease_until - self.now

    @property
    def since_s(self) -> float:
        """Seconds since `since`."""
        return self.now - self.since

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "address": self.address, "state": self.state, "since": iso_time(self.since),
            "since_s": round(self.since_s, 1), "lease_until": iso_time(self.lease_until),
            "lease_left_s": round(self.lease_left_s, 1), "games": self.games, "concurrency": self.concurrency,
            "web": self.web,
        }


def iso_time(epoch: float) -> str:
    """An epoch time in the web API's form (ISO 8601, UTC, milliseconds, ``Z``)."""
    moment = datetime.fromtimestamp(epoch, timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def host_rows(backend: Backend) -> list[HostRow]:
    """Every host the ladder has had, live ones first, then by name (none on SQLite)."""
    if backend.dialect != "postgresql":
        return []
    rows = backend.rows(
        f"SELECT h.name, h.address, h.state, h.started_at, h.lease_until, h.concurrency, {HOST_LOCK_HELD}, "
        f"{_GAMES_NOW}, {NOW}, h.web FROM hosts h ORDER BY h.name"
    )
    found = []
    for name, address, stored, started, lease_until, concurrency, held, games, now, web in rows:
        state = judged_state(stored, float(lease_until), bool(held), float(now))
        since = float(started) if state == "live" else float(lease_until)
        found.append(HostRow(name, address, state, since, float(lease_until), int(concurrency), int(games), float(now),
                             web or None))
    found.sort(key=lambda row: (row.state != "live", row.name))
    return found


#: How long a stopped or dead host stays in the listings by default (`recent`): a host started with ``--port 0`` and no
#: ``--host-name`` is named after its port, so each such start leaves a row behind, and a year of them buried the live
#: hosts.  The rows stay (the seat claims name their hosts); `arena hosts --all` and ``?all=1`` list every one.
GONE_SHOWN_S = 24 * 3600.0


def recent(rows: list[HostRow], every: bool = False) -> tuple[list[HostRow], int]:
    """The rows a listing shows (all of them with ``every``; else the live hosts and those stopped or dead for at
    most `GONE_SHOWN_S`), and how many it leaves out."""
    if every:
        return rows, 0
    shown = [row for row in rows if row.state == "live" or row.since_s <= GONE_SHOWN_S]
    return shown, len(rows) - len(shown)


def judged_state(stored: str, lease_until: float, held: bool, now: float) -> str:
    """The registry's judgement of a host (hosts.py): a ``live`` row whose lease has run out and whose lock nobody
    holds is dead already, whether or not a sweep has marked it yet; one that still holds its lock is live (late)."""
    if stored == "live" and lease_until < now and not held:
        return "dead"
    return stored


def rulesets_in_play(backend: Backend) -> list[str]:
    """The rulesets of the games running now on the ladder's live hosts (their open seat claims), by name."""
    rows = backend.rows(
        "SELECT DISTINCT c.ruleset FROM seat_claims c JOIN hosts h ON h.name = c.host "
        "WHERE c.released_at IS NULL AND h.state = 'live' ORDER BY c.ruleset"
    )
    return [row[0] for row in rows]
