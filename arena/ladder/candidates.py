"""The scheduler's candidates, kept from one planning round to the next.

The ladder plans again whenever a game ends or a bot comes or goes: at 100 games at once
that is several rounds a second.  Building a `Candidate` per bot from fresh session snapshots
every round was most of a round's cost, and so was looking at every bot to find the few that
changed.  `CandidatePool` keeps each bot's candidate and its inputs and is told which bots
changed (`refresh`: the server's `SlotView` says whose slots moved, the director whose started
games did), builds a new candidate for those only, and tells the scheduler which candidates
changed (`take_changed`, read by `Scheduler.plan_pool`).  A moved cap looks at every bot again.
A shared ladder's hosts use it too, with each bot's open claims on the other hosts taken off its
free slots.  The candidates are exactly those a full rebuild gives
(``tests/ladder/test_candidates.py`` plans with both).
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from arena.ladder.scheduler import Candidate


def candidate(name: str, capacity: int, busy: int, rulesets: Sequence[str], reserved: int, cap: int,
              elsewhere: int = 0) -> Candidate:
    """One bot's candidate: its free slots under ``cap`` (the per-bot limit and the slot share),
    counting the games the director has started for it (``reserved``) if the server counts fewer,
    and on a shared ladder its games on the other hosts (``elsewhere``)."""
    return Candidate(name, min(capacity, cap) - max(busy, reserved) - elsewhere, frozenset(rulesets))


def full_rebuild(slots: Mapping[str, tuple[int, int, Sequence[str]]], reserved: Mapping[str, int],
                 cap: int, elsewhere: Mapping[str, int] = {}) -> list[Candidate]:
    """Every connected bot's candidate, built afresh, in name order (what the pool must equal)."""
    return [candidate(name, *slots[name][:2], slots[name][2], reserved.get(name, 0), cap, elsewhere.get(name, 0))
            for name in sorted(slots)]


class CandidatePool:
    """Each connected bot's candidate, built again only when its inputs changed.

    ``candidates``: name -> `Candidate` of every bot in the last `refresh`'s slots.  ``changed``: the
    names whose candidate was built again or dropped since the scheduler last took them
    (`Scheduler.plan_pool`), so that a planning round reads what changed, not every bot.
    """

    def __init__(self) -> None:
        self.candidates: dict[str, Candidate] = {}
        self.changed: set[str] = set()
        self._known: dict[str, tuple] = {}  # name -> the inputs its candidate was built from
        self._cap: int | None = None
        self._elsewhere: Mapping[str, int] = {}
        self.built = 0  # candidates built so far (tests and benchmarks: how much work was saved)

    def refresh(self, slots: Mapping[str, tuple[int, int, Sequence[str]]], changed: Iterable[str] | None,
                reserved: Mapping[str, int], cap: int, elsewhere: Mapping[str, int] = {}) -> "CandidatePool":
        """Bring the candidates up to date with ``slots`` (name -> (capacity, games running, rulesets) of
        every connected bot).  ``changed``: the names whose slots or ``reserved`` count (games the director
        started per bot) changed since the last call, departures included; None: look at every bot.
        ``cap``: the per-bot limit (every bot is looked at when it moves); ``elsewhere``: a shared ladder's
        open claims of each bot on the other hosts (a new mapping is compared with the last one)."""
        known, candidates = self._known, self.candidates
        if changed is None or cap != self._cap:
            names: Iterable[str] = set(slots).union(known)
        else:
            names = set(changed)
            if elsewhere is not self._elsewhere:
                before = self._elsewhere
                names.update(name for name, n in elsewhere.items() if before.get(name, 0) != n)
                names.update(name for name, n in before.items() if elsewhere.get(name, 0) != n)
        self._cap, self._elsewhere = cap, elsewhere
        for name in names:
            slot = slots.get(name)
            if slot is None:
                if known.pop(name, None) is not None:
                    del candidates[name]
                    self.changed.add(name)
                continue
            capacity, busy, rulesets = slot
            inputs = (capacity, busy, rulesets, reserved.get(name, 0), cap, elsewhere.get(name, 0))
            if known.get(name) != inputs:
                known[name] = inputs
                candidates[name] = candidate(name, capacity, busy, rulesets, inputs[3], cap, inputs[5])
                self.built += 1
                self.changed.add(name)
        return self

    def take_changed(self) -> set[str]:
        """The names whose candidate changed (or went) since the last call; forgets them."""
        changed, self.changed = self.changed, set()
        return changed

    def update(self, slots: Mapping[str, tuple[int, int, Sequence[str]]], reserved: Mapping[str, int],
               cap: int, elsewhere: Mapping[str, int] = {}) -> list[Candidate]:
        """Every bot looked at (`refresh` with ``changed`` None): the candidates in name order."""
        self.refresh(slots, None, reserved, cap, elsewhere)
        return [self.candidates[name] for name in sorted(self.candidates)]
