#!/usr/bin/env python3
"""What a shared (PostgreSQL) host spends preparing one planning round, against building it afresh.

    python scripts/bench_planning_round.py                      # 200 bots, 3,000 pairings met, 2,000 rounds
    python scripts/bench_planning_round.py --bots 1000 --pairs 19900

A host of a shared ladder turns, every planning round, its connected bots' slots and the
cluster's last view into the scheduler's candidates and fairness counts.  Measured here,
on one thread (its CPU time per round), with between rounds two games ended and two
started (four bots' slots changed) and one new claim read from the database:

* incremental (what `LadderDirector._schedule` does): `Handle.slots`'s mapping, then
  `Membership.adjust`: the candidates from the `CandidatePool` (built again only for the
  bots whose inputs changed) and the read's new counts only (`Scheduler.add_counts`);
* afresh (the reference, what a round cost before): every candidate built again
  (`candidates.full_rebuild`) and the whole tally synced (`Scheduler.sync_counts`, after
  copying it, as each read did).

Both give the same candidates and counts (checked at the end; `tests/ladder/test_candidates.py`
and `tests/ladder/test_scheduler.py` check them over random histories).  The ratio is measured
in one run; no database is used.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ladder.candidates import CandidatePool, full_rebuild  # noqa: E402
from arena.ladder.membership import ClusterSettings, Membership  # noqa: E402
from arena.ladder.scheduler import Scheduler, slot_share  # noqa: E402
from arena.ladder.store.claims import ClusterLoad  # noqa: E402

RULESET = "moumou"


class Claims:
    """The part of `SeatClaims` a planning round reads: which bots have their ``bot_slots`` row."""

    def __init__(self, known: set[str]) -> None:
        self.known = known


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=200, help="connected bots (default 200)")
    parser.add_argument("--pairs", type=int, default=3000, help="pairings met so far (default 3,000)")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds timed per side (default 2,000)")
    args = parser.parse_args()
    if args.bots < 4:
        raise SystemExit("--bots must be at least 4")
    rng = random.Random(1)
    names = [f"bot{i:04d}" for i in range(args.bots)]
    possible = args.bots * (args.bots - 1) // 2
    if not 0 <= args.pairs <= possible:
        raise SystemExit(f"--pairs must be between 0 and {possible} for {args.bots} bots")
    pairs = {frozenset(p): rng.randint(1, 5) for p in rng.sample(list(itertools.combinations(names, 2)), args.pairs)}
    games = {name: rng.randint(20, 40) for name in names}
    slots = {name: (1, 0, (RULESET,)) for name in names}
    concurrency, reserved, cap = args.bots // 2, {}, 4

    membership = Membership(ClusterSettings(url=""), concurrency)
    membership.claims = Claims(set(names))  # type: ignore[assignment]
    incremental, afresh = Scheduler({RULESET: 2}), Scheduler({RULESET: 2})
    first = ClusterLoad(games={RULESET: dict(games)}, pairs={RULESET: dict(pairs)}, slots=concurrency, fresh=True)
    membership.take_view(first)
    pool = CandidatePool()
    held: list[ClusterLoad] = []

    def change() -> ClusterLoad:
        """Two games end and two start (four bots' slots change); a read finds one new claim."""
        for name in rng.sample(names, 4):
            capacity, busy, rulesets = slots[name]
            slots[name] = (capacity, 1 - busy, rulesets)
        a, b = rng.sample(names, 2)
        games[a] += 1
        games[b] += 1
        pair = frozenset((a, b))
        pairs[pair] = pairs.get(pair, 0) + 1
        return ClusterLoad(games={RULESET: {a: 1, b: 1}}, pairs={RULESET: {pair: 1}}, slots=concurrency)

    def round_incremental() -> list:
        membership.take_view(change())
        return membership.adjust(incremental, dict(slots), reserved, 2, cap, pool) or []

    def round_afresh() -> list:
        held.append(change())  # the incremental side has these claims at the end
        tally_games, tally_pairs = dict(games), dict(pairs)  # each read copied the whole tally
        afresh.sync_counts(RULESET, tally_games, tally_pairs)
        share = slot_share(concurrency, len(slots), 2)
        return full_rebuild(dict(slots), reserved, min(cap, share))

    spent = {"incremental": [], "afresh": []}
    for _ in range(3):  # alternating, so a drift of the machine's speed falls on both
        for label, fn in (("incremental", round_incremental), ("afresh", round_afresh)):
            began = time.thread_time()
            for _ in range(args.rounds):
                fn()
            spent[label].append((time.thread_time() - began) / args.rounds * 1e6)
    # The same state on both sides at the end: the same candidates and counts.
    for view in held:  # the claims read while the other side ran
        membership.take_view(view)
    assert membership.adjust(incremental, dict(slots), reserved, 2, cap, pool) == round_afresh_state(
        afresh, slots, reserved, cap, concurrency, games, pairs)
    assert {b: n for b, n in incremental.games[RULESET].items() if n} == dict(afresh.games[RULESET])
    assert {p: n for p, n in incremental.pairs[RULESET].items() if n} == dict(afresh.pairs[RULESET])
    low = {label: min(values) for label, values in spent.items()}
    print(f"{args.bots} bots, {args.pairs:,} pairings met at the start and {len(pairs):,} at the end, "
          f"{args.rounds:,} rounds a side, 3 alternations "
          f"(thread CPU per round, best of 3):")
    print(f"  incremental (Membership.adjust: candidate pool, new counts only): {low['incremental']:7.0f} µs "
          f"({', '.join(f'{v:.0f}' for v in spent['incremental'])})")
    print(f"  afresh (every candidate built, the whole tally copied and synced):  {low['afresh']:7.0f} µs "
          f"({', '.join(f'{v:.0f}' for v in spent['afresh'])})")
    print(f"  afresh / incremental: {low['afresh'] / low['incremental']:.1f}")
    return 0


def round_afresh_state(scheduler: Scheduler, slots: dict, reserved: dict, cap: int, concurrency: int,
                       games: dict, pairs: dict) -> list:
    scheduler.sync_counts(RULESET, dict(games), dict(pairs))
    return full_rebuild(dict(slots), reserved, min(cap, slot_share(concurrency, len(slots), 2)))


if __name__ == "__main__":
    sys.exit(main())
