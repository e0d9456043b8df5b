"""Pesten (Netherlands; seed 002 "Netherlands", RULES.md 5.2): jokers, cross-stacking 2s, no effect card last.

Resolutions (C-n are RULES.md's; all defaults):

* 52 cards plus 2 Jokers ``X1`` ``X2`` (option ``jokers = 3``), 7 cards
  each (option ``hand_size`` 5-7), 2-10 players.  "More packs if needed"
  (C-14): one pack serves 6 players (43 cards out at 7 each); more play with
  two packs and their 4 (or 6) Jokers, 108 cards, whose identical cards are
  interchangeable (a legal list names each once).  As base Mau-Mau otherwise
  (5.1): C-3 upcard effects on the first player (option
  ``starter_effects``; an upcard 7 or King obliges nobody); C-4 draw one
  card only without a legal card, then only that card may be played;
  C-12 a short stock forgives the rest.
* 2: a pending 2.  Joker: goes on any card, a pending 5.  C-24 2s and
  Jokers pass the debt on across each other (Joker then 2 = 7), whatever
  the suit.  C-5 [ext: libelle] the player who accepts draws it all and
  then plays on.  C-23 a Joker on top with no suit named lets any card
  follow it (so the payer of a Joker chain may change the suit).
* 7 and King: the same player plays another card legal on it (decision
  ``follow``; another 7 or King asks again); C-25 if they cannot, they draw
  1 and the turn ends.  8: the next player misses a turn.  Ace: the
  direction reverses; C-26 with two players it is another turn.  An upcard
  Ace counts as the dealer's play (C-3's effects are the dealer's card
  acting): with three or more players the direction reverses and the seat
  on the dealer's other side opens, not P1; with two the dealer opens (its
  another turn).  Jack:
  wild, then a ``suit`` wish.
* C-27 the last card may not be an effect card (2, 7, 8, J, K, A, Joker):
  it is not offered, the player draws instead.  Option ``finish_on_effect
  = penalty`` [ext: spelenboek]: it may be played, its effects apply, but
  the player has not won and draws 5.
* Call "Laatste kaart" when down to one card: ``call laatste-kaart`` right
  after the play; after ``pass`` the other seats may ``accuse N`` before
  the next player acts, and a caught player draws a whole new hand
  (``hand_size`` cards) on top of the card they hold.
* Scoring is not part of the game: losers score one point per card left.
  ``hands`` > 1 plays a series (10.7).
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CallRule, CardRule, Ruleset
from arena.games.shedding.rulesets import series

NAME = "pesten"
TITLE = "Pesten (Netherlands)"
SEED = "seeds/002_0c73658562dbe7b8.txt"
MIN_PLAYERS, MAX_PLAYERS = 2, 10
#: C-14 "more packs if needed": one pack with its Jokers serves up to 6 players.
PACK_SERVES = 6

OPTIONS = {
    "jokers": OptionSpec(2, "Jokers added to the 52 cards", (2, 3)),
    "hand_size": OptionSpec(7, "cards dealt to each player; also the new-hand penalty", (5, 6, 7)),
    "finish_on_effect": OptionSpec("forbidden", "an effect card as the last card: not allowed, or allowed "
                                   "without winning and with 5 penalty cards (C-27)", ("forbidden", "penalty")),
    "starter_effects": OptionSpec(True, "the upcard's 2, Joker, 8, Ace or Jack acts on the first player (C-3)"),
    "hands": series.HANDS,
}

SUMMARY = (
    "Dutch Mau-Mau with 52 cards and 2 Jokers (two packs for more than 6 players), 7 each: a 2 makes the "
    "next player draw 2 and a Joker (wild) draw 5, passed on by 2s and Jokers across each other; 7 and King make you play again, 8 skips, the Ace "
    "reverses, the Jack names a suit. Your last card may not be an effect card. Say Laatste kaart at one "
    "card or be caught and draw a whole new hand."
)

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")


def build(options: dict) -> Ruleset:
    last = options["finish_on_effect"]
    chain = frozenset({"2", "X"})
    return Ruleset(
        name=NAME,
        ranks=RANKS,
        jokers=options["jokers"],
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        pack_serves=PACK_SERVES,
        hand_size=options["hand_size"],
        opening="upcard",
        starter_effects=options["starter_effects"],
        starter_suit_by="next",
        draw_mode="single",
        after_draw_play="drawn",
        after_accept="continue",
        finishing_effects="ignore",
        reverse_two="again",
        finish_penalty=5,
        call=CallRule(
            timing="after_drop", word="laatste-kaart", special_word="laatste-kaart", penalty=options["hand_size"]
        ),
        rank_rules={
            "2": CardRule(pending_draw=2, stack_with=chain, cannot_finish=last),
            "X": CardRule(placement="any", pending_draw=5, stack_with=chain, open_top=True, cannot_finish=last),
            "7": CardRule(follow=True, cannot_finish=last),
            "K": CardRule(follow=True, cannot_finish=last),
            "8": CardRule(skip=True, cannot_finish=last),
            "A": CardRule(reverse=True, cannot_finish=last),
            "J": CardRule(placement="any", suit_choice="wish", cannot_finish=last),
        },
        points={**{r: 1 for r in RANKS}, "X": 1},
        **series.match_of(options),
        dealer_rule="rotate",
        first_dealer="last",
    )
