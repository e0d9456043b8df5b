"""A simulated ladder: the real `Scheduler` on a simulated clock, no server, no bots.

For the scheduler's tests and `scripts/scheduler_fairness.py`: bots are
(capacity, rulesets) pairs, games last as long as a duration function says,
and everything is deterministic given the seed.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from arena.ladder.scheduler import Candidate, Scheduler, Table, slot_share

#: name -> (capacity, rulesets it plays or None for all)
Bots = Mapping[str, "tuple[int, Iterable[str] | None]"]
Duration = Callable[[Table, random.Random], float]


class SimulationError(AssertionError):
    """The scheduler broke a hard rule (capacity, table size, a ruleset a bot does not play)."""


def simulate(
    bots: Bots,
    players: Mapping[str, int],
    *,
    rounds: int | None = None,
    until: float | None = None,
    seed: int = 1,
    late: Mapping[str, float] | None = None,
    duration: Duration | None = None,
    concurrency: int = 1000,
    clock: bool = True,
    **options,
) -> tuple[Scheduler, list[tuple[float, Table]]]:
    """Run events until ``rounds`` events or time ``until``: games end, bots arrive, the
    scheduler asks to be woken; after each the scheduler fills the free slots (at most
    ``concurrency`` games at once, as `arena serve --concurrency`, and no bot more than its
    `slot_share` of them, as the director does).

    late: name -> when it connects.  duration: how long a table's game lasts (default
    uniform 0.5-3).  clock=False plans without a clock, as the scheduler did before
    its caps had time limits.  options go to `Scheduler`.  Returns the scheduler and
    the (start time, table) of every game started.
    """
    if rounds is None and until is None:
        raise ValueError("give rounds or until")
    rng = random.Random(seed)
    scheduler = Scheduler(players, rng=random.Random(seed + 1), **options)
    duration = duration or (lambda table, rng: rng.uniform(0.5, 3.0))
    late = late or {}
    busy: Counter[str] = Counter()
    running: list[tuple[float, int, Table, float]] = []  # (end time, tie-break, table, length)
    started: list[tuple[float, Table]] = []
    now = 0.0
    step = 0
    while (rounds is None or step < rounds) and (until is None or now < until):
        step += 1
        present = [name for name in bots if late.get(name, 0.0) <= now]
        share = slot_share(concurrency, len(present), min(players.values()))
        connected = [
            Candidate(name, min(bots[name][0], share) - busy[name], None if bots[name][1] is None else frozenset(bots[name][1]))
            for name in present
        ]
        for table in scheduler.plan(connected, limit=concurrency - len(running), now=now if clock else None):
            if not len(set(table.bots)) == len(table.bots) == players[table.ruleset]:
                raise SimulationError(f"bad table {table}")
            for bot in table.bots:
                busy[bot] += 1
                capacity, games = bots[bot]
                if busy[bot] > capacity:
                    raise SimulationError(f"{bot} seated in {busy[bot]} games, capacity {capacity}")
                if games is not None and table.ruleset not in games:
                    raise SimulationError(f"{bot} seated in {table.ruleset}, which it does not play")
            length = duration(table, rng)
            heapq.heappush(running, (now + length, len(started), table, length))
            started.append((now, table))
        wakeups = [t for t in (scheduler.next_wakeup(now) if clock else None, *late.values()) if t is not None and t > now]
        if running and (not wakeups or running[0][0] <= min(wakeups)):
            now, _, table, length = heapq.heappop(running)
            scheduler.game_finished(length)
            for bot in table.bots:
                busy[bot] -= 1
        elif wakeups:
            now = min(wakeups)
        else:
            now += 1.0
    return scheduler, started


# ---------------------------------------------------------------- honest bots and a slow one

#: Ten honest bots, a third of them with two slots, whose games take 0.8-1.2 time units.
HONEST: dict[str, tuple[int, None]] = {f"h{i}": (1 + (i % 3 == 0), None) for i in range(10)}
#: How long a game takes when this bot is at the table (a game lasts as long as its slowest player).
SPEED: dict[str, float] = {**{f"h{i}": (0.8, 1.0, 1.2)[i % 3] for i in range(10)}, "hang": 60.0, "slow": 6.0}


@dataclass(frozen=True)
class Throughput:
    rate: float  # games without the extra bots per honest slot per time unit not spent with them
    games: int  # games without the extra bots
    with_extra: int  # games with one of them


def honest_throughput(
    extra: Bots, *, clock: bool = True, until: float = 300.0, concurrency: int = 1000, seed: int = 1, **options
) -> Throughput:
    """The honest bots' games per time unit when ``extra`` bots (named in SPEED) join.

    Only games without the extra bots count, and only the time the honest slots were
    not seated with them: a bot that plays a hanging one is stuck with it; the claim
    is about everyone else.
    """
    lengths: dict[int, float] = {}

    def duration(table: Table, rng: random.Random) -> float:
        lengths[id(table)] = max(SPEED[b] for b in table.bots) * rng.uniform(0.8, 1.2)
        return lengths[id(table)]

    _scheduler, started = simulate(
        {**HONEST, **extra}, {"duo": 2}, until=until, duration=duration, clock=clock,
        concurrency=concurrency, seed=seed, **options,
    )
    with_extra = [(t, table) for t, table in started if set(table.bots) & set(extra)]
    seated = sum(min(lengths[id(table)], until - t) for t, table in with_extra)
    slots = sum(capacity for capacity, _games in HONEST.values())
    own = len(started) - len(with_extra)
    return Throughput(own / (until * slots - seated), own, len(with_extra))
