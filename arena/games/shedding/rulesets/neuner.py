"""Neuner (Austria and Bavaria; seed 002 "Austria and Bavaria", RULES.md 5.2): the Nines are wild.

Resolutions (C-n are RULES.md's; all defaults):

* 32 cards (7-A) plus one Joker ``X1`` (option ``jokers``), 5 cards each,
  2-5 players (C-14's two packs above 5 are out of range here).  As base Mau-Mau otherwise (5.1): C-3 upcard effects on the
  first player (option ``starter_effects``); C-4 draw one card only
  without a legal card, then only that card may be played; C-12 a short
  stock forgives the rest.
* 9: wild on any card, then a ``suit`` wish (the Nines replace the Jack).
  C-15 the Joker is wild the same way.  The Jack is a plain card.
* [ext] 7: a pending 2 that the next player may pass on with a 7 (+2 each)
  or ``accept``; the payer then plays on (C-5 base).  8: the next player
  misses a turn.  The Ace is plain.
* [ext] Knock on the second-to-last card: ``call knock`` is offered on
  your turn while you hold 2 cards (valid if you have not drawn and can
  discard; a false knock costs 2).  A 2→1 discard without a knock opens a
  catch window: the other seats, in turn order, may ``accuse N``; a caught
  player draws 2 (the source's "draw 2 instead of playing the last card",
  applied when caught); accusing a player who knocked costs the accuser 2.
* Scoring (C-10 table): A 11, 10/J/Q/K 10, 7-9 face value, Joker 20
  [assumption]; [ext] finishing with a 9 doubles the losers' points.
  ``hands`` > 1 plays a scored series (10.7).
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CallRule, CardRule, Ruleset
from arena.games.shedding.rulesets import series

NAME = "neuner"
TITLE = "Neuner (Austria, Bavaria)"
SEED = "seeds/002_0c73658562dbe7b8.txt"
MIN_PLAYERS, MAX_PLAYERS = 2, 5

OPTIONS = {
    "jokers": OptionSpec(1, "Jokers added to the 32 cards; each is wild like a 9 (C-15)", (0, 1, 2)),
    "hand_size": OptionSpec(5, "cards dealt to each player (C-2)", (5, 6)),
    "seven_stack": OptionSpec(True, "a 7 can be answered with a 7, the draw growing by 2 per 7 [ext]"),
    "starter_effects": OptionSpec(True, "the upcard's 7, 8, 9 or Joker acts on the first player (C-3)"),
    "hands": series.HANDS,
}

SUMMARY = (
    "Austrian and Bavarian Mau-Mau with 32 cards and a Joker: the Nines and the Joker are wild and name a "
    "suit, 7 makes the next player draw 2 unless they add a 7, 8 skips. Knock before playing your "
    "next-to-last card or be caught for 2 cards. Losers score A11, 10-K 10, 7-9 face, Joker 20; a winning 9 "
    "doubles them."
)

RANKS = ("7", "8", "9", "T", "J", "Q", "K", "A")


def build(options: dict) -> Ruleset:
    if options["seven_stack"]:
        seven = CardRule(pending_draw=2, stack_with=frozenset({"7"}))
    else:
        seven = CardRule(draw_next=2)
    wild = CardRule(placement="any", suit_choice="wish", finish_multiplier=2)
    return Ruleset(
        name=NAME,
        ranks=RANKS,
        jokers=options["jokers"],
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        hand_size=options["hand_size"],
        opening="upcard",
        starter_effects=options["starter_effects"],
        starter_suit_by="next",
        draw_mode="single",
        after_draw_play="drawn",
        after_accept="continue",
        finishing_effects="ignore",
        call=CallRule(
            timing="before_discard", word="knock", special_word="knock",
            penalty=2, false_call_penalty=2, false_accuse_penalty=2,
        ),
        rank_rules={
            "7": seven,
            "8": CardRule(skip=True),
            "9": wild,
            "X": CardRule(placement="any", suit_choice="wish"),
        },
        points={"7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11, "X": 20},
        **series.match_of(options),
        dealer_rule="rotate",
        first_dealer="last",
    )
