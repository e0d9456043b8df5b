"""Who owns which bot, as the ladder's logins say it: the scheduler never seats two bots of one owner.

An owner is set by the organiser (`arena bots add NAME --owner WHO`, `arena bots owner`) and
read with the bot's token at each login (`arena.ladder.auth`).  `Owners` is the mapping the
authenticator writes and the scheduler reads; it also keeps, for the scheduler, each bot's
*kin* (the other bots of its owner), so that seating a table asks one dictionary instead of
looking over every connected bot: a ladder where nobody shares an owner pays one look-up a
seat.  Writes come from the login thread and reads from the games' thread; each is a few
dictionary operations, and a write replaces the kin sets it changes instead of editing them, so a
reader holding one sees it whole.
"""

from __future__ import annotations

from typing import Iterator, Mapping

_NOBODY: frozenset[str] = frozenset()


class Owners(Mapping[str, str]):
    """bot -> owner for the bots that have one, and each bot's kin (`kin`)."""

    def __init__(self, owners: Mapping[str, str] | None = None) -> None:
        self._owner: dict[str, str] = {}
        self._bots: dict[str, frozenset[str]] = {}  # owner -> its bots
        for bot, owner in (owners or {}).items():
            self.set(bot, owner)

    def set(self, bot: str, owner: str | None) -> None:
        """``bot`` belongs to ``owner`` from now on (None or "": to nobody)."""
        old = self._owner.get(bot)
        if old == (owner or None):
            return
        if old is not None:
            self._bots[old] = self._bots[old] - {bot}
            if not self._bots[old]:
                del self._bots[old]
            del self._owner[bot]
        if owner:
            self._owner[bot] = owner
            self._bots[owner] = self._bots.get(owner, _NOBODY) | {bot}

    def kin(self, bot: str) -> frozenset[str]:
        """The bot itself and the other bots of its owner (empty when it has none): none of them may sit at
        a table the bot sits at (the bot itself included, which is already seated)."""
        owner = self._owner.get(bot)
        return _NOBODY if owner is None else self._bots.get(owner, _NOBODY)

    def __getitem__(self, bot: str) -> str:
        return self._owner[bot]

    def __iter__(self) -> Iterator[str]:
        return iter(self._owner)

    def __len__(self) -> int:
        return len(self._owner)
