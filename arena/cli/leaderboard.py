"""`arena leaderboard`: the Bradley-Terry table of a ladder database."""

from __future__ import annotations

from arena.cli import CommandError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "leaderboard",
        help="print the ratings table (Bradley-Terry fit, 95%% intervals)",
        description="Rank, bot, rating, -/+ 95% interval, games, score %, wins, timeouts and strikes, "
        "from the finished games in a ladder database.  Safe to run while `arena serve` writes to it.",
    )
    parser.add_argument("--game", metavar="RULESET", help="one ruleset (default: every ruleset with games)")
    parser.add_argument("--db", default="arena.db", help="ladder database (default arena.db)")
    parser.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from arena.ladder.dashboard import leaderboard_table, output_console
    from arena.ladder.standings import compute_standings
    from arena.ladder.store import LadderStore, StoreError

    if not Path(args.db).exists():
        raise CommandError(f"no ladder database at {args.db} (run `arena serve` first, or give --db)")
    try:
        store = LadderStore.open(args.db, recover=False)
    except StoreError as error:
        raise CommandError(str(error)) from None
    played = store.rulesets_played()
    if args.game:
        if args.game not in played:
            known = ", ".join(played) or "none yet"
            raise CommandError(f"no finished {args.game} games in {args.db} (rulesets with games: {known})")
        rulesets = [args.game]
    else:
        rulesets = played
    console = output_console()
    if not rulesets:
        console.print(f"no finished games in {args.db} yet")
        return 0
    for ruleset in rulesets:
        console.print(leaderboard_table(ruleset, compute_standings(store, ruleset)))
    return 0
