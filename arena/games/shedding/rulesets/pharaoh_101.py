"""Pharaoh / 101 / Crocodile / Czech Fool (Russia; seed 002 "Russia", RULES.md 5.2): 36 cards, 5 each.

Resolutions (C-n are RULES.md's; all defaults):

* 36 French cards (6-A), 5 cards each, 2-6 players.  As base Mau-Mau
  otherwise (5.1): C-3 upcard effects on the first player (option
  ``starter_effects``); C-4 draw one card only without a legal card, then
  only that card may be played; C-12 a short stock forgives the rest.
* A: the next player misses a turn.
* C-29 7: the next player takes 1 "or more": a pending 1 that a 7 passes on
  (+1 per 7); whoever ``accept``s takes it and then plays on.
* C-29 6: take 1 "or more" and skip: a pending 1 that a 6 passes on (+1 per
  6); whoever ``accept``s takes it and misses the turn.
* Q: wild with a suit wish (the Queen "changes suit"; it goes on any card
  except a live 6 or 7, where only the counter or ``accept`` is offered).
* Optional: ``ten_reverse`` (10 reverses the direction; with two players
  that changes nothing and the other seat plays next, P6's
  ``two_player_mode`` none, C-26 being Pesten's own; an upcard 10 counts as
  the dealer's play, so the seat on the dealer's other side opens); ``king_spades``
  (K♠ = the next player takes 4 and misses the turn, C-29 [ext]; it cannot
  be passed on).  Both off by default.
* No call.  Scoring is not part of the game: losers score one point per
  card left.  ``hands`` > 1 plays a series (10.7).  The classic 101 with
  6/9 covers and Queen bonuses is a different game (C-29 note), not this.
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CardRule, Ruleset
from arena.games.shedding.rulesets import series

NAME = "pharaoh-101"
TITLE = "Pharaoh / 101 (Russia)"
SEED = "seeds/002_0c73658562dbe7b8.txt"
MIN_PLAYERS, MAX_PLAYERS = 2, 6

OPTIONS = {
    "ten_reverse": OptionSpec(False, "a 10 reverses the direction of play (optional in the source)"),
    "king_spades": OptionSpec(False, "the King of spades makes the next player take 4 and skip (C-29)"),
    "starter_effects": OptionSpec(True, "the upcard's effect acts on the first player (C-3)"),
    "hands": series.HANDS,
}

SUMMARY = (
    "Russian Mau-Mau (Pharaoh, 101, Crocodile, Czech Fool) with 36 cards, 5 each: the Ace skips, a 7 makes "
    "the next player take 1 and a 6 take 1 and miss the turn, each passed on by the same rank (+1 each); the "
    "Queen is wild and names a suit. Optional: 10 reverses, King of spades takes 4 and skips."
)

RANKS = ("6", "7", "8", "9", "T", "J", "Q", "K", "A")


def build(options: dict) -> Ruleset:
    rank_rules = {
        "6": CardRule(pending_draw=1, stack_with=frozenset({"6"}), after_accept="end_turn"),
        "7": CardRule(pending_draw=1, stack_with=frozenset({"7"}), after_accept="continue"),
        "Q": CardRule(placement="any", suit_choice="wish"),
        "A": CardRule(skip=True),
    }
    if options["ten_reverse"]:
        rank_rules["T"] = CardRule(reverse=True)
    card_rules = {}
    if options["king_spades"]:
        card_rules["Ks"] = CardRule(pending_draw=4, after_accept="end_turn")
    return Ruleset(
        name=NAME,
        ranks=RANKS,
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        hand_size=5,
        opening="upcard",
        starter_effects=options["starter_effects"],
        starter_suit_by="next",
        draw_mode="single",
        after_draw_play="drawn",
        after_accept="continue",
        finishing_effects="ignore",
        rank_rules=rank_rules,
        card_rules=card_rules,
        points={r: 1 for r in RANKS},
        **series.match_of(options),
        dealer_rule="rotate",
        first_dealer="last",
    )
