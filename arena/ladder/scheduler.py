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

Bots of one owner never share a table (``owners``: bot -> owner, from the
registered bots' ``arena bots add NAME --owner WHO``): an author could
otherwise pair his own bots to feed one of them rating, or seat two of them at
one table and have them share their hands.  Such pairs are left out of the
caps' least-played pairing too, since they can never play.  A table needs as
many different owners as seats (a bot without an owner is its own).

Nobody waits on a slow bot.  The caps are goals, never a reason to idle for
long, and they only look at bots that are *available*:

* a bot whose every slot has been taken for longer than ``stall`` typical
  games (it hangs, stalls or plays very slowly) is not available: it does not
  hold the floor down and nobody waits for it;
* a free bot that the caps hold back is released after waiting ``patience``
  typical games: it then takes the best table among the free bots, caps off.

The typical game is the median duration of the last games reported with
`Scheduler.game_finished`; until one is reported it is the ``assumed_game``
(the director's is the ladder's typical game read from the database, else
`ASSUMED_GAME_S`).  Without one a host that had not yet finished a game of its
own, such as a host joining a busy shared ladder, had caps without time
limits: a slow bot, busy on another host, stayed the neediest available
player and held every other bot back for good.  Only when ``plan`` is called
without a clock do the caps apply without time limits.  So an honest bot
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
from itertools import combinations, repeat
from functools import partial
from operator import add, lt
from typing import Callable, Iterable, Mapping, Protocol, Sequence

from arena.ladder.owners import Owners
from arena.ladder.roster import Roster


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


#: The typical game (seconds) a scheduler assumes until a game's duration is reported: long enough that a game
#: of honest bots rarely lasts more, short enough that a slow bot holds the others back for a minute at most.
ASSUMED_GAME_S = 30.0


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
        owners: Mapping[str, str] | None = None,
        assumed_game: float = ASSUMED_GAME_S,
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
        assumed_game: the typical game (seconds) until a duration is reported (`assume_game` changes it).
        owners: bot -> owner of the bots that have one; an `Owners` is read at every table, so the caller
            may keep it up to date as bots connect (a plain mapping is copied); bots without one are nobody
            else's.
        """
        self.players = dict(players)
        self.max_lead = max_lead
        self.pair_slack = pair_slack
        self.patience = patience
        self.stall = stall
        self.rng = rng or random.Random()
        self.owners = owners if isinstance(owners, Owners) else Owners(owners)
        self.games: dict[str, dict[str, int]] = {r: defaultdict(int) for r in self.players}
        self.pairs: dict[str, dict[frozenset[str], int]] = {r: defaultdict(int) for r in self.players}
        self._history: dict[str, dict[frozenset[str], int]] = {r: defaultdict(int) for r in self.players}
        #: ``pairs`` again, by bot: ruleset -> bot -> partner -> games (what a table's seats are chosen by,
        #: looked up without building a pair's frozenset per member); changed wherever ``pairs`` is.
        self._partners: dict[str, dict[str, dict[str, int]]] = {r: {} for r in self.players}
        self.ratings: dict[str, dict[str, tuple[float, float]]] = {r: {} for r in self.players}
        #: Per ruleset synced from a shared ladder's database: the tables recorded since the last sync.
        self._recorded: dict[str, list[Table]] = {}
        self._offsets: dict[str, dict[str, int]] = {r: defaultdict(int) for r in self.players}
        self._present: dict[str, set[str]] = {r: set() for r in self.players}
        self._durations: deque[float] = deque(maxlen=window)
        self._typical: float | None = None  # the median of _durations, once computed
        self._assumed = assumed_game
        self._idle_since: dict[str, float] = {}  # bot -> since when it has had a free slot without a seat
        self._full_since: dict[str, float] = {}  # bot -> since when every slot of it has been taken
        self._roster = Roster(self.players)  # the connected bots as the last round saw them
        self._seated: set[str] = set()  # bots whose candidate a round changed: the caller's is read again next time
        self._observed = False  # `_observe` ran for this round: `_full_since` holds exactly the busy bots

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
            self._count_pair(ruleset, frozenset(pair), count)
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
        partners: dict[str, dict[str, int]] = {}
        for pair, count in merged.items():
            if len(pair) == 2:
                a, b = pair
                partners.setdefault(a, {})[b] = count
                partners.setdefault(b, {})[a] = count
        self._partners[ruleset] = partners
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
        counts = self.games[ruleset]
        for table in self._recorded.get(ruleset, ()):
            for bot in table.bots:
                counts[bot] -= 1
            for a, b in combinations(table.bots, 2):
                self._count_pair(ruleset, frozenset((a, b)), -1)
        self._recorded[ruleset] = []
        for bot, count in games.items():
            counts[bot] += count
        for pair, count in pairs.items():
            self._count_pair(ruleset, frozenset(pair), count)

    def set_ratings(self, ruleset: str, ratings: Mapping[str, tuple[float, float]]) -> None:
        """Current (rating, 95% half-width) per bot, for the uncertainty tie-break."""
        if ruleset in self.players:
            self.ratings[ruleset] = dict(ratings)

    def record(self, table: Table) -> None:
        """Count a game as scheduled."""
        for bot in table.bots:
            self.games[table.ruleset][bot] += 1
        for a, b in combinations(table.bots, 2):
            self._count_pair(table.ruleset, frozenset((a, b)), 1)
        recorded = self._recorded.get(table.ruleset)
        if recorded is not None:  # counts synced from a shared ladder's database (`add_counts`)
            recorded.append(table)

    def _count_pair(self, ruleset: str, pair: frozenset[str], count: int) -> None:
        """``count`` more games of a pairing, in ``pairs`` and by bot."""
        total = self.pairs[ruleset][pair] = self.pairs[ruleset][pair] + count
        if len(pair) == 2:
            a, b = pair
            partners = self._partners[ruleset]
            partners.setdefault(a, {})[b] = total
            partners.setdefault(b, {})[a] = total

    def game_finished(self, seconds: float) -> None:
        """Report how long a game took: the patience and stall limits scale with the typical game."""
        if math.isfinite(seconds) and seconds >= 0:
            self._durations.append(seconds)
            self._typical = None

    def assume_game(self, seconds: float) -> None:
        """The typical game until a duration is reported (the ladder's, from the database, when a host starts)."""
        if math.isfinite(seconds) and seconds > 0:
            self._assumed = seconds
            self._typical = None

    def typical_game(self) -> float:
        """The median duration of the recent games; the assumed game before the first one is reported."""
        if self._typical is None:
            self._typical = statistics.median(self._durations) if self._durations else self._assumed
        return self._typical

    def effective_games(self, ruleset: str, bot: str) -> int:
        return self.games[ruleset][bot] + self._offsets[ruleset][bot]

    # ---- time: who is available, who has waited long enough

    def _observe(self, now: float) -> None:
        """Since when each bot whose candidate changed has had a free slot, or none: the bots that did not
        change are where their slots say already (every change here and in `plan` keeps them so)."""
        roster = self._roster
        idle_since, full_since, candidates = self._idle_since, self._full_since, roster.candidates
        for name in roster.unobserved:
            c = candidates.get(name)
            if c is None:  # gone
                idle_since.pop(name, None)
                full_since.pop(name, None)
            elif c.free > 0:
                if name not in idle_since:
                    full_since.pop(name, None)
                    idle_since[name] = now
            elif name not in full_since:
                idle_since.pop(name, None)
                full_since[name] = now
        roster.unobserved.clear()

    def next_wakeup(self, now: float) -> float | None:
        """The next moment a waiting bot is released or a busy one stalls (plan again then), or None."""
        typical = self.typical_game()
        if len(self._idle_since) < min(self.players.values(), default=1):
            # Fewer bots with a free slot than the smallest table: no release or stall can seat one,
            # only a freed slot or a newcomer can (and those wake the director).  With every bot busy
            # some busy bot is always about to stall: planning at each of those moments was most rounds.
            return None
        # The least moment after ``now`` (each since + its limit), without a list of every bot's.
        after = partial(lt, now)
        released = min(filter(after, map(add, self._idle_since.values(), repeat(self.patience * typical))), default=None)
        stalled = min(filter(after, map(add, self._full_since.values(), repeat(self.stall * typical))), default=None)
        if released is None or stalled is None:
            return stalled if released is None else released
        return min(released, stalled)

    # ---- choosing

    def plan(self, candidates: Iterable[Candidate], limit: int, now: float | None = None) -> list[Table]:
        """Up to ``limit`` tables for now among these connected bots; records them and uses up the bots'
        free slots.  The candidates are compared with the last round's to find what changed.

        now: the current time in seconds (any monotonic clock); without it the
        caps apply without time limits.
        """
        self._roster.load(candidates)
        return self._plan(limit, now)

    def plan_pool(self, pool: "PoolLike", limit: int, now: float | None = None) -> list[Table]:
        """`plan` over a `CandidatePool`'s candidates (in name order), reading only those it says changed
        since the last round (`CandidatePool.take_changed`): the same tables as `plan` with its list."""
        changed = pool.take_changed()
        changed.update(self._seated)
        self._roster.load_changes(pool.candidates, changed)
        return self._plan(limit, now)

    def _plan(self, limit: int, now: float | None) -> list[Table]:
        roster = self._roster
        self._seated = set()
        self._observed = now is not None
        if now is not None:
            self._observe(now)
        tables: list[Table] = []
        smallest = min(self.players.values(), default=1)
        # Fewer bots with a free slot than the smallest table: no table can be seated (most wake-ups after
        # a game's end, its seats freed one by one; and after a round's last table, which used up the
        # slots a game's end freed: `next_table` would look at the bots to find nothing).
        while len(tables) < limit and len(roster.free) >= smallest:
            table = self._next_table(now)
            if table is None:
                break
            self.record(table)
            for bot in table.bots:
                c = roster.candidates[bot]
                roster.put(Candidate(c.name, c.free - 1, c.rulesets))
                self._seated.add(bot)
                if c.free - 1 <= 0 and now is not None:
                    self._idle_since.pop(bot, None)
                    self._full_since[bot] = now
            tables.append(table)
        return tables

    def next_table(self, candidates: Iterable[Candidate], now: float | None = None) -> Table | None:
        """The best table to start now among these connected bots, or None."""
        self._roster.load(candidates)
        self._observed = False
        return self._next_table(now)

    def _next_table(self, now: float | None) -> Table | None:
        """The best table among the bots of the roster.  It looks at the bots with a free slot one by one;
        over every member of a ruleset it only takes the least games played (the floor) and, for a table's
        seats, the least-played pairing (in `_fill`)."""
        roster = self._roster
        for ruleset in roster.dirty:  # only when a ruleset's members changed since the last look
            self._lift_newcomers(ruleset, roster.members[ruleset])
        roster.dirty.clear()
        free, key = roster.free, roster.key
        everyone = len(roster.candidates)
        # Who is available (free, or busy for less than `stall` typical games) and who is released (free, held
        # back for `patience` typical games already), with the typical game looked up once.
        typical = self.typical_game()
        available: set[str] | None  # None: every connected bot
        if now is None:
            available = None
            released: set[str] = set()
        else:
            stall, patience = self.stall * typical, self.patience * typical
            full_since, idle_since = self._full_since, self._idle_since
            released = {name for name in free if now - idle_since.get(name, now) >= patience}
            if self._observed:  # in `_plan`, after `_observe`: the busy bots are exactly those in `_full_since`
                available = {name for name, since in full_since.items() if now - since < stall}
            else:
                available = {name for name in roster.busy if now - full_since.get(name, now) < stall}
            available |= free
        # Per ruleset: its available members (the group), and each bot's `effective_games`, read when needed.
        playable = [r for r in self.players if len(roster.members[r]) >= self.players[r]]
        groups: dict[str, set[str]] = {}
        for ruleset in playable:
            members = roster.members[ruleset]
            if available is None:
                groups[ruleset] = members
            elif len(members) == everyone:  # every bot plays it
                groups[ruleset] = available
            else:
                groups[ruleset] = available & members
        # Each free bot's `effective_games` in every ruleset it plays, once per round.
        free_counts: dict[str, dict[str, int]] = {}
        for ruleset in playable:
            members, get_games, get_offset = roster.members[ruleset], self.games[ruleset].get, self._offsets[ruleset].get
            free_counts[ruleset] = {name: get_games(name, 0) + get_offset(name, 0) for name in free if name in members}
        # Each free bot's lowest count over the rulesets that enough available bots play: it may lead that by at
        # most `max_lead`.
        lowest: dict[str, int] = {}
        for ruleset in playable:
            if len(groups[ruleset]) >= self.players[ruleset]:
                get = lowest.get
                for name, count in free_counts[ruleset].items():
                    if count < get(name, count + 1):
                        lowest[name] = count
        options = []
        for ruleset in playable:
            counts = free_counts[ruleset]
            chosen_free = [name for name, count in counts.items()
                           if name in released or count <= lowest.get(name, math.inf) + self.max_lead]
            if len(chosen_free) < self.players[ruleset]:
                continue
            chosen_free.sort(key=key.__getitem__)  # the candidates' order
            group = groups[ruleset]
            floor = _least_count(self.games[ruleset], self._offsets[ruleset], group)
            total = sum(self.games[ruleset].values())
            for anchor in chosen_free:
                n = counts[anchor]
                if anchor in released or n <= floor + self.max_lead:
                    options.append(((n, total, self.rng.random()), ruleset, anchor, chosen_free, floor, group))
        options.sort(key=lambda option: option[0])
        for _key, ruleset, anchor, chosen_free, floor, group in options:
            table = self._fill(ruleset, anchor, chosen_free, floor, group, released, free_counts[ruleset])
            if table is not None:
                return table
        return None

    def _fill(
        self,
        ruleset: str,
        anchor: str,
        free: list[str],
        floor: int,
        group: set[str],
        released: set[str],
        counts: Mapping[str, int],
    ) -> Table | None:
        """Seat the others next to the anchor, or None if no fair table exists right now.

        free: the bots with a free slot the caps allow, in the candidates' order; group: the available
        members (free or briefly busy); released: bots the caps no longer hold; counts: the free bots'
        `effective_games`.
        """
        anchor_is_neediest = counts[anchor] == floor
        within = floor + self.max_lead
        lifted_all = anchor in released
        chosen = [anchor]
        partners = self._partners[ruleset]
        kin = self.owners.kin
        # The seats chosen and the other bots of their owners: none may take a seat here (nor count for the
        # least-played pairing, which they can never take).
        taken = kin(anchor) or (anchor,)
        seats = self.players[ruleset]
        for _seat in range(seats - 1):
            # The least-played pairing among the available members, busy or not: a free
            # bot may not take a pairing far more played than one that is merely busy.
            if len(chosen) == 1:
                pairs_of_first = partners.get(anchor, _NONE).get
                least = min(map(pairs_of_first, group.difference(taken), repeat(0)), default=None)
                head_to_head = {name: pairs_of_first(name, 0) for name in free if name != anchor}
            else:
                rows = [partners.get(other, _NONE) for other in chosen]
                least = min((sum(row.get(name, 0) for row in rows) for name in group if name not in taken),
                            default=None)
                head_to_head = {name: sum(row.get(name, 0) for row in rows) for name in free if name not in chosen}
            if least is None:  # nobody left to seat next to the chosen (their owners' other bots left out)
                return None
            allowed = least + self.pair_slack * len(chosen)
            options = []
            for name in free:
                if name in taken:
                    continue
                lifted = lifted_all or name in released
                if not (lifted or anchor_is_neediest or counts[name] <= within):
                    continue
                if not (lifted or head_to_head[name] <= allowed):
                    continue
                options.append(name)
            if not options:
                return None
            # The opponent: the fewest games against the seats chosen, then the fewest games, then the
            # most uncertain comparison, then a random draw (one per option, in the options' order).
            overlap = self._overlap_with(ruleset, chosen)
            random = self.rng.random
            keys = [(head_to_head[name], counts[name], -overlap(name), random()) for name in options]
            pick = options[min(range(len(keys)), key=keys.__getitem__)]
            chosen.append(pick)
            if len(chosen) < seats:
                taken = {*taken, *(kin(pick) or (pick,))}
        self.rng.shuffle(chosen)
        return Table(ruleset, tuple(chosen))

    def _overlap_with(self, ruleset: str, chosen: Sequence[str]) -> Callable[[str], float]:
        """A bot's `_overlap` with each of the seats chosen, summed in their order."""
        if len(chosen) > 1:
            return lambda bot: sum(self._overlap(ruleset, bot, other) for other in chosen)
        ratings = self.ratings[ruleset]
        rb = ratings.get(chosen[0])
        if rb is None or not math.isfinite(rb[1]):
            return lambda bot: 1e6
        low_b, high_b = rb[0] - rb[1], rb[0] + rb[1]

        def overlap(bot: str) -> float:  # `_overlap(ruleset, bot, chosen[0])` with the seat's interval read once
            ra = ratings.get(bot)
            if ra is None or not math.isfinite(ra[1]):
                return 1e6
            return max(0.0, min(ra[0] + ra[1], high_b) - max(ra[0] - ra[1], low_b))

        return overlap

    def _overlap(self, ruleset: str, a: str, b: str) -> float:
        """How much the two 95% intervals overlap (large when either is unknown)."""
        ra, rb = self.ratings[ruleset].get(a), self.ratings[ruleset].get(b)
        if ra is None or rb is None or not (math.isfinite(ra[1]) and math.isfinite(rb[1])):
            return 1e6
        low = max(ra[0] - ra[1], rb[0] - rb[1])
        high = min(ra[0] + ra[1], rb[0] + rb[1])
        return max(0.0, high - low)

    def _lift_newcomers(self, ruleset: str, members: set[str]) -> None:
        names = set(members)
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


_NONE: dict[str, int] = {}


def _least_count(games: Mapping[str, int], offsets: Mapping[str, int], names: set[str]) -> int:
    """The least `Scheduler.effective_games` among ``names`` (not empty), over the maps in C."""
    counts = map(games.get, names, repeat(0))
    if not offsets:
        return min(counts)
    return min(map(add, counts, map(offsets.get, names, repeat(0))))  # a set's order is the same twice


class PoolLike(Protocol):
    """What `Scheduler.plan_pool` reads of a `arena.ladder.candidates.CandidatePool`."""

    candidates: Mapping[str, Candidate]

    def take_changed(self) -> set[str]: ...
