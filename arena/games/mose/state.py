"""The Mose game state: turns, reaction windows, going out, scoring, the 13-round match.

Phases (``decision``): ``draw`` (the turn's seat takes the stock card or the
whole pile), ``play`` (that seat melds, lays off, swaps, then discards),
``react`` (a reaction window: another seat may meld, lay off or swap out of
turn, or pass), ``place`` (a swapper puts the freed wild into a meld at
once, D-8), ``over``.  See the package docstring for the window model.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from sys import intern
from typing import Any, Mapping, Sequence

from arena.games import chance
from arena.games.base import (
    Action,
    GameError,
    GameState,
    PublicEvent,
    Result,
)
from arena.games.cards import RANKS, deck
from arena.games.mose import events, offers
from arena.games.mose.observation import match_view, observe
from arena.games.mose.melds import (
    CARD_BITS,
    CARD_ORDER,
    Meld,
    POINTS,
    MeldError,
    card_adds_meld,
    card_key,
    card_points,
    extended,
    lay_off,
    offered_meld,
    parse_token,
    swap_in,
    wild_rank,
)
from arena.games.mose.offers import DISCARDS, TableNeeds
from arena.games.mose.public import Pickup, Window, pile_pickup, stock_pickup, window

RULESET = "mose"
HAND_SIZE = 7
ONE_DECK_MAX_PLAYERS = 7
PHASES = ("draw", "play", "react", "place", "over")
FALSE_MOSE_PENALTY = 50
FALSE_PLAY_PENALTY = 10
#: Contested mode: False Plays offered in one turn (each costs 10).  Not in the rules: a bound, so that a bot
#: cannot loop on mistakes, and one that depends only on a public count (which cards were tried went back
#: into a hidden hand, so the legal list must not depend on them).
MAX_FALSE_PLAYS = 3
#: Option ``decision_limit``'s default (`arena.games.mose.OPTIONS`); at it, the replay hash leaves the option out.
DEFAULT_DECISION_LIMIT = 20000
#: The reason of a round that option ``decision_limit`` ended (its count follows in brackets).
LIMIT_REACHED = "the game reached its decision limit"

DRAW_STOCK = Action("draw", ("stock",))
TAKE_PILE = Action("take", ("pile",))
PASS = Action("pass")
CALL_MOSE = Action("call", ("mose",))
_DRAW_OR_TAKE, _DRAW_ONLY, _TAKE_ONLY = (DRAW_STOCK, TAKE_PILE), (DRAW_STOCK,), (TAKE_PILE,)

_order = CARD_ORDER.__getitem__  # the hand order (rank, then suit) as a fast sort key
#: The unshuffled pack of one and of two decks, made once (each round deals from a copy), of the interned card
#: strings every table of the engine is keyed by (`melds.CARD_ORDER`).
_DECKS = {copies: (*map(intern, deck(RANKS, copies=copies)),) for copies in (1, 2)}


def decks_for(players: int, option: int) -> int:
    """The ``decks`` option: 0 means one deck up to 7 players and two above (D-1)."""
    if option not in (0, 1, 2):
        raise GameError(f"decks must be 0 (automatic), 1 or 2, not {option!r}")
    if option == 0:
        return 1 if players <= ONE_DECK_MAX_PLAYERS else 2
    if option == 1 and players > ONE_DECK_MAX_PLAYERS:
        raise GameError(f"one deck deals 7 cards to at most {ONE_DECK_MAX_PLAYERS} players; use decks=2")
    return option


class MoseState(GameState):
    """A whole Mose match (``rounds`` rounds, 13 by default) in progress."""

    VERBS = frozenset({"draw", "take", "meld", "layoff", "swap", "discard", "pass", "call"})

    # Slots, not a dict: read at every step, and over 30 fields would leave CPython's fast instance layout.
    # A new field goes into `clone` too (`tests/games/test_mose.py` checks that every slot is copied).
    __slots__ = (
        # the table and its rules (set once); `seats`: every seat's number, then None (the spectator)
        "ruleset", "options", "players", "decks", "seed", "seats",
        # the match (``decisions``: applied in this game, against option ``decision_limit``)
        "chance", "round", "wild", "dealer", "scores", "history", "log", "decisions",
        # the round
        "hands", "stock", "discard", "melds", "table", "pending", "window", "round_started", "exhaustions",
        "last_pickup", "penalties", "next_meld", "turns",
        # the turn
        "turn", "decider", "phase", "mistake", "false_plays",
        # the contract's `current` and `is_over`, set by `_settle`
        "current", "is_over",
        # the match's part of every observation (`observation.match_view`), kept up to date by `_deal`,
        # `_end_round` and `restored`
        "match_view",
        # per seat, the hand's mask (`CARD_BITS`) and its size (what observations show), kept up to date
        # with the hand
        "masks", "sizes",
        # what was worked out from the state, dropped (None) when what it depends on changes: per seat
        # (a list each) by the hand, whether it holds a meld and its meld actions; by the hand and the
        # table, its plays, or only whether it has any (`_plays`: a tuple, True or False)
        "legal_cache", "_meldable", "_meld_acts", "_plays",
        # what the table can take, kept up to date meld by meld (`offers.with_meld`) as the table changes
        "_needs",
    )

    # -- construction ------------------------------------------------------------------

    def __init__(self, players: int, seed: int, options: Mapping[str, Any]):
        self.ruleset = RULESET
        self.options = dict(options)
        self.players = players
        self.seats = (*range(players), None)
        self.decks = decks_for(players, self.options["decks"])
        if self.options["turn_limit"] < 0:
            raise GameError(f"turn_limit must be 0 (none) or a number of turns, not {self.options['turn_limit']}")
        if self.options["decision_limit"] < 0:
            raise GameError(f"option decision_limit: {self.options['decision_limit']} is negative; 0 means no limit")
        self.decisions = 0
        self.seed = seed
        self.chance = 0
        self.round = 1
        self.wild = wild_rank(1)  # W(round): set with the round, read at nearly every step
        self.dealer = 0
        self.turn = 0
        self.decider = 0
        self.phase = "draw"
        # Each hand a sorted tuple, replaced at every change (`_add`, `_remove`...): clones and observations
        # share them; what was worked out for a seat's hand is kept per seat (`_meld_acts`, `_plays`...).
        self.hands: list[tuple[str, ...]] = [() for _ in range(players)]
        self.stock: list[str] = []
        # The pile and the freed wilds waiting on the table are tuples, the pickup and window records
        # immutable (`public.py`), the melds list replaced at every change (`_set_meld`): clones and
        # observations share them.
        self.discard: tuple[str, ...] = ()
        self.melds: list[Meld] = []
        self.table: tuple[str, ...] = ()
        self.pending: dict[str, Any] | None = None  # replaced, never changed in place
        self.window: Window | None = None
        self.round_started = False
        self.exhaustions = 0
        self.last_pickup: Pickup | None = None
        self.penalties = [0] * players
        self.scores = [0] * players
        self.history: list[dict[str, Any]] = []
        self.next_meld = 1
        self.mistake = False  # a False Mose this turn (one a turn)
        self.false_plays = 0  # the False Plays made this turn (D-17; at most MAX_FALSE_PLAYS)
        self.turns = 0
        self.legal_cache: list[Action] | None = None
        self._needs: TableNeeds = offers.NO_NEEDS  # what the melds can take (`offers.table_needs`)
        self.masks = [0] * players  # the hands are empty
        self.sizes = [0] * players
        self._meldable = [False] * players
        self._meld_acts = [None] * players
        self._plays = [None] * players
        self.log: list[PublicEvent] | None = None  # the public events, once `record_events` is called
        self.match_view = match_view(self)
        self._settle()

    @classmethod
    def new(cls, players: int, seed: int, options: Mapping[str, Any]) -> "MoseState":
        state = cls(players, seed, options)
        state.dealer = chance.generator(seed, 0).randrange(players)
        state.chance = 1
        state._deal()
        state._settle()
        return state

    @property
    def rounds(self) -> int:
        return self.options["rounds"]

    def _deal(self) -> None:
        """Shuffle, deal 7 each one at a time from the dealer's left, turn the upcard (6.2)."""
        n = self.players
        self.wild = wild_rank(self.round)
        cards = chance.shuffled(_DECKS[self.decks], self.seed, self.chance)
        self.chance += 1
        # Card i goes to seat (dealer + 1 + i) % n, so a seat's cards are every n-th from its first.
        dealt, left = HAND_SIZE * n, self.dealer + 1
        self.hands = [tuple(sorted(cards[(seat - left) % n : dealt : n], key=_order)) for seat in range(n)]
        self._reset_seats()
        self.discard = (cards[HAND_SIZE * n],)
        self.stock = cards[HAND_SIZE * n + 1 :]
        self.melds = []
        self._needs = offers.NO_NEEDS
        self.table, self.pending, self.window = (), None, None
        self.turn = self.decider = (self.dealer + 1) % n
        self.phase = "draw"
        self.round_started = False
        self.exhaustions = 0
        self.last_pickup = None
        self.penalties = [0] * n
        self.next_meld = 1
        self.mistake = False
        self.false_plays = 0
        self.turns = 1
        self.match_view = match_view(self)
        if self.log is not None:
            events.dealt(self)

    # -- the contract ------------------------------------------------------------------

    # `current` and `is_over` are fields (a search loop reads them at every step, a property costs a call),
    # set from the phase and the seats by `_settle` after every change.

    def _settle(self) -> None:
        """Set `current` and `is_over` from the phase and the seats: at the end of every change."""
        over = self.phase == "over"
        self.is_over = over
        self.current = None if over else self.turn if self.phase in ("draw", "play") else self.decider

    @property
    def decision(self) -> str:
        return self.phase

    def result(self) -> Result:
        if not self.is_over:
            raise GameError(f"the match is still running (round {self.round} of {self.rounds})")
        cut_short = self.round < self.rounds or (self.history and self.history[-1]["reason"].startswith(LIMIT_REACHED))
        cut = f" (option decision_limit ended the game in round {self.round})" if cut_short else ""
        return Result.from_points(self.scores, reason=f"lowest total after {len(self.history)} rounds{cut}")

    def apply(self, action: "Action | str") -> None:
        """As the contract's, but a meld's tokens may come in any order (``meld 7d 7s 7h``).

        Tokens say what each card is, so a permutation has one reading: the
        offered meld with the same tokens, which is what gets applied.

        In one frame on the hot path: an action taken from the kept legal list (what the arena, the bots
        and the benchmark pass) is legal by identity and applied here (the verbs by how often they come),
        then `_settle`'s work, inline.  Anything else goes through `_apply_checked`.
        """
        legal = self.legal_cache
        if legal is not None:
            for offered in legal:
                if offered is action:
                    break
            else:
                legal = None
        if legal is None:
            self._apply_checked(action)
            return
        self.legal_cache = None
        decisions = self.decisions = self.decisions + 1
        seat = self.current
        verb = action.verb
        if verb == "layoff":
            index, card, grown = self._grown(action)  # grown None: a lay-off that does not fit
            if self.log is not None:
                events.action(self, seat, action, grown is not None)
        elif self.log is not None:
            events.action(self, seat, action, True)
        if verb == "discard":
            self._discard(seat, action.args[0])
        elif verb == "pass":
            self._pass(seat)
        elif verb == "draw":
            self._draw_stock(seat)
        elif verb == "take":
            self._take_pile(seat)
        elif verb == "layoff" or verb == "meld":
            phase = self.phase
            if verb == "meld":
                back = phase if phase != "place" else self.pending["back"]
                self._meld(seat, action.args, phase == "place")
                self._finish_play(seat, back)
            elif grown is None:
                self._false_play(seat, str(action))
            else:
                back = phase if phase != "place" else self.pending["back"]
                self._layoff(seat, index, grown, card, phase == "place")
                self._finish_play(seat, back)
        elif verb == "swap":
            self._swap(seat, int(action.args[0]), action.args[1], action.args[2])
        else:  # call
            self._false_mose(seat)
        if decisions >= self.options["decision_limit"] > 0 and self.phase != "over":  # (0: no limit)
            self._end_at_decision_limit()
        phase = self.phase  # `_settle`, inline: this runs at every step
        if phase == "over":
            self.is_over = True
            self.current = None
        else:
            self.current = self.turn if phase == "draw" or phase == "play" else self.decider

    def _apply_checked(self, action: "Action | str") -> None:
        """`apply` of anything but the kept list's own action: text, an equal copy, a meld's tokens in
        another order, an illegal action (refused by the base class's checks with a clear error)."""
        parsed = action if action.__class__ is Action else Action.parse(action)
        if not self.is_over:
            legal = self.legal_cache
            if legal is None:
                self.legal_actions()
                legal = self.legal_cache
            if parsed in legal:  # an equal action made elsewhere (parsed from its text): apply the list's own
                self.apply(legal[legal.index(parsed)])
                return
        if parsed.verb == "meld" and not self.is_over:
            tokens = Counter(parsed.args)
            for legal in self.legal_actions():
                if legal.verb == "meld" and Counter(legal.args) == tokens:
                    parsed = legal
                    break
        super().apply(parsed)

    def legal_actions(self) -> list[Action]:
        """A copy of the kept list, worked out here when there is none (at nearly every decision: in this
        frame, not a helper's)."""
        legal = self.legal_cache
        if legal is not None:
            return list(legal)
        phase = self.phase
        if phase == "draw":  # the stock, the pile, both or (once the stock has run out twice) neither
            if self.stock or (self.discard and self.exhaustions < 2):
                legal = _DRAW_OR_TAKE if self.discard else _DRAW_ONLY
            else:
                legal = _TAKE_ONLY if self.discard else ()
        elif phase == "over":
            legal = []
        elif phase == "place":
            seat = self.current
            legal = offers.placements(
                self.hands[seat], self.masks[seat], self._needs, self.pending["card"], self.wild, self.decks
            )
        else:  # play or react
            seat = self.current
            plays = self._plays[seat]
            if plays is None:  # not known yet
                # The melds, lay-offs and swaps the seat may make (on turn or in a window, `offers.plays`),
                # worked out and kept, with the hand's ``meld`` actions unless kept (`offers.meld_actions`,
                # asked only of a hand that `offers.has_meld`).
                hand = self.hands[seat]
                mask = self.masks[seat]
                melds = self._meld_acts[seat]
                if melds is None:
                    has = self._meldable[seat]
                    if has is None:
                        has = self._meldable[seat] = offers.has_meld(mask, self.wild, self.decks, hand)
                    melds = self._meld_acts[seat] = (
                        tuple(offers.meld_actions(hand, mask, self.wild, self.decks)) if has else ()
                    )
                needs = self._needs
                if needs.touch & mask:
                    plays = offers.plays(
                        seat, hand, mask, melds, needs, self.melds, self.wild, self.decks, self.options["owner_may_swap"]
                    )
                else:  # the table takes nothing of this hand (`offers.plays` gives its melds alone, not called)
                    plays = melds
                self._plays[seat] = plays
            if phase == "react":
                legal = [PASS, *plays]
            else:
                hand = self.hands[seat]
                # The hand is sorted; only with two decks can a card come twice (then one discard for both).
                legal = [*plays, *map(DISCARDS.__getitem__, hand if self.decks == 1 else dict.fromkeys(hand))]
                if self.options["mode"] == "contested":
                    if self.false_plays < MAX_FALSE_PLAYS:
                        legal.extend(offers.false_plays(hand, self.melds, self.wild, self.decks))
                    if not self.mistake:
                        legal.append(CALL_MOSE)
        self.legal_cache = legal
        return list(legal)

    def default_action(self) -> Action:
        legal = self.legal_actions()
        if not legal:
            raise GameError("the match is over; there is no default action")
        if self.phase == "draw":
            return DRAW_STOCK if DRAW_STOCK in legal else legal[0]
        if self.phase == "react":
            return PASS
        if self.phase == "play":
            hand = self.hands[self.turn]
            worst = max(hand, key=lambda c: (card_points(c, self.wild), card_key(c)))
            return Action("discard", (worst,))
        return legal[0]

    def clone(self) -> "MoseState":
        """A copy that plays on independently, field by field.  The lists the engine changes in place
        (the stock, the hands list, the per-seat answers) are copied; the rest (hands, the pile and the
        table are tuples; the pickup, window and pending records, melds, scores, penalties, history and
        options are replaced when they change, never changed) is shared, and so is what was worked out
        from them."""
        twin = object.__new__(MoseState)
        twin.ruleset = self.ruleset
        twin.options = self.options
        twin.players = self.players
        twin.decks = self.decks
        twin.seed = self.seed
        twin.seats = self.seats
        twin.chance = self.chance
        twin.round = self.round
        twin.wild = self.wild
        twin.dealer = self.dealer
        twin.scores = self.scores
        twin.history = self.history
        twin.log = None
        twin.decisions = self.decisions
        twin.hands = list(self.hands)
        twin.stock = list(self.stock)
        twin.discard = self.discard
        twin.melds = self.melds
        twin.table = self.table
        twin.pending = self.pending
        twin.window = self.window
        twin.round_started = self.round_started
        twin.exhaustions = self.exhaustions
        twin.last_pickup = self.last_pickup
        twin.penalties = self.penalties
        twin.next_meld = self.next_meld
        twin.turns = self.turns
        twin.turn = self.turn
        twin.decider = self.decider
        twin.phase = self.phase
        twin.mistake = self.mistake
        twin.false_plays = self.false_plays
        twin.current = self.current
        twin.is_over = self.is_over
        twin.masks = list(self.masks)
        twin.sizes = list(self.sizes)
        twin.legal_cache = self.legal_cache
        twin._meldable = list(self._meldable)
        twin._meld_acts = list(self._meld_acts)
        twin._plays = list(self._plays)
        twin._needs = self._needs
        twin.match_view = self.match_view
        return twin

    # -- public events -------------------------------------------------------------------

    false_play_penalty = FALSE_PLAY_PENALTY
    false_mose_penalty = FALSE_MOSE_PENALTY

    def record_events(self) -> list[PublicEvent]:
        if self.log is None:
            self.log = events.start(self)
        return self.log

    @property
    def events(self) -> list[PublicEvent] | None:
        return self.log

    # -- offers ------------------------------------------------------------------------
    #
    # What a seat may play is worked out by `offers` and kept here per seat until what it depends on
    # changes: `_remove`, `_add` and `_set_meld` drop what is no longer true.

    # -- hands and the table: every change goes through these, which drop what it invalidates --------

    def _reset_seats(self) -> None:
        """New hands all round (a deal, a restored position): their masks, and nothing known yet."""
        n = self.players
        self.masks = [*map(offers.bits_of, self.hands)]
        self.sizes = [*map(len, self.hands)]
        self._meldable = [None] * n
        self._meld_acts = [None] * n
        self._plays = [None] * n

    def restored(self) -> None:
        """Called once a position's fields are all set (`position.restore`): the hands' masks, nothing
        worked out yet, and `current` and `is_over`."""
        self._reset_seats()
        self._needs = offers.table_needs(self.melds, self.wild, self.decks)
        self.match_view = match_view(self)
        self._settle()

    def _set_meld(self, index: int, meld: Meld) -> None:
        """``meld`` at ``index`` of the table: a new one at the end or a changed one in its place (a round's
        melds keep their places).  A new melds list (never changed in place: clones share it), the needs
        updated for that meld only, and every seat's plays dropped."""
        melds = self.melds
        self.melds = melds + [meld] if index == len(melds) else melds[:index] + [meld] + melds[index + 1 :]
        self._needs = offers.with_meld(self._needs, index, meld, self.wild, self.decks)
        self._plays = [None] * self.players

    def _remove(self, seat: int, cards: Sequence[str]) -> None:
        """The seat's hand without these cards (one copy each), a new tuple; its mask without the cards
        of which no copy is left.  A hand without a meld stays without one."""
        rest = list(self.hands[seat])
        for card in cards:
            rest.remove(card)
        hand = self.hands[seat] = tuple(rest)
        self.sizes[seat] = len(hand)
        mask = self.masks[seat]
        if self.decks == 1:  # each card was in the hand once: its bit goes (one operation, not two)
            for card in cards:
                mask ^= CARD_BITS[card]
        else:
            for card in cards:
                if card not in hand:
                    mask &= ~CARD_BITS[card]
        self.masks[seat] = mask
        if self._meldable[seat]:
            self._meldable[seat] = None
        self._meld_acts[seat] = self._plays[seat] = None

    def _remove_card(self, seat: int, card: str) -> None:
        """`_remove` of one card (a discard, a swap)."""
        hand = self.hands[seat]
        i = hand.index(card)
        hand = self.hands[seat] = hand[:i] + hand[i + 1 :]
        self.sizes[seat] -= 1
        if self.decks == 1 or card not in hand:
            self.masks[seat] ^= CARD_BITS[card]  # its bit was set (the card was in the hand): it goes
        if self._meldable[seat]:
            self._meldable[seat] = None
        self._meld_acts[seat] = self._plays[seat] = None

    def _add(self, seat: int, cards: Sequence[str]) -> None:
        """The seat's hand with these cards, sorted (a new tuple, as `_remove`).  A hand with a meld keeps it."""
        hand = self.hands[seat] = tuple(sorted(self.hands[seat] + tuple(cards), key=_order))
        self.sizes[seat] = len(hand)
        mask = self.masks[seat]
        for card in cards:
            mask |= CARD_BITS[card]
        self.masks[seat] = mask
        if not self._meldable[seat]:
            self._meldable[seat] = None
        self._meld_acts[seat] = self._plays[seat] = None

    def _add_card(self, seat: int, card: str) -> None:
        """`_add` of one card (a draw from the stock), put in its place (after its twin: as `_add`'s sort)."""
        hand = self.hands[seat]
        i = bisect_right(hand, CARD_ORDER[card], key=_order)
        self.hands[seat] = hand[:i] + (card,) + hand[i:]
        self.sizes[seat] += 1
        mask = self.masks[seat] = self.masks[seat] | CARD_BITS[card]
        meldable = self._meldable[seat]
        if meldable is False and self.decks == 1 and card[0] != self.wild:  # known without a meld: ask the card
            self._meldable[seat] = card_adds_meld(mask, card, self.wild)
        elif not meldable:
            self._meldable[seat] = None
        self._meld_acts[seat] = self._plays[seat] = None

    # -- applying ----------------------------------------------------------------------

    def _apply_legal(self, action: Action) -> None:
        """The base class's `apply` has checked ``action`` against the kept list: apply that list's own
        action (an equal one parsed from text is not identical to it)."""
        legal = self.legal_cache
        self.apply(legal[legal.index(action)])

    def _grown(self, action: Action) -> tuple[int, str, Meld | None]:
        """For a ``layoff`` action: the place of its meld on the table, the card laid off, and the meld it
        makes, or None when the card does not fit (a False Play).

        Strict mode offers only lay-offs that fit (`layoff_offers`), so the meld is built without checks.
        """
        index = self.meld_index(int(action.args[0]))
        meld = self.melds[index]
        end = action.args[1] if meld.kind == "run" else None
        token = parse_token(action.args[-1], self.wild)
        if self.options["mode"] == "strict":
            return index, token.card, extended(meld, end, token)
        try:
            return index, token.card, lay_off(meld, end, token, self.wild, self.decks)
        except MeldError:
            return index, token.card, None

    def meld_index(self, meld_id: int) -> int:
        """The place on the table of the meld with this id: a round's melds are numbered from 1 in the
        order they were laid and keep their places, so meld k is at k - 1 (looked for when not: a restored
        position's table may number them otherwise)."""
        melds = self.melds
        i = meld_id - 1
        if 0 <= i < len(melds) and melds[i].id == meld_id:
            return i
        for i, meld in enumerate(melds):
            if meld.id == meld_id:
                return i
        raise GameError(f"no meld {meld_id} on the table")

    def meld_by_id(self, meld_id: int) -> Meld:
        return self.melds[self.meld_index(meld_id)]

    def _take_cards(self, seat: int, cards: list[str], placing: bool) -> None:
        """Move cards out of the hand (and the freed wild off the table when placing)."""
        if placing:
            cards = list(cards)
            freed = self.pending["card"]
            cards.remove(freed)
            table = list(self.table)
            table.remove(freed)
            self.table = (*table,)
            self.pending = None
        self._remove(seat, cards)

    def _meld(self, seat: int, texts: tuple[str, ...], placing: bool) -> None:
        """An offered ``meld`` (the kept list's own action): built without `build_meld`'s checks."""
        wild = self.wild
        tokens = tuple([parse_token(t, wild) for t in texts])
        meld = offered_meld(tokens, self.next_meld, seat)
        self.next_meld += 1
        self._take_cards(seat, [token.card for token in tokens], placing)
        self._set_meld(len(self.melds), meld)
        self._note_event(seat)

    def _layoff(self, seat: int, index: int, grown: Meld, card: str, placing: bool) -> None:
        """``card`` laid off, making ``grown`` at ``index`` of the table: from the hand (one card: as a
        discard leaves it), or the freed wild from the table."""
        if placing:
            self._take_cards(seat, [card], True)
        else:
            self._remove_card(seat, card)
        self._set_meld(index, grown)
        self._note_event(seat)

    def _swap(self, seat: int, meld_id: int, natural: str, choice: str) -> None:
        index = self.meld_index(meld_id)
        swapped, freed = swap_in(self.melds[index], natural, self.wild, self.decks)
        self._remove_card(seat, natural)
        self._set_meld(index, swapped)
        self._note_event(seat)
        back = self.phase
        if choice == "take":
            self._add(seat, (freed,))
            self._finish_play(seat, back)
        else:
            self.table = (*self.table, freed)
            self.pending = {"seat": seat, "card": freed, "back": back}
            self.phase = "place"
            self.decider = seat

    def _finish_play(self, seat: int, back: str) -> None:
        """After a complete play: going out closes the round, else a window or the same seat goes on."""
        if not self.hands[seat]:
            self._go_out(seat)
        elif back == "play":
            self._open_window(seat)
        else:
            self.phase = "react"
            self.decider = seat
            self.window = self.window.played

    def _draw_stock(self, seat: int) -> None:
        if not self.stock:
            # First exhaustion: the pile, declined, becomes the new stock (6.6).
            self.exhaustions = max(self.exhaustions, 1)
            self.stock = chance.shuffled(self.discard, self.seed, self.chance)
            self.chance += 1
            self.discard = ()
        card = self.stock.pop(0)
        self._add_card(seat, card)
        self.last_pickup = stock_pickup(seat, card)
        self.round_started = True
        self.phase = "play"
        if not self.stock:
            self.exhaustions += 1
            if self.exhaustions >= 2 and self.options["second_exhaustion_end"] == "immediate":
                self._end_round(None, "the stock ran out a second time")
                return
        self._open_window(seat)

    def _take_pile(self, seat: int) -> None:
        cards, self.discard = self.discard, ()
        self._add(seat, cards)
        self.last_pickup = pile_pickup(seat, cards)
        self.round_started = True
        self.phase = "play"
        self._open_window(seat)

    def _discard(self, seat: int, card: str) -> None:
        """The turn's last play; the next seat's turn starts (unless the round ends)."""
        self._remove_card(seat, card)
        self.discard = self.discard + (card,)
        pickup = self.last_pickup
        if pickup is not None:
            if seat == pickup.seat:  # `_note_event`'s common case: the drawer's own discard
                self.last_pickup = None
            else:
                self._note_event(seat)
        if not self.hands[seat]:
            self._go_out(seat)
            return
        if self.exhaustions >= 2:
            self._end_round(None, "the stock ran out a second time")
            return
        seat = self.turn = self.decider = (seat + 1) % self.players
        self.phase = "draw"
        self.mistake = False
        self.false_plays = 0
        self.turns += 1
        limit = self.options["turn_limit"]
        if not (self.stock or self.discard):  # nothing to draw (the draw phase would offer nothing)
            self._end_round(None, "nothing left to draw")
        elif limit and self.turns >= limit:
            # Not in the rules: bots that only ever take the pile would never end a round.
            self._end_round(None, f"the round reached the turn limit ({limit})")

    def _penalise(self, seat: int, points: int) -> None:
        """A new penalties list (never changed in place: observations share it)."""
        penalties = list(self.penalties)
        penalties[seat] += points
        self.penalties = penalties

    def _false_mose(self, seat: int) -> None:
        self._penalise(seat, FALSE_MOSE_PENALTY)
        self.mistake = True
        self._note_event(seat)

    def _false_play(self, seat: int, text: str) -> None:
        self._penalise(seat, FALSE_PLAY_PENALTY)
        self.false_plays += 1
        self._note_event(seat)

    # -- reaction windows ----------------------------------------------------------------

    def _open_window(self, after: int, steps: tuple[tuple[int, Window], ...] | None = None) -> None:
        """Ask the other seats (not the turn's), in order from ``after``'s left; with ``steps``, go on down an
        open window's queue instead (`Window.steps`: each seat with the window it decides in, made once).

        Every seat is asked, whether or not it has a meld, lay-off or swap (then ``pass`` is all it may do):
        skipping the seats with none, as the engine once did, told every other seat and any spectator which
        hands held a play, and so which seat that passed was keeping one back.  At a real table anyone may
        play out of turn and nobody learns who could have.
        """
        if steps is None:
            steps = _WINDOW_STEPS[self.players][after][self.turn]
        if steps:
            seat, rest = steps[0]
            self.window = rest
            self.phase = "react"
            self.decider = seat
            return
        self.window = None
        self.phase = "play"
        self.decider = self.turn

    def _pass(self, seat: int) -> None:
        window = self.window
        if window.acted:
            if self.last_pickup and self.last_pickup.by == seat:
                self.last_pickup = None
            self._open_window(seat)
        else:
            self._open_window(seat, window.steps)

    def _note_event(self, seat: int) -> None:
        """Track "directly after a pickup" (D-14): only the pickup's one claimant may act since."""
        pickup = self.last_pickup
        if pickup is None:
            return
        if seat == pickup.seat or pickup.by not in (None, seat):
            self.last_pickup = None
        elif pickup.by is None:
            self.last_pickup = pickup.claimed(seat)

    # -- end of round and match ------------------------------------------------------------

    def _go_out(self, seat: int) -> None:
        """Mose: validated at once; a Mose directly after X's pickup returns X's cards (D-14)."""
        pickup = self.last_pickup
        reason = f"seat {seat} went out (Mose)"
        if pickup and pickup.seat != seat and pickup.by == seat:
            self._remove(pickup.seat, pickup.cards)
            if pickup.source == "stock":
                self.stock = [*pickup.cards, *self.stock]
            else:
                self.discard = (*pickup.cards, *self.discard)
            reason += f" directly after seat {pickup.seat}'s pickup, which was returned"
            if self.log is not None:
                events.pickup_returned(self, pickup)
        self._end_round(seat, reason)

    def _end_at_decision_limit(self) -> None:
        """Option ``decision_limit`` (not in the rules, a bound whatever the seats do): a freed wild waiting to
        be placed goes to its swapper's hand (as a ``take``), an open window lapses, the round is scored as it
        stands with no winner (like an exhaustion) and `_end_round` ends the match."""
        if self.table:
            self._add(self.pending["seat"], self.table)
            self.table = ()
        self._end_round(None, f"{LIMIT_REACHED} ({self.decisions})")

    def _decision_cap(self) -> int:
        """Option ``decision_limit``, or no cap (0)."""
        return self.options["decision_limit"] or 1 << 62

    def _end_round(self, winner: int | None, reason: str) -> None:
        value = POINTS[self.wild].__getitem__  # `card_points` of a card
        points = [
            (0 if seat == winner else sum(map(value, hand))) + self.penalties[seat]
            for seat, hand in enumerate(self.hands)
        ]
        self.scores = [a + b for a, b in zip(self.scores, points)]
        # a new list (never changed in place: clones share it)
        self.history = [*self.history, {"round": self.round, "winner": winner, "points": points, "reason": reason}]
        self.window = None
        self.pending = None
        self.last_pickup = None
        if self.round >= self.rounds or self.decisions >= self._decision_cap():
            self.phase = "over"
            self.match_view = match_view(self)
            if self.log is not None:
                events.round_scored(self)
            return
        if self.log is not None:
            events.round_scored(self)
        self.round += 1
        self.dealer = (self.dealer + 1) % self.players
        self._deal()

    # -- observation and position ----------------------------------------------------------

    #: What ``seat`` may see (None: the spectator): `observation.observe` itself, the function as the method
    #: (built at every decision: one call, not a method that calls it).
    observation = observe

    def hashed_position(self) -> dict[str, Any]:
        """The position without what option ``decision_limit`` added to it: the count (a replay's decision
        lines already fix it) and the option at its default, so that replays recorded before it still verify."""
        position = self.to_position()
        del position["decisions"]
        if self.options["decision_limit"] == DEFAULT_DECISION_LIMIT:
            del position["options"]["decision_limit"]
        return position

    def to_position(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "options": dict(self.options),
            "hands": [list(h) for h in self.hands],
            "discard": list(self.discard),
            "stock": list(self.stock),
            "current": self.current,
            "direction": 1,
            "scores": list(self.scores),
            "round": self.round,
            "dealer": self.dealer,
            "turn": self.turn,
            "phase": self.phase,
            "melds": [m.to_dict() for m in self.melds],
            "table": list(self.table),
            "pending": None if self.pending is None else dict(self.pending),
            "window": None if self.window is None else self.window.to_dict(),
            "round_started": self.round_started,
            "exhaustions": self.exhaustions,
            "last_pickup": None if self.last_pickup is None else self.last_pickup.to_dict(),
            "penalties": list(self.penalties),
            "mistake": self.mistake,
            "false_plays": self.false_plays,
            "turns": self.turns,
            "decisions": self.decisions,
            "history": [dict(h, points=list(h["points"])) for h in self.history],
            "next_meld": self.next_meld,
            "seed": self.seed,
            "chance": self.chance,
        }


def _window_order(players: int, after: int, turn: int) -> tuple[int, ...]:
    """The seats a window asks: clockwise from ``after``'s left, never ``turn`` (nor ``after``)."""
    return tuple(seat for seat in ((after + i) % players for i in range(1, players)) if seat != turn)


#: The steps (`Window.steps`) of `_window_order` for every table size, seat and turn:
#: ``_WINDOW_STEPS[players][after][turn]``.
_WINDOW_STEPS = [
    [[window(_window_order(players, after, turn), False).steps for turn in range(players)] for after in range(players)]
    for players in range(11)
]
