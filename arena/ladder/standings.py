"""The leaderboard rows: the Bradley-Terry fit joined with per-bot totals from the store."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

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


def compute_standings(store: LadderStore, ruleset: str, connected: Iterable[str] = ()) -> list[Standing]:
    """Every bot with a finished game in ``ruleset``, best first."""
    return standings_from(store.pair_table(ruleset), store.totals(ruleset), connected)


def standings_from(
    rated: "Sequence[RatedGame] | PairTable", totals: Mapping[str, BotTotals], connected: Iterable[str] = ()
) -> list[Standing]:
    """The fit on already loaded games: lets the server fit without holding the database."""
    ratings = fit_bradley_terry(rated)
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


def format_ci(ci: float) -> str:
    return "?" if not math.isfinite(ci) else f"±{ci:.0f}"
