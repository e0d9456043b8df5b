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
  5 cards, and the turn goes on (B-7).  B-7 with more than 2 cards: the
  call is also offered on a plain turn (no 7 to answer) with 3 cards, and
  is false there (5 cards).  It is not offered with 4 or more cards, nor
  with 3 while a 7 is pending (the seat's only choices are then a 7 or the
  draw, so an unanswerable 7 stays a forced draw): pressing it there can
  only cost the seat 5 cards, the 3-card slip (pressing one discard early)
  is the mistake the rule is about, and offering it at every size lets
  random play pile up penalty cards without end (all of 100 random
  4-player games then ran into the 20,000-decision limit).  B-7's other
  false calls (with 1 card, out of turn) cannot be made: the call is
  never offered there, so they cost nothing and never happen.
* Accusations (B-8, B-9), in a protocol where one seat decides at a time.
  Whenever a discard takes a hand from 2 to 1 on a turn without a draw, an
  accusation window opens: every other seat, in turn order from the
  offender, is asked once ``accuse N`` / ``pass`` before the next turn
  starts; the first accusation ends this round.  The window then stays
  open into the turn of the next player who actually takes a turn: that
  seat keeps ``accuse N`` among its turn's choices (also after its
  voluntary draw, and beside ``accept`` when a 7 is pending) until it
  discards, passes or takes a 7's draw (which counts as a pass), or
  accuses.  The other seats are not asked again: they had their chance
  right after the discard, and nothing they could learn since bears on
  the call.  An accusation succeeds if the offender did not call and was
  not caught yet: the offender draws 5.  Otherwise "there is no one to be
  accused": the accuser draws 5 (after a valid call, or after someone
  else caught the offender first, B-9).  The accuser's turn goes on.
  Outside these windows ``accuse`` is not offered (nobody could be
  accused, so it could only cost the seat 5 cards); a 2→1 discard after a
  draw opens no window: the call was impossible.
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
            penalty=5, false_call_penalty=5, false_accuse_penalty=5, accuse_in_next_turn=True, false_call_at=3,
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
