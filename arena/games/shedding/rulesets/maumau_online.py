"""Online Mau-Mau (seed 001, RULES.md section 4): 4-8 players, 2 packs, one hand.

Resolutions (B-n are RULES.md's; all defaults):

* B-1 two 52-card packs (option ``deck = 2x32``).  B-2 the upcard is seat
  0's discard with full effects (7: seat 1 faces 2; A: seat 1 skipped; Q:
  reversed, so seat n-1 plays first; J: seat 0 names the suit; 9: seat n-1
  draws 1); seat 0 is the "first player" (option ``starter_effects``).
* B-3 at most one draw per turn, voluntary (option ``max_draws_per_turn =
  unlimited``: after a draw ``draw`` stays offered beside ``pass``); B-4
  then any legal card or ``pass``.  B-5 facing a live 7 only a 7 or ``accept``; accepting draws the
  whole amount and ends the turn (B-13); any 7 folds (+2 each).
* B-11 a Jack is never wild on a 7 (only a suit match on a dead 7; only
  7s on a live one).  B-12 the wish lasts until a card is played.
* B-14 a 9 makes the seat before the player (current direction) draw 1 at
  once, even if it was skipped (option ``previous =
  last_player_who_discarded``: the seat that last discarded draws; the seat
  before when nobody has discarded yet this hand).  B-16 an Ace skip cannot be answered.  Q reverses.
* Calls (4.6): ``call mau-mau`` is offered on your turn while you hold
  exactly 2 cards.  It is valid if you have not drawn and hold a legal
  card; then you must discard (B-6, B-20).  Otherwise it is a false call:
  5 cards, and the turn goes on (B-7).  Offering it with more cards would
  only let a seat hurt itself, so the >2-card false call is not offered.
* Accusation window: whenever a discard takes a hand from 2 to 1 on a turn
  without a draw, every other seat, in turn order from the offender, is
  asked ``accuse N`` / ``pass`` before the next turn starts (this is the
  window of B-8, resolved before anyone acts).  If the offender had not
  called, the accused draws 5; if they had, the accuser draws 5 (false
  accusation).  The first accusation closes the window (B-9).  A 2→1
  discard after a draw opens no window: the call was impossible.
* B-17 the hand ends as soon as a hand is empty; the last card's effects
  are ignored (option ``finishing_effects = apply``: a final 9 or Ace
  acts, and a final 7's pending draw, with any stacked on it, is taken at
  once by the next seat, since nobody can answer it any more).  B-18 points: 2-10 face, J 30, Q 10, K 10, A 1 (option
  ``ace_points``).  B-19 recycling keeps the top card; a short stock gives
  what it has (B-10).  Players see the top discard only.
* Not in the source: if every seat in turn can neither play nor draw, the
  hand ends as ``blocked`` and is scored as it stands.
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CallRule, CardRule, Ruleset

NAME = "maumau-online"
TITLE = "Online Mau-Mau"
SEED = "seeds/001_562e75015e6c72c5.txt"
MIN_PLAYERS, MAX_PLAYERS = 4, 8

OPTIONS = {
    "deck": OptionSpec("2x52", "two 52-card packs, or two 32-card packs (B-1)", ("2x52", "2x32")),
    "starter_effects": OptionSpec(True, "the upcard acts as seat 0's discard with its effects (B-2)"),
    "ace_points": OptionSpec(1, "what an Ace left in hand scores (B-18)", (1, 11)),
    "max_draws_per_turn": OptionSpec("1", "draws a player may make in one turn: 1, or unlimited (B-3)",
                                     ("1", "unlimited")),
    "previous": OptionSpec("seat_before", "who a 9 makes draw: the seat before the player even if skipped "
                           "(seat_before), or the last player who discarded (last_player_who_discarded) (B-14)",
                           ("seat_before", "last_player_who_discarded")),
    "finishing_effects": OptionSpec("ignore", "effects of the card that empties a hand: ignore or apply (B-17)",
                                    ("ignore", "apply")),
}

SUMMARY = (
    "Online Mau-Mau for 4-8 players with two packs: match suit or rank, one voluntary draw per turn then play "
    "or pass. A skips, Q reverses, J wishes a suit (not on a 7), 7 makes the next player draw 2 unless they "
    "fold another 7 (+2 each), 9 makes the previous player draw 1. Press MAU-MAU before going from 2 cards to "
    "1, or any other player may accuse you (5 cards); false calls and false accusations also cost 5. One hand; "
    "points J30 Q10 K10 A1, others face value; lowest wins."
)


def build(options: dict) -> Ruleset:
    if options["deck"] == "2x32":
        ranks = ("7", "8", "9", "T", "J", "Q", "K", "A")
    else:
        ranks = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
    points = {r: int(r) for r in "23456789"}
    points.update({"T": 10, "J": 30, "Q": 10, "K": 10, "A": options["ace_points"]})
    return Ruleset(
        name=NAME,
        ranks=ranks,
        copies=2,
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        hand_size=5,
        opening="upcard",
        starter_effects=options["starter_effects"],
        starter_suit_by="opener",
        draw_mode="single",
        voluntary_draw=True,
        repeat_draw=options["max_draws_per_turn"] == "unlimited",
        previous_seat="discarder" if options["previous"] == "last_player_who_discarded" else "seat",
        after_draw_play="any",
        after_accept="end_turn",
        recycle_keep=1,
        visible_discard=1,
        finishing_effects=options["finishing_effects"],
        call=CallRule(
            timing="before_discard", word="mau-mau", special_word="mau-mau",
            penalty=5, false_call_penalty=5, false_accuse_penalty=5,
        ),
        rank_rules={
            "7": CardRule(pending_draw=2, stack_with=frozenset({"7"})),
            "9": CardRule(draw_previous=1),
            "J": CardRule(placement="any", wild_not_on=frozenset({"7"}), suit_choice="wish"),
            "Q": CardRule(reverse=True),
            "A": CardRule(skip=True),
        },
        points=points,
        match="single",
        dealer_rule="fixed",
        first_dealer="first",
    )
