"""Tschau Sepp (Switzerland; seed 002 "Switzerland" names it, RULES.md 5.2 and decision 10.5).

S2 gives no rules; the default profile is RULES.md's [ext: jassen.ch,
expydoc, baettig], decision 10.5.  Resolutions (all defaults):

* 36 Jass cards mapped to French 6-A (0.2: Under = ``J``, Ober = ``Q``,
  Banner = ``T``), 5 cards each, 2-6 players, **counter-clockwise** play
  (seat 0 opens, then seat n-1).  Upcard effects on the first player (C-3,
  option ``starter_effects``); C-4 draw one card only without a legal
  card, then only that card may be played; C-12 short stock forgiven.
* Under (``J``): wild, then a ``suit`` wish.  7: the next player draws 2
  and plays on (option ``seven_stack``: a pending 2 passed on by a 7).
  8: the next player misses a turn (option ``eight = follow``: the same
  player must play another card on it or draw 1, jasswelt).  Ace: plain
  (option ``ace = reverse`` (jasswelt) or ``ace = cover``: the same player
  must cover it with an Ace or its suit, drawing until they can
  (waspika/freaxnx01), so a bare last Ace never wins).  10: plain (option
  ``ten = reverse``, waspika).  A reversing Ace or 10 with two players
  changes nothing: the other seat plays next (P6's ``two_player_mode``
  none; C-26 is Pesten's own); as an upcard it counts as the dealer's
  play, so play turns round and the seat on the dealer's other side opens.
* Calls [ext: baettig]: "Tschau" with the second-to-last card: ``call
  tschau`` is the decision right after the play that leaves one card;
  ``pass`` lets the other seats ``accuse N``, and a caught player draws 2.
  "Sepp" with the last card, by the same catch window: the play that
  empties the hand is followed by the decision ``call`` (``call sepp`` or
  ``pass``).  Said, the player goes out.  Not said, the other seats may
  ``accuse N`` before the next player acts: a caught player draws 2, the
  last card then acts as any card that does not go out (a 7 makes the next
  player draw, an Under asks for a wish) and the game goes on; if nobody
  accuses, the finish stands.
* Scoring [ext: expydoc]: A 11, 10 10, K 4, Ober 3, Under 2, 6-9 0; hands
  are dealt until a total reaches ``limit`` (default 200): that player
  loses the match and the lowest total places first.  The deal rotates.
"""

from __future__ import annotations

from arena.games.base import OptionError
from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CallRule, CardRule, Ruleset

NAME = "tschau-sepp"
TITLE = "Tschau Sepp (Switzerland)"
SEED = "seeds/002_0c73658562dbe7b8.txt"
MIN_PLAYERS, MAX_PLAYERS = 2, 6

OPTIONS = {
    "seven_stack": OptionSpec(False, "a 7 can be answered with a 7, the draw growing by 2 per 7"),
    "eight": OptionSpec("skip", "the 8: the next player misses a turn, or the player must follow it with "
                        "another card", ("skip", "follow")),
    "ace": OptionSpec("plain", "the Ace: plain, reverses the direction, or must be covered by the same "
                      "player", ("plain", "reverse", "cover")),
    "ten": OptionSpec("plain", "the 10 (Banner): plain or reverses the direction", ("plain", "reverse")),
    "starter_effects": OptionSpec(True, "the upcard's effect acts on the first player (C-3)"),
    "limit": OptionSpec(200, "the match ends once a total reaches this many points; lowest total wins", minimum=1),
}

SUMMARY = (
    "Swiss Mau-Mau with 36 Jass cards, 5 each, played counter-clockwise: the Under (Jack) is wild and names "
    "a suit, 7 makes the next player draw 2, 8 skips (options for 8, Ace, 10 and stacking). Say Tschau when "
    "down to one card and Sepp with your last, or be caught for 2 cards and play on. Hands score A11 10-10 K4 O3 U2; the match ends when someone "
    "reaches 200, lowest total wins."
)

RANKS = ("6", "7", "8", "9", "T", "J", "Q", "K", "A")


def build(options: dict) -> Ruleset:
    if options["limit"] < 1:
        raise OptionError("option limit: at least 1")
    if options["seven_stack"]:
        seven = CardRule(pending_draw=2, stack_with=frozenset({"7"}))
    else:
        seven = CardRule(draw_next=2)
    rank_rules = {
        "7": seven,
        "8": CardRule(follow=True) if options["eight"] == "follow" else CardRule(skip=True),
        "J": CardRule(placement="any", suit_choice="wish"),
    }
    if options["ace"] == "reverse":
        rank_rules["A"] = CardRule(reverse=True)
    elif options["ace"] == "cover":
        rank_rules["A"] = CardRule(cover_ranks=frozenset({"A"}))
    if options["ten"] == "reverse":
        rank_rules["T"] = CardRule(reverse=True)
    return Ruleset(
        name=NAME,
        ranks=RANKS,
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        hand_size=5,
        start_direction=-1,
        opening="upcard",
        starter_effects=options["starter_effects"],
        starter_suit_by="next",
        draw_mode="single",
        after_draw_play="drawn",
        after_accept="continue",
        finishing_effects="ignore",
        call=CallRule(timing="after_drop", word="tschau", special_word="tschau", finish_word="sepp", penalty=2),
        rank_rules=rank_rules,
        points={"6": 0, "7": 0, "8": 0, "9": 0, "T": 10, "J": 2, "Q": 3, "K": 4, "A": 11},
        match="limit",
        limit=options["limit"] - 1,
        dealer_rule="rotate",
        first_dealer="last",
    )
