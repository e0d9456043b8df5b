"""Puque (Portugal, seed 002 "Portugal", RULES.md 5.2): base Mau-Mau with the 2 as the skip card.

Resolutions (C-n are RULES.md's; all defaults):

* C-28 the deck must hold 2s: a 52-card pack (option ``deck = 40`` for the
  Portuguese pack without 8, 9 and 10).  2-5 players, as base Mau-Mau
  (C-14's two packs above 5 are out of range here; the 40-card pack sets
  the bound).  C-2 5 cards each (``hand_size``).
* Everything else as base Mau-Mau (5.1, C-3..C-12): C-3 upcard effects on
  the first player (option ``starter_effects``); C-4 draw only without a
  legal card, one card, and only it may then be played; 7 makes the next
  player draw 2 and play on (option ``seven_stack``, C-5); C-7 Jack wild
  with a suit wish, Jack on Jack allowed; C-8 the Ace must be followed by a
  card legal on it (else draw 1, the turn ends), so a final Ace never wins.
* Differences: **2 = the next player misses a turn**; the 8 is plain.
* Call "Puque" when playing the next-to-last card: the ``call puque``
  decision comes right after the play that leaves one card (the same moment
  as base Mau-Mau's C-9 call); ``pass`` lets the next seats ``accuse N``,
  and a caught player draws 1 (C-9).  No other word, even with a Jack.
* C-10 scoring: A 11, K/Q/J/10 10, others face value; a Jack as the
  winning card still doubles the losers' points.  ``hands`` > 1 plays a
  scored series (10.7); the lowest total places first.
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CallRule, CardRule, Ruleset
from arena.games.shedding.rulesets import series

NAME = "puque"
TITLE = "Puque (Portugal)"
SEED = "seeds/002_0c73658562dbe7b8.txt"
MIN_PLAYERS, MAX_PLAYERS = 2, 5

OPTIONS = {
    "deck": OptionSpec("52", "52-card pack, or the 40-card Portuguese pack without 8-10 (C-28)", ("52", "40")),
    "hand_size": OptionSpec(5, "cards dealt to each player (C-2)", (5, 6)),
    "seven_stack": OptionSpec(False, "a 7 can be answered with a 7; the draw grows by 2 per 7"),
    "starter_effects": OptionSpec(True, "the upcard's 7, 2 or Jack acts on the first player (C-3)"),
    "hands": series.HANDS,
}

SUMMARY = (
    "Portuguese Mau-Mau with a 52-card pack: as base Mau-Mau (7 draws 2, Jack wild with a wish, Ace must be "
    "followed) but the 2 skips the next player and the 8 is plain. Say Puque when playing your next-to-last "
    "card or be caught for 1 card. A winning Jack doubles the losers' points."
)

FULL = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
PORTUGUESE = ("2", "3", "4", "5", "6", "7", "J", "Q", "K", "A")


def build(options: dict) -> Ruleset:
    if options["seven_stack"]:
        seven = CardRule(pending_draw=2, stack_with=frozenset({"7"}))
    else:
        seven = CardRule(draw_next=2)
    points = {r: int(r) for r in "23456789"}
    points.update({"T": 10, "J": 10, "Q": 10, "K": 10, "A": 11})
    return Ruleset(
        name=NAME,
        ranks=FULL if options["deck"] == "52" else PORTUGUESE,
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
        call=CallRule(timing="after_drop", word="puque", special_word="puque", penalty=1),
        rank_rules={
            "2": CardRule(skip=True),
            "7": seven,
            "J": CardRule(placement="any", suit_choice="wish", finish_multiplier=2),
            "A": CardRule(follow=True),
        },
        points=points,
        **series.match_of(options),
        dealer_rule="rotate",
        first_dealer="last",
    )
