"""The class bot authors subclass.  Everything here is plain synchronous Python."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from mau_arena_sdk.actions import Action
    from mau_arena_sdk.turn import GameInfo, GameResult, Turn

Choice = Union["Action", str, int]


class Bot:
    """Subclass and implement `act`.

    Threading model: each game's callbacks (`on_game_start`, each `act`,
    `on_game_end`) run in order, one at a time, and one game's slow `act`
    does not hold up another game's answer (a stand-by thread takes the
    connection over from a call still running after 10-20 ms).  With
    ``max_games`` above 1, calls for *different* games may overlap: keep
    per-game state in a dict keyed by ``game_id`` (or guard shared state
    with a lock).

    If `act` raises, or returns something that is not legal, the SDK logs
    it, answers the turn's first legal action instead, and counts an error
    that is reported at the end of the game (``result.errors``).
    """

    #: Default name on the ladder when neither `run(name=...)` nor ``--name`` gives one.
    name: str = ""
    #: Free text shown in replays (e.g. a git hash).
    version: str = ""
    #: Hold every answer to a steady pace, learned from this bot's own think times, so that how fast it
    #: answers does not tell the table which decisions were forced (`mau_arena_sdk.pace`; ``--steady`` and
    #: ``--no-steady`` override it).  Costs time: slower games.
    steady: bool = False

    def act(self, turn: "Turn") -> Choice:
        """Return one of ``turn.legal``: the Action, its text (``"play 7h"``) or its index."""
        raise NotImplementedError(f"{type(self).__name__} must implement act(self, turn)")

    def on_game_start(self, game: "GameInfo") -> None:
        """Called once per game before its first turn."""

    def on_game_end(self, game: "GameInfo", result: "GameResult") -> None:
        """Called once per game with every seat's placement and points."""
