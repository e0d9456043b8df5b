"""The connected bots as the scheduler last saw them, changed bot by bot.

A planning round used to take every connected bot's candidate and work out, for each, whether it has
a free slot and which rulesets it plays.  Between two rounds only a few bots change (a game's seats,
an arrival or a departure), so `Scheduler` keeps this roster and hands it only the candidates that
changed: `load_changes` (a `CandidatePool`'s changed names, the director's way) or `load` (a whole
list, compared with what the roster holds: the simulations' and the tests' way).  It also keeps the
candidates' order, which decides the order of the scheduler's random draws, and what the scheduler
still has to look at: the bots whose free-slot times it has not updated (``unobserved``) and the
rulesets whose members changed since it lifted newcomers (``dirty``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:
    from arena.ladder.scheduler import Candidate


class Roster:
    """The connected bots as the scheduler last saw them, changed bot by bot: who has a free slot, who
    plays which ruleset, and the candidates' order (which decides the order of the random draws)."""

    __slots__ = ("candidates", "key", "free", "busy", "members", "dirty", "unobserved", "_order", "_by_name")

    def __init__(self, rulesets: Iterable[str]) -> None:
        self.candidates: dict[str, Candidate] = {}
        self.key: dict[str, Any] = {}  # name -> its place in the candidates' order
        self.free: set[str] = set()  # free > 0
        self.busy: set[str] = set()  # free <= 0
        self.members: dict[str, set[str]] = {r: set() for r in rulesets}
        self.dirty: set[str] = set(self.members)  # rulesets whose members changed since `_lift_newcomers`
        self.unobserved: set[str] = set()  # bots changed (or gone) since `Scheduler._observe`
        self._order: list[str] = []  # the last list's names in order (`load`)
        self._by_name = False  # ordered by name (`load_changes`) rather than by a list's order

    def put(self, c: Candidate) -> None:
        name = c.name
        old = self.candidates.get(name)
        self.candidates[name] = c
        self.unobserved.add(name)
        if c.free > 0:
            self.free.add(name)
            self.busy.discard(name)
        else:
            self.busy.add(name)
            self.free.discard(name)
        if old is None or old.rulesets != c.rulesets:
            for ruleset, members in self.members.items():
                if (not c.rulesets or ruleset in c.rulesets) != (name in members):
                    if name in members:
                        members.discard(name)
                    else:
                        members.add(name)
                    self.dirty.add(ruleset)

    def drop(self, name: str) -> None:
        if self.candidates.pop(name, None) is None:
            return
        self.key.pop(name, None)
        self.unobserved.add(name)
        self.free.discard(name)
        self.busy.discard(name)
        for ruleset, members in self.members.items():
            if name in members:
                members.discard(name)
                self.dirty.add(ruleset)

    def load(self, candidates: Iterable[Candidate]) -> None:
        """These are the connected bots now, in this order: every one compared with what it was."""
        pool = {c.name: c for c in candidates}
        order = list(pool)
        if self._by_name or order != self._order:
            self.key = {name: index for index, name in enumerate(order)}
            self._order, self._by_name = order, False
        for gone in [name for name in self.candidates if name not in pool]:
            self.drop(gone)
        known = self.candidates
        for name, c in pool.items():
            old = known.get(name)
            if old is not c and old != c:
                self.put(c)

    def load_changes(self, candidates: Mapping[str, Candidate], changed: Iterable[str]) -> None:
        """The connected bots now are ``candidates``, in name order; only ``changed`` can differ from
        what the roster holds (after a `load`, every one is compared)."""
        if not self._by_name:
            self._by_name, self._order = True, []
            self.key = {}
            changed = set(changed).union(self.candidates, candidates)
        for name in changed:
            c = candidates.get(name)
            if c is None:
                self.drop(name)
            else:
                if name not in self.key:
                    self.key[name] = name
                if self.candidates.get(name) != c:
                    self.put(c)
