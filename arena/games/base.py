"""The engine contract: what every game family provides to the arena.

The arena, the replays, the benchmarks and other people's tools are written
against this module only.  An engine is a pure, deterministic function of
(ruleset, options, seed, actions): all chance comes from `arena.games.chance`,
keyed by the seed, never from a global generator.

The model follows OpenSpiel and python-chess:

* a `GameState` is mutable like `chess.Board`: `apply()` changes it in place,
  `clone()` copies it;
* exactly one seat decides at a time (`current`); out-of-turn reactions
  (accusations, challenges, blocks, wild swaps) are reaction windows that the
  engine offers to the eligible seats one by one, in a fixed order, with
  `pass` as the default;
* every decision is atomic and has a short legal list; every `Action` has a
  text form that parses back to the same action;
* `observation(seat)` is the only thing that may reach a bot or a seat view.
"""

from __future__ import annotations

import hashlib
import json
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Sequence


class GameError(ValueError):
    """Base class of every error the engines raise on bad input."""


class UnknownRulesetError(GameError):
    pass


class OptionError(GameError):
    pass


class PositionError(GameError):
    pass


class ActionError(GameError):
    pass


class ActionParseError(ActionError):
    """The text is not an action at all (empty, bad characters, unknown verb)."""


class IllegalActionError(ActionError):
    """A well-formed action that is not legal in this state; the state is unchanged."""


_TOKEN = re.compile(r"^[A-Za-z0-9_+\-=.:]+$")


class Action:
    """One atomic decision, e.g. ``play 7h``, ``suit h``, ``accuse 2``.

    An action is a verb and a tuple of argument tokens; its text form is
    them joined by single spaces, so ``Action.parse(str(a)) == a``.  Which
    verbs and arguments are legal is the engine's business: the legal list
    is the only source of truth.

    A value: compared and hashed by its verb and arguments, and never changed
    once made (an assignment raises).  A slotted class whose ``__init__`` stores
    its two fields through the slots' own setters, not a frozen dataclass,
    whose ``__init__`` sets each field through ``object.__setattr__`` (a name
    look-up on the type per field): Mose makes new ``meld`` and ``layoff``
    actions as hands and melds change.
    """

    __slots__ = ("verb", "args")
    __match_args__ = ("verb", "args")

    verb: str
    args: tuple[str, ...]

    def __init__(self, verb: str, args: tuple[str, ...] = ()) -> None:
        _set_verb(self, verb)
        _set_args(self, args)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"an Action is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"an Action is immutable; cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is Action:
            return self.verb == other.verb and self.args == other.args  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.verb, self.args))  # as the frozen dataclass hashed it: sets keep their order

    def __reduce__(self) -> tuple:
        """Pickled and copied by its fields (the slots refuse the generic ``setattr`` restore)."""
        return (Action, (self.verb, self.args))

    def __str__(self) -> str:
        return " ".join((self.verb, *self.args)) if self.args else self.verb

    def __repr__(self) -> str:
        return f"Action({str(self)!r})"

    @classmethod
    def parse(cls, text: "str | Action") -> "Action":
        if isinstance(text, Action):
            return text
        if not isinstance(text, str):
            raise ActionParseError(f"an action is text like 'play 7h', not {type(text).__name__}")
        tokens = text.split()
        if not tokens:
            raise ActionParseError("empty action text; expected e.g. 'play 7h', 'draw' or 'pass'")
        for token in tokens:
            if not _TOKEN.match(token):
                raise ActionParseError(f"bad token {token!r} in action {text!r}")
        verb = tokens[0].lower()
        if not verb.isalpha():
            raise ActionParseError(f"an action starts with a verb, got {tokens[0]!r} in {text!r}")
        return cls(verb, tuple(tokens[1:]))

    @property
    def cards(self) -> tuple[str, ...]:
        """The card codes this action names (empty for ``draw``, ``pass``...)."""
        from arena.games.cards import is_card_code

        return tuple(a for a in self.args if is_card_code(a))


#: The slots' own setters: `Action.__setattr__` refuses every write, construction included.
_set_verb = Action.__dict__["verb"].__set__
_set_args = Action.__dict__["args"].__set__


class Observation:
    """What one seat may see, as a JSON-safe mapping.

    Every engine fills at least these keys: ``ruleset``, ``seat`` (None for
    the spectator view), ``players``, ``current``, ``decision``, ``hand``
    (own cards; None for a spectator), ``hand_sizes``, ``discard`` (the
    visible part, bottom to top), ``stock_size``, ``direction``, ``scores``.
    Game-specific keys follow (``active_suit``, ``pending``, ``melds``...).

    Read-only: engines may share unchanged parts (a hand's scores) between
    the observations they build, so take `to_dict()` for a copy to change.
    A slotted class rather than a frozen dataclass because one is built at
    every decision; an engine may store it more compactly still
    (`RecordObservation`), with the same mapping behaviour.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        _set_observation_data(self, data)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"an Observation is read-only; cannot set {name!r}")

    @property
    def data(self) -> Mapping[str, Any]:
        return self._data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        return dict(self.data) == dict(other.data)

    __hash__ = None  # type: ignore[assignment]  # mappings inside: not hashable

    def __repr__(self) -> str:
        return f"Observation(data={dict(self.data)!r})"

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.data))

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.data

    @property
    def seat(self) -> int | None:
        return self["seat"]


#: The slot's own setter: `__setattr__` refuses every write, construction included.
_set_observation_data = Observation.__dict__["_data"].__set__


class RecordObservation(Observation):
    """An observation stored as one tuple of values in a fixed key order (the class's `KEYS`).

    Built at every decision, so its cost counts: one tuple instead of a
    dict filled key by key.  It is the whole snapshot (every list in it
    copied when it was built), only kept in a compact form; `data` gives it
    as a dict.  Engines make one subclass per key order with `record_type`
    and build records with `of`, or on a hot path as `kind()` followed by
    one store of the private ``_data``: with object's own ``__init__`` and
    ``__setattr__`` that is the cheapest construction CPython offers (half
    the cost of the guarded base class's wrapper calls, measured).  The
    public side stays read-only: ``data`` has no setter and the slots leave
    no room for other attributes.  A subclass may assemble the tuple when it
    is first read instead, by defining ``_data`` as a property (the shedding
    engine's `SheddingObservation`); `record_type` makes one type per class
    and key order.
    """

    __slots__ = ()
    KEYS: ClassVar[tuple[str, ...]] = ()
    INDEX: ClassVar[dict[str, int]] = {}
    __init__ = object.__init__  # type: ignore[assignment]
    __setattr__ = object.__setattr__  # type: ignore[assignment]

    @classmethod
    def of(cls, values: Sequence[Any]) -> "RecordObservation":
        """A record of these values, in the order of `KEYS`."""
        if len(values) != len(cls.KEYS):
            raise ValueError(f"{cls.__name__} takes {len(cls.KEYS)} values, not {len(values)}")
        record = cls()
        record._data = tuple(values)
        return record

    @classmethod
    def record_type(cls, keys: Sequence[str]) -> "type[RecordObservation]":
        keys = tuple(keys)
        known = _RECORD_TYPES.get((cls, keys))
        if known is None:
            index = {key: i for i, key in enumerate(keys)}
            known = _RECORD_TYPES[cls, keys] = type(cls.__name__, (cls,), {"__slots__": (), "KEYS": keys,
                                                                          "INDEX": index})
        return known

    @property
    def data(self) -> dict[str, Any]:
        return dict(zip(self.KEYS, self._data))

    @property
    def ordered_values(self) -> tuple[Any, ...]:
        """The values in the order of `KEYS`, as stored: for readers that know the order (the
        server's conversion), without the dict that `data` builds."""
        return self._data

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._data == other._data  # type: ignore[attr-defined]
        return super().__eq__(other)

    def __getitem__(self, key: str) -> Any:
        return self._data[self.INDEX[key]]

    def get(self, key: str, default: Any = None) -> Any:
        i = self.INDEX.get(key)
        return default if i is None else self._data[i]

    def __contains__(self, key: object) -> bool:
        return key in self.INDEX

    def __reduce__(self) -> tuple:
        """Pickled and copied as the plain mapping form (record types are made at run time)."""
        return (Observation, (self.data,))


_RECORD_TYPES: dict[tuple[type, tuple[str, ...]], type] = {}  # (the class, its keys) -> the subclass


def assembled_on_first_read(assemble: Callable[[Any], tuple]) -> property:
    """The ``_data`` property of a `RecordObservation` subclass that keeps a snapshot and assembles the record's
    values from it when they are first read: ``_data = assembled_on_first_read(_assemble)``.

    The subclass has the slots ``_parts`` (the snapshot its builder took) and ``_values`` (None until
    read); ``assemble(record)`` gives the values in `KEYS` order, kept in ``_values`` from then on.  A
    closure, not a shared base class: the function is found in the property's own cell, with no look-up
    on the record's class (measured: a class attribute cost DD MAU 0.4% of a decision)."""

    def values(record: Any) -> tuple:
        found = record._values
        if found is None:
            found = record._values = assemble(record)
        return found

    return property(values, doc="the record's values, assembled from the snapshot when first read")


@dataclass(frozen=True, slots=True)
class PublicEvent:
    """One thing that happened in public: what every player at a real table sees.

    ``seat`` is who it concerns (the actor, or the seat that draws); None for the table itself
    (a deal, a reshuffle, a hand's scoring).  ``kind`` names it (``play``, ``draw``, ``call``,
    ``reshuffle``, ``deal``...; each engine family lists its kinds in arena/games/README.md),
    ``text`` is a short readable form (``play 7h``, ``draw 2``, ``blind ?? as 7h``) and
    ``details`` the same facts as JSON-safe data (``{"card": "7h"}``, ``{"count": 2}``).  The
    same event is public to every seat: a draw is a count, a face-down card is its claim.
    """

    seat: int | None
    kind: str
    text: str
    details: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "text": self.text, "details": json.loads(json.dumps(self.details))}


def note_draw(log: list[PublicEvent], seat: int) -> None:
    """One card went into ``seat``'s hand: counted into that seat's draw just before, or a new ``draw``."""
    if log:
        last = log[-1]
        if last.kind == "draw" and last.seat == seat:
            count = last.details["count"] + 1
            log[-1] = PublicEvent(seat, "draw", f"draw {count}", {**last.details, "count": count})
            return
    log.append(PublicEvent(seat, "draw", "draw 1", {"count": 1}))


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game.

    ``placements[i]`` is seat i's rank (1 is best; tied seats share a rank);
    ``points[i]`` is its score as the ruleset counts it (for most rulesets a
    penalty total, lower is better).
    """

    placements: tuple[int, ...]
    points: tuple[int, ...]
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"placements": list(self.placements), "points": list(self.points), "reason": self.reason}

    @classmethod
    def from_points(cls, points: Sequence[int], reason: str = "", lower_is_better: bool = True) -> "Result":
        """Placements by points, ties sharing the better rank (1, 1, 3...)."""
        key = (lambda p: p) if lower_is_better else (lambda p: -p)
        placements = tuple(1 + sum(1 for q in points if key(q) < key(p)) for p in points)
        return cls(placements, tuple(points), reason)


class GameState(ABC):
    """One game in progress.  See the module docstring for the model."""

    __slots__ = ()  # an engine may lay its state out in slots (a dict still comes with any that does not)

    #: Verbs this engine understands; an action with another verb is unknown.
    VERBS: ClassVar[frozenset[str]] = frozenset()

    ruleset: str
    options: dict[str, Any]
    players: int

    @property
    @abstractmethod
    def current(self) -> int | None:
        """The seat to decide next, or None once the game is over."""

    @property
    @abstractmethod
    def decision(self) -> str:
        """What kind of decision is pending (``turn``, ``cover``, ``suit``, ``accuse``...)."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """The legal actions for `current`, in a stable order; empty once over."""

    @abstractmethod
    def _apply_legal(self, action: Action) -> None:
        """Apply an action already known to be legal."""

    @abstractmethod
    def default_action(self) -> Action:
        """The action the arena applies on a timeout or a strike (draw, pass, accept...)."""

    @abstractmethod
    def observation(self, seat: int | None) -> Observation:
        """What ``seat`` may see; ``None`` is the spectator (public) view."""

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> Result:
        """The result; raises GameError while the game is still running."""

    @abstractmethod
    def to_position(self) -> dict[str, Any]:
        """The whole state as plain JSON-safe data, like FEN in chess."""

    @abstractmethod
    def clone(self) -> "GameState": ...

    # -- public events (the table's history) ---------------------------------------
    #
    # An engine that records events keeps them in a list it appends to as actions apply: nothing is
    # recorded (and nothing costs) until `record_events()` is called, usually once at the start.  The
    # first event describes the state as it stands then (the deal of a fresh game).  Clones and
    # restored positions do not record.

    def record_events(self) -> list[PublicEvent]:
        """Start recording the public events (idempotent) and return the live list they go to."""
        raise NotImplementedError(f"{type(self).__name__} does not record public events")

    @property
    def events(self) -> "list[PublicEvent] | None":
        """The public events recorded since `record_events()`, oldest first; None when not recording."""
        return None

    def public_text(self, action: "Action | str") -> str:
        """The text of an action as the other seats see it (a face-down card hidden behind its claim)."""
        return str(Action.parse(action))

    def apply(self, action: "Action | str") -> None:
        """Apply an action or its text; bad input raises and changes nothing."""
        parsed = Action.parse(action)
        if self.is_over:
            raise IllegalActionError(f"the game is over; {str(parsed)!r} cannot be applied")
        if self.VERBS and parsed.verb not in self.VERBS:
            raise ActionParseError(
                f"unknown action {str(parsed)!r} in {self.ruleset}; verbs: {', '.join(sorted(self.VERBS))}"
            )
        legal = self.legal_actions()
        if parsed not in legal:
            shown = ", ".join(str(a) for a in legal[:12]) + (" ..." if len(legal) > 12 else "")
            raise IllegalActionError(
                f"{str(parsed)!r} is not legal for seat {self.current} ({self.decision}); legal: {shown}"
            )
        self._apply_legal(parsed)

    def state_hash(self) -> str:
        """A short digest of the full position (`hashed_position`), for replays to check re-simulation."""
        from arena.games.canonical import canonical_json

        return hashlib.sha256(canonical_json(self.hashed_position())).hexdigest()[:16]

    def hashed_position(self) -> dict[str, Any]:
        """What `state_hash` digests: the position, less what a ruleset added to it after replays were
        recorded and what the replay itself already fixes (an engine overrides this to leave such keys
        out, so that every replay recorded before stays verifiable; `tests/games/test_replay_hashes.py`
        pins the hashes of earlier versions)."""
        return self.to_position()
