"""Errors that end a bot's run, each with a message that says what to do about it."""

from __future__ import annotations


class ArenaError(Exception):
    """A fatal, user-facing failure: printed without a traceback; the process exits with `exit_code`."""

    exit_code = 1


class ArenaUnreachable(ArenaError):
    """Nothing answers at the arena address (wrong address, or the arena is not running)."""

    exit_code = 3


class ArenaRefused(ArenaError):
    """The arena answered the Hello with an error (bad name, wrong token, version, capacity...)."""

    exit_code = 2

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class ConnectionLost(ArenaError):
    """The connection dropped and every reconnection attempt failed."""

    exit_code = 4
