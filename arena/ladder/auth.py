"""Who may connect: registered bots need their token; open registration is for loopback only.

`LadderAuthenticator` is the ``authenticator(name, token, peer)`` hook the
server calls for every Hello.  It answers None to admit, or a sentence that
tells the bot (and its author) why not.  Checking a token costs a salted
scrypt hash (tens of ms, by design), so a successful check is remembered
(as a SHA-256 of the token, never the token) together with the stored hash it
matched: `arena bots rotate` changes that hash, so the old token stops working
at the next Hello even on a server that is already running.

The same read gives the bot's owner (`arena bots add NAME --owner WHO`), kept in
``owners`` for the ladder's scheduler, which never seats two bots of one owner
at one table.  It is written here, before the session exists, so no table is
ever planned for a bot whose owner is not known yet; an owner changed while
the bot is connected holds from its next Hello (as a rotated token does).
"""

from __future__ import annotations

import hashlib
import secrets

from arena.ladder.owners import Owners
from arena.ladder.store import LadderStore, verify_token


def new_token() -> str:
    """A fresh random token for `arena bots add` (shown once, stored hashed)."""
    return secrets.token_urlsafe(24)


class LadderAuthenticator:
    def __init__(self, store: LadderStore, *, open_registration: bool) -> None:
        self.store = store
        self.open_registration = open_registration
        #: name -> (stored hash, sha256(token)) of the last token that verified against it
        self._verified: dict[str, tuple[str, bytes]] = {}
        #: name -> owner of each registered bot admitted with one (written on the checking thread, read by the
        #: ladder's scheduler)
        self.owners = Owners()

    def __call__(self, name: str, token: str, peer: str) -> str | None:
        known, stored, owner = self.store.bot_access(name)
        if known and stored:
            if not token:
                return f"bot {name!r} is registered: connect with its token (--token)"
            digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
            if self._verified.get(name) != (stored, digest):
                if not verify_token(token, stored):
                    return f"wrong token for bot {name!r}"
                self._verified[name] = (stored, digest)
            self.owners.set(name, owner)
            return None
        self._verified.pop(name, None)
        self.owners.set(name, None)
        if self.open_registration:
            return None
        return (
            f"bot {name!r} is not registered on this arena and registration is closed: "
            f"ask the organiser to run `arena bots add {name}` and connect with the token it prints"
        )
