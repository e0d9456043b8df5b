"""`NameHolds`: one program per bot name across the hosts of a shared ladder, this host's side.

The server asks it about every Hello that passed its token check, before the session is admitted
(`claim`, on a worker thread), and tells it when each admitted stream has ended (`release`).  It keeps,
in memory, which of this host's streams hold each name and from which client instance (``Hello.instance``),
and mirrors that in the ``bot_hosts`` table (`arena.ladder.store.bot_hosts`): a row per name this host
has connected, saying the instance of its oldest stream.  A Hello is refused (DUPLICATE_SESSION, naming
the host) when another live host has the name connected from another program; the server's own rule
(one connection per name on a host, `Hub.admit`) is unchanged and comes after this one.

Why a new Hello of the same program on this host (a stream that dropped, resumed) is admitted without
asking the database: its instance already holds the name here, so no other host can hold it from
another (their claims saw this host's row).  A Hello of another program while this host still holds the
name is checked against the other hosts but writes nothing: the hub refuses it while the first stream is
connected, and when the first has just ended the row follows at its release.

Writes are made in the order of the state they write (`sync` reads what to write when it writes it), so
a release and a claim racing for one name never leave the row behind the memory.  A write that fails
(the database away) is retried at the next `sync` (each heartbeat, `Membership.run`); until it succeeds
the row may say the name is held here a little longer than it is, which refuses another program for
that long, never admits two.
"""

from __future__ import annotations

import itertools
import logging
import threading
from typing import Any

log = logging.getLogger("arena.ladder")

#: How long a Hello waits for the host to have joined its ladder (claims before then cannot be checked).
JOIN_WAIT_S = 30.0


class NameHolds:
    """This host's held bot names: the ``names`` hook of `arena.server.config.ServerConfig`."""

    def __init__(self) -> None:
        self.rows: Any = None  # `BotHosts`, once this host has joined (`attach`)
        self._attached = threading.Event()
        self._lock = threading.Lock()  # guards the dicts and sets below
        #: name -> {ticket: instance} of this host's streams that hold it, oldest first
        self._held: dict[str, dict[int, str]] = {}
        self._written: dict[str, str] = {}  # name -> the instance its row says (what this host wrote last)
        self._dirty: set[str] = set()  # names whose row may not say what `_held` does
        self._writing = threading.Lock()  # one check or write at a time: rows written in the state's order
        self._tickets = itertools.count(1)
        self._failing = False  # the last write failed (said once in the log until one succeeds)

    def attach(self, rows: Any) -> None:
        """This host has joined (its rows cleared): check and record from now on."""
        self.rows = rows
        self._attached.set()

    # ---- the server's calls

    def claim(self, name: str, instance: str) -> tuple[int | None, str | None]:
        """A Hello for ``name`` from ``instance`` ("" none given), its token checked: (a ticket, None) when no other
        live host has the name from another program (the ticket goes back to `release` when the stream ends, or
        when the hub refuses it after all), else (None, why).  Blocks on the database; raises when it is away."""
        if not self._attached.wait(JOIN_WAIT_S):
            raise RuntimeError("this host has not joined its ladder yet")
        with self._writing:
            with self._lock:
                here = list(self._held.get(name, {}).values())
            if not (instance and instance in here):  # not a stream of a program that holds the name here already
                holder = self.rows.claim(name, instance, write=not here)
                if holder is not None:
                    return None, holder.refusal(name)
            ticket = next(self._tickets)
            with self._lock:
                self._held.setdefault(name, {})[ticket] = instance
                if not here:
                    self._written[name] = instance
            return ticket, None

    def release(self, name: str, ticket: int) -> None:
        """A stream that held ``name`` (its `claim`'s ticket) has ended, or was refused after its claim."""
        with self._lock:
            held = self._held.get(name)
            if held is None or held.pop(ticket, None) is None:
                return
            if not held:
                del self._held[name]
            self._dirty.add(name)
        self.sync()

    # ---- the ladder's calls

    def sync(self) -> None:
        """Write each changed name's row to what this host holds now (a failed write stays to do)."""
        if self.rows is None:
            return
        with self._writing:
            with self._lock:
                names, self._dirty = self._dirty, set()
            for name in sorted(names):
                with self._lock:
                    held = self._held.get(name)
                    want = next(iter(held.values())) if held else None
                    written = self._written.get(name)
                try:
                    if want is None and written is not None:
                        self.rows.drop(name)
                    elif want is not None and want != written:
                        self.rows.put(name, want)
                except Exception as error:  # the database is away: later (each heartbeat)
                    with self._lock:
                        self._dirty.add(name)
                    if not self._failing:
                        log.warning("cannot record where bot %s is connected (%s): retrying", name,
                                    " ".join(str(error).split())[:160])
                    self._failing = True
                    continue
                self._failing = False
                with self._lock:
                    if want is None:
                        self._written.pop(name, None)
                    else:
                        self._written[name] = want

    def rewrite(self) -> None:
        """Write every held name's row again: after another host took this one for dead while it lived (its rows may be
        gone: the next host to join clears a dead host's)."""
        with self._lock:
            self._written.clear()
            self._dirty |= set(self._held)
        self.sync()

    def held(self) -> dict[str, str]:
        """{name: instance} this host holds now (its oldest stream's), for tests and the log."""
        with self._lock:
            return {name: next(iter(held.values())) for name, held in self._held.items()}
