"""Moumou (seed 000, RULES.md section 3): 36 cards, 2 players, a match to a point limit.

Resolutions (A-n are RULES.md's; all defaults):

* A-1 exactly 2 players.  A-2 the dealer's 5th card is the dealer's first
  play with full effects; the dealer may add same-rank cards, must cover a 6
  and names a Jack's suit (option ``opening = extra_card_no_effect``: the
  dealer keeps 5, an extra upcard acts on nobody and the opponent plays
  first).  The first dealer is seat 0; afterwards the loser
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
  can be drawn the obligation lapses (``pass``).  A-25 no voluntary draw
  (option ``voluntary_draw``: ``draw`` is offered while holding a legal
  card; it still draws until a playable card and one must then be played).
* A-10 ``draw`` draws until a playable card turns up (one decision), then a
  legal card must be played.  A-11 under a demand
  ``draw`` takes exactly one card; if it does not help the turn ends.
  A-12 the demand stays until a card is placed on it, so after a failed
  draw the Jack's player must follow it too (option
  ``demand_expires_after_opponent_turn``: a failed demand ends with the
  opponent's turn and the Jack counts as a plain Jack).  A-13 Jack on Jack.
* A-14 an Ace may empty the hand but does not win: the skip applies and the
  Ace player, with 0 cards, must draw and go on (options ``ace_last =
  forbidden``: an Ace may not empty the hand; ``ace_last = s7_literal``, the
  §7 reading: the emptying Ace makes the opponent draw 1 instead of the
  skip, and the opponent loses the turn only if they then cannot play;
  the Ace player still has not won).  A-15 a final 6 must be covered first.  A-16 a last-card
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
    "limit": OptionSpec(101, "match point limit: a player whose total exceeds it loses the match (A-22)",
                        minimum=1),
    "dealer": OptionSpec("loser", "who deals the next hand: the loser of the last one, or alternate (A-23)",
                         ("loser", "alternate")),
    "six_overrides_demand": OptionSpec(False, "a 6 stays playable on anything even under a Jack demand (A-7)"),
    "ace_last": OptionSpec("continue", "an Ace as the last card: allowed but no win, the skip applies (continue), "
                           "illegal (forbidden), or the opponent draws 1 and skips only if they then cannot "
                           "play, still no win (s7_literal) (A-14)", ("continue", "forbidden", "s7_literal")),
    "opening": OptionSpec("hand_card", "the opening card: the dealer's 5th card as their first play with full "
                          "effects (hand_card), or an extra upcard with no effect, the opponent playing first "
                          "(extra_card_no_effect) (A-2)", ("hand_card", "extra_card_no_effect")),
    "demand_expires_after_opponent_turn": OptionSpec(False, "a Jack demand the opponent failed (drew and could "
                                                     "not play) ends with their turn instead of binding the "
                                                     "Jack's player too (A-12)"),
    "voluntary_draw": OptionSpec(False, "a player may draw while holding a legal card (A-25)"),
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


def _ace(ace_last: str) -> CardRule:
    """A-14: the Ace skips and cannot win; s7_literal swaps the skip for §7's draw-1-then-maybe-skip."""
    if ace_last == "s7_literal":
        emptying = CardRule(draw_next=1, skip_if_stuck=True, cannot_finish="continue")
        return CardRule(skip=True, cannot_finish="continue", emptying=emptying)
    return CardRule(skip=True, cannot_finish=ace_last)


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
        opening="hand_card" if options["opening"] == "hand_card" else "upcard",
        starter_effects=options["opening"] == "hand_card",
        voluntary_draw=options["voluntary_draw"],
        demand_expires=options["demand_expires_after_opponent_turn"],
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
            "A": _ace(options["ace_last"]),
            "J": CardRule(placement="any", suit_choice="demand", finish_bonus=20),
        },
        card_rules={"Kc": CardRule(draw_next=5, skip=True)},
        points={"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 20, "Q": 10, "K": 10, "A": 15},
        match="limit",
        limit=options["limit"],
        dealer_rule=options["dealer"],
        first_dealer="first",
    )
