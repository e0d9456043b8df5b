"""Which hosts of a shared ladder each bot is connected to, and from which client program: one program a name.

Every bot program connects to every host (the SDK opens a session to each host a Welcome lists), so a
name connected to two hosts is the rule, not a fault.  What must not happen is two *programs* under
one name, one on host A and one on host B: two versions of a bot would share one rating, and the
cluster's seat claims would count their games as one bot's.  A host refuses that only within itself
(one connection per name, `arena.server.sessions.Hub.admit`).  So each host records here the names it
has connected and the client instance each came from (``Hello.instance``: a random id a client process
sends in its Hello to every host), and a Hello is admitted only while no other live host has the name
connected from another instance (`BotHosts.claim`), checked and recorded in one transaction under a lock
on the name, so two programs saying Hello to two hosts at once cannot both pass.  A client that sends no
instance cannot be told from another program: its name is admitted on one host at a time.

``bot_hosts`` (schema step 17): one row per (bot, host) while that host has the name connected, with the
instance and when (the database's clock).  A host writes its own rows only (`claim`, `put`, `drop`,
`clear` at its join and clean stop); a host that dies leaves its rows, which count only while the host
is live as the registry judges it (its lease current, or its process still holding its host lock: a late
host is not a dead one), and are cleared by the next host that joins.  On SQLite (one host) the table is
never written.  PostgreSQL only, through the registry's connections, as ``claims.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.ladder.store.postgres import clock_text

SCHEMA = """
CREATE TABLE bot_hosts (
    bot TEXT NOT NULL,
    host TEXT NOT NULL,           -- the host that has the bot connected now (hosts.name)
    instance TEXT NOT NULL,       -- the client process it came from (Hello.instance), '' when none was given
    since TEXT NOT NULL,          -- since when that host has it from that instance (the database's clock)
    PRIMARY KEY (bot, host)
)
"""

#: The advisory lock class of a bot name's lock (``MAN``): a Hello's check and record hold it for their transaction, so two
#: hosts admitting one name at once take turns; the key is the name's ``hashtext`` (two names sharing one only take turns).
NAME_LOCK_CLASS = 0x4D414E

@dataclass(frozen=True)
class Holder:
    """Another live host that has a bot connected from another program (or from a client that gave no instance)."""

    host: str  # its name
    address: str  # its HOST:PORT (--advertise)
    since: str  # since when (ISO 8601, the database's clock)

    def refusal(self, bot: str) -> str:
        """What the refused bot is told (DUPLICATE_SESSION)."""
        return (f"bot {bot!r} is connected to host {self.host} ({self.address}) of this ladder from another program "
                f"(since {self.since}); one program per name across the ladder's hosts: stop the other one first, or "
                "give this one another name")


class BotHosts:
    """One host's rows of ``bot_hosts``, on a connection of the registry's (`HostRegistry.names_connection`)."""

    def __init__(self, registry: Any) -> None:
        from arena.ladder.store.hosts import HOST_LOCK_HELD, NOW  # (hosts.py imports this module)

        self.registry = registry
        self.host = registry.name
        #: A host row's judgement as the registry's: live while its lease is current or its process holds its lock
        self._live = f"h.state = 'live' AND (h.lease_until >= {NOW} OR {HOST_LOCK_HELD})"

    def claim(self, bot: str, instance: str, write: bool = True) -> Holder | None:
        """Record that this host has ``bot`` connected from ``instance``, unless another live host has it from another
        instance (or either gave none): then that host, and nothing is written.  ``write=False``: only the check (this
        host's row stands, for a stream it holds the name by already)."""
        with self.registry.names_connection() as db, db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (NAME_LOCK_CLASS, bot))
            row = db.execute(
                "SELECT b.host, h.address, b.since FROM bot_hosts b JOIN hosts h ON h.name = b.host "
                f"WHERE b.bot = %s AND b.host <> %s AND (b.instance <> %s OR b.instance = '') AND {self._live} "
                "ORDER BY b.since, b.host LIMIT 1",
                (bot, self.host, instance),
            ).fetchone()
            if row is not None:
                return Holder(*row)
            if write:
                self._put(db, bot, instance)
        return None

    def put(self, bot: str, instance: str) -> None:
        """Record (again) that this host has ``bot`` connected from ``instance``, without a check: the host's own
        sessions, after a sweep took this host for dead while it lived and the next join cleared its rows."""
        with self.registry.names_connection() as db, db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (NAME_LOCK_CLASS, bot))
            self._put(db, bot, instance)

    def _put(self, db: Any, bot: str, instance: str) -> None:
        db.execute(
            f"INSERT INTO bot_hosts (bot, host, instance, since) VALUES (%s, %s, %s, {clock_text()}) "
            "ON CONFLICT (bot, host) DO UPDATE SET instance = excluded.instance, since = CASE "
            "WHEN bot_hosts.instance = excluded.instance THEN bot_hosts.since ELSE excluded.since END",
            (bot, self.host, instance),
        )

    def drop(self, bot: str) -> None:
        """This host has ``bot`` connected no more."""
        with self.registry.names_connection() as db:
            db.execute("DELETE FROM bot_hosts WHERE bot = %s AND host = %s", (bot, self.host))

    def rows(self) -> dict[str, str]:
        """{bot: instance} of this host's rows."""
        with self.registry.names_connection() as db:
            return dict(db.execute("SELECT bot, instance FROM bot_hosts WHERE host = %s", (self.host,)).fetchall())


def clear(db: Any, host: str) -> None:
    """At a host's join (a new process has no session yet) and clean stop: its rows, and those of hosts marked stopped
    or dead (left by a host that died), in the caller's transaction."""
    db.execute("DELETE FROM bot_hosts WHERE host = %s OR host IN (SELECT name FROM hosts WHERE state <> 'live')",
               (host,))
