"""`SessionNotes`: the ladder's record of which bots came, went and stayed (first and last seen).

It watches the server's roster (arrivals and departures only, `Handle.roster_event`), wakes the director's
planning loop at each change, shows the connected bots on the dashboard, and writes what changed to the
store in one write per change (`LadderStore.touch_bot`; a departing open-registration name that never
played is forgotten, so that table stays bounded).  A bot that stays is noted as seen every
`LadderSettings.seen_s` (one statement for all of them, `LadderStore.note_seen`), and once more when the
ladder stops.  A database that is away costs a note, never a crash: a last-seen time is not worth one.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

import trio

from arena.ladder.dashboard import DashboardView
from arena.ladder.game_gaps import GameGaps
from arena.ladder.group_commit import GroupCommit
from arena.ladder.settings import LadderSettings
from arena.ladder.store import LadderStore, error_line, outage_errors

log = logging.getLogger("arena.ladder")


class SessionNotes:
    """The connected bots, watched for the scheduler and the dashboard and noted in the store."""

    def __init__(self, store: LadderStore, group: GroupCommit, settings: LadderSettings, view: DashboardView,
                 gaps: GameGaps, kick: Callable[[], None]) -> None:
        """kick: wake the director's planning loop (a bot came or went)."""
        self.store = store
        self.group = group
        self.settings = settings
        self.view = view
        self.gaps = gaps
        self._kick = kick
        self._noted: dict[str, str] | None = None  # the sessions the store has been told about, once idle

    async def watch(self, handle: Any) -> None:
        """Wake the scheduler when bots come or go; note arrivals and departures (first/last seen).

        It waits for arrivals and departures only (`Handle.roster_event`): a game's end already
        wakes the scheduler from the director (its set ends), and waking here too, for each seat's
        release, cost a look over every connected bot twice a game."""
        present: dict[str, str] = {}
        while True:
            sessions = handle.connected_versions()
            changed = [(name, version) for name, version in sessions.items() if name not in present]
            changed += [(name, version) for name, version in present.items() if name not in sessions]
            if changed or len(sessions) != len(present):
                self.view.connected = sorted(sessions)
                for name in present:
                    if name not in sessions:
                        self.gaps.gone(name)
            present = sessions
            self._kick()
            if changed:
                # Every arrival and departure seen so far in one write (one transaction, and it joins the
                # group commit): a write each was a commit each, and a thousand bots logging in while games
                # ran waited minutes for theirs (439 of 1,000 noted 68 s after they started).
                try:
                    await self.group.write(self._note_sessions, changed, set(sessions))
                except outage_errors() as error:  # the database is away: a bot's last-seen time is not worth a crash
                    log.warning("cannot note that %d bots came or went (%s...): %s", len(changed),
                                ", ".join(name for name, _ in changed[:3]), error_line(error))
            if changed and handle.connected_versions() != present:
                continue  # something changed during the writes: its event may have passed already
            self._noted = present
            try:
                await handle.roster_event()
            finally:
                self._noted = None

    async def note_connected(self, handle: Any) -> None:
        """Every `LadderSettings.seen_s`, note the bots connected here as seen: a bot that stays connected (and
        plays) for hours is not "last seen" at its arrival, and when this host dies it was seen within a period."""
        while True:
            await trio.sleep(self.settings.seen_s)
            # a bot connected to several hosts of a shared ladder is written by the first of them in a half-period
            await self.note_seen(handle, unless_within_s=self.settings.seen_s / 2)

    async def note_seen(self, handle: Any, unless_within_s: float | None = None) -> None:
        """The bots connected now, noted as seen (unless one was within ``unless_within_s``)."""
        names = sorted(handle.connected_versions())
        if not names:
            return
        try:  # now and the window on the database's clock, not this host's (`LadderStore.note_seen`)
            await self.group.write(self.store.note_seen, names, None, None, unless_within_s)
        except outage_errors() as error:  # the database is away: a last-seen time is not worth a crash
            log.warning("cannot note that %d connected bots are still there: %s", len(names), error_line(error))

    def _note_sessions(self, changed: list[tuple[str, str]], present: set[str]) -> None:
        """Bots that came or went, in the store (in a worker thread, within one `GroupCommit.write`'s transaction)."""
        for name, version in changed:
            self.store.touch_bot(name, version)
            if name not in present:
                # Gone without a game: an open-registration name is not kept (bounded table).
                self.store.forget_unplayed(name)

    def noted(self, handle: Any) -> bool:
        """True when every arrival and departure so far is in the store (first/last seen, and an
        unplayed open-registration name forgotten): the watcher is idle and up to date."""
        return self._noted is not None and self._noted == handle.connected_versions()
