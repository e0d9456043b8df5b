"""A bot fed straight from an engine game, in-process, with the very objects the network would give it.

The measuring scripts (`searcher_ceiling.py`, `searcher_timing.py`, `searcher_digest.py`, `regret_screen.py`,
`searcher_posterior.py`) play the sample bots without a server.  Each game start and each turn still goes engine
→ `arena.messages` (the protobuf messages the server sends) → the SDK's `from_pb`, as `arena match --local` does
(`arena.match.local`), so a bot decides here exactly as it would over the wire, public history included.  The turns
carry a 60 s move limit and a 600 s bank, those of the measured runs of `sample_bots/README.md`, so the
searcher's clock guard (`searcher.TIME_SHARE`) never acts and a measurement depends on the budget's counts alone.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from arena import messages
from arena.match.seat import GameStart
from arena.match.timecontrol import TimeControl
from mau_arena_sdk import GameInfo, Turn

#: The game id every in-process game uses (a bot keeps its per-game state under it: `SearchBot.games["g"]`).
GAME_ID = "g"
#: The turns' move limit and bank, in ms.
MOVE_MS, BANK_MS = 60_000, 600_000


def names(players: int) -> tuple[str, ...]:
    return tuple(f"p{i}" for i in range(players))


def start(bot: Any, ruleset: str, players: int = 2, options: Mapping[str, Any] | None = None) -> GameInfo:
    """Tell `bot` that a game of `ruleset` starts (`on_game_start`), as the server would; the GameInfo it got."""
    message = messages.game_started_to_pb(GameStart(GAME_ID, ruleset, dict(options or {}), 0, names(players),
                                                    TimeControl()))
    info = GameInfo.from_pb(message)
    bot.on_game_start(info)
    return info


def turn_message(state: Any, legal: Sequence[Any], log: Sequence[Any]) -> Any:
    """The TurnRequest the server would send the seat to move in `state` (`log`: the game's recorded events)."""
    return messages.turn_request_to_pb(GAME_ID, 1, state.observation(state.current), legal, MOVE_MS, BANK_MS,
                                       list(names(state.players)), list(log))


def turn(state: Any, legal: Sequence[Any], log: Sequence[Any]) -> Turn:
    """The SDK's Turn for the seat to move in `state`, as a bot connected to the server would get it."""
    return Turn.from_pb(turn_message(state, legal, log))
