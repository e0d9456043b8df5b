"""What one seat may see of a game, as one read-only object.

The arena sends the engine's per-seat observation as a protobuf message:
typed common fields plus ``details_json``, a JSON object with every other key
of the engine's observation (``active_suit``, ``pending``, ``obligation``...).
The SDK rebuilds a single object that answers both ways, ``obs.hand`` and
``obs["active_suit"]``, so bot code reads like the rules.

Conversions, so that bots see Python values rather than wire quirks:
``seat`` and ``current`` are ``None`` instead of -1 (spectator, game over);
lists become tuples (the object is read-only).  From ``seats`` come
``seat_count`` (how many seats), ``names`` (the bots' names by seat) and the
engine-style lists ``hand_sizes``, ``scores`` and ``statuses`` when the
details do not already carry them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterator



@dataclass(frozen=True, slots=True)
class SeatInfo:
    """The public facts about one seat."""

    seat: int
    name: str
    hand_size: int
    score: int
    status: str  # "active", "finished", "eliminated", "forfeited"


def _frozen(value: Any) -> Any:
    """Lists become tuples and dicts read-only mappings, all the way down."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return _FrozenDict({k: _frozen(v) for k, v in value.items()})
    return value


_JSON_CONTAINERS = (list, dict)


def frozen_json(value: Any) -> Any:
    """`_frozen` for freshly decoded JSON (exact lists and dicts only); scalars pass untouched."""
    if type(value) is list:
        return tuple([frozen_json(v) if type(v) in _JSON_CONTAINERS else v for v in value])
    return _FrozenDict({k: frozen_json(v) if type(v) in _JSON_CONTAINERS else v for k, v in value.items()})


def _thawed(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_thawed(v) for v in value]
    if isinstance(value, SeatInfo):
        return {f: getattr(value, f) for f in SeatInfo.__slots__}
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    return value


class _FrozenDict(Mapping):
    """A read-only dict for nested observation values (``obs.pending["amount"]``)."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]):
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getattr__(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise AttributeError(key) from None

    def __repr__(self) -> str:
        return f"{self._data!r}"


class Observation(Mapping):
    """One seat's view: ``obs.hand``, ``obs.top``, ``obs["pending"]``, ``obs.get("active_suit")``."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]):
        object.__setattr__(self, "_data", {k: _frozen(v) for k, v in data.items()})

    # -- construction ------------------------------------------------------
    @classmethod
    def from_pb(cls, message: Any) -> "Observation":
        """Build from a ``pb.Observation`` (see the module docstring for the conversions)."""
        text = message.details_json
        data: dict[str, Any] = {
            k: frozen_json(v) if type(v) in _JSON_CONTAINERS else v for k, v in json.loads(text).items()
        } if text else {}
        seats = tuple(
            SeatInfo(seat=s.seat, name=s.name, hand_size=s.hand_size, score=s.score, status=s.status)
            for s in message.seats
        )
        data.update(
            ruleset=message.ruleset,
            seat=None if message.seat < 0 else message.seat,
            current=None if message.current < 0 else message.current,
            decision=message.decision,
            hand=tuple(message.hand),
            discard=tuple(message.discard),
            stock_size=message.stock_size,
            direction=message.direction,
            seats=seats,
        )
        data.setdefault("seat_count", len(seats))
        data.setdefault("names", tuple(s.name for s in seats))
        data.setdefault("hand_sizes", tuple(s.hand_size for s in seats))
        data.setdefault("scores", tuple(s.score for s in seats))
        data.setdefault("statuses", tuple(s.status for s in seats))
        observation = object.__new__(cls)
        object.__setattr__(observation, "_data", data)  # already frozen: skip the generic pass
        return observation

    # -- mapping and attribute access -------------------------------------
    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getattr__(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise AttributeError(
                f"this observation has no {key!r}; it has: {', '.join(sorted(self._data))}"
            ) from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("an observation is read-only")

    def __repr__(self) -> str:
        return f"Observation({json.dumps(self.to_dict(), sort_keys=True)})"

    # -- conveniences -------------------------------------------------------
    @property
    def top(self) -> str | None:
        """The top card of the discard pile (the last of ``discard``), or None if it is empty."""
        discard = self._data.get("discard") or ()
        return discard[-1] if discard else None

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-safe copy (lists and dicts), e.g. for logging or feature extraction."""
        return {k: _thawed(v) for k, v in self._data.items()}
