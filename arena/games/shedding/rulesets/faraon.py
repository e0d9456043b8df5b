"""Faraón (Slovakia; seed 002 "Slovakia", RULES.md 5.2): Prší with combos, a 7-debt of 3 and a shrinking hand.

German cards are mapped per RULES.md 0.2 (Leaves = ``s``, Unter = ``J``,
Ober = ``Q``), so the Unter of Leaves is ``Js``.  Resolutions (C-n are
RULES.md's; all defaults):

* 32 cards (7-A), 2-5 players (C-14's two packs above 5 are out of range here).  As Prší otherwise: C-3 upcard effects on
  the first player (option ``starter_effects``); C-4 draw one card only
  without a legal card, then only that card may be played; C-12 a short
  stock forgives the rest; no call.
* Same-rank combos (decision ``combo``: the first card legal, then cards of
  its rank, ``stop`` to end).  C-11 effects per card: **each Ace skips one
  player** (two Aces skip two) and each 7 adds 3.  C-19 an Ace cannot be
  answered (option ``ace_deflect``: a pending skip passed on by an Ace).
* 7: a pending **3 per seven** (3/6/9/12) passed on by 7s; C-5 the player
  who accepts draws it all and may not play that turn.
* C-31 the Unter of Leaves (``Js``) goes on any card at any time, even on a
  live 7, and **cancels the 7-debt**; the same player may add other Unters
  (a combo); the next player may play any card on it.  Other Unters are
  plain.  Where RULES.md is silent: the open top is the ``Js``'s, so it
  holds while the ``Js`` is on top; Unters added after it are plain, and
  the next player follows the last of them (its suit, or another Unter).  C-32 the Ober (``Q``) is wild with a ``suit`` wish, but not on a
  live 7.
* C-30 hand-size ladder: a player who empties their hand leaves the hand,
  and play goes on until one player still holds cards: that player lost the
  hand and is dealt one card fewer next time (5, 4, ... 1); losing a 5th
  hand puts them out of the game.  The winner (the first out) leads the
  next hand.  The game ends when one player is left: they place first, the
  others by how late they went out.  ``scores`` are lost hands (or 5 + the
  number of players still in when a seat went out).  A blocked hand (no
  one can play or draw) is lost by the players holding the most cards.
* Option ``rescue`` (off by default; the source's "in some variations"):
  paying a 7-debt, the player draws one card at a time; when one of the
  first 3 cards drawn is a 7 or ``Js``, the decision ``rescue`` offers
  ``play C`` (that card, at once) or ``accept`` (go on paying).  Played,
  the cards drawn so far are kept, the rest of the debt lapses and the
  turn ends: a 7 makes the next player owe 3 (the source's "make the
  subsequent player draw three cards", answerable with 7s as usual), the
  ``Js`` leaves no debt and an open top.  The rescue card is played alone
  (no combo).
"""

from __future__ import annotations

from arena.games.registry import OptionSpec
from arena.games.shedding.rules import CardRule, Ruleset

NAME = "faraon"
TITLE = "Faraón (Slovakia)"
SEED = "seeds/002_0c73658562dbe7b8.txt"
MIN_PLAYERS, MAX_PLAYERS = 2, 5

OPTIONS = {
    "ace_deflect": OptionSpec(False, "an Ace can be answered with an Ace, passing the skip on (C-19)"),
    "lives": OptionSpec(5, "hands a player may lose; each loss deals them one card fewer (C-30)", (2, 3, 4, 5)),
    "starter_effects": OptionSpec(True, "the upcard's 7, Ace or Ober acts on the first player (C-3)"),
    "rescue": OptionSpec(False, "paying a 7-debt, a 7 or Js among the first 3 cards drawn may be played at "
                         "once: the rest of the debt lapses, the turn ends"),
}

SUMMARY = (
    "Slovak Mau-Mau with 32 German cards: play several cards of one rank at once; each Ace skips a player, "
    "each 7 makes the next player draw 3 unless they add 7s; the Unter of Leaves cancels the debt and anything "
    "may follow it; the Ober is wild and names a suit. Players who empty their hand leave; the last one "
    "holding cards loses the hand and gets one card fewer next time, and is out after 5 losses. Option: rescue "
    "a 7-debt with a 7 or the Unter of Leaves drawn among its first 3 cards."
)

RANKS = ("7", "8", "9", "T", "J", "Q", "K", "A")


def build(options: dict) -> Ruleset:
    lives = options["lives"]
    return Ruleset(
        name=NAME,
        ranks=RANKS,
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        hand_size=lives,
        opening="upcard",
        starter_effects=options["starter_effects"],
        starter_suit_by="next",
        draw_mode="single",
        after_draw_play="drawn",
        after_accept="end_turn",
        finishing_effects="apply",
        combos=True,
        combo_aggregation="sum",
        combo_per_card=frozenset({"A", "7"}),
        rank_rules={
            "7": CardRule(
                pending_draw=3, stack_with=frozenset({"7", "Js"}), rescue_first_k=3 if options["rescue"] else 0
            ),
            "Q": CardRule(placement="any", suit_choice="wish"),
            "A": CardRule(skip=True, skip_deflectable=options["ace_deflect"], stack_with=frozenset({"A"})),
        },
        card_rules={"Js": CardRule(placement="any", cancel_pending=True, open_top=True)},
        points={r: 1 for r in RANKS},
        hand_end="last_holder",
        lives=lives,
        leader="winner",
        dealer_rule="rotate",
        first_dealer="last",
    )
