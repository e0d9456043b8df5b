"""The scheduler's candidates, kept from one planning round to the next.

The ladder plans again whenever a game ends or a bot comes or goes: at 100 games at once
that is several rounds a second, each over every connected bot.  Building a `Candidate` per
bot from fresh session snapshots every round was most of a round's cost.  `CandidatePool`
keeps each bot's candidate and its inputs, and builds a new one only for the bots whose
slots changed (a game started or ended, a cap moved); the list keeps the bots in name order,
sorted again only when one arrives or leaves.  A shared ladder's hosts use it too, with each
bot's open claims on the other hosts taken off its free slots.  The candidates it returns are exactly those a
full rebuild gives (``tests/ladder/test_candidates.py`` plans with both).
"""

from __future__ import annotations

from typing import Mapping, Sequence

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
    def __init__(self) -> None:
        self._names: list[str] = []  # in name order
        self._known: dict[str, tuple] = {}  # name -> the inputs its candidate was built from
        self._candidates: dict[str, Candidate] = {}
        self.built = 0  # candidates built so far (tests and benchmarks: how much work was saved)

    def update(self, slots: Mapping[str, tuple[int, int, Sequence[str]]], reserved: Mapping[str, int],
               cap: int, elsewhere: Mapping[str, int] = {}) -> list[Candidate]:
        """The candidates of the bots in ``slots`` (name -> (capacity, games running, rulesets)),
        in name order; ``reserved``: games the director started per bot; ``cap``: the per-bot limit;
        ``elsewhere``: a shared ladder's open claims of each bot on the other hosts."""
        if len(slots) != len(self._names) or any(name not in self._known for name in slots):
            self._names = sorted(slots)
            for gone in [name for name in self._known if name not in slots]:
                del self._known[gone]
                del self._candidates[gone]
        known, candidates = self._known, self._candidates
        result = []
        for name in self._names:
            capacity, busy, rulesets = slots[name]
            inputs = (capacity, busy, rulesets, reserved.get(name, 0), cap, elsewhere.get(name, 0))
            if known.get(name) != inputs:
                known[name] = inputs
                candidates[name] = candidate(name, capacity, busy, rulesets, inputs[3], cap, inputs[5])
                self.built += 1
            result.append(candidates[name])
        return result
