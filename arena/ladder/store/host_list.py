"""The hosts of a shared ladder as an operator reads them: who they are, whether they are live, what they play now.

Read-only, from the rows the host registry (`arena.ladder.store.hosts`) and the seat claims
(`arena.ladder.store.claims`) keep: ``hosts`` (name, address, concurrency, start, lease, stored state) and
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

from arena.ladder.store.backend import Backend


def rulesets_in_play(backend: Backend) -> list[str]:
    """The rulesets of the games running now on the ladder's live hosts (their open seat claims), by name."""
    rows = backend.rows(
        "SELECT DISTINCT c.ruleset FROM seat_claims c JOIN hosts h ON h.name = c.host "
        "WHERE c.released_at IS NULL AND h.state = 'live' ORDER BY c.ruleset"
    )
    return [row[0] for row in rows]
