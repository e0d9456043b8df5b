"""Who plays whom next: pure, deterministic given its random generator and clock, testable.

The unit of play is one game on a fresh deal: no two games of the ladder share
a seed, so no bot ever holds cards another seat held in a deal it has seen
(see "Deals" in README.md for why the ladder gave up duplicate sets).

Choosing a table (`Scheduler.next_table`):

1. For every ruleset, the connected bots that play it are its members.  The
   *anchor* is the free member with the fewest games scheduled (ties broken
   at random), across all rulesets, so that nobody starves.
2. The other seats go to the free members with the fewest head-to-head games
   against the seats already chosen, then the fewest games, then the most
   uncertain comparison (largest overlap of 95% intervals), so every pair
   meets and no pair is over-played.
3. Fairness caps, so that bots freed at the same moment do not simply play
   each other again and fast or high-capacity bots do not race ahead of
   bots that are about to be free:
   * a bot may take a seat only while it is at most ``max_lead`` games ahead
     of the ruleset's neediest *available* member (unless the table is for
     that member), and at most ``max_lead`` games ahead of its own
     least-played ruleset among those with enough available members (so a
     table needing many free bots at once, such as a four-player ruleset, is
     not starved by two-player tables);
   * a pairing may have at most ``pair_slack`` more games than the
     least-played pairing open to the same bot among available partners:
     a free bot briefly waits for a busy partner rather than over-play a pair.

Nobody waits on a slow bot.  The caps are goals, never a reason to idle for
long, and they only look at bots that are *available*:

* a bot whose every slot has been taken for longer than ``stall`` typical
  games (it hangs, stalls or plays very slowly) is not available: it does not
  hold the floor down and nobody waits for it;
* a free bot that the caps hold back is released after waiting ``patience``
  typical games: it then takes the best table among the free bots, caps off.

The typical game is the median duration of the last games reported with
`Scheduler.game_finished`; until one is reported, and whenever ``plan`` is
called without a clock, the caps apply without time limits.  So an honest bot
waits at most ``patience`` of a typical game for a seat the caps hold back,
and a hanging bot stops counting after ``stall`` typical games.  The server's
game slots are shared out by `slot_share`: no bot may run more games at once
than its share, so a bot whose games hang cannot fill them.
(`scripts/scheduler_fairness.py` measures what honest bots keep.)

Per-bot counts are of games *scheduled* in this run (finished or running),
so one planning round spreads tables instead of repeating one pairing;
head-to-head counts also include the stored history.  A bot that (re)connects is
lifted to the floor of the bots already present, so a newcomer does not
stall the ladder while it "catches up" from zero; it still gets its share
first because its rating is the most uncertain.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import defaultdict, deque
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
    """One game to start: its ruleset and its seats in order (seat i is bots[i])."""

    ruleset: str
    bots: tuple[str, ...]


def slot_share(concurrency: int, bots: int, smallest_table: int) -> int:
    """How many games one bot may run at once so that no bot can fill the server's slots.

    ``concurrency`` games seat ``concurrency * smallest_table`` bots at most; split evenly
    among the connected bots (rounded up, at least one), every slot stays usable when
    every bot takes its share, and a bot whose games hang cannot hold more than its share.
    """
    return max(1, math.ceil(concurrency * smallest_table / max(1, bots)))


class Scheduler:
    def __init__(
        self,
        players: Mapping[str, int],
        *,
        max_lead: int = 2,
        pair_slack: int = 1,
        patience: float = 0.5,
        stall: float = 1.0,
        window: int = 64,
        rng: random.Random | None = None,
    ) -> None:
        """players: ruleset -> table size for every ruleset this ladder schedules.

        max_lead: how many games a bot may be ahead of the neediest available
            member of a ruleset, and ahead of its own least-played ruleset.
        pair_slack: how many more games a pairing may have than the least-played
            pairing available to the same bot.
        patience: how long (in typical games) the caps may hold a free bot back.
        stall: after how long (in typical games) a bot with no free slot stops
            counting as available for the caps.
        window: how many recent game durations the typical game is the median of.
        """
        self.players = dict(players)
        self.max_lead = max_lead
        self.pair_slack = pair_slack
        self.patience = patience
        self.stall = stall
        self.rng = rng or random.Random()
        self.games: dict[str, dict[str, int]] = {r: defaultdict(int) for r in self.players}
        self.pairs: dict[str, dict[frozenset[str], int]] = {r: defaultdict(int) for r in self.players}
        self._history: dict[str, dict[frozenset[str], int]] = {r: defaultdict(int) for r in self.players}
        self.ratings: dict[str, dict[str, tuple[float, float]]] = {r: {} for r in self.players}
        #: Per ruleset synced from a shared ladder's database: the tables recorded since the last sync.
        self._recorded: dict[str, list[Table]] = {}
        self._offsets: dict[str, dict[str, int]] = {r: defaultdict(int) for r in self.players}
        self._present: dict[str, set[str]] = {r: set() for r in self.players}
        self._durations: deque[float] = deque(maxlen=window)
        self._typical: float | None = None  # the median of _durations, once computed
        self._idle_since: dict[str, float] = {}  # bot -> since when it has had a free slot without a seat
        self._full_since: dict[str, float] = {}  # bot -> since when every slot of it has been taken

    # ---- what the scheduler knows

    def load_history(self, ruleset: str, pair_games: Mapping[frozenset[str], int]) -> None:
        """Start from the stored head-to-head history (results per pair).

        Per-bot counts deliberately start at zero in every run: the fairness
        caps compare bots present together, and a bot with a long history must
        not stall the bots that are new (or the other way round).
        """
        if ruleset not in self.players:
            return
        for pair, count in pair_games.items():
            self.pairs[ruleset][frozenset(pair)] += count
            self._history[ruleset][frozenset(pair)] += count

    def sync_counts(
        self, ruleset: str, games: Mapping[str, int], pairs: Mapping[frozenset[str], int]
    ) -> None:
        """Take the counts of games and pairings scheduled on every host of a shared ladder since it started.

        Several hosts each plan over the bots connected to them; with these counts from the
        database the fairness caps compare each bot's games on all hosts, not one host's share.
        Head-to-head counts stay on top of the stored history.
        """
        if ruleset not in self.players:
            return
        self.games[ruleset] = defaultdict(int, games)
        merged: dict[frozenset[str], int] = defaultdict(int, self._history[ruleset])
        for pair, count in pairs.items():
            merged[frozenset(pair)] += count
        self.pairs[ruleset] = merged
        self._recorded[ruleset] = []  # from now on `add_counts` takes back what `record` counts

    def add_counts(
        self, ruleset: str, games: Mapping[str, int], pairs: Mapping[frozenset[str], int]
    ) -> None:
        """`sync_counts` by the difference: the games and pairings scheduled on every host since the last
        call (or `sync_counts`), as the database counted them first.  The same counts as `sync_counts` with
        the sums, at the cost of what is new: the games this scheduler recorded itself since then are taken
        back first (the database counts them once their claims are read, as `sync_counts` would)."""
        if ruleset not in self.players:
            return
        counts, pair_counts = self.games[ruleset], self.pairs[ruleset]
        for table in self._recorded.get(ruleset, ()):
            for bot in table.bots:
                counts[bot] -= 1
            for a, b in combinations(table.bots, 2):
                pair_counts[frozenset((a, b))] -= 1
        self._recorded[ruleset] = []
        for bot, count in games.items():
            counts[bot] += count
        for pair, count in pairs.items():
            pair_counts[frozenset(pair)] += count

    def set_ratings(self, ruleset: str, ratings: Mapping[str, tuple[float, float]]) -> None:
        """Current (rating, 95% half-width) per bot, for the uncertainty tie-break."""
        if ruleset in self.players:
            self.ratings[ruleset] = dict(ratings)

    def record(self, table: Table) -> None:
        """Count a game as scheduled."""
        for bot in table.bots:
            self.games[table.ruleset][bot] += 1
        for a, b in combinations(table.bots, 2):
            self.pairs[table.ruleset][frozenset((a, b))] += 1
        recorded = self._recorded.get(table.ruleset)
        if recorded is not None:  # counts synced from a shared ladder's database (`add_counts`)
            recorded.append(table)

    def game_finished(self, seconds: float) -> None:
        """Report how long a game took: the patience and stall limits scale with the typical game."""
        if math.isfinite(seconds) and seconds >= 0:
            self._durations.append(seconds)
            self._typical = None

    def typical_game(self) -> float | None:
        """The median duration of the recent games, None before the first one is reported."""
        if self._typical is None and self._durations:
            self._typical = statistics.median(self._durations)
        return self._typical

    def effective_games(self, ruleset: str, bot: str) -> int:
        return self.games[ruleset][bot] + self._offsets[ruleset][bot]

    # ---- time: who is available, who has waited long enough

    def _observe(self, candidates: Iterable[Candidate], now: float) -> None:
        names = set()
        idle_since, full_since = self._idle_since, self._full_since
        for c in candidates:
            name = c.name
            names.add(name)
            # A bot is in at most one of the two (every change below and in `plan` keeps it so): one that
            # is where its slots say already needs nothing (most bots, every round).
            if c.free > 0:
                if name not in idle_since:
                    full_since.pop(name, None)
                    idle_since[name] = now
            elif name not in full_since:
                idle_since.pop(name, None)
                full_since[name] = now
        for gone in [bot for bot in self._idle_since if bot not in names]:
            del self._idle_since[gone]
        for gone in [bot for bot in self._full_since if bot not in names]:
            del self._full_since[gone]

    def _available(self, c: Candidate, now: float | None) -> bool:
        """Free, or busy for less than ``stall`` typical games: worth keeping the caps for."""
        typical = self.typical_game()
        if c.free > 0 or now is None or typical is None:
            return True
        return now - self._full_since.get(c.name, now) < self.stall * typical

    def _released(self, c: Candidate, now: float | None) -> bool:
        """Held back for ``patience`` typical games already: the caps no longer apply to it."""
        typical = self.typical_game()
        if now is None or typical is None or c.free <= 0:
            return False
        return now - self._idle_since.get(c.name, now) >= self.patience * typical

    def next_wakeup(self, now: float) -> float | None:
        """The next moment a waiting bot is released or a busy one stalls (plan again then), or None."""
        typical = self.typical_game()
        if typical is None:
            return None
        if len(self._idle_since) < min(self.players.values(), default=1):
            # Fewer bots with a free slot than the smallest table: no release or stall can seat one,
            # only a freed slot or a newcomer can (and those wake the director).  With every bot busy
            # some busy bot is always about to stall: planning at each of those moments was most rounds.
            return None
        moments = [since + self.patience * typical for since in self._idle_since.values()]
        moments += [since + self.stall * typical for since in self._full_since.values()]
        later = [moment for moment in moments if moment > now]
        return min(later) if later else None

    # ---- choosing

    def plan(self, candidates: Iterable[Candidate], limit: int, now: float | None = None) -> list[Table]:
        """Up to ``limit`` tables for now; records them and uses up the bots' free slots.

        now: the current time in seconds (any monotonic clock); without it the
        caps apply without time limits.
        """
        pool = {c.name: c for c in candidates}
        if now is not None:
            self._observe(pool.values(), now)
        tables: list[Table] = []
        smallest = min(self.players.values(), default=1)
        with_room = sum(1 for c in pool.values() if c.free > 0)
        # Fewer bots with a free slot than the smallest table: no table can be seated (most wake-ups after
        # a game's end, its seats freed one by one; and after a round's last table, which used up the
        # slots a game's end freed: `next_table` would look at every bot to find nothing).
        while len(tables) < limit and with_room >= smallest:
            table = self.next_table(pool.values(), now)
            if table is None:
                break
            self.record(table)
            for bot in table.bots:
                c = pool[bot]
                pool[bot] = Candidate(c.name, c.free - 1, c.rulesets)
                if c.free - 1 <= 0:
                    with_room -= 1
                    if now is not None:
                        self._idle_since.pop(bot, None)
                        self._full_since[bot] = now
            tables.append(table)
        return tables

    def next_table(self, candidates: Iterable[Candidate], now: float | None = None) -> Table | None:
        """The best table to start now among these connected bots, or None."""
        connected = list(candidates)
        # `Candidate.plays`, inlined: this runs over every connected bot after every game.
        members = {r: [c for c in connected if not c.rulesets or r in c.rulesets] for r in self.players}
        for ruleset, group in members.items():
            self._lift_newcomers(ruleset, group)
        # `_available` and `_released` for every bot, with the typical game looked up once (this runs
        # after every game, over every connected bot).
        typical = self.typical_game()
        if now is None or typical is None:
            available = {c.name for c in connected}
            released: set[str] = set()
        else:
            stall, patience = self.stall * typical, self.patience * typical
            full_since, idle_since = self._full_since, self._idle_since
            available = set()
            released = set()
            for c in connected:  # one pass for both sets
                if c.free > 0:
                    available.add(c.name)
                    if now - idle_since.get(c.name, now) >= patience:
                        released.add(c.name)
                elif now - full_since.get(c.name, now) < stall:
                    available.add(c.name)
        # `effective_games` of every member, once per round.
        counts = {}
        for ruleset, group in members.items():
            games, offsets = self.games[ruleset], self._offsets[ruleset]
            counts[ruleset] = {c.name: games.get(c.name, 0) + offsets.get(c.name, 0) for c in group}
        playable = [r for r, group in members.items() if len(group) >= self.players[r]]
        groups = {r: [c for c in members[r] if c.name in available] for r in playable}  # the available members
        # Each bot's lowest count over the rulesets that enough available bots play.
        lowest: dict[str, int] = {}
        for ruleset in playable:
            group = groups[ruleset]
            if len(group) < self.players[ruleset]:
                continue
            count_of = counts[ruleset]
            get = lowest.get
            for c in group:
                name = c.name
                count = count_of[name]
                if count < get(name, count + 1):  # `min` of the counts so far, without a call per bot
                    lowest[name] = count
        options = []
        for ruleset in playable:
            count_of = counts[ruleset]
            group = groups[ruleset]
            free = [
                c for c in group
                if c.free > 0
                and (c.name in released or count_of[c.name] <= lowest.get(c.name, math.inf) + self.max_lead)
            ]
            if len(free) < self.players[ruleset]:
                continue
            floor = min([count_of[c.name] for c in group])
            total = sum(self.games[ruleset].values())
            for anchor in free:
                count = count_of[anchor.name]
                if anchor.name in released or count <= floor + self.max_lead:
                    options.append(((count, total, self.rng.random()), ruleset, anchor, free, floor, group))
        options.sort(key=lambda option: option[0])
        for _key, ruleset, anchor, free, floor, group in options:
            table = self._fill(ruleset, anchor, free, floor, group, released, counts[ruleset])
            if table is not None:
                return table
        return None

    def _fill(
        self,
        ruleset: str,
        anchor: Candidate,
        free: list[Candidate],
        floor: int,
        group: list[Candidate],
        released: set[str],
        count_of: Mapping[str, int],
    ) -> Table | None:
        """Seat the others next to the anchor, or None if no fair table exists right now.

        group: the available members (free or briefly busy); released: bots the caps no longer hold;
        count_of: the members' `effective_games`.
        """
        anchor_is_neediest = count_of[anchor.name] == floor
        chosen = [anchor.name]
        for _seat in range(self.players[ruleset] - 1):
            # The least-played pairing among the available members, busy or not: a free
            # bot may not take a pairing far more played than one that is merely busy.
            if len(chosen) == 1:  # `_head_to_head` inlined for the second seat: asked for every member
                get, first = self.pairs[ruleset].get, chosen[0]
                least = min([get(frozenset((c.name, first)), 0) for c in group if c.name != first])
            else:
                least = min(self._head_to_head(ruleset, c.name, chosen) for c in group if c.name not in chosen)
            allowed = least + self.pair_slack * len(chosen)
            options = []
            for c in free:
                if c.name in chosen:
                    continue
                lifted = anchor.name in released or c.name in released
                if not (lifted or anchor_is_neediest or count_of[c.name] <= floor + self.max_lead):
                    continue
                if not (lifted or self._head_to_head(ruleset, c.name, chosen) <= allowed):
                    continue
                options.append(c)
            if not options:
                return None
            pick = min(options, key=lambda c: self._opponent_key(ruleset, chosen, c.name, count_of))
            chosen.append(pick.name)
        self.rng.shuffle(chosen)
        return Table(ruleset, tuple(chosen))

    def _head_to_head(self, ruleset: str, bot: str, chosen: Sequence[str]) -> int:
        pairs = self.pairs[ruleset]
        if len(chosen) == 1:  # the second seat of every table: asked for every member of the ruleset
            return pairs.get(frozenset((bot, chosen[0])), 0)
        return sum(pairs.get(frozenset((bot, other)), 0) for other in chosen)

    def _opponent_key(self, ruleset: str, chosen: Sequence[str], bot: str, count_of: Mapping[str, int]) -> tuple:
        head_to_head = self._head_to_head(ruleset, bot, chosen)
        overlap = sum(self._overlap(ruleset, bot, other) for other in chosen)
        return (head_to_head, count_of[bot], -overlap, self.rng.random())

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
            floor = min(self.effective_games(ruleset, bot) for bot in staying)
            for bot in arrivals:
                gap = floor - self.effective_games(ruleset, bot)
                if gap > 0:
                    self._offsets[ruleset][bot] += gap
        self._present[ruleset] = names
