"""The director's candidate pool: incremental, and exactly what a full rebuild gives."""

from __future__ import annotations

import random

import pytest

from arena.ladder.candidates import CandidatePool, full_rebuild
from arena.ladder.scheduler import Scheduler


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_the_pool_plans_exactly_as_a_full_rebuild_while_bots_come_go_and_play(seed):
    """Three schedulers with one seed: one fed a fresh rebuild every round, one the pool's list, and one
    the pool told only which bots changed (`CandidatePool.refresh`, `Scheduler.plan_pool`, as the director
    does): the same tables in every round, while bots arrive and leave, slots fill and free, the cap
    moves, and (a shared ladder) the bots' games on other hosts change."""
    rng = random.Random(seed)
    players = {"moumou": 2, "mose": 4}
    rebuilt, pooled = Scheduler(players, rng=random.Random(3)), Scheduler(players, rng=random.Random(3))
    by_changes = Scheduler(players, rng=random.Random(3))
    pool, told = CandidatePool(), CandidatePool()
    changed: set[str] = set()  # the bots whose slots or reserved games changed since the last round
    slots: dict[str, tuple[int, int, tuple[str, ...]]] = {}
    reserved: dict[str, int] = {}
    running: list[tuple[str, ...]] = []
    elsewhere: dict[str, int] = {}
    now, rounds, tables = 0.0, 300, 0
    for round_ in range(rounds):
        event = rng.random()
        if event < 0.1 or len(slots) < 12:  # a bot arrives
            name = f"bot{rng.randrange(60):02d}"
            if name not in slots:
                slots[name] = (rng.choice((1, 2, 4)), 0, ("moumou",) if rng.random() < 0.5 else ("moumou", "mose"))
                changed.add(name)
        elif event < 0.15:  # a bot with no game leaves
            idle = [name for name, (_, busy, _) in slots.items() if busy == 0]
            if idle:
                gone = rng.choice(idle)
                del slots[gone]
                changed.add(gone)
        elif running:  # a game ends
            for bot in running.pop(rng.randrange(len(running))):
                if bot in slots:
                    capacity, busy, games = slots[bot]
                    slots[bot] = (capacity, busy - 1, games)
                reserved[bot] -= 1
                changed.add(bot)
            for scheduler in (rebuilt, pooled, by_changes):
                scheduler.game_finished(5.0)
        cap = 2 if round_ % 50 < 25 else 3
        if rng.random() < 0.2:  # a shared ladder: the bots' games on other hosts move now and then
            elsewhere = {name: rng.randrange(2) for name in slots if rng.random() < 0.2}
        now += rng.random()
        expected = full_rebuild(slots, reserved, cap, elsewhere)
        got = pool.update(slots, reserved, cap, elsewhere)
        assert got == expected
        planned = rebuilt.plan(expected, 8 - len(running), now=now)
        assert pooled.plan(got, 8 - len(running), now=now) == planned
        told.refresh(slots, changed, reserved, cap, elsewhere)
        changed = set()
        assert [told.candidates[name] for name in sorted(told.candidates)] == expected
        assert by_changes.plan_pool(told, 8 - len(running), now=now) == planned
        for table in planned:
            tables += 1
            running.append(table.bots)
            for bot in table.bots:
                capacity, busy, games = slots[bot]
                slots[bot] = (capacity, busy + 1, games)
                reserved[bot] = reserved.get(bot, 0) + 1
                changed.add(bot)
    assert tables > 100
    # Incremental: far fewer candidates built than a rebuild's one per bot per round.
    assert pool.built < rounds * len(slots) / 3
    assert told.built <= pool.built


def test_a_reserved_game_the_server_does_not_count_yet_takes_the_slot():
    """The director starts a game before its seats are taken on the server: the slot is gone already."""
    pool = CandidatePool()
    slots = {"a": (2, 0, ("moumou",)), "b": (2, 1, ("moumou",))}
    assert [c.free for c in pool.update(slots, {}, 2)] == [2, 1]
    assert [c.free for c in pool.update(slots, {"a": 1, "b": 1}, 2)] == [1, 1]
    assert [c.free for c in pool.update(slots, {"a": 1, "b": 1}, 1)] == [0, 0]  # the share shrank
    assert [c.name for c in pool.update({"c": (1, 0, ("moumou",)), **slots}, {}, 2)] == ["a", "b", "c"]


def test_a_round_with_too_few_free_seats_plans_nothing():
    scheduler = Scheduler({"moumou": 2, "mose": 4})
    pool = CandidatePool()
    candidates = pool.update({"a": (1, 0, ("moumou",)), "b": (1, 1, ("moumou",))}, {}, 1)
    assert scheduler.plan(candidates, 5, now=1.0) == []
    candidates = pool.update({"a": (1, 0, ("moumou",)), "b": (1, 0, ("moumou",))}, {}, 1)
    assert [sorted(t.bots) for t in scheduler.plan(candidates, 5, now=2.0)] == [["a", "b"]]
