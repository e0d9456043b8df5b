"""Which host of a shared ladder runs a game: its seat claims name the host, the hosts table its address.

A game is watched live only on the host that runs it (its events are in that process); every other host
and `arena web --db` can only say where that is.  ``hosts.address`` is the HOST:PORT bots and `arena watch`
use (`arena serve --advertise`), ``hosts.web`` the URL of that host's web view, where it serves one (schema step 16).  A SQLite ladder has no claims: nothing is found.

The functions here take a `Backend` (the caller holds the store's lock), as ``replays.py`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from arena.ladder.store.backend import Backend


@dataclass(frozen=True)
class RunningOn:
    """The host a running game is played on."""

    host: str  # its name (`arena serve --host-name`)
    address: str  # the HOST:PORT it serves bots and Spectate on; "" when its row is gone
    state: str  # live, stopped or dead (a dead host's games are aborted by the next sweep)
    web: str | None = None  # its web view's URL (`arena serve --web`), None: it serves none (or an older release)

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.host, "address": self.address, "state": self.state, "web": self.web}

    def sentence(self, game_id: str) -> str:
        """Where to watch it, in one line."""
        if not self.address:
            return f"game {game_id} is running on host {self.host}: watch it there"
        return (f"game {game_id} is running on host {self.host} ({self.address}): watch it there "
                f"(arena watch {game_id} --arena {self.address})")


def running_on(backend: Backend, game_ids: Sequence[str]) -> dict[str, RunningOn]:
    """{game id: its host} of these games that are running on some host of the ladder."""
    found: dict[str, RunningOn] = {}
    ids = list(game_ids)
    for chunk in range(0, len(ids), 500):
        part = ids[chunk : chunk + 500]
        for game_id, host, address, state, web in backend.rows(
            "SELECT c.game_id, c.host, COALESCE(h.address, ''), COALESCE(h.state, 'dead'), h.web FROM seat_claims c "
            "JOIN games g ON g.id = c.game_id AND g.status = 'running' LEFT JOIN hosts h ON h.name = c.host "
            f"WHERE c.game_id IN ({','.join('?' * len(part))}) AND c.seat = 0", part):
            found[game_id] = RunningOn(host, address, state, web or None)
    return found
