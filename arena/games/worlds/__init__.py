"""World sampling: a full game state consistent with one seat's observation.

What OpenSpiel calls resampling from an information state.  A seat sees its
own hand and the public table; the cards it cannot see (the other hands, the
stock, the buried part of the discard pile, face-down cards...) could be
any arrangement of the cards it has not seen.  `sample_world` deals those
unseen cards uniformly at random over the hidden places, every known count
respected (hand sizes, stock size, pile size), builds the position with the
engine's own `from_position`, and returns the state.  A search bot
(determinized MCTS, PIMC) samples many worlds and plays each out.

    >>> import random
    >>> from arena import games
    >>> state = games.new_game("maumau", players=3, seed=7)
    >>> obs = state.observation(state.current)
    >>> world = games.sample_world("maumau", obs, random.Random(1))
    >>> world.observation(obs["seat"]) == obs         # the seat cannot tell them apart
    True

The sample is checked: the world must give the seat exactly its
observation, else it is dealt again (rejection sampling; a reaction window
that asks a seat tells that it holds a play, and rejection gives the
uniform deal among those consistent with that).  The world's future chance
(its shuffles) comes from `rng` too, never from the real game's seed.

Each game family provides its steps in its own module (`shedding.py`,
`mose.py`, `ddmau.py`): `unseen(view, info)`, the hidden places with their
sizes and the multiset of cards the seat has not seen, and
`position(view, info, dealt, rng)`, the position with those places filled,
and `follow(tracker, seat, kind, details)`, what one public event says
about the cards (`tracker.py`).

The observation may be the engine's (`GameState.observation`), its
`to_dict()`, or the SDK's (`mau_arena_sdk.Observation`, as a bot receives it): the
SDK's seat views are folded back into the engine's player count.

With the public history (`history`: the game's events up to the
observation, ``turn.history`` in the SDK, ``state.events`` in the engine, or
a `Tracker` fed with them) every card the history makes known is pinned
where it is: the buried pile card by card (the plays named each card), a
Mose pile taken pinned to the taker's hand until it is played, a Blind card
given back after a challenge in the liar's hand, the stock after a
reshuffle made only of the reshuffled cards less the draws since.  The
cards it leaves open are dealt uniformly over the places they may be in
(see `ledger.py` for the pools and the one approximation with several
copies of a card).  A search bot keeps one `Tracker` per game and calls
``tracker.update(turn.history)`` each decision: only the new events are
read.

    >>> state = games.new_game("maumau", players=3, seed=7)
    >>> log = state.record_events()
    >>> for _ in range(12): state.apply(state.legal_actions()[0])
    >>> obs = state.observation(state.current)
    >>> world = games.sample_world("maumau", obs, random.Random(1), history=log)
    >>> world.to_position()["discard"] == state.to_position()["discard"]   # the pile, card by card
    True
"""

from __future__ import annotations

import random
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

from arena.games import registry
from arena.games.facts import family_of
from arena.games.base import GameError, GameState, Observation
from arena.games.worlds import ddmau as _ddmau_worlds
from arena.games.worlds import mose as _mose_worlds
from arena.games.worlds import shedding as _shedding_worlds
from arena.games.worlds.places import Place, Unseen, WorldError
from arena.games.worlds.tracker import HistoryDeal, HistoryError, Tracker, plan as _history_plan

#: How many deals `sample_world` tries before it gives up (only reaction windows and forced steps reject).
ATTEMPTS = 200


@dataclass(frozen=True)
class Table:
    """What a family's sampler needs to know besides the observation: the ruleset, options and seat."""

    ruleset: str
    options: Mapping[str, Any]
    seat: int | None
    players: int


#: The world sampler of each engine family (`arena.games.facts.family_of` says which a ruleset is in).
_SAMPLERS = {"shedding": _shedding_worlds, "mose": _mose_worlds, "ddmau": _ddmau_worlds}


def family_module(ruleset: str):
    """The world-sampling module of a ruleset's family (`shedding`, `mose`, `ddmau` of this package)."""
    sampler = _SAMPLERS.get(family_of(ruleset) or "")
    if sampler is None:
        raise WorldError(f"{ruleset} has no world sampler (only the shedding rulesets, mose and ddmau do)")
    return sampler


def unseen(ruleset: str, observation: "Observation | Mapping[str, Any]", **options: Any) -> Unseen:
    """The hidden places (name, size) of this view and the cards the seat has not seen."""
    view, table = _prepare(ruleset, observation, options)
    return _unseen(view, table)


def sample_world(
    ruleset: str,
    observation: "Observation | Mapping[str, Any]",
    rng: random.Random,
    history: "Sequence[Any] | Tracker | None" = None,
    *,
    attempts: int = ATTEMPTS,
    **options: Any,
) -> GameState:
    """A full state that gives `observation`'s seat exactly that observation, hidden cards dealt at random.

    `history` is the game's public events up to this observation (``turn.history`` in the SDK,
    ``state.events`` in the engine) or a `Tracker` fed with them: every card it makes known is pinned
    where it is, the rest dealt uniformly over what it leaves open.  `options` are the game's options
    (as `new_game` takes them).  Raises `WorldError` when no deal fits (`HistoryError`, one, when the
    history does not fit the observation).  For many worlds of one observation, `WorldSampler`.
    """
    return WorldSampler(ruleset, observation, history, **options).sample(rng, attempts)


class WorldSampler:
    """The worlds of one observation: the observation (and history) read and the unseen cards counted once.

        sampler = WorldSampler("moumou", observation, turn.history, **options)
        worlds = [sampler.sample(rng) for _ in range(100)]

    ``history`` may be a sequence of public events (read whole, each time) or a `Tracker` the caller
    keeps for the game and updates each decision (``tracker.update(turn.history)`` reads only the new
    events), which is what a search bot should do.  ``hidden`` is what the worlds deal: the view's
    hidden places (with their sizes) and, with a history, ``pinned``: the cards it fixes in them.
    """

    def __init__(
        self,
        ruleset: str,
        observation: "Observation | Mapping[str, Any]",
        history: "Sequence[Any] | Tracker | None" = None,
        **options: Any,
    ) -> None:
        self.view, self.table = _prepare(ruleset, observation, options)
        self.family = family_module(ruleset)
        self.unseen = _unseen(self.view, self.table)
        self._restore = registry.get(ruleset).from_position
        self.tracker: Tracker | None = None
        self.history: HistoryDeal | None = None
        self._loose: HistoryDeal | None = None  # the history without its pools, if no deal of them fits
        self._refused = ""
        if history is not None:
            tracker = history if isinstance(history, Tracker) else Tracker(ruleset, **options).update(history)
            if tracker.ruleset != ruleset:
                raise WorldError(f"this tracker follows {tracker.ruleset!r}, not {ruleset!r}")
            self.tracker = tracker
            if tracker.active or tracker.error is not None:  # else: no deal read yet, nothing known
                with _reading(ruleset):
                    self.history = _history_plan(tracker, self.view, self.table.seat)

    @property
    def pinned(self) -> dict:
        """What the history fixes, by hidden place: the cards pinned to each other hand (a multiset) and
        the buried pile bottom to top (None for a face-down card, dealt); empty without a history."""
        return {} if self.history is None else self.history.pinned

    @property
    def fell_back(self) -> bool:
        """No deal of the history's pools fitted the view, so worlds come from the history without them (the
        pinned cards and the pile still known; two packs only, see `ledger.py`)."""
        return self._loose is not None

    def sample(self, rng: random.Random, attempts: int = ATTEMPTS, *,
               judge: "Callable[[list], int] | None" = None, tries: int = 1,
               arrange: "Callable[[dict], None] | None" = None) -> GameState:
        """One world.  With `judge`, rejection sampling priced at a deal, not a state: `judge` scores a
        candidate deal by its hands (a list of cards per seat; 0: it accepts the deal, more: how far it
        breaks what the caller knows), and of up to `tries` deals the first it scores 0 (else the lowest)
        is the one built.  A search bot passes what its model of the other players rules out.

        With `arrange`, the deal's position (the `from_position` form: ``hands``, ``stock``...) is handed to
        it before the state is built, to trade hidden cards between hidden places (a search bot's own
        model of a hand); the world must still give the seat its observation, or it is dealt again."""
        if not isinstance(rng, random.Random):
            raise WorldError(f"rng must be a random.Random, not {type(rng).__name__}")
        table = self.table
        world = self._sample(rng, attempts, self.history, judge, tries, arrange)
        if world is None and self.history is not None:
            # With several copies of a card the pools may have charged a copy to the wrong one, so that no
            # deal of them fits (a seat asked to answer must hold an answer): the same without the pools.
            if self._loose is None:
                self._loose = _history_plan(self.tracker, self.view, self.table.seat, collapse=True)
            world = self._sample(rng, attempts, self._loose, judge, tries, arrange)
        if world is None:
            raise WorldError(f"no world of {table.ruleset} fits this observation of seat {table.seat} in "
                             f"{attempts} deals{self._refused}")
        return world

    def _sample(self, rng: random.Random, attempts: int, history: "HistoryDeal | None",
                judge: "Callable[[list], int] | None" = None, tries: int = 1,
                arrange: "Callable[[dict], None] | None" = None) -> GameState | None:
        view, table = self.view, self.table
        refused = ""
        for _ in range(max(1, attempts)):
            position = self._position(rng, history)
            if judge is not None:
                fewest = judge(position.get("hands"))
                for _ in range(tries - 1):
                    if not fewest:
                        break
                    candidate = self._position(rng, history)
                    broken = judge(candidate.get("hands"))
                    if broken < fewest:
                        position, fewest = candidate, broken
            if arrange is not None:
                arrange(position)
            try:
                world = self._restore(position=position, options=dict(table.options))
            except GameError as error:
                refused = f" (the engine refused: {error})"
                continue  # a deal the engine refuses (a window the dealt hands cannot fill): deal again
            if _shows(world.observation(table.seat), view):
                return world
        self._refused = refused
        return None

    def _position(self, rng: random.Random, history: "HistoryDeal | None") -> dict:
        """A deal of the hidden cards, as the position a state is built from."""
        dealt = deal(self.unseen, rng) if history is None else history.deal(rng)
        with _reading(self.table.ruleset):
            return self.family.position(self.view, self.table, dealt, rng)


def _shows(observation: Observation, view: Mapping[str, Any]) -> bool:
    """Whether `observation` is `view` (`Observation.to_dict`'s JSON form): compared as it is first, which settles
    every equal one (a JSON round trip of values equal to JSON values gives them back), else after the round trip."""
    return observation.data == view or observation.to_dict() == view


@contextmanager
def _reading(ruleset: str) -> Iterator[None]:
    """Turns a missing or malformed observation key into a one-line `WorldError`."""
    try:
        yield
    except GameError:
        raise
    except KeyError as error:
        raise WorldError(f"not an observation of {ruleset}: no key {error}") from None
    except (TypeError, IndexError, AttributeError, ValueError) as error:
        raise WorldError(f"not an observation of {ruleset}: {error}") from None


def deal(hidden: Unseen, rng: random.Random) -> dict[Place, list[str]]:
    """The unseen cards shuffled and cut into the hidden places, in order."""
    cards = list(hidden.cards)
    rng.shuffle(cards)
    dealt: dict[Place, list[str]] = {}
    start = 0
    for place in hidden.places:
        dealt[place] = cards[start : start + place.size]
        start += place.size
    return dealt


def _prepare(ruleset: str, observation: Any, options: Mapping[str, Any]) -> tuple[dict[str, Any], Table]:
    info = registry.get(ruleset)
    if isinstance(observation, Observation) or hasattr(observation, "to_dict"):  # the engine's or the SDK's
        view = observation.to_dict()
    elif isinstance(observation, Mapping):
        view = Observation(observation).to_dict()
    else:
        raise WorldError(f"an observation is a mapping, not {type(observation).__name__}")
    if not isinstance(view, dict):
        raise WorldError(f"an observation is a mapping, not {type(view).__name__}")
    if "seats" in view:
        # The SDK's form (mau_arena_sdk.Observation): the seat views, statuses and names are the SDK's own keys.
        seats = view.pop("seats")
        if not isinstance(view.get("seat_count"), int):
            view["seat_count"] = len(seats)
        view.pop("statuses", None)
        view.pop("names", None)
    if not isinstance(view.get("seat_count"), int) and isinstance(view.get("players"), int):
        view["seat_count"] = view["players"]  # the engines' name for it before 0.2
    if view.get("ruleset") != ruleset:
        raise WorldError(f"this is an observation of {view.get('ruleset')!r}, not of {ruleset!r}")
    players = view.get("seat_count")
    info.check_players(players)
    seat = view.get("seat")
    if seat is not None and (not isinstance(seat, int) or not 0 <= seat < players):
        raise WorldError(f"the observation's seat {seat!r} is not a seat of {players}")
    return view, Table(ruleset, info.resolve_options(options), seat, players)


def _unseen(view: Mapping[str, Any], table: Table) -> Unseen:
    family = family_module(table.ruleset)
    deck = Counter(family.deck(table.ruleset, table.players, table.options))
    with _reading(table.ruleset):
        places, seen = family.places(view, table)
    missing = Counter(seen) - deck
    if missing:
        raise WorldError(f"the observation shows cards this deck does not hold: {', '.join(sorted(missing))}")
    cards = sorted((deck - Counter(seen)).elements())
    size = sum(p.size for p in places)
    if size != len(cards):
        raise WorldError(f"the hidden places hold {size} cards but {len(cards)} cards are unseen")
    return Unseen(tuple(places), tuple(cards))


__all__ = ["ATTEMPTS", "HistoryError", "Place", "Table", "Tracker", "Unseen", "WorldError", "WorldSampler", "deal",
           "family_module", "sample_world", "unseen"]
