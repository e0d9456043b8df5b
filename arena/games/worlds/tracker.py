"""Reading a game's public history into what it says about the hidden cards (`Tracker`).

A `Tracker` follows the public events of one game (`GameState.events`, the
SDK's ``turn.history``, or their ``to_dict()`` forms) and keeps a `Ledger`:
which pools of exchangeable cards lie where, which named cards are pinned to
a hand, and the discard pile as the table saw it grow (each card named by
the play that put it there, a Blind card face down as a slot of the hand it
came from).  It reads only public events, so one tracker serves every seat
and the spectator; `WorldSampler` combines it with one seat's observation
(that seat's own hand is the only private fact).

It is incremental: ``tracker.update(history)`` reads only the events it has
not read yet (the SDK's ``turn.history`` grows by the turn's events), so a
bot calls it once per decision at the cost of the new events.  A draw event
that grew after it was read (the engine counts the cards of one draw into
one event as they come) is read again for the difference.

What each family's events say is in its `follow` function (`shedding.py`,
`mose.py`, `ddmau.py` of this package).  A log that starts with ``start``
(recorded from the middle of a game) tells nothing about the cards dealt
before it: the tracker is idle until the next deal, and the sampler uses the
observation alone.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from arena.games import registry
from arena.games.worlds.places import WorldError
from arena.games.worlds.ledger import STOCK as STOCK_KEY, Ledger, LedgerError, hand


class HistoryError(WorldError):
    """The history cannot be read: not a list of public events, or events that contradict each other."""


def read_event(event: Any) -> tuple[int | None, str, Mapping[str, Any]]:
    """(seat, kind, details) of an engine `PublicEvent`, an SDK `Event` or either's ``to_dict()``."""
    if isinstance(event, Mapping):
        try:
            return event.get("seat"), event["kind"], event.get("details") or {}
        except KeyError:
            raise HistoryError(f"a public event has a 'kind': {dict(event)!r} has none") from None
    try:
        return event.seat, event.kind, event.details
    except AttributeError:
        raise HistoryError(f"a public event is a PublicEvent, an SDK Event or a dict, not {type(event).__name__}")


class Tracker:
    """What one game's public history says about its hidden cards; feed it with `update`.

        tracker = Tracker("maumau", **options)
        ...                                        # each decision:
        tracker.update(turn.history)               # reads only the new events
        sampler = WorldSampler("maumau", turn.observation, tracker, **options)
    """

    __slots__ = ("ruleset", "options", "family", "ledger", "pile", "active", "error", "count", "players",
                 "decks", "downs", "extra", "collapses", "_draw")

    def __init__(self, ruleset: str, **options: Any) -> None:
        from arena.games.worlds import family_module  # the package imports this module

        info = registry.get(ruleset)
        self.ruleset = ruleset
        self.options = info.resolve_options(options)
        self.family = family_module(ruleset)
        self.ledger = Ledger()
        #: The discard pile bottom to top as the table saw it: card codes, ``("down", n)`` for a face-down card.
        self.pile: list = []
        self.active = False  # a deal has been read (until then nothing is known)
        self.error: str | None = None  # the first event that did not fit, if any
        self.count = 0  # events read
        self.players: int | None = None
        self.decks: dict[int, list[str]] = {}
        self.downs = 0  # face-down cards numbered so far
        self.extra: dict[str, Any] = {}  # what a family keeps besides (Mose: the table, the last pickup)
        self.collapses = 0  # times the pools were forgotten (`Ledger.collapse`): several copies, Blind
        self._draw: tuple[int, int | None, int] | None = None  # (index, seat, count) of the last draw read

    def deck(self, players: int) -> list[str]:
        deck = self.decks.get(players)
        if deck is None:
            deck = self.decks[players] = self.family.deck(self.ruleset, players, self.options)
        return deck

    def update(self, history: Sequence[Any]) -> "Tracker":
        """Read the events of ``history`` (the whole log so far) that this tracker has not read yet."""
        if history is None:
            return self
        if not hasattr(history, "__len__") or not hasattr(history, "__getitem__"):
            history = list(history)
        total = len(history)
        if total < self.count:
            raise HistoryError(f"this history has {total} events, fewer than the {self.count} already read: "
                               "a new game needs a new Tracker")
        last = self._draw
        if last is not None and last[0] < total:  # a draw counted on after it was read
            seat, kind, details = read_event(history[last[0]])
            if kind == "draw" and seat == last[1] and details.get("count", 0) > last[2]:
                self._follow(seat, kind, {**details, "count": details["count"] - last[2]})
                self._draw = (last[0], seat, details["count"])
        for index in range(self.count, total):
            self.count = index
            seat, kind, details = read_event(history[index])
            self._follow(seat, kind, details)
            if kind == "draw":
                self._draw = (index, seat, details.get("count", 0))
        self.count = total
        return self

    def _follow(self, seat: int | None, kind: str, details: Mapping[str, Any]) -> None:
        if self.error is not None:
            return
        if kind == "start":
            self.active = False  # recorded from the middle: nothing known until the next deal
            return
        if not self.active and kind != "deal":
            return
        try:
            # A family's follow changes nothing when its one ledger step fails (`Ledger.take` and `move` check
            # first); the events of several steps (a Mose meld) are undone from a copy.
            saved = (self.ledger.copy(), list(self.pile)) if kind in self.family.SEVERAL_STEPS else None
            try:
                self.family.follow(self, seat, kind, details)
            except LedgerError:  # the pools cannot give a named card: forget them (`Ledger.collapse`), again
                if saved is not None:
                    self.ledger, self.pile = saved
                self.ledger.collapse()
                self.collapses += 1
                self.family.follow(self, seat, kind, details)
        except (LedgerError, KeyError, TypeError, ValueError, IndexError) as error:
            self.error = f"event {self.count} ({kind}): {error}"

    def new_down(self) -> tuple[str, int]:
        """A key for a new face-down card."""
        self.downs += 1
        return ("down", self.downs)

    def deal(self, sizes: Sequence[int]) -> list[str]:
        """A new deal: the deck (for this many seats) over the hands and the stock; returns the deck."""
        self.players = len(sizes)
        deck = self.deck(self.players)
        places = {hand(seat): size for seat, size in enumerate(sizes)}
        places[STOCK_KEY] = len(deck) - sum(sizes)
        self.ledger.reset(deck, places)
        self.pile = []
        self.extra = {}
        self.active = True
        return deck


class HistoryDeal:
    """One seat's view combined with a tracker: deals the hidden places as `arena.games.worlds.deal` does.

    Built by `plan`; ``places`` are the view's hidden places (`Place`s, for the family's
    ``position``), ``pinned`` what the history fixes there: the cards pinned to each other hand and the
    buried part of the pile (bottom to top; None for a face-down card, dealt).
    """

    __slots__ = ("plan", "places", "pile", "downs", "hands", "stock", "pinned")

    def __init__(self, plan, places, pile, downs, hands, stock, pinned) -> None:
        self.plan = plan
        self.places = places
        self.pile = pile  # (Place, template) of the buried pile, or None
        self.downs = downs  # [(Place, down key)] face-down cards of the shown part
        self.hands = hands  # [(Place, ledger key)]
        self.stock = stock  # the stock's Place or None
        self.pinned = pinned

    def deal(self, rng):
        out = self.plan.deal(rng)
        dealt = {}
        for place, key in self.hands:
            dealt[place] = out.get(key, [])
        if self.stock is not None:
            dealt[self.stock] = out.get(STOCK_KEY, [])
        if self.pile is not None:
            place, template = self.pile
            dealt[place] = [card if isinstance(card, str) else out[card][0] for card in template]
        for place, key in self.downs:
            dealt[place] = out[key]
        return dealt


def plan(tracker: Tracker, view: Mapping[str, Any], seat: int | None, collapse: bool = False) -> HistoryDeal:
    """The deal of the hidden places of this view that the tracker's history allows; raises `HistoryError`
    when the history and the view disagree (a history of another game, or not up to this view).
    ``collapse``: without the pools (`Ledger.collapse`), the pinned cards and the pile still known."""
    from arena.games.shedding.blind import HIDDEN
    from arena.games.worlds.places import FACE_DOWN, HAND, PILE, Place, STOCK

    if tracker.error is not None:
        raise HistoryError(f"the history does not fit the rules: {tracker.error}")
    sizes = view["hand_sizes"]
    if len(sizes) != tracker.players:
        raise HistoryError(f"the history is of {tracker.players} seats, the observation of {len(sizes)}")
    ledger = tracker.ledger.copy()
    if collapse:
        ledger.collapse()
    if seat is not None:
        try:
            for card in view["hand"]:
                ledger.take(hand(seat), card)
        except LedgerError:  # routed the wrong way (see `Ledger.collapse`): without the pools, again
            ledger = tracker.ledger.copy()
            ledger.collapse()
            try:
                for card in view["hand"]:
                    ledger.take(hand(seat), card)
            except LedgerError as error:
                raise HistoryError(f"the history does not fit this hand: {error}") from None
    if seat is not None and ledger.held(hand(seat)):
        raise HistoryError(f"the history puts {ledger.held(hand(seat))} more cards in seat {seat}'s hand")
    hands = []
    pinned: dict = {}
    for other, size in enumerate(sizes):
        if other == seat:
            continue
        held = ledger.held(hand(other))
        if held != size:
            raise HistoryError(f"the history puts {held} cards in seat {other}'s hand, the observation {size}")
        if size:
            hands.append((Place(HAND, other, size), hand(other)))
            if ledger.pinned.get(hand(other)):
                pinned[Place(HAND, other, size)] = sorted(ledger.pinned[hand(other)].elements())
    if ledger.held(STOCK_KEY) != view["stock_size"]:
        raise HistoryError(f"the history puts {ledger.held(STOCK_KEY)} cards in the stock, "
                           f"the observation {view['stock_size']}")
    stock = Place(STOCK, None, view["stock_size"]) if view["stock_size"] else None
    pile = tracker.pile
    shown = view["discard"]
    size = view.get("discard_size", len(shown))
    if len(pile) != size:
        raise HistoryError(f"the history has {len(pile)} cards on the pile, the observation {size}")
    buried = size - len(shown)
    downs = []
    for i, card in enumerate(shown):
        entry = pile[buried + i]
        if card == HIDDEN and not isinstance(entry, str):
            downs.append((Place(FACE_DOWN, buried + i, 1), entry))
        elif card != entry:
            raise HistoryError(f"the history has {entry} at pile position {buried + i}, the observation {card}")
    pile_place = None
    if buried:
        template = pile[:buried]
        pile_place = (Place(PILE, None, buried), template)
        pinned[pile_place[0]] = [c if isinstance(c, str) else None for c in template]
    places = tuple(p for p, _ in hands) + ((pile_place[0],) if pile_place else ()) + tuple(
        p for p, _ in downs) + ((stock,) if stock else ())
    try:
        frozen = ledger.plan()
    except LedgerError as error:
        raise HistoryError(f"the history does not fit this view: {error}") from None
    return HistoryDeal(frozen, places, pile_place, downs, hands, stock, pinned)


__all__ = ["HistoryDeal", "HistoryError", "Tracker", "plan", "read_event"]
