"""From a bot's ``act`` to the answer sent: one rule for the network client and for local games.

A bot's own bug must not cost it the game's flow, and must not be hidden either.  So when ``act``
raises, or returns something that is not one of ``turn.legal``, the answer is the turn's first
legal action, and the failure travels with it (``Answer.bot_error``): the arena counts it for the
seat and shows it in the match table, the leaderboard and the replay.  `arena match --local` runs
bots through this same function, so a bot gets the same result with or without a network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from mau_arena_sdk.bot import Bot
    from mau_arena_sdk.turn import Turn

#: The protocol's limit for ``Answer.bot_error``.
MAX_ERROR_TEXT = 200


@dataclass(frozen=True)
class Decision:
    """The index answered, and what went wrong when it is the fallback rather than the bot's choice."""

    index: int
    error: str = ""                              # empty: the bot's own, legal choice
    exception: Optional[BaseException] = None    # the exception ``act`` raised, for a traceback in the log


def error_text(text: str) -> str:
    """One line, within the protocol's limit."""
    line = " ".join(text.split())
    return line if len(line) <= MAX_ERROR_TEXT else line[: MAX_ERROR_TEXT - 3] + "..."


def decide(bot: "Bot", turn: "Turn") -> Decision:
    """Ask ``bot.act(turn)``; on an exception or an illegal choice, fall back to ``turn.legal[0]``."""
    try:
        choice = bot.act(turn)
    except Exception as exception:  # any exception: the author's bug, reported with its traceback
        return Decision(0, error_text(f"act() raised {type(exception).__name__}: {exception}"), exception)
    try:
        return Decision(turn.index_of(choice))
    except ValueError as error:  # an illegal or malformed choice: say exactly what was wrong
        return Decision(0, error_text(str(error)))
