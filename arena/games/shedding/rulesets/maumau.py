"""Base Mau-Mau (seed 002, RULES.md 5.1): 2-5 players, 32 cards, Mau / Mau-Mau calls.

Resolutions (C-n are RULES.md's; all defaults):

* 2-5 players (C-14's two packs above 5 are out of range here).  The
  first hand's dealer is the last seat, so seat 0 ("P1") plays first; the
  deal rotates in a series.  C-2 ``hand_size`` 5 or 6.  C-1 no cut, and
  no option for it: the cut (the cutter exposing the bottom cards of four
  packets and keeping significant ones, dealt that many fewer) would fit as
  a deal-time ``keep``/``pass`` decision sequence, but it only serves
  physical fidelity (RULES.md says off by default) and changes no rule of
  play, so it is left out rather than widening every position and deal.
* C-3 the upcard's effects (option ``starter_effects``): 7 → seat 0 draws 2
  (then plays); 8 → seat 0 is skipped; J → seat 0 names the suit, then
  plays; A → no follow obligation for anyone.
* C-4 draw only without a legal card: exactly one card, and only that card
  may then be played (``play`` it or ``pass``); if it cannot be played the
  turn ends by itself.
* 7: the next player draws 2 at once and then plays normally (option
  ``seven_stack``: a pending 2 the target may pass on with a 7, +2 each,
  or ``accept``; C-5 ``play_after_penalty_draw`` lets the payer play on).
  8: the next player misses a turn (option ``eight_deflect``: the skip is
  pending and passes on with an 8; C-6 the first seat that accepts misses
  its turn).  J: wild, then a ``suit`` decision; C-7 Jack on Jack allowed
  (option ``no_jack_on_jack``).
* C-8 Ace: the same player must follow with a card legal on the Ace
  (decision ``follow``); if they cannot, the engine draws one card for them
  and the turn ends, the Ace staying on top with no obligation (option
  ``follow_fail = pass_obligation``: the next seat must follow the Ace in
  turn, and so on, for as long as each failing seat draws a card; if
  nothing can be drawn the obligation lapses).  So a final Ace never wins.
* C-9 calls: when a turn ends with the player down to one card, the player
  has a ``call`` decision: ``call mau`` (or ``call mau-mau`` when that card
  is a Jack; only the right word is offered) or ``pass``.  After a pass the
  other seats, next seat first, may ``accuse N`` (the first accusation
  costs the offender 1 card) or ``pass``.  The default is to call.
  Option ``call_model = on_going_out`` (the intro's reading): no call at
  one card; instead ``call mau`` (``call mau-mau`` for a Jack) is offered
  in turn beside the plays while the player holds one playable card, and
  a finishing play without it does not go out: the player draws 2, the
  card's effects apply and the turn ends as usual.  A Quick combo that
  empties a longer hand needs no word (it was never down to one card).
* C-10 points A 11, 10/J/Q/K 10, 7-9 face; a Jack as the winning card
  doubles the losers' points (option ``jack_double_per_card`` is moot
  without combos but kept for the Quick profile).  ``hands`` > 1 plays a
  scored series; the lowest total places first.  Players see the top card.
* Recycling keeps the top card; shortages are forgiven (C-12).  The
  ``extra_decks_on_shortage`` flag is not offered: a fresh pack in the
  middle of a hand breaks the fixed deck every position, replay and
  observation check relies on (card counts per position, one action per
  card), for a case that needs 5 players holding most of 32 cards.  If every
  seat in turn can neither play nor draw, the hand ends as ``blocked``.
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CallRule, CardRule, Ruleset
from arena.games.shedding.rulesets import series

NAME = "maumau"
TITLE = "Mau-Mau"
SEED = "seeds/002_0c73658562dbe7b8.txt"
MIN_PLAYERS, MAX_PLAYERS = 2, 5

OPTIONS = {
    "hand_size": OptionSpec(5, "cards dealt to each player (C-2)", (5, 6)),
    "seven_stack": OptionSpec(False, "a 7 can be answered with a 7; the draw grows by 2 per 7 (S2 variant)"),
    "eight_deflect": OptionSpec(False, "an 8 can be answered with an 8, passing the skip on (S2 variant, C-6)"),
    "starter_effects": OptionSpec(True, "the upcard's 7, 8 or Jack acts on the first player (C-3)"),
    "play_after_penalty_draw": OptionSpec(True, "after taking a stacked 7 penalty the player may still play (C-5)"),
    "no_jack_on_jack": OptionSpec(False, "house rule: a Jack may not be played on a Jack (C-7)"),
    "jack_double_per_card": OptionSpec(False, "each finishing Jack doubles the points again (C-10)"),
    "hands": series.HANDS,
    "follow_fail": OptionSpec("lapse", "a failed Ace follow: draw 1 and the obligation lapses (lapse), or the "
                              "next player must follow the Ace in turn (pass_obligation) (C-8)",
                              ("lapse", "pass_obligation")),
    "call_model": OptionSpec("on_one_card", "say Mau when down to one card, caught for 1 (on_one_card), or say "
                             "it with the finishing play, else no going out and draw 2 (on_going_out) (C-9)",
                             ("on_one_card", "on_going_out")),
}

SUMMARY = (
    "Base Mau-Mau for 2-5 players with 32 cards: match suit or rank; if you cannot, draw one card and play "
    "only that one if you can. 7 makes the next player draw 2, 8 skips the next player, a Jack is wild and "
    "names a suit, an Ace must be followed by another card of yours (or you draw 1). Say Mau (Mau-Mau with a "
    "Jack) when down to one card or be caught for 1 card. Losers score A11, 10-K 10, 7-9 face; a winning "
    "Jack doubles them."
)


def build(options: dict) -> Ruleset:
    if options["seven_stack"]:
        seven = CardRule(pending_draw=2, stack_with=frozenset({"7"}))
    else:
        seven = CardRule(draw_next=2)
    eight = CardRule(skip=True, skip_deflectable=options["eight_deflect"], stack_with=frozenset({"8"}))
    jack = CardRule(
        placement="any",
        never_on=frozenset({"J"}) if options["no_jack_on_jack"] else frozenset(),
        suit_choice="wish",
        finish_multiplier=2,
    )
    return Ruleset(
        name=NAME,
        ranks=("7", "8", "9", "T", "J", "Q", "K", "A"),
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        hand_size=options["hand_size"],
        opening="upcard",
        starter_effects=options["starter_effects"],
        starter_suit_by="next",
        starter_follow=False,
        draw_mode="single",
        voluntary_draw=False,
        after_draw_play="drawn",
        after_accept="continue" if options["play_after_penalty_draw"] else "end_turn",
        recycle_keep=1,
        visible_discard=1,
        finishing_effects="ignore",
        multiplier_per_card=options["jack_double_per_card"],
        call=CallRule(
            timing="on_going_out" if options["call_model"] == "on_going_out" else "after_drop",
            word="mau", special_word="mau-mau", special_rank="J",
            penalty=2 if options["call_model"] == "on_going_out" else 1,
        ),
        follow_fail="pass" if options["follow_fail"] == "pass_obligation" else "lapse",
        rank_rules={"7": seven, "8": eight, "J": jack, "A": CardRule(follow=True)},
        points={"7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11},
        **series.match_of(options),
        dealer_rule="rotate",
        first_dealer="last",
    )
