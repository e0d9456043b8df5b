"""`arena leaderboard`: the Bradley-Terry table of a ladder database (or JSON for scripts)."""

from __future__ import annotations

import json
import math

from arena.cli import CommandError
from arena.cli.db import add_db_argument, open_db
from arena.ladder.ranking import PROVISIONAL_GAMES


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "leaderboard",
        help="print the ratings table (Bradley-Terry fit, 95%% intervals, ranked by the interval's low end)",
        description="Rank, bot, rating, -/+ 95% interval, 95% low, games, score %, wins, timeouts, strikes and "
        "errors (decisions where the bot's own code failed and its SDK played the first legal action), "
        "from the finished games in a ladder database.  Bots are ranked by 95% low, the lower end of the "
        "rating's 95% interval (rating - 1.96 standard errors), not by the rating: a bot cannot hold the "
        f"top by stopping after a lucky streak.  Games marked * are provisional (fewer than {PROVISIONAL_GAMES}).  "
        "Safe to run while `arena serve` writes to it.",
    )
    parser.add_argument("--game", metavar="RULESET", help="one ruleset (default: every ruleset with games)")
    add_db_argument(parser)
    parser.add_argument("--json", action="store_true",
                        help="print {ruleset: [rows]} as JSON, in rank order (ci: the 95%% half-width; ci_low, ci_high: "
                        "the 95%% interval, rating -/+ ci, as the web API gives it; rank_score: rating - ci, what the "
                        "rows are ranked by; all null while undetermined)")
    parser.set_defaults(func=run)


def standing_record(row) -> dict:
    """One leaderboard row as JSON-ready data."""
    bounded = math.isfinite(row.ci)
    return {
        "rank": row.rank, "bot": row.bot, "rating": round(row.rating, 1),
        "ci": round(row.ci, 1) if bounded else None,
        "ci_low": round(row.rating - row.ci, 1) if bounded else None,  # as the web API's standings
        "ci_high": round(row.rating + row.ci, 1) if bounded else None,
        "rank_score": round(row.rank_score, 1) if math.isfinite(row.rank_score) else None,
        "games": row.games, "provisional": row.provisional,
        "score": round(row.score, 4), "wins": row.wins, "timeouts": row.timeouts, "strikes": row.strikes,
        "errors": row.errors,
    }


def run(args) -> int:
    from arena import games
    from arena.ladder.dashboard import leaderboard_table, output_console
    from arena.ladder.standings import compute_standings

    store = open_db(args.db, must_exist="run `arena serve` first, or give --db")
    played = store.rulesets_played()
    if args.game:
        if args.game not in played and args.game not in games.rulesets():
            raise CommandError(f"unknown ruleset {args.game!r}; known rulesets: {', '.join(games.rulesets())}")
        rulesets = [args.game]  # a known ruleset with no games yet is an empty table, not a bad argument
    else:
        rulesets = played
    standings = {ruleset: compute_standings(store, ruleset) for ruleset in rulesets}
    if args.json:
        print(json.dumps({ruleset: [standing_record(row) for row in rows] for ruleset, rows in standings.items()},
                         indent=2))
        return 0
    console = output_console()
    if not rulesets:
        console.print(f"no finished games in {store.path} yet", markup=False)
        return 0
    for ruleset, rows in standings.items():
        if not rows:
            known = ", ".join(played) or "none yet"
            console.print(f"no finished {ruleset} games in {store.path} yet (rulesets with games: {known})",
                          markup=False)
            continue
        console.print(leaderboard_table(ruleset, rows))
    return 0
