"""Prší (Czech Republic; seed 002 "Czech Republic", RULES.md 5.2): 32 German cards, 4 each, no call.

German cards are mapped per RULES.md 0.2: Leaves = ``s``, Hearts = ``h``,
Bells = ``d``, Acorns = ``c``; Unter = ``J``, Ober = ``Q``.
Resolutions (C-n are RULES.md's; all defaults):

* 32 cards (7-A), **4 cards each**, 2-5 players (C-14's two packs above 5 are out of range here).  As base Mau-Mau
  otherwise (5.1): C-3 upcard effects on the first player (option
  ``starter_effects``); C-4 draw one card only without a legal card, then
  only that card may be played; C-12 a short stock forgives the rest.
* A: the next player misses a turn.  C-19 ``ace_deflect`` (default on
  [ext]): the skip is pending and the player facing it may pass it on with
  an Ace or ``accept`` (the first seat that accepts misses its turn, C-6).
* 7: a pending 2 passed on by a 7 (+2 each); C-5 the player who accepts
  draws the whole amount and may **not** play in that turn.
* C-17 Ober (``Q``): wild on any card except a *live* 7 or Ace (facing a
  pending 7 or Ace only the counter or ``accept`` is offered), then a
  ``suit`` wish.  C-18 the Unter is a plain card.
* No call (saying "Prší" is a celebration, not a rule).
* Decision 10.3 / C-16 lost text, optional and off by default [ext,
  unverified]: ``green_king``: the King of Leaves (``Ks``) is a pending 4
  that 7s and ``Ks`` pass on, and that passes on a 7; ``seven_hearts``:
  the 7 of Hearts makes every other player draw 1 and its player goes
  again (decision ``follow``: a card legal on it, or draw 1); it does not
  answer a live 7.  C-20 ``return_to_game`` (turns the 7 of Hearts on): a
  player who empties their hand skips their turns and has won only once
  every other player has started a turn; if a 7 of Hearts is played
  meanwhile they draw 1 with the others and are back in the game.  If a
  second player goes out while one waits, the first one wins at once.
* Scoring is not part of the game (elimination off): losers score one point
  per card left.  ``hands`` > 1 plays a series (10.7).
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CardRule, Ruleset
from arena.games.shedding.rulesets import series

NAME = "prsi"
TITLE = "Prší (Czech Republic)"
SEED = "seeds/002_0c73658562dbe7b8.txt"
MIN_PLAYERS, MAX_PLAYERS = 2, 5

OPTIONS = {
    "ace_deflect": OptionSpec(True, "an Ace can be answered with an Ace, passing the skip on (C-19)"),
    "green_king": OptionSpec(False, "the King of Leaves (Ks) is a draw-4 that stacks with 7s (C-16, lost text)"),
    "seven_hearts": OptionSpec(False, "the 7 of Hearts makes all others draw 1 and its player goes again (C-16)"),
    "return_to_game": OptionSpec(False, "a player out of cards wins only after a full round; a 7 of Hearts "
                                 "meanwhile brings them back (C-20; turns the 7 of Hearts on)"),
    "starter_effects": OptionSpec(True, "the upcard's 7, Ace or Ober acts on the first player (C-3)"),
    "hands": series.HANDS,
}

SUMMARY = (
    "Czech Mau-Mau with 32 German cards, 4 each and no call: the Ace skips the next player (who may pass it "
    "on with an Ace), a 7 makes the next player draw 2 unless they add a 7 (whoever draws cannot play that "
    "turn), the Ober is wild and names a suit, the Unter is plain. Options for the green King and the 7 of "
    "Hearts from the lost text."
)

RANKS = ("7", "8", "9", "T", "J", "Q", "K", "A")


def build(options: dict) -> Ruleset:
    seven_hearts = options["seven_hearts"] or options["return_to_game"]
    sevens = frozenset({"7s", "7d", "7c"}) if seven_hearts else frozenset({"7"})
    counters = sevens | {"Ks"} if options["green_king"] else sevens
    rank_rules = {
        "7": CardRule(pending_draw=2, stack_with=counters),
        "Q": CardRule(placement="any", suit_choice="wish"),
        "A": CardRule(skip=True, skip_deflectable=options["ace_deflect"], stack_with=frozenset({"A"})),
    }
    card_rules = {}
    if options["green_king"]:
        card_rules["Ks"] = CardRule(pending_draw=4, stack_with=counters)
    if seven_hearts:
        card_rules["7h"] = CardRule(draw_others=1, follow=True)
    return Ruleset(
        name=NAME,
        ranks=RANKS,
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        hand_size=4,
        opening="upcard",
        starter_effects=options["starter_effects"],
        starter_suit_by="next",
        draw_mode="single",
        after_draw_play="drawn",
        after_accept="end_turn",
        finishing_effects="ignore",
        return_window=options["return_to_game"],
        rank_rules=rank_rules,
        card_rules=card_rules,
        points={r: 1 for r in RANKS},
        **series.match_of(options),
        dealer_rule="rotate",
        first_dealer="last",
    )
