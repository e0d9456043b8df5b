"""Command-line flags every bot understands, so any bot file runs as ``python mybot.py --arena HOST:PORT``.

The values passed to `run()` in code are the defaults; flags override them.
The token may also come from the ``MAU_ARENA_TOKEN`` environment variable,
which keeps it out of process listings.

``--parallel N`` is how many games the bot plays at once.  It used to be
called ``--max-games``, which `arena serve` uses for the total number of
games of a run; the old name still works and prints a deprecation warning.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from mau_arena_sdk.client import ClientOptions

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def _whole_number(text: str, expected: str) -> int:
    """``int(text)``, or the error argparse shows as ``argument --FLAG: expected ..., not 'TEXT'`` (a
    ValueError would show this function's name instead: ``invalid _positive value``)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}") from None


def _positive(text: str) -> int:
    value = _whole_number(text, "a positive whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _non_negative(text: str) -> int:
    value = _whole_number(text, "a whole number, 0 or more")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not value >= 0:  # nan too
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def _address(text: str) -> str:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, e.g. 127.0.0.1:50051, not {text!r}")
    return text


class _DeprecatedParallel(argparse.Action):
    """``--max-games N``: the old name of ``--parallel N``, with a warning on stderr."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"{parser.prog}: warning: {option_string} is deprecated, use --parallel {values} "
              "(games at once; arena serve's --max-games is a total)", file=sys.stderr)
        namespace.parallel = values


def _game_list(text: str) -> list[str]:
    return [g.strip() for g in text.split(",") if g.strip()]


def build_parser(prog: str | None = None, defaults: ClientOptions | None = None) -> argparse.ArgumentParser:
    """The flags; `defaults` (the bot's own, from its code) are what `--help` names as the defaults."""
    defaults = defaults if defaults is not None else ClientOptions()
    parser = argparse.ArgumentParser(prog=prog, description="Run this bot against a Mau Arena.")
    parser.add_argument("--arena", type=_address, metavar="HOST:PORT",
                        help=f"the arena's address (default {defaults.arena})")
    parser.add_argument("--token", help="the bot's token (or set MAU_ARENA_TOKEN); empty for open registration")
    parser.add_argument("--name", help="the bot's name on the ladder")
    parser.add_argument("--games", type=_game_list, metavar="R1,R2", help="rulesets to play (default: every ruleset)")
    parser.add_argument("--parallel", type=_positive, metavar="N",
                        help="games to play at once (default: run(max_games=...), else 1); each game's callbacks still run in order")
    parser.add_argument("--max-games", type=_positive, metavar="N", dest="parallel", action=_DeprecatedParallel,
                        help="deprecated name of --parallel (not a total: see --games-limit)")
    parser.add_argument("--max-reconnects", type=_non_negative, metavar="N",
                        help="reconnection attempts after a dropped connection before giving up")
    parser.add_argument("--games-limit", type=_positive, metavar="N", help="stop after N games in total")
    parser.add_argument("--connect-timeout", type=_seconds, metavar="SECONDS", help="how long to wait for the arena at start")
    parser.add_argument("--bot-version", metavar="TEXT", help="free text shown in replays")
    parser.add_argument("--steady", action=argparse.BooleanOptionalAction, default=None,
                        help="hold every answer to a steady pace learned from the bot's own think times, so that "
                             "answer timing does not tell which decisions were forced; slower games (default: as the bot's "
                             "code says, Bot.steady; the sample searcher paces)")
    parser.add_argument("--log-level", type=str.upper, choices=LOG_LEVELS, help="default INFO")
    return parser


def parse_flags(argv: Sequence[str], defaults: ClientOptions, log_level: str = "INFO",
                prog: str | None = None) -> tuple[ClientOptions, str]:
    """Apply the command line over `defaults`; returns the options and the log level."""
    args = build_parser(prog, defaults).parse_args(list(argv))
    options = ClientOptions(**vars(defaults))
    options.games = list(defaults.games)
    for flag, attribute in (
        ("arena", "arena"), ("token", "token"), ("name", "name"), ("games", "games"),
        ("parallel", "max_games"), ("max_reconnects", "max_reconnects"), ("games_limit", "games_limit"),
        ("connect_timeout", "connect_timeout_s"), ("bot_version", "bot_version"), ("steady", "steady"),
    ):
        value = getattr(args, flag)
        if value is not None:
            setattr(options, attribute, value)
    if not options.token:
        options.token = os.environ.get("MAU_ARENA_TOKEN", "")
    return options, args.log_level or log_level.upper()
