"""How the hosts of a shared ladder split the games between them: a host leaves a new game a moment
to a starved host before it starts the game itself.

Why: a game's end frees its seats on the host that ran it at once (its own books), while the other
hosts hear of them only from the result's ``NOTIFY`` and a read of the claims.  The host where a
bot's games end therefore wins nearly every race to seat it again, and with few bots a host that
joined later can sit idle for minutes while the others are busy (arena/ladder/README.md, "Host
balance").  Nothing here is a vote or a leader: each host reads the same counts from PostgreSQL
(every live host's concurrency and open games, `SeatClaims.load`) and applies the same rule to
itself, and the seat claims keep deciding who gets a seat.

The rule (`HostBalance.defers`): a host's share of the running games (this one counted) is in
proportion to its concurrency.  A host that has its share already defers a game while another live
host that can seat its bots has less than half of its own.  The deferred game keeps its seats
reserved on this host only (nothing is claimed in the database), so the starved host sees them free
and may claim them; if it does, this host's claim fails and it plans again, as after any lost claim.
Only hosts at or over their share defer, and only to hosts far below theirs, so no two hosts ever
defer to each other, and with enough bots for every host (each below half its share only while it
fills up from bots of its own) nobody holds anything: a first rule, "defer to any host that would be
less loaded", held games at every one-game difference and cost the three-host bench (every bot on
every host) two thirds of its games.

Which hosts can seat a game's bots is not in the database (sessions are each host's own), so a host
goes by what the claims show: a host can seat a bot once the bot has been claimed there (`seen`),
and any bot while the host is new (first seen live less than ``new_s`` ago: time for the bots to
hear of it and open their sessions).  A bot that reached only one host (an old SDK, a host address
that does not work for it) is therefore never held back for a host it cannot reach.  The claims can
still be out of date (a bot that left that host), so a hold lasts at most ``hold_s``, and a hold
that ran out (nobody took the game) is followed by a quiet time in which this host does not defer,
which doubles after each hold that ran out (up to ``max_quiet_s``) and is forgotten when a hold ends
because the balance moved (another host took games) or the live hosts change (one joined or
left).  So a host that cannot help costs a game's start at most one ``hold_s`` per quiet time.

Pure: the caller passes the clock and the counts (`arena.ladder.membership` reads them, the
director waits, `tests/ladder/test_host_balance.py` drives it with made-up times).
"""

from __future__ import annotations

from typing import Container, Iterable, Mapping


class HostBalance:
    """One host's side of the rule above: whether a game it planned waits, and until when."""

    def __init__(self, name: str, concurrency: int, hold_s: float = 2.0, new_s: float = 6.0,
                 max_quiet_s: float = 60.0) -> None:
        self.name = name
        self.concurrency = max(1, concurrency)
        self.hold_s = hold_s
        self.new_s = new_s
        self.max_quiet_s = max_quiet_s
        self.first_seen: dict[str, float] = {}  # live host -> when it was first seen live (since it last was not)
        self.played_on: dict[str, set[str]] = {}  # connected bot -> the hosts it has been claimed on (`forget`)
        self.held_since: float | None = None  # the hold going on (every game it defers now shares it)
        self.quiet_until = 0.0                 # no hold before this (after one ran out)
        self.quiet_s = hold_s                  # the next quiet time
        self._hosts: frozenset[str] = frozenset()
        self.holds = self.expired = 0          # holds begun and holds that ran out (for tests and readers)

    def seen(self, hosts: Iterable[str], hosts_of: Mapping[str, Iterable[str]], now: float,
             present: Container[str] | None = None) -> None:
        """A read of the cluster: the live hosts, and (bot -> hosts) of the claims it counted first.  present: the
        bots connected here (None: every bot), the only ones whose hosts are kept: a game here seats no other."""
        live = set(hosts)
        for gone in [name for name in self.first_seen if name not in live]:
            del self.first_seen[gone]
        for name in live:
            self.first_seen.setdefault(name, now)
        played_on = self.played_on
        for bot, names in hosts_of.items():
            if present is None or bot in present:
                played_on.setdefault(bot, set()).update(names)

    def forget(self, bots: Iterable[str]) -> None:
        """These bots left this host: what the claims said of them goes (`played_on` holds connected bots only,
        not every bot the ladder ever had).  One that comes back is learnt again from its next claims; until
        then no game of it waits for another host that is not new."""
        played_on = self.played_on
        for bot in bots:
            played_on.pop(bot, None)

    def keep_only(self, bots: Container[str]) -> None:
        """Forget every bot not among these (the connected bots, when it is not known which left)."""
        self.forget([bot for bot in self.played_on if bot not in bots])

    def can_seat(self, host: str, bots: Iterable[str], now: float) -> bool:
        """Whether ``host`` can be taken to seat these bots: it is new, or every one has been claimed there."""
        if now - self.first_seen.get(host, now) < self.new_s:
            return True
        played_on = self.played_on
        return all(host in played_on.get(bot, ()) for bot in bots)

    def defers(self, running: int, hosts: Mapping[str, tuple[int, int]], bots: Iterable[str] = (),
               now: float | None = None) -> bool:
        """Whether this host (running ``running`` games) already has its share of the games, this one
        counted, while another live host that can seat ``bots`` has less than half of its own.  hosts:
        every live host's (concurrency, open games).  Without ``now``, every host counts as able to seat
        them."""
        others = [(name, max(1, slots), games) for name, (slots, games) in hosts.items() if name != self.name]
        total = running + 1 + sum(games for _name, _slots, games in others)  # with this game
        slots = self.concurrency + sum(slots for _name, slots, _games in others)
        if running * slots < total * self.concurrency:  # below its share: it never defers
            return False
        return any(2 * games * slots < total * their_slots and (now is None or self.can_seat(name, bots, now))
                   for name, their_slots, games in others)

    def hold_until(self, running: int, hosts: Mapping[str, tuple[int, int]], now: float,
                   bots: Iterable[str] | None = None) -> float | None:
        """The moment until which a game of these bots, planned here, waits for a starved host to take its
        seats, or None: start it now.  Without ``bots``, every host counts as able to seat them."""
        names = frozenset(hosts)
        if names != self._hosts:  # a host joined or left: whatever was learnt of the others is void
            self._hosts = names
            self.quiet_until, self.quiet_s = 0.0, self.hold_s
        if self.hold_s <= 0 or not self.defers(running, hosts, bots or (), None if bots is None else now):
            if self.held_since is not None:  # the balance moved within the hold: the others take games
                self.held_since = None
                self.quiet_s = self.hold_s
            return None
        if now < self.quiet_until:
            return None
        if self.held_since is None:
            self.held_since = now
            self.holds += 1
        until = self.held_since + self.hold_s
        if now < until:
            return until
        # Ran out: the starved hosts did not take these bots (they may not reach them).
        self.held_since = None
        self.expired += 1
        self.quiet_until = now + self.quiet_s
        self.quiet_s = min(self.max_quiet_s, self.quiet_s * 2)
        return None
