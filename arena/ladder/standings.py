"""The leaderboard rows: the Bradley-Terry fit joined with per-bot totals from the store, in the
leaderboard's order (`arena.ladder.ranking`: by the lower end of the 95% interval)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from arena.ladder import ranking
from arena.ladder.ratings import PairTable, RatedGame, fit_bradley_terry
from arena.ladder.store import BotTotals, LadderStore


@dataclass(frozen=True)
class Standing:
    rank: int
    bot: str
    rating: float
    ci: float  # 95% half-width, Elo; inf when undetermined
    games: int
    score: float  # pairwise score, 0..1
    wins: int
    timeouts: int
    strikes: int
    connected: bool = False
    errors: int = 0  # decisions where the bot's own code failed (its SDK answered a fallback)

    @property
    def rank_score(self) -> float:
        """What the row is ranked by: the lower end of its 95% interval (-inf while unbounded)."""
        return ranking.rank_score(self.rating, self.ci)

    @property
    def provisional(self) -> bool:
        """Too few games for the rating to mean much yet (`ranking.PROVISIONAL_GAMES`)."""
        return ranking.provisional(self.games)


def compute_standings(store: LadderStore, ruleset: str, connected: Iterable[str] = ()) -> list[Standing]:
    """Every bot with a finished game in ``ruleset``, in leaderboard order (`arena.ladder.ranking`)."""
    return standings_from(store.pair_table(ruleset), store.totals(ruleset), connected)


def standings_from(
    rated: "Sequence[RatedGame] | PairTable", totals: Mapping[str, BotTotals], connected: Iterable[str] = ()
) -> list[Standing]:
    """The fit on already loaded games: lets the server fit without holding the database.  The rows are in
    the leaderboard's order (the rank score, not the point rating: `arena.ladder.ranking`); every table,
    page, RPC and summary line shows them in this order."""
    ratings = ranking.leaderboard_order(fit_bradley_terry(rated), lambda r: (r.bot, r.rating, r.ci))
    online = set(connected)
    rows = []
    for rank, r in enumerate(ratings, start=1):
        t = totals.get(r.bot)
        rows.append(
            Standing(
                rank=rank,
                bot=r.bot,
                rating=r.rating,
                ci=r.ci,
                games=t.games if t else r.games,
                score=r.score,
                wins=t.wins if t else 0,
                timeouts=t.timeouts if t else 0,
                strikes=t.strikes if t else 0,
                connected=r.bot in online,
                errors=t.errors if t else 0,
            )
        )
    return rows


class StandingsBook(Mapping[str, "list[Standing]"]):
    """A ladder's standings per ruleset (the last fit's rows), brought up to date whenever they are read.

    Every read (``book[ruleset]``, ``get``, ``items``, ``in``, ...) first calls ``refresh``: the director's
    `LadderFits._fit_when_read` (arena/ladder/fits.py), which fits the rulesets with results newer than their rows (unless those
    rows are fresher than the eager fits ever kept them).  So the dashboard, the web view and GetStandings
    read what a fit of every committed result gives, while a ladder nobody is looking at fits only for its
    scheduler, now and then, instead of every second.  ``put`` and ``last`` neither fit nor wait."""

    def __init__(self, refresh: Callable[[], None] = lambda: None) -> None:
        self._rows: dict[str, list[Standing]] = {}
        self._refresh = refresh

    def __getitem__(self, ruleset: str) -> list[Standing]:
        self._refresh()
        return self._rows[ruleset]

    def __iter__(self) -> Iterator[str]:
        self._refresh()
        return iter(list(self._rows))

    def __len__(self) -> int:
        self._refresh()
        return len(self._rows)

    def put(self, ruleset: str, rows: list[Standing]) -> None:
        """A fit's rows (without a refresh)."""
        self._rows[ruleset] = rows

    def last(self) -> dict[str, list[Standing]]:
        """The rows as last fitted, without a refresh."""
        return dict(self._rows)


def format_ci(ci: float) -> str:
    return "?" if not math.isfinite(ci) else f"±{ci:.0f}"
