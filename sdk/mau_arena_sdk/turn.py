"""The objects a bot receives: `GameInfo` at the start, `Turn` per decision, `GameResult` at the end.

Each is built from its protocol message by a ``from_pb`` classmethod; the
arena's in-process seats use the same path, so a bot sees identical objects
over the wire and in a local match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mau_arena_sdk.actions import Action
from mau_arena_sdk.history import Event, History
from mau_arena_sdk.facts import Facts
from mau_arena_sdk.observation import Observation


#: Parsed action texts: a game's legal lists repeat the same few hundred texts, and an
#: `Action` is immutable, so each text is parsed once (bounded: cleared when full).
_ACTIONS: dict[str, Action] = {}
_MAX_CACHED_ACTIONS = 8192


def _wire_action(text: str) -> Action:
    action = _ACTIONS.get(text)
    if action is None:
        if len(_ACTIONS) >= _MAX_CACHED_ACTIONS:
            _ACTIONS.clear()
        action = _ACTIONS[text] = Action.from_wire(text)
    return action


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The game's time model, in milliseconds (see the arena's docs for how the bank works)."""

    move_ms: int = 0
    bank_ms: int = 0
    increment_ms: int = 0
    first_move_ms: int = 0
    max_strikes: int = 0

    @classmethod
    def from_pb(cls, message: Any) -> "TimeControl":
        return cls(message.move_ms, message.bank_ms, message.increment_ms, message.first_move_ms, message.max_strikes)


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game this bot sits in: which ruleset, its options, our seat, everyone's names, the ruleset's facts.

    ``options`` hold typed values (``101``, ``True``) taken from the facts; from an arena that sends no
    facts (``facts`` None) they stay in their text form (``"101"``, ``"true"``).
    """

    game_id: str
    ruleset: str
    seat: int
    players: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    time_control: TimeControl = TimeControl()
    facts: Facts | None = None

    @classmethod
    def from_pb(cls, message: Any) -> "GameInfo":
        try:
            facts = Facts.from_json(message.facts_json)
        except ValueError:  # a garbled facts text costs the bot its facts, not the game
            facts = None
        return cls(
            game_id=message.game_id,
            ruleset=message.ruleset,
            seat=message.seat,
            players=tuple(message.players),
            options=facts.options if facts is not None else dict(message.options),
            time_control=TimeControl.from_pb(message.time_control),
            facts=facts,
        )


class Turn:
    """One decision to make: answer it by returning one of ``legal`` (an Action, its text or its index).

    Read-only, like the other SDK objects.  Built from a wire message, ``observation`` is decoded on
    first use (the JSON details, the seat views): a bot that decides from ``legal`` alone, like the
    random sample bot, never pays for it.

    ``events`` are the public events since this seat's previous turn of the game (its own actions'
    outcomes included: the count it drew); ``history`` is every public event of the game up to
    this turn, oldest first (see `sdk.history`).
    """

    __slots__ = ("game_id", "request_id", "seat", "ruleset", "_observation", "_message", "legal",
                 "time_left_ms", "bank_ms", "_history", "_history_end", "_new_events")

    game_id: str
    request_id: int
    seat: "int | None"
    ruleset: str
    legal: "tuple[Action, ...]"
    time_left_ms: int
    bank_ms: int

    def __init__(self, game_id: str, request_id: int, seat: "int | None", ruleset: str,
                 observation: "Observation | None", legal: "tuple[Action, ...]", time_left_ms: int,
                 bank_ms: int, *, _message: Any = None, events: "tuple[Event, ...] | None" = None,
                 history: "History | None" = None) -> None:
        setter = object.__setattr__
        setter(self, "game_id", game_id)
        setter(self, "request_id", request_id)
        setter(self, "seat", seat)
        setter(self, "ruleset", ruleset)
        setter(self, "_observation", observation)
        setter(self, "_message", _message)
        setter(self, "legal", tuple(legal))
        setter(self, "time_left_ms", time_left_ms)
        setter(self, "bank_ms", bank_ms)
        if history is None:  # a turn on its own: its history is its own events
            history = History()
            history.add(events or ())
        setter(self, "_history", history)
        setter(self, "_history_end", len(history))
        setter(self, "_new_events", len(events) if events is not None else len(history))

    @classmethod
    def from_pb(cls, message: Any, history: "History | None" = None) -> "Turn":
        """Build from a ``pb.TurnRequest``; ``history`` is the game's `History` so far, to which this
        request's events are added (the client keeps one per game)."""
        wire_observation = message.observation
        seat = wire_observation.seat
        time_left = message.time
        if history is None:
            history = History()
        history.add(message.events)
        turn = cls(message.game_id, message.request_id, None if seat < 0 else seat, wire_observation.ruleset,
                   None, tuple(map(_wire_action, message.legal)), time_left.move_ms, time_left.bank_ms,
                   _message=wire_observation, history=history)
        object.__setattr__(turn, "_new_events", len(message.events))
        return turn

    @property
    def events(self) -> "tuple[Event, ...]":
        """The public events since this seat's previous turn of the game, oldest first."""
        history = self.history
        return history[len(history) - self._new_events:]

    @property
    def history(self) -> "tuple[Event, ...]":
        """Every public event of the game up to this turn, oldest first (the deal is the first)."""
        return self._history.events(self._history_end)

    @property
    def observation(self) -> Observation:
        """What this seat may see (decoded from the wire on first use, then kept)."""
        observation = self._observation
        if observation is None:
            observation = Observation.from_pb(self._message)
            object.__setattr__(self, "_observation", observation)
            object.__setattr__(self, "_message", None)
        return observation

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"a Turn is read-only (cannot set {key!r})")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"a Turn is read-only (cannot delete {key!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Turn):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.game_id, self.request_id))

    def _key(self) -> tuple:
        return (self.game_id, self.request_id, self.seat, self.ruleset, self.observation, self.legal,
                self.time_left_ms, self.bank_ms, self.events)

    def __repr__(self) -> str:
        return (f"Turn(game_id={self.game_id!r}, request_id={self.request_id!r}, seat={self.seat!r}, "
                f"ruleset={self.ruleset!r}, observation={self.observation!r}, legal={self.legal!r}, "
                f"time_left_ms={self.time_left_ms!r}, bank_ms={self.bank_ms!r})")

    @property
    def decision(self) -> str:
        """What kind of decision this is (``turn``, ``cover``, ``suit``, ``accuse``...)."""
        return self.observation.decision

    def legal_with(self, verb: str) -> list[Action]:
        """The legal actions with this verb, e.g. ``turn.legal_with("play")``."""
        return [a for a in self.legal if a.verb == verb]

    def index_of(self, choice: "Action | str | int") -> int:
        """The index in ``legal`` of an Action, its text, or an index; ValueError if it is not legal."""
        if type(choice) is Action:  # the usual answer: one of our own legal actions, found by identity
            for index, action in enumerate(self.legal):
                if action is choice:
                    return index
        if isinstance(choice, bool):
            raise ValueError(f"act() returned {choice!r}; return an Action, its text or its index")
        if isinstance(choice, int):
            if 0 <= choice < len(self.legal):
                return choice
            raise ValueError(f"act() returned index {choice}, but there are {len(self.legal)} legal actions")
        if not isinstance(choice, (str, Action)) and hasattr(choice, "verb") and hasattr(choice, "args"):
            choice = str(choice)  # an action object from elsewhere (e.g. the engine's): use its text form
        if isinstance(choice, (str, Action)):
            action = Action.parse(choice)
            try:
                return self.legal.index(action)
            except ValueError:
                shown = ", ".join(a.text for a in self.legal[:12]) + (" ..." if len(self.legal) > 12 else "")
                raise ValueError(f"act() returned {action.text!r}, which is not legal here; legal: {shown}") from None
        raise ValueError(f"act() returned {type(choice).__name__} {choice!r}; return an Action, its text or its index")


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    name: str
    placement: int  # 1 is best; ties share
    points: int
    strikes: int = 0
    timeouts: int = 0
    forfeited: bool = False
    think_ms: int = 0


#: GameEnded.Status numbers (FINISHED = 1, ABORTED = 2) as words.
_STATUS = {1: "finished", 2: "aborted"}


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended, for every seat; ``mine`` is this bot's own line (None if unknown)."""

    game_id: str
    reason: str
    seats: tuple[SeatResult, ...]
    mine: SeatResult | None = None
    errors: int = 0  # how many times this bot's act() raised or returned an illegal action in the game
    status: str = ""  # "finished" (the placements count) or "aborted" (not rated); "" from an older arena

    @classmethod
    def from_pb(cls, message: Any, seat: int | None = None, errors: int = 0) -> "GameResult":
        seats = tuple(
            SeatResult(r.seat, r.name, r.placement, r.points, r.strikes, r.timeouts, r.forfeited, r.think_ms)
            for r in message.results
        )
        mine = next((r for r in seats if r.seat == seat), None)
        return cls(game_id=message.game_id, reason=message.reason, seats=seats, mine=mine, errors=errors,
                   status=_STATUS.get(message.status, ""))

    @property
    def placement(self) -> int | None:
        return self.mine.placement if self.mine else None

    @property
    def won(self) -> bool:
        return self.mine is not None and self.mine.placement == 1
