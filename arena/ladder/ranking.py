"""The leaderboard's order: by a conservative rating, the lower end of the rating's 95% interval.

Ratings, intervals and who is connected are public, and a bot with no game running may leave the
ladder at no cost.  Ranked by the point rating, an average bot could watch its rank, leave while a
lucky streak has it on top and come back once it has fallen: the rating it leaves with is its
luckiest, and it stays there.  Ranked by ``rating - RANK_SIGMAS standard errors`` (as Halite ranked
by mu - 3 sigma and TrueSkill leaderboards do), a bot that stops playing keeps the wide interval of
its few games while the others' narrow, so stopping on a streak no longer holds the top.

RANK_SIGMAS is 1.96: the rank score is exactly the lower end of the 95% interval the tables already
show.  Chosen by simulating the attack through this fit (scripts/selective_stopping.py; the seeded
seasons of tests/ladder/test_ranking.py are a small version of it): 7 bots of true Elo +100, +50, 0, 0,
0, -50, -100, 1,400 two-player games, 100 seasons per row, the attacker a true-0 bot that watches the
order in use.

    ranked by             leaves for good when 1st   leaves when 1st, returns when not
    rating (k=0)          1st in 7/100               6/100
    rating - 1.0 SE       1/100                      1/100
    rating - 1.5 SE       0/100                      1/100
    rating - 1.96 SE      0/100                      0/100
    rating - 2.5, 3 SE    0/100                      0/100

(an honest true-0 bot: 1st in 0/100 at every k; the true best 1st in 97/100 of honest seasons at
every k.)  1.96 is the least of these that let no season through.  A larger k costs newcomers only:
a truly best bot (+150) joining after 1,200 games reached 1st after a median 15 of its games by the
rating, 70 at 1.96 and 120 at 3 (30 trials each).  While its games are few, a bot is marked
provisional (fewer than PROVISIONAL_GAMES games) so that its low place reads as "not yet known"
rather than "weak"; it is ranked by the same rule, not hidden.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, TypeVar

from arena.ladder.ratings import Z95

#: Standard errors below the rating that the leaderboard ranks by (1.96: the 95% interval's lower end).
RANK_SIGMAS = Z95
#: Below this many rated games a bot is shown as provisional: a newcomer's interval is still about ±105 Elo
#: at 20 games among bots of 200 games (±33), so its place says more about its few games than its strength.
PROVISIONAL_GAMES = 20
#: The rule in words, for table legends and help texts.
RULE = "ranked by the lower end of the 95% interval (rating − 1.96 standard errors)"
RULE_SHORT = "ranked by 95% low"

T = TypeVar("T")


def rank_score(rating: float, ci: float) -> float:
    """What the leaderboard ranks by: ``rating - RANK_SIGMAS`` standard errors; ``ci`` is the 95% half-width
    (so at 1.96 sigmas this is ``rating - ci``).  -inf for an unbounded interval (a bot not yet tied to
    the others by games: it ranks below every bot whose rating is known)."""
    if not math.isfinite(ci):
        return -math.inf
    return rating - RANK_SIGMAS * ci / Z95


def provisional(games: int) -> bool:
    """Too few games for its rating to mean much yet (it is still ranked, by the same rule)."""
    return games < PROVISIONAL_GAMES


def rank_key(bot: str, rating: float, ci: float) -> tuple[float, float, str]:
    """The sort key, best first: the rank score, then the rating, then the name (a total, stable order)."""
    return (-rank_score(rating, ci), -rating, bot)


def leaderboard_order(rows: Iterable[T], of: Callable[[T], tuple[str, float, float]]) -> list[T]:
    """``rows`` in leaderboard order; ``of(row)`` gives its (bot, rating, 95% half-width)."""
    return sorted(rows, key=lambda row: rank_key(*of(row)))
