"""Who plays whom next: pure, deterministic given its random generator, testable.

The unit of play is a duplicate set: one seed played once per seat rotation,
so every bot holds every seat's cards once and the luck of the deal cancels.
A set's rotations are played one after another, so a set occupies one game
slot of each of its bots for its whole length.

Choosing a table (`Scheduler.next_table`):

1. For every ruleset, the connected bots that play it are its members.  The
   *anchor* is the free member with the fewest sets scheduled (ties broken
   at random), across all rulesets, so that nobody starves.
2. The other seats go to the free members with the fewest head-to-head sets
   against the seats already chosen, then the fewest sets, then the most
   uncertain comparison (largest overlap of 95% intervals), so every pair
   meets and no pair is over-played.
3. Fairness caps, so that bots freed at the same moment do not simply play
   each other again and fast or high-capacity bots do not race ahead:
   * a bot may take a seat only while it is at most ``max_lead`` sets ahead
     of the ruleset's neediest member (unless the table is for that member,
     so nothing deadlocks), and at most ``max_lead`` sets ahead of its own
     least-played ruleset (so a table needing many free bots at once, such
     as a four-player ruleset, is not starved by two-player tables);
   * a pairing may have at most ``pair_slack`` more sets than the
     least-played pairing open to the same bot, busy partners included: a
     free bot waits for a busy partner rather than over-play a pair.
   When every bot is free some table is always possible, so waiting never
   turns into a deadlock.

Per-bot counts are of sets *scheduled* in this run (finished or running),
so one planning round spreads tables instead of repeating one pairing;
head-to-head counts also include the stored history.  A bot that (re)connects is
lifted to the floor of the bots already present, so a newcomer does not
stall the ladder while it "catches up" from zero; it still gets its share
first because its rating is the most uncertain.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Mapping, Sequence


@dataclass(frozen=True)
class Candidate:
    """A connected bot as the scheduler sees it."""

    name: str
    free: int  # game slots it can take now (capacity minus games running)
    rulesets: frozenset[str] | None = None  # None: every ruleset

    def plays(self, ruleset: str) -> bool:
        return self.rulesets is None or not self.rulesets or ruleset in self.rulesets


@dataclass(frozen=True)
class Table:
    ruleset: str
    bots: tuple[str, ...]

    def rotations(self) -> list[tuple[str, ...]]:
        """Every cyclic seat rotation: bot k sits in seat (k - r) mod n in rotation r."""
        n = len(self.bots)
        return [self.bots[r:] + self.bots[:r] for r in range(n)]


class Scheduler:
    def __init__(
        self,
        players: Mapping[str, int],
        *,
        max_lead: int = 2,
        pair_slack: int = 1,
        rng: random.Random | None = None,
    ) -> None:
        """players: ruleset -> table size for every ruleset this ladder schedules.

        max_lead: how many sets a bot may be ahead of the neediest member of a
            ruleset, and ahead of its own least-played ruleset.
        pair_slack: how many more sets a pairing may have than the least-played
            pairing available to the same bot (busy partners included).
        """
        self.players = dict(players)
        self.max_lead = max_lead
        self.pair_slack = pair_slack
        self.rng = rng or random.Random()
        self.sets: dict[str, dict[str, int]] = {r: defaultdict(int) for r in self.players}
        self.pairs: dict[str, dict[frozenset[str], int]] = {r: defaultdict(int) for r in self.players}
        self.ratings: dict[str, dict[str, tuple[float, float]]] = {r: {} for r in self.players}
        self._offsets: dict[str, dict[str, int]] = {r: defaultdict(int) for r in self.players}
        self._present: dict[str, set[str]] = {r: set() for r in self.players}

    # ---- what the scheduler knows

    def load_history(self, ruleset: str, pair_sets: Mapping[frozenset[str], int]) -> None:
        """Start from the stored head-to-head history (sets per pair).

        Per-bot counts deliberately start at zero in every run: the fairness
        caps compare bots present together, and a bot with a long history must
        not stall the bots that are new (or the other way round).
        """
        if ruleset not in self.players:
            return
        for pair, count in pair_sets.items():
            self.pairs[ruleset][frozenset(pair)] += count

    def set_ratings(self, ruleset: str, ratings: Mapping[str, tuple[float, float]]) -> None:
        """Current (rating, 95% half-width) per bot, for the uncertainty tie-break."""
        if ruleset in self.players:
            self.ratings[ruleset] = dict(ratings)

    def record(self, table: Table) -> None:
        """Count a set as scheduled."""
        for bot in table.bots:
            self.sets[table.ruleset][bot] += 1
        for a, b in combinations(table.bots, 2):
            self.pairs[table.ruleset][frozenset((a, b))] += 1

    def effective_sets(self, ruleset: str, bot: str) -> int:
        return self.sets[ruleset][bot] + self._offsets[ruleset][bot]

    # ---- choosing

    def plan(self, candidates: Iterable[Candidate], limit: int) -> list[Table]:
        """Up to ``limit`` tables for now; records them and uses up the bots' free slots."""
        pool = {c.name: c for c in candidates}
        tables: list[Table] = []
        while len(tables) < limit:
            table = self.next_table(pool.values())
            if table is None:
                break
            self.record(table)
            for bot in table.bots:
                c = pool[bot]
                pool[bot] = Candidate(c.name, c.free - 1, c.rulesets)
            tables.append(table)
        return tables

    def next_table(self, candidates: Iterable[Candidate]) -> Table | None:
        """The best table to start now among these connected bots, or None."""
        connected = list(candidates)
        members = {r: [c for c in connected if c.plays(r)] for r in self.players}
        for ruleset, group in members.items():
            self._lift_newcomers(ruleset, group)
        playable = [r for r, group in members.items() if len(group) >= self.players[r]]
        # Each bot's lowest count over the rulesets it can be scheduled in now.
        lowest: dict[str, int] = {}
        for ruleset in playable:
            for c in members[ruleset]:
                count = self.effective_sets(ruleset, c.name)
                lowest[c.name] = min(lowest.get(c.name, count), count)
        options = []
        for ruleset in playable:
            group = members[ruleset]
            floor = min(self.effective_sets(ruleset, c.name) for c in group)
            free = [
                c for c in group
                if c.free > 0 and self.effective_sets(ruleset, c.name) <= lowest[c.name] + self.max_lead
            ]
            if len(free) < self.players[ruleset]:
                continue
            total = sum(self.sets[ruleset].values())
            for anchor in free:
                count = self.effective_sets(ruleset, anchor.name)
                if count <= floor + self.max_lead:
                    options.append(((count, total, self.rng.random()), ruleset, anchor, free, floor))
        options.sort(key=lambda option: option[0])
        for _key, ruleset, anchor, free, floor in options:
            table = self._fill(ruleset, anchor, free, floor, members[ruleset])
            if table is not None:
                return table
        return None

    def _fill(
        self, ruleset: str, anchor: Candidate, free: list[Candidate], floor: int, group: list[Candidate]
    ) -> Table | None:
        """Seat the others next to the anchor, or None if no fair table exists right now."""
        anchor_is_neediest = self.effective_sets(ruleset, anchor.name) == floor
        chosen = [anchor.name]
        for _seat in range(self.players[ruleset] - 1):
            # The least-played pairing available among *all* connected members, busy or not:
            # a free bot may not take a pairing far more played than one that is merely busy.
            least = min(self._head_to_head(ruleset, c.name, chosen) for c in group if c.name not in chosen)
            allowed = least + self.pair_slack * len(chosen)
            options = [
                c
                for c in free
                if c.name not in chosen
                and (anchor_is_neediest or self.effective_sets(ruleset, c.name) <= floor + self.max_lead)
                and self._head_to_head(ruleset, c.name, chosen) <= allowed
            ]
            if not options:
                return None
            pick = min(options, key=lambda c: self._opponent_key(ruleset, chosen, c.name))
            chosen.append(pick.name)
        self.rng.shuffle(chosen)
        return Table(ruleset, tuple(chosen))

    def _head_to_head(self, ruleset: str, bot: str, chosen: Sequence[str]) -> int:
        return sum(self.pairs[ruleset][frozenset((bot, other))] for other in chosen)

    def _opponent_key(self, ruleset: str, chosen: Sequence[str], bot: str) -> tuple:
        head_to_head = self._head_to_head(ruleset, bot, chosen)
        overlap = sum(self._overlap(ruleset, bot, other) for other in chosen)
        return (head_to_head, self.effective_sets(ruleset, bot), -overlap, self.rng.random())

    def _overlap(self, ruleset: str, a: str, b: str) -> float:
        """How much the two 95% intervals overlap (large when either is unknown)."""
        ra, rb = self.ratings[ruleset].get(a), self.ratings[ruleset].get(b)
        if ra is None or rb is None or not (math.isfinite(ra[1]) and math.isfinite(rb[1])):
            return 1e6
        low = max(ra[0] - ra[1], rb[0] - rb[1])
        high = min(ra[0] + ra[1], rb[0] + rb[1])
        return max(0.0, high - low)

    def _lift_newcomers(self, ruleset: str, members: list[Candidate]) -> None:
        names = {c.name for c in members}
        present = self._present[ruleset]
        arrivals = names - present
        staying = names & present
        if arrivals and staying:
            floor = min(self.effective_sets(ruleset, bot) for bot in staying)
            for bot in arrivals:
                gap = floor - self.effective_sets(ruleset, bot)
                if gap > 0:
                    self._offsets[ruleset][bot] += gap
        self._present[ruleset] = names
