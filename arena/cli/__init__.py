"""The ``arena`` command.  One module per subcommand; each adds its parser.

A subcommand module exposes ``register(subparsers)``, which adds its parser
and sets ``func`` to a callable taking the parsed namespace and returning an
exit code.  Errors meant for the user are raised as `CommandError` (the
command line was wrong: exit status 2, as argparse uses) or `RunFailure` (the
command line was fine but the work failed: status 1) and printed as one line,
without a traceback.  Ctrl-C exits with 130; a closed standard output (``arena ... | head``) ends
the command quietly with 141, as a shell reports a process that SIGPIPE ended.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from arena import __version__

try:  # Python 3.11+; trio brings the backport on 3.10
    from builtins import BaseExceptionGroup
except ImportError:  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

#: Each command, in the order `arena --help` lists them, and the module that registers it.  A
#: command's module pulls in what the command needs (the match runner, the server, rich, the web
#: server), close to a second of imports for all of them; so only the module of the command being
#: run is imported, and the whole list only for `arena`, `arena --help` and a mistyped command.
COMMANDS = {
    "rules": "rules", "selfplay": "selfplay", "match": "match", "serve": "serve", "replay": "replay",
    "replays": "replay", "watch": "watch", "web": "web", "leaderboard": "leaderboard", "bots": "bots",
    "check-bot": "check_bot", "health": "health", "hosts": "hosts",
}


#: The exit status when standard output was closed under the command (128 + SIGPIPE, as shells report it).
CLOSED_OUTPUT_STATUS = 141


class CommandError(Exception):
    """A usage error: printed as ``arena: error: ...`` with exit status 2."""

    exit_status = 2


class RunFailure(CommandError):
    """A runtime failure (a file that cannot be written, a bot that crashed...): exit status 1."""

    exit_status = 1


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``command`` alone when it is one of `COMMANDS`, else of every command."""
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Mau Arena: card-playing bots fight over gRPC.",
    )
    parser.add_argument("--version", action="version", version=f"mau-arena {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = [COMMANDS[command]] if command in COMMANDS else dict.fromkeys(COMMANDS.values())
    for name in modules:
        importlib.import_module(f"arena.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # the last buffered lines: a closed pipe shows here, not at interpreter exit
        return status
    except CommandError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return error.exit_status
    except Exception as error:
        if _closed_output(error):
            return _quiet_stdout()
        # A ruleset refused an option or a player count given on the command line.  (Only a
        # command that loaded the games can raise their GameError: no import here for the others.)
        games = sys.modules.get("arena.games")
        if games is None or not isinstance(error, games.GameError):
            raise
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _closed_output(error: BaseException) -> bool:
    """Whether ``error`` is a write to a closed pipe: a `BrokenPipeError`, or a group of nothing else (what a
    trio nursery raises when one of its tasks printed)."""
    if isinstance(error, BaseExceptionGroup):
        return error.split(BrokenPipeError)[1] is None
    return isinstance(error, BrokenPipeError)


def _quiet_stdout() -> int:
    """Point standard output at devnull, so that flushing it at exit raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # not a real file (a test's capture): nothing will flush into a pipe
        pass
    return CLOSED_OUTPUT_STATUS


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
