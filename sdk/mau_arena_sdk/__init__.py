"""The Mau Arena bot SDK: write a `Bot` with a synchronous ``act(turn)``, then call `run()`.

    from mau_arena_sdk import Bot, run

    class Greedy(Bot):
        def act(self, turn):
            return max(turn.legal, key=lambda a: len(a.cards))

    if __name__ == "__main__":
        run(Greedy(), name="greedy")      # python greedy.py --arena HOST:PORT --token ...

The SDK needs only grpcio and protobuf (it never imports the arena).
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Sequence

from mau_arena_sdk.actions import Action, ActionParseError, is_card_code
from mau_arena_sdk.bot import Bot
from mau_arena_sdk.client import SDK_VERSION, Client, ClientOptions
from mau_arena_sdk.interrupts import install_sigterm_as_interrupt
from mau_arena_sdk.errors import ArenaError, ArenaRefused, ArenaUnreachable, ConnectionLost
from mau_arena_sdk.facts import Facts
from mau_arena_sdk.flags import parse_flags
from mau_arena_sdk.history import Event, History
from mau_arena_sdk.observation import Observation, SeatInfo
from mau_arena_sdk.turn import GameInfo, GameResult, SeatResult, TimeControl, Turn

__version__ = SDK_VERSION


def _default_name(bot: Bot) -> str:
    if bot.name:
        return bot.name
    script = Path(sys.argv[0]).stem if sys.argv and sys.argv[0] else ""
    return script if script and script not in ("-c", "__main__") else type(bot).__name__.lower()


def run(
    bot: Bot,
    name: str | None = None,
    arena: str = "127.0.0.1:50051",
    token: str = "",
    games: Sequence[str] | None = None,
    max_games: int = 1,
    max_reconnects: int = 8,
    games_limit: int | None = None,
    log_level: str = "INFO",
    bot_version: str | None = None,
    connect_timeout_s: float = 10.0,
    argv: Sequence[str] | None = None,
    exit: bool = True,
) -> int:
    """Play until stopped (Ctrl-C, SIGTERM, ``--games-limit``) or a fatal error.

    The arguments are defaults; the command line (``argv``, default
    ``sys.argv[1:]``) overrides them: ``--arena --token --name --games
    --parallel --max-reconnects --games-limit --connect-timeout --log-level``.
    Fatal errors (unreachable arena, refused hello, connection lost for good)
    are printed as one line.  With ``exit=True`` the process exits with the
    status (0 on a clean end); otherwise the status is returned.
    """
    defaults = ClientOptions(
        name=name or _default_name(bot),
        arena=arena,
        token=token,
        games=list(games or []),
        max_games=max_games,
        max_reconnects=max_reconnects,
        games_limit=games_limit,
        connect_timeout_s=connect_timeout_s,
        bot_version=bot_version if bot_version is not None else bot.version,
        steady=bot.steady,
    )
    options, level = parse_flags(sys.argv[1:] if argv is None else argv, defaults, log_level)
    log = logging.getLogger(f"sdk.{options.name}")
    if not logging.getLogger().handlers:
        logging.basicConfig(
            level=level, stream=sys.stderr, format=f"%(asctime)s [{options.name}] %(levelname)s %(message)s"
        )
    logging.getLogger().setLevel(level)
    install_sigterm_as_interrupt()
    try:
        status = Client(bot, options, log).serve()
    except ArenaError as error:
        log.error("%s", error)
        status = error.exit_code
    except KeyboardInterrupt:
        status = 0
    if exit:
        sys.exit(status)
    return status


__all__ = [
    "Event",
    "History",
    "Action",
    "ActionParseError",
    "ArenaError",
    "ArenaRefused",
    "ArenaUnreachable",
    "Bot",
    "Client",
    "ClientOptions",
    "ConnectionLost",
    "Facts",
    "GameInfo",
    "GameResult",
    "Observation",
    "SDK_VERSION",
    "SeatInfo",
    "SeatResult",
    "TimeControl",
    "Turn",
    "is_card_code",
    "run",
]
