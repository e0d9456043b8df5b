"""Moumou (seed 000, RULES.md section 3): 36 cards, 2 players, a match to a point limit.

Resolutions (A-n are RULES.md's; all defaults):

* A-1 exactly 2 players.  A-2 the dealer's 5th card is the dealer's first
  play with full effects; the dealer may add same-rank cards, must cover a 6
  and names a Jack's suit.  The first dealer is seat 0; afterwards the loser
  of the previous hand deals (A-23; option ``dealer = alternate``).  The
  loser is the seat with more hand points; on a tie the deal alternates.
* A-3 a 7 makes the opponent draw 1 per 7, then the opponent plays
  normally (option ``seven_player_goes_again``).  A-4 an 8 draws 2 per 8 and skips once.  A-5 nothing stacks.
  Kc draws 5 and skips; other Kings, Queens, 9s and 10s are plain (A-26).
* A-6 combos: the first card legal, the rest of the same rank, ended by
  ``stop`` or an empty rank; effects resolve once at the end of the combo.
* A-7 under a Jack demand a 6 needs the demanded suit (option
  ``six_overrides_demand``).  A-8 the cover is an ordinary play (combo,
  effects); cover = any 6, the suit of the top 6, or a Jack.  A-9 drawing
  for a cover stops at the first cover, which must be played; if nothing
  can be drawn the obligation lapses (``pass``).
* A-10 ``draw`` draws until a playable card turns up (one decision), then a
  legal card must be played.  A-25 no voluntary draw.  A-11 under a demand
  ``draw`` takes exactly one card; if it does not help the turn ends.
  A-12 the demand stays until a card is placed on it; A-13 Jack on Jack.
* A-14 an Ace may empty the hand but does not win: the skip applies and the
  Ace player, with 0 cards, must draw and go on (option ``ace_last =
  forbidden``).  A-15 a final 6 must be covered first.  A-16 a last-card
  Jack finish offers ``bonus self`` (-20 own total) or ``bonus others``
  (+20 to the opponent), once per finish (option ``jack_bonus_per_card``).
  A-17 draws of a finishing 7/8/Kc apply before scoring (option
  ``finishing_effects = ignore``).
* A-18..A-20 Moumou event: after every placed card, the top 4 discards of
  one rank end the hand at once; pending effects lapse; both hands score.
* A-21 recycling keeps the top 4.  A-22 the match ends once a total
  exceeds ``limit`` (default 101): lower total places first, equal totals
  draw.  A-24 observations show the top 4 discards.
* Not in the source: a hand where every seat in turn can neither play nor
  draw ends as ``blocked`` and is scored like a Moumou event.
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CardRule, Ruleset

NAME = "moumou"
TITLE = "Moumou"
SEED = "seeds/000_bfa0049707fe2508.txt"
MIN_PLAYERS = MAX_PLAYERS = 2

OPTIONS = {
    "limit": OptionSpec(101, "match point limit: a player whose total exceeds it loses the match (A-22)"),
    "dealer": OptionSpec("loser", "who deals the next hand: the loser of the last one, or alternate (A-23)",
                         ("loser", "alternate")),
    "six_overrides_demand": OptionSpec(False, "a 6 stays playable on anything even under a Jack demand (A-7)"),
    "ace_last": OptionSpec("continue", "an Ace as the last card: allowed but no win (continue) or illegal "
                           "(forbidden) (A-14)", ("continue", "forbidden")),
    "finishing_effects": OptionSpec("apply", "draw effects of the card that empties a hand: apply or ignore (A-17)",
                                    ("apply", "ignore")),
    "jack_bonus_per_card": OptionSpec(False, "the last-card Jack bonus of 20 counts per Jack, not per finish (A-16)"),
    "seven_player_goes_again": OptionSpec(False, "after a 7 the player who played it moves again (A-3 alternative)"),
}

SUMMARY = (
    "Two-player Moumou: match rank or suit, same-rank combos; 6 must be covered, 7 draws 1, 8 draws 2 and "
    "skips, Ace skips and cannot win, Kc draws 5 and skips, Jack demands a suit (last-card Jack: -20 self or "
    "+20 opponent); four of a rank on top ends the hand (Moumou event). Hand points J20 A15 KQ10 6-10 face; a "
    "match runs until a total exceeds the limit. Players see the top 4 discards."
)


def build(options: dict) -> Ruleset:
    six = CardRule(
        placement="any" if options["six_overrides_demand"] else "any_unless_demand",
        cover_ranks=frozenset({"6", "J"}),
    )
    return Ruleset(
        name=NAME,
        ranks=("6", "7", "8", "9", "T", "J", "Q", "K", "A"),
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        hand_size=5,
        opening="hand_card",
        draw_mode="until_playable",
        must_play_after_draw=True,
        recycle_keep=4,
        visible_discard=4,
        combos=True,
        table_pattern=4,
        finishing_effects=options["finishing_effects"],
        bonus_per_card=options["jack_bonus_per_card"],
        rank_rules={
            "6": six,
            "7": CardRule(draw_next=1, skip=options["seven_player_goes_again"]),
            "8": CardRule(draw_next=2, skip=True),
            "A": CardRule(skip=True, cannot_finish=options["ace_last"]),
            "J": CardRule(placement="any", suit_choice="demand", finish_bonus=20),
        },
        card_rules={"Kc": CardRule(draw_next=5, skip=True)},
        points={"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 20, "Q": 10, "K": 10, "A": 15},
        match="limit",
        limit=options["limit"],
        dealer_rule=options["dealer"],
        first_dealer="first",
    )
