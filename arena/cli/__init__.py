"""The ``arena`` command.  One module per subcommand; each adds its parser.

A subcommand module exposes ``register(subparsers)``, which adds its parser
and sets ``func`` to a callable taking the parsed namespace and returning an
exit code.  Errors meant for the user are raised as `CommandError` (the
command line was wrong: exit status 2, as argparse uses) or `RunFailure` (the
command line was fine but the work failed: status 1) and printed as one line,
without a traceback.  Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from arena import __version__

_COMMAND_MODULES = ("rules", "selfplay", "match", "serve", "replay", "watch", "web", "leaderboard", "bots", "check_bot", "health")


class CommandError(Exception):
    """A usage error: printed as ``arena: error: ...`` with exit status 2."""

    exit_status = 2


class RunFailure(CommandError):
    """A runtime failure (a file that cannot be written, a bot that crashed...): exit status 1."""

    exit_status = 1


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
    except CommandError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return error.exit_status
    except GameError as error:  # a ruleset refused an option or a player count given on the command line
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
