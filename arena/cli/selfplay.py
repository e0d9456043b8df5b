"""`arena selfplay`: random games in-process, to see a ruleset run and how fast.

    arena selfplay moumou --games 20
    arena selfplay maumau-online --games 100 --players 6 --seed 1 --option mau_penalty=3

Game ``i`` uses seed ``S + i``, so any single game of a run can be replayed
from the printed seed.  Every seat picks uniformly among its legal actions.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena.cli import CommandError
from arena.cli.rules import lookup
from arena import games
from arena.games import GameError, chance
from arena.games.selfplay import PlayedGame, StalledGameError, play_random_game


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "selfplay",
        help="play random games in-process and print the outcome table",
        description="Play games between random players in-process, with a progress bar, "
        "then print per-seat placements, wins and points and the engine's decision rate.",
    )
    parser.add_argument("ruleset", metavar="RULESET", help="a ruleset name (see `arena rules`)")
    parser.add_argument("--games", type=int, default=10, metavar="N", help="games to play (default 10)")
    parser.add_argument(
        "--players", type=int, default=None, metavar="P", help="seats per game (default: the ruleset's default)"
    )
    parser.add_argument(
        "--seed", type=int, default=None, metavar="S", help="seed of the first game; game i uses S+i (default: random)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a ruleset option (repeatable); `arena rules show RULESET` lists them",
    )
    parser.set_defaults(func=run)


def parse_options(pairs: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CommandError(f"--option takes KEY=VALUE, not {pair!r}")
        options[key.strip()] = value.strip()
    return options


def run(args: argparse.Namespace, console: Console | None = None) -> int:
    console = console or Console()
    info = lookup(args.ruleset)
    players = args.players if args.players is not None else (info.default_players or info.min_players)
    info.check_players(players)
    options = info.resolve_options(parse_options(args.option))
    if args.games < 1:
        raise CommandError(f"--games must be at least 1, not {args.games}")
    if args.seed is not None and args.seed < 0:
        raise CommandError(f"--seed must be a non-negative integer, not {args.seed}")
    first_seed = args.seed if args.seed is not None else chance.new_seed()
    # Options the ruleset refuses for this table (teams with 5 seats...) fail here, as a user error.
    games.new_game(info.name, players=players, seed=first_seed, **options)

    shown = ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"
    console.print(f"{info.title}: {args.games} random games, {players} players, seeds {first_seed}+i, options: {shown}")
    played: list[PlayedGame] = []
    started = time.perf_counter()
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with progress:
        task = progress.add_task(info.name, total=args.games)
        for index in range(args.games):
            seed = first_seed + index
            try:
                played.append(play_random_game(info.name, players, seed, options))
            except StalledGameError as error:
                raise CommandError(str(error)) from None
            except GameError:
                raise
            except Exception as error:
                raise CommandError(
                    f"the {info.name} engine crashed in the game with seed {seed}: {error!r}"
                ) from error
            progress.advance(task)
    wall = time.perf_counter() - started
    print_outcome(console, played, players, wall)
    return 0


def outcome_rows(played: list[PlayedGame], players: int) -> list[dict[str, Any]]:
    """Per seat: mean placement, wins (placement 1, shared or not) and mean points."""
    rows = []
    for seat in range(players):
        placements = [game.result.placements[seat] for game in played]
        points = [game.result.points[seat] for game in played]
        rows.append(
            {
                "seat": seat,
                "mean_placement": sum(placements) / len(played),
                "wins": sum(1 for p in placements if p == 1),
                "mean_points": sum(points) / len(played),
            }
        )
    return rows


def print_outcome(console: Console, played: list[PlayedGame], players: int, wall: float) -> None:
    table = Table(title="Outcome by seat", title_justify="left")
    table.add_column("seat", justify="right")
    table.add_column("mean placement", justify="right")
    table.add_column("wins", justify="right")
    table.add_column("mean points", justify="right")
    for row in outcome_rows(played, players):
        table.add_row(
            str(row["seat"]), f"{row['mean_placement']:.2f}", str(row["wins"]), f"{row['mean_points']:.1f}"
        )
    console.print(table)
    decisions = sum(game.decisions for game in played)
    engine_seconds = sum(game.seconds for game in played)
    rate = decisions / engine_seconds if engine_seconds > 0 else float("inf")
    summary = Table(show_header=False, box=None)
    summary.add_column(style="bold")
    summary.add_column(justify="right")
    summary.add_row("games", str(len(played)))
    summary.add_row("decisions", str(decisions))
    summary.add_row("decisions per game", f"{decisions / len(played):.1f}")
    summary.add_row("decisions/s", f"{rate:,.0f}")
    summary.add_row("wall time", f"{wall:.2f} s")
    console.print(summary)
