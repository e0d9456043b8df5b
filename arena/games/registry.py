"""The ruleset registry: names, player counts, options, and the engine that plays them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from arena.games.base import GameState, OptionError, UnknownRulesetError


@dataclass(frozen=True)
class OptionSpec:
    """One ruleset option: its default, its type, what it means and which values it takes.

    A number may have a ``minimum`` and a ``maximum`` (either may be None: unbounded);
    a value outside them is refused with the valid range, as one outside ``choices`` is.
    """

    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None

    def allowed(self) -> str:
        """The values the option takes, for `arena rules show` and error messages."""
        if self.choices is not None:
            return ", ".join(map(str, self.choices))
        if self.minimum is not None and self.maximum is not None:
            return f"{self.minimum}..{self.maximum}"
        if self.minimum is not None:
            return f"{self.minimum} or more"
        if self.maximum is not None:
            return f"{self.maximum} or less"
        if isinstance(self.default, bool):
            return "true or false"
        return {"int": "a whole number", "float": "a number", "str": "text"}.get(type(self.default).__name__,
                                                                               type(self.default).__name__)

    def coerce(self, name: str, value: Any) -> Any:
        """Accept the option's own type, or its text form (from a command line)."""
        kind = type(self.default)
        if isinstance(value, str) and kind is not str:
            text = value.strip().lower()
            try:
                if kind is bool:
                    if text not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                        raise ValueError
                    value = text in ("true", "1", "yes", "on")
                elif kind is int:
                    value = int(text)
                elif kind is float:
                    value = float(text)
            except ValueError:
                article = "an" if kind.__name__[0] in "aeiou" else "a"
                raise OptionError(f"option {name}: {value!r} is not {article} {kind.__name__}") from None
        if self.default is not None and kind is not type(value) and not (kind is float and type(value) is int):
            raise OptionError(f"option {name}: expected {kind.__name__}, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise OptionError(f"option {name}: {value!r} is not one of {', '.join(map(str, self.choices))}")
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            raise OptionError(f"option {name}: {value!r} is out of range (valid: {self.allowed()})")
        return value


@dataclass(frozen=True)
class RulesetInfo:
    """What `arena rules` shows, and how to start and restore a game."""

    name: str
    title: str
    seed_document: str
    min_players: int
    max_players: int
    summary: str
    new_game: Callable[..., GameState]
    from_position: Callable[..., GameState]
    options: Mapping[str, OptionSpec] = field(default_factory=dict)
    resolutions: str = ""
    default_players: int | None = None
    #: ``bound(players, options)``: for a ruleset whose own rules end every game within that many decisions
    #: (the tests' toy games); None: the option ``decision_limit`` bounds the game (`decision_bound`).
    bound: Callable[[int, Mapping[str, Any]], int | None] | None = None

    def resolve_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            known = ", ".join(sorted(self.options)) or "none"
            raise OptionError(f"{self.name} has no option {', '.join(unknown)}; its options: {known}")
        defaults = self.__dict__.get("_defaults")
        if defaults is None:  # built once: a new game with default options copies it
            defaults = {name: spec.default for name, spec in self.options.items()}
            object.__setattr__(self, "_defaults", defaults)
        resolved = dict(defaults)
        for name, value in given.items():
            resolved[name] = self.options[name].coerce(name, value)
        return resolved

    def decision_bound(self, players: int, given: Mapping[str, Any] | None = None) -> int | None:
        """The most decisions a game at this table under these options can take, whatever its seats do; None if
        nothing bounds it.

        A real ruleset's bound is its game-level option ``decision_limit`` (not in any rules: it ends the game
        at that many decisions, its last hand or round scored as it stands); 0 means none, and then seats that
        want to can make a game go on for ever (arena/games/README.md, "Every game ends").  A ruleset whose own
        rules end every game within a known count says so with ``bound``.  Bad options are refused as
        `resolve_options` refuses them.
        """
        options = self.resolve_options(dict(given or {}))
        if self.bound is not None:
            return self.bound(players, options)
        limit = options.get("decision_limit", 0)
        return limit if limit > 0 else None

    def check_players(self, players: int) -> None:
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            span = (
                str(self.min_players)
                if self.min_players == self.max_players
                else f"{self.min_players}-{self.max_players}"
            )
            raise OptionError(f"{self.name} is for {span} players, not {players!r}")


_REGISTRY: dict[str, RulesetInfo] = {}


def register(info: RulesetInfo) -> RulesetInfo:
    if info.name in _REGISTRY:
        raise ValueError(f"ruleset {info.name} registered twice")
    _REGISTRY[info.name] = info
    return info


def get(name: str) -> RulesetInfo:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownRulesetError(
            f"unknown ruleset {name!r}; known: {', '.join(sorted(_REGISTRY)) or 'none'}"
        ) from None


def names() -> list[str]:
    return sorted(_REGISTRY)
