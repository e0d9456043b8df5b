"""Evil Seven (هفت خبیث, Iran; seed 002 "Iran", RULES.md 5.2): 52 cards, 7 each, a chosen victim for the 2.

Resolutions (C-n are RULES.md's; all defaults):

* Deck [ext]: 52 cards, 7 cards each, 2-10 players.  C-14: more than 5
  players play with two packs (104 cards; identical cards are
  interchangeable, a legal list names each once).  Ten players with two
  packs leave the stock as full as five with one, hence the range.
* As base Mau-Mau (5.1): C-3 upcard effects on the first player (option
  ``starter_effects``; an opening 2 lets the opener pick a victim, an
  opening 8 obliges nobody); C-4 draw one card only without a legal card,
  and only that card may then be played; C-7 Jack wild with a suit wish,
  Jack on Jack allowed; C-12 a short stock forgives the rest.
* C-21 7: a pending 2 that the next player may pass on with a 7 (+2 each)
  or ``accept``; the payer then plays on (base C-5).  Option
  ``seven_stack = false`` makes it the base 7 (draw 2 at once).
* A: the next player misses a turn.  10: the direction reverses; with
  two players that changes nothing and the other seat plays next (P6's
  ``two_player_mode`` none: RULES.md sets another turn for Pesten's Ace
  only, C-26).  An upcard 10 counts as the dealer's play (as every upcard
  effect): the direction reverses and the seat on the dealer's other side
  opens, not P1.
* 8 must be followed (like the base Ace, C-8): the same player plays one
  more card legal on the 8 (decision ``follow``), or draws 1 and the turn
  ends.  So a last 8 never wins.
* C-22 2: after playing it the player picks any other seat (decision
  ``target``, actions ``target N``) and that seat draws 1 at once.
* Call "Single Card" when down to one card: the ``call single-card``
  decision right after the play (as base C-9); ``pass`` lets the next
  seats ``accuse N``, and a caught player draws 1.
* Scoring is not part of the game: losers score one point per card left,
  so fewer cards place better.  ``hands`` > 1 plays a series (10.7).
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CallRule, CardRule, Ruleset
from arena.games.shedding.rulesets import series

NAME = "evil-seven"
TITLE = "Evil Seven (Iran)"
SEED = "seeds/002_0c73658562dbe7b8.txt"
MIN_PLAYERS, MAX_PLAYERS = 2, 10
#: C-14: one pack serves up to 5 players; more play with two.
PACK_SERVES = 5

OPTIONS = {
    "hand_size": OptionSpec(7, "cards dealt to each player", (5, 6, 7)),
    "seven_stack": OptionSpec(True, "a 7 can be answered with a 7, the draw growing by 2 per 7 (C-21)"),
    "starter_effects": OptionSpec(True, "the upcard's 7, 2, A, 10 or Jack acts on the first player (C-3)"),
    "hands": series.HANDS,
}

SUMMARY = (
    "Iranian Mau-Mau for 2-10 players with 52 cards (two packs for more than 5), 7 each: 7 makes the next "
    "player draw 2 unless they add a 7, the Jack is wild with a wish, the Ace skips, the 10 reverses, an 8 must be followed by another "
    "card of yours (so it cannot end the game), and a 2 lets you pick a player who draws 1. Say Single Card "
    "when down to one card or be caught for 1 card."
)

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")


def build(options: dict) -> Ruleset:
    if options["seven_stack"]:
        seven = CardRule(pending_draw=2, stack_with=frozenset({"7"}))
    else:
        seven = CardRule(draw_next=2)
    return Ruleset(
        name=NAME,
        ranks=RANKS,
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
        call=CallRule(timing="after_drop", word="single-card", special_word="single-card", penalty=1),
        rank_rules={
            "2": CardRule(draw_chosen=1),
            "7": seven,
            "8": CardRule(follow=True),
            "T": CardRule(reverse=True),
            "J": CardRule(placement="any", suit_choice="wish"),
            "A": CardRule(skip=True),
        },
        points={r: 1 for r in RANKS},
        **series.match_of(options),
        dealer_rule="rotate",
        first_dealer="last",
    )
