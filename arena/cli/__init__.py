"""The ``arena`` command.  One module per subcommand; each adds its parser.

A subcommand module exposes ``register(subparsers)``, which adds its parser
and sets ``func`` to a callable taking the parsed namespace and returning an
exit code.  Errors meant for the user are raised as `CommandError` and
printed without a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from arena import __version__

_COMMAND_MODULES = ("rules", "selfplay", "match", "serve", "replay", "watch", "web", "leaderboard", "bots")


class CommandError(Exception):
    """A user-facing failure: printed as ``arena: error: ...`` with exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Mau Arena: card-playing bots fight over gRPC.",
    )
    parser.add_argument("--version", action="version", version=f"mau-arena {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(f"arena.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    from arena.games import GameError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (CommandError, GameError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
