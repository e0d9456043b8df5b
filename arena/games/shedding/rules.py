"""A ruleset as data: the deck, the deal, the draw policy and a card → effect table.

The engine (`state.py`) interprets these records and knows no game by
name; a national variant is a new `Ruleset` value plus, where it needs a
mechanism that no field here describes, one new field and the primitive
that reads it (see `effects.py`).  Everything is frozen so one ruleset
object can be shared by every state that uses the same options.
"""

from __future__ import annotations

import sys
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, Mapping

from arena.games import cards as _cards


@dataclass(frozen=True)
class CardRule:
    """What one card does when placed (RULES.md 8.5 primitive ids in brackets)."""

    #: Where it may go: "match" (rank or active suit), "any" (wild), "any_unless_demand" (Moumou 6, A-7) [P16].
    placement: str = "match"
    #: Top ranks on which the wild placement does not apply (S1: Jack not on a 7, B-11) [P16].
    wild_not_on: frozenset = frozenset()
    #: Top ranks on which this card may never go, even by a match (house rule no Jack on Jack) [P16].
    never_on: frozenset = frozenset()
    #: Immediate draw by the next seat, per card placed [P1].
    draw_next: int = 0
    #: Immediate draw by the previous seat (S1 Nine), per card [P1].
    draw_previous: int = 0
    #: Stackable pending draw, per card; answered only by cards whose rank (or card code) is in
    #: `stack_with`; the answer adds its own amount, so ranks can stack across (Pesten 2 + Joker) [P2].
    pending_draw: int = 0
    stack_with: frozenset = frozenset()
    #: The next seat loses its turn (once per play) [P4].
    skip: bool = False
    #: The skip is pending and can be passed on by a card of `stack_with` (eight_deflect, C-6) [P4].
    skip_deflectable: bool = False
    #: Reverse the direction [P6].
    reverse: bool = False
    #: "" or "wish" (WISH_SUIT) or "demand" (DEMAND_SUIT: draw one then the turn ends) [P7, P8].
    suit_choice: str = ""
    #: The same player must cover with these ranks or the card's suit (Moumou 6) [P9].
    cover_ranks: frozenset = frozenset()
    #: The same player must play one more card legal on it, else draw one and end (Mau-Mau Ace) [P10].
    follow: bool = False
    #: Emptying the hand with it: "" (wins), "continue" (no win, effects apply, A-14), "forbidden", or
    #: "penalty" (no win, effects apply, the player draws the ruleset's `finish_penalty`, C-27) [P18].
    cannot_finish: str = ""
    #: Finishing with it offers the finisher "bonus self" (-n) or "bonus others" (+n) (Moumou Jack) [P19].
    finish_bonus: int = 0
    #: Finishing with it multiplies the losers' hand points (Mau-Mau Jack ×2) [P19].
    finish_multiplier: int = 1
    #: Immediate draw by every other seat still in the hand (Prší 7♥ option, C-16) [P1].
    draw_others: int = 0
    #: The player picks another seat still in the hand, which draws this many (Evil Seven 2, C-22) [P1].
    draw_chosen: int = 0
    #: Placing it wipes out a pending draw (Faraón ``Js`` cancels the 7-debt, C-31) [P12].
    cancel_pending: bool = False
    #: While no suit is named, any card may be played on it (Faraón ``Js`` C-31, Pesten Joker C-23).
    open_top: bool = False
    #: Overrides the ruleset's `after_accept` for a pending draw this card set (101: a 6 also skips, C-29).
    after_accept: str = ""
    #: What the card does instead when it empties the hand without winning (Moumou ``ace_last =
    #: s7_literal``, A-14): its effects replace this rule's, once per play.
    emptying: "CardRule | None" = None
    #: After its `draw_next`, the drawing seat loses the turn if it holds nothing playable (A-14 §7).
    skip_if_stuck: bool = False
    #: Paying this card's pending draw [P2 rescue_first_k]: the payer draws one card at a time, and
    #: one of the first k that answers the debt (`stack_with`) may be played at once (decision
    #: ``rescue``): the rest of the debt lapses, the cards drawn are kept, the play ends the turn
    #: (Faraón option ``rescue``).
    rescue_first_k: int = 0

    def __post_init__(self) -> None:
        # Read at every play that has effects: a plain attribute rather than a property.
        object.__setattr__(self, "covers", bool(self.cover_ranks))


@dataclass(frozen=True)
class CallRule:
    """An announcement obligation and its catch window [P22, P23].

    ``timing`` is "before_discard" (S1: press MAU-MAU before the 2→1
    discard, in turn) or "after_drop" (S2: say Mau / Mau-Mau once the hand
    is down to one card, as the last decision of the turn).
    """

    timing: str  # or "on_going_out" (C-9 flag): the finishing play needs the word, else `penalty` cards
    #: Words: the one for a plain last card and the one when the last card has rank `special_rank`.
    word: str = "mau"
    special_word: str = "mau-mau"
    special_rank: str = ""
    #: A word owed with the play that empties the hand (Tschau Sepp "Sepp"): the decision ``call``
    #: follows that play; without the word, seats may ``accuse`` before the next player acts and a
    #: caught finisher draws `penalty` and plays on; uncaught, the finish stands.
    finish_word: str = ""
    #: S1 (B-8, B-9): the next seat to take a turn after a catch window keeps ``accuse N`` among its
    #: turn's choices until it discards or passes (its voluntary draw does not close the window); an
    #: accusation there after a valid call, or after someone else caught the offender, is false.
    accuse_in_next_turn: bool = False
    #: With ``before_discard``: the call is also offered with this many cards in hand (a false call,
    #: B-7), besides the 2 it is made at; 0 for none.
    false_call_at: int = 0
    #: Cards drawn by a caught offender, a false caller, a false accuser.
    penalty: int = 1
    false_call_penalty: int = 0
    false_accuse_penalty: int = 0


def _derived():
    return field(init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Everything that makes one shedding game what it is.

    Slotted: the engine reads a dozen of its fields at every decision, and with its ~70 attributes an
    instance dict would cost a hinted dict probe per read where a slot costs an offset.
    """

    name: str
    ranks: tuple
    min_players: int = 2
    max_players: int = 5
    copies: int = 1
    #: Players one pack serves (C-14): a table of more players plays with `copies` times
    #: ceil(players / pack_serves) packs, jokers included; 0 = always `copies` (`for_players`).
    pack_serves: int = 0
    #: Jokers ``X1``, ``X2``... added once to the pack (Neuner, Pesten).
    jokers: int = 0
    hand_size: int = 5
    #: Direction of play at the start of each hand: 1 clockwise, -1 counter-clockwise (Tschau Sepp).
    start_direction: int = 1
    #: "hand_card": the dealer's last dealt card is the dealer's first play (Moumou A-2);
    #: "upcard": the top stock card is played by the opener seat (S1 B-2, S2 C-3).
    opening: str = "upcard"
    #: Apply the opening card's effects at all (B-2, C-3 flag `starter_effects`).
    starter_effects: bool = True
    #: Who names the suit for an opening wild: "opener" (S1) or "next" (S2: the first player).
    starter_suit_by: str = "opener"
    #: Opening follow obligations are dropped (S2: an opening Ace obliges nobody, C-3).
    starter_follow: bool = False
    #: Drawing: "until_playable" (Moumou A-10) or "single" (one card).
    draw_mode: str = "single"
    #: May a player draw while holding a legal card (S1 yes, B-3; Moumou/S2 no, A-25/C-4).
    voluntary_draw: bool = False
    #: After a single draw the player may draw again, without limit (B-3 ``max_draws_per_turn``).
    repeat_draw: bool = False
    #: A demand the next seat failed (drew one, could not play) ends with its turn (A-12 alternative).
    demand_expires: bool = False
    #: Who draws for `draw_previous`: the "seat" before the player (B-14) or the last seat that
    #: "discarded" (B-14 alternative); the seat before when nobody has yet.
    previous_seat: str = "seat"
    #: A failed follow: the obligation "lapse"s (C-8) or "pass"es to the next seat, for as long as
    #: each failing seat draws a card (C-8 alternative).
    follow_fail: str = "lapse"
    #: After a single draw: "any" legal card may be played (B-4) or only the "drawn" one (C-4).
    after_draw_play: str = "any"
    #: After drawing, a legal card must be played (Moumou A-10) or the player may pass.
    must_play_after_draw: bool = False
    #: After taking a pending draw: "end_turn" (S1 B-13) or "continue" (S2 7 "but may play", C-5).
    after_accept: str = "end_turn"
    #: Discard cards kept on top when recycling (Moumou 4, others 1) and shown to players.
    recycle_keep: int = 1
    visible_discard: int = 1
    #: Same-rank combos (Moumou A-6) [P17].
    combos: bool = False
    #: How a combo's effects add up: "sum" (draws per card, one skip, reversals by parity: A-6) or
    #: "once" (as if one card were played: Quick, C-11).  Ranks in `combo_per_card` count every
    #: card in both modes, skips included (Quick 7s; Faraón 7s and Aces skip one seat each).
    combo_aggregation: str = "sum"
    combo_per_card: frozenset = frozenset()
    #: A reversal with two seats in the hand: "reverse" (the other seat plays) or "again" (C-26) [P6].
    reverse_two: str = "reverse"
    #: Cards drawn by a player who empties the hand with a `cannot_finish = "penalty"` card (C-27).
    finish_penalty: int = 0
    #: Blind variation (C-13, P24): turn plays go face down with a claimed identity; see `blind.py`.
    blind: bool = False
    #: Decisions after which the game ends, its last hand scored as it stands (0: no limit).  Not a
    #: rule of any seed: an arena safeguard, as OpenSpiel's max_turns, so every game ends whatever the
    #: seats do (random Blind liars, an Ace covered by Aces from a two-card pile, endless draws).
    decision_limit: int = 0
    #: Return to game (P28, C-20): a player who empties the hand wins only after the others have each
    #: had a turn; a `draw_others` card played meanwhile makes them draw and re-enter (Prší 7♥).
    return_window: bool = False
    #: A hand ends when the top n discards share a rank (Moumou event, n = 4) [P21].
    table_pattern: int = 0
    #: Effects of the card that empties a hand: "apply" (A-17) or "ignore" (B-17) [P20].
    finishing_effects: str = "ignore"
    #: The ±bonus counts once per finish or once per card (A-16 `jack_bonus_per_card`).
    bonus_per_card: bool = False
    #: The finishing multiplier counts once or per finishing card (C-10 `jack_double_per_card`).
    multiplier_per_card: bool = False
    call: CallRule | None = None
    #: Rank → rule, plus single cards that differ from their rank (Moumou Kc).
    rank_rules: Mapping[str, CardRule] = field(default_factory=dict)
    card_rules: Mapping[str, CardRule] = field(default_factory=dict)
    points: Mapping[str, int] = field(default_factory=dict)
    #: Match: "single" (one hand), "series" (`hands` hands), "limit" (until a total exceeds `limit`) [P30].
    match: str = "single"
    hands: int = 1
    limit: int = 0
    #: Next dealer: "loser" (A-23), "alternate", "rotate", or "fixed" (seat 0 always opens, S1).
    dealer_rule: str = "fixed"
    #: The dealer of the first hand: "first" (seat 0) or "last" (so seat 0 plays first, S2).
    first_dealer: str = "first"
    #: When a hand ends: "first_out" (the first empty hand wins) or "last_holder" (seats that go out
    #: leave, play goes on until one seat still holds cards: that seat lost, Faraón C-30).
    hand_end: str = "first_out"
    #: Hand-size ladder [P27]: a hand's loser is dealt one card fewer per loss and is out of the
    #: match after `lives` losses (Faraón 5); 0 = off.  The match ends when one seat is left.
    lives: int = 0
    #: Who opens the next hand: the seat after the "dealer", or the "winner" of the last hand (Faraón).
    leader: str = "dealer"

    # Derived in __post_init__, for the engine's hot paths (not options: no init, no repr, no compare).  They are the
    # ruleset's public lookup tables, read by every module of the engine; the ones marked "cache" start empty and are
    # filled on first use by the module named, and nothing else writes any of them.
    deck: tuple = _derived()
    visible_slice: slice = _derived()  # the shown top of the pile (`visible_discard` cards)
    ladder: bool = _derived()  # seats can leave a hand or the match, so turns skip them (Faraón)
    #: Some card pays a debt one card at a time, so that a drawn card may answer it (`rescue_first_k`).
    has_rescue: bool = _derived()
    forced_view: bool = _derived()  # observations name the drawn card that must be played (`forced`)
    accusable_view: bool = _derived()  # observations say who can be accused in this turn (B-8)
    observation_class: type | None = _derived()  # cache: the observation record type (`observation.observation_type`)
    extra_values: Any = _derived()  # cache: state -> the values of the ruleset's own observation keys, or None (observation.py)
    decision_cap: int = _derived()  # `decision_limit`, or a count no game reaches
    playable: dict = _derived()  # cache: (top, active suit, demand?) -> the cards legal on it (legal.py)
    legal_by_phase: dict | None = _derived()  # cache: decision -> legal-list function (`legal.phase_table`)
    playable_plain: dict = _derived()  # cache: the same by top card alone, while no suit is named (legal.py)
    combo_effects: dict = _derived()  # cache: a combo's cards (a tuple) -> their effects added up (`playing.aggregate`)
    rules_by_card: dict = _derived()  # card -> CardRule, every card of the deck
    card_points: dict = _derived()  # card -> its points left in a hand (`points` by its rank), for scoring
    rule: object = _derived()  # `rule(card)`: that dict's own lookup, no Python frame
    obliging: dict = _derived()  # card -> "suit", "cover" or "follow": its play only hands its player a decision
    turn_enders: dict = _derived()  # card -> (draws, skips, reverses?): its play only ends the turn
    wild: dict = _derived()  # (top rank, demand?) -> the cards placeable on it by a wild rule
    blocked: dict = _derived()  # top rank -> the cards that may never go on it
    no_finish: frozenset = _derived()  # cards that may not be a hand's last (`cannot_finish` "forbidden")
    open_tops: frozenset = _derived()  # cards on which anything may go (`open_top`)
    identities: list = _derived()  # each distinct card once (Blind claims)
    call_at: int = _derived()  # hand size at which the call is offered in turn (2, 1, or 0: none)
    quiet_hand: int = _derived()  # the fewest cards a hand may hold for `SheddingState._quiet_play`
    same_rank: dict = _derived()  # card -> the deck's other cards of its rank
    _wider: dict = _derived()  # players' packs -> this ruleset with that many packs (`for_players`)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_wider", {})
        # Dealt every hand: built once.  Interned, as the cards of the `play` actions are (`actions.PLAY`): a card
        # is then one object wherever it goes (hands, pile, actions, these tables' keys), so the engine's
        # comparisons and look-ups of cards (`hand.remove`, `in`, dict keys) succeed on identity.
        object.__setattr__(self, "deck", tuple(map(sys.intern, self.deck_cards())))
        # Read at every observation: plain attributes rather than properties and arithmetic.
        object.__setattr__(self, "visible_slice", slice(-self.visible_discard, None))  # the shown top of the pile
        object.__setattr__(self, "ladder", self.hand_end != "first_out" or self.lives > 0)
        # A drawn card can be the only one the seat may play (C-4 after_draw_play, a cover drawn for, a
        # rescue): its observation names it (`forced`), as only that seat knows which card it drew.
        forced_view = self.after_draw_play == "drawn" or any(
            r.cover_ranks or r.rescue_first_k for r in (*self.rank_rules.values(), *self.card_rules.values())
        )
        object.__setattr__(self, "forced_view", forced_view)
        # B-8 (Online Mau-Mau): who can still be accused in the next player's turn is public and decides its
        # legal actions, so its observation says so (`accusable`).
        object.__setattr__(self, "accusable_view", self.call is not None and self.call.accuse_in_next_turn)
        object.__setattr__(self, "observation_class", None)  # set by observation.observation_type on first use
        # Compared after every decision: the limit, or a count no game reaches when there is none.
        object.__setattr__(self, "decision_cap", self.decision_limit if self.decision_limit > 0 else 1 << 62)
        # (top card, active suit, demand?) -> the deck's cards legal on it, filled as tops occur (legal.py).
        object.__setattr__(self, "playable", {})
        object.__setattr__(self, "legal_by_phase", None)  # set by legal.phase_table on first use
        object.__setattr__(self, "playable_plain", {})  # the same while no suit is named, by top card alone
        object.__setattr__(self, "combo_effects", {})  # a combo's cards -> their effects added up, filled as combos occur
        rules = {}
        for card in self.deck:
            rules[card] = self.card_rules.get(card) or self.rank_rules.get(card[0]) or _PLAIN
        object.__setattr__(self, "rules_by_card", rules)
        # A hand's points are `sum(map(_card_points.__getitem__, hand))`: the sum in C, no generator frame.
        points = self.points
        object.__setattr__(self, "card_points", {c: points[c[0]] for c in rules if c[0] in points})
        object.__setattr__(self, "rule", rules.__getitem__)
        object.__setattr__(self, "has_rescue", any(rule.rescue_first_k for rule in rules.values()))
        # Cards whose play, when it leaves cards in the hand, does no more than end the turn: card ->
        # (cards the next seat draws, seats skipped, reverses?), for `SheddingState._quiet_play` and the
        # shortcut of `playing.resolve`.
        turn_enders = {c: e for c, r in rules.items() if (e := _turn_ending(r)) is not None}
        object.__setattr__(self, "turn_enders", turn_enders)
        # Cards whose play, when it leaves cards in the hand, only hands their player a decision: card ->
        # "suit", "cover" or "follow" (`playing.resolve` takes that shortcut too).
        obliging = {c: o for c, r in rules.items() if (o := _obligation_only(r)) is not None}
        object.__setattr__(self, "obliging", obliging)
        # Placement tables by top rank, so legal-move generation is one comprehension.
        wild: dict = {}
        blocked: dict = {}
        ranks = {card[0] for card in rules}
        for top in ranks:
            for demand in (False, True):
                wild[top, demand] = frozenset(
                    card
                    for card, rule in rules.items()
                    if (rule.placement == "any" and top not in rule.wild_not_on)
                    or (rule.placement == "any_unless_demand" and not demand)
                )
            blocked[top] = frozenset(card for card, rule in rules.items() if top in rule.never_on)
        object.__setattr__(self, "wild", wild)
        object.__setattr__(self, "blocked", blocked)
        object.__setattr__(
            self, "no_finish", frozenset(c for c, r in rules.items() if r.cannot_finish == "forbidden")
        )
        object.__setattr__(self, "open_tops", frozenset(c for c, r in rules.items() if r.open_top))
        object.__setattr__(self, "identities", list(rules))  # each distinct card once (Blind claims)
        # Hand size at which the call is offered in turn: 2 (S1, before the 2→1 discard), 1 (C-9
        # ``call_model = on_going_out``: before the finishing play), 0 (no call in turn).
        timing = self.call.timing if self.call is not None else ""
        object.__setattr__(self, "call_at", {"before_discard": 2, "on_going_out": 1}.get(timing, 0))
        # The fewest cards a hand may hold for `SheddingState._quiet_play`: the play must not empty it,
        # and with a call rule it must not leave the one card a call or a catch window is about.
        object.__setattr__(self, "quiet_hand", 3 if self.call is not None else 2)
        # card -> the other cards of the deck with its rank: "does the hand hold another card of this
        # rank" (a combo) is a set test in C rather than a loop over the hand (a twin from a second
        # pack has the same code: the callers look for it too).
        same_rank = {c: frozenset(d for d in rules if d[0] == c[0] and d != c) for c in rules}
        object.__setattr__(self, "same_rank", same_rank)

    def for_players(self, players: int) -> "Ruleset":
        """This ruleset with as many packs as `players` need (C-14); itself when one pack serves."""
        packs = -(-players // self.pack_serves) if self.pack_serves else 1
        if packs <= 1:
            return self
        wider = self._wider.get(packs)
        if wider is None:  # built once per table size and shared, like the ruleset itself
            wider = self._wider[packs] = replace(
                self, copies=self.copies * packs, jokers=self.jokers * packs, pack_serves=0
            )
        return wider

    def deck_cards(self) -> list[str]:
        return _cards.deck(self.ranks, copies=self.copies, jokers=self.jokers)



_PLAIN = CardRule()
PLAIN = _PLAIN

#: CardRule fields that only say where a card may go, not what it does.
_PLACEMENT = frozenset({"placement", "wild_not_on", "never_on"})
#: Fields that only count when the card empties the hand.
_FINISHING = frozenset({"cannot_finish", "finish_bonus", "finish_multiplier", "emptying"})
#: Effects that only end the turn, with nothing left pending.
_TURN_ENDING = frozenset({"draw_next", "skip", "reverse"})


def _turn_ending(rule: CardRule) -> tuple[int, int, bool] | None:
    """(draw_next, skips, reverse) if nothing else of the rule acts on a play that keeps cards in hand.

    Every field not listed above must be at its default, so a field added later counts as more than a
    turn's end until it is listed here.
    """
    for f in fields(CardRule):
        if f.name in _PLACEMENT or f.name in _FINISHING or f.name in _TURN_ENDING:
            continue
        if f.default is MISSING or getattr(rule, f.name) != f.default:
            return None
    return rule.draw_next, int(rule.skip), rule.reverse


#: Effects that leave the player a decision, and its name.
_OBLIGATIONS = {"suit_choice": "suit", "cover_ranks": "cover", "follow": "follow"}


def _obligation_only(rule: CardRule) -> str | None:
    """The decision (`_OBLIGATIONS`) that is all the rule does to a play that keeps cards in hand, or None.

    As in `_turn_ending`, every other field must be at its default, so a field added later counts as more.
    """
    found = None
    for f in fields(CardRule):
        if f.name in _PLACEMENT or f.name in _FINISHING or getattr(rule, f.name) == f.default:
            continue
        if f.name not in _OBLIGATIONS or found is not None:
            return None
        found = _OBLIGATIONS[f.name]
    return found

