"""What a ladder starts from: the stored history its scheduler and rating fits pick up at start.

Run once when the director starts, on the store's worker thread: the names an earlier run saw that
never played are forgotten, the scheduler assumes the ladder's typical game until this host has timed
one of its own, and for every scheduled ruleset it loads the head-to-head counts (the fairness of
its pairings) and the fits their input.
"""

from __future__ import annotations

from typing import Iterable

from arena.ladder.fits import LadderFits
from arena.ladder.scheduler import Scheduler
from arena.ladder.store import LadderStore
from arena.ladder.typical_game import ladder_typical_game


def load_history(store: LadderStore, scheduler: Scheduler, fits: LadderFits, rulesets: Iterable[str]) -> None:
    """What the scheduler and the fits start from: the stored head-to-head history, the ratings, and the
    ladder's typical game."""
    store.forget_unplayed()  # names an earlier run saw that never played
    # Until this host finishes a game, its caps' time limits scale with the ladder's typical game (a host
    # joining a busy ladder otherwise waited, idle, for a slow bot playing on another host).
    typical = ladder_typical_game(store)
    if typical is not None:
        scheduler.assume_game(typical)
    for ruleset in rulesets:
        scheduler.load_history(ruleset, store.pair_counts(ruleset))
        fits.load(ruleset)
