"""Mose (seed 003): a rotating-wild rummy, 13 rounds, as RULES.md section 6 specifies.

One arena game is the whole match (``rounds`` rounds, 13 by default): round r
has the wild rank W(r) = 2, 3, ..., K, A; the deal rotates clockwise from a
dealer drawn from the seed; the lowest total wins and ties share a place.

**Action grammar.**  ``draw stock`` | ``take pile`` (the whole pile) |
``meld T T T...`` | ``layoff M lo|hi T`` (runs) | ``layoff M T`` (sets) |
``swap M CARD take`` | ``swap M CARD place`` | ``discard CARD`` | ``pass`` |
``call mose`` (contested mode only).  ``M`` is a meld id (1, 2, ... in the
order melds were laid this round).  A token ``T`` is a card (``7s``: itself)
or a wild stand-in: ``Kd:7s`` (the wild Kd is the seven of spades in a run),
``Kd:7`` (a seven of a missing suit in a set).  Runs are written low to high,
so ``As 2s 3s`` has a low Ace and ``Qs Ks As`` a high one.  A card of the
wild rank written plain stands for itself and can never be swapped (D-5).

**What the legal list offers** (every legal play stays reachable as a
sequence of these atomic decisions):

* new melds: every 3-card set and run, plus the maximal all-natural sets and
  runs (4+ cards).  Longer melds with wilds are built by melding 3 cards and
  laying off the rest one card at a time.
* a wild fills a place only when the player does not hold the natural card
  for it (holding 7s, the 7s is used; to use a wild there, lay the 7s
  elsewhere first); wilds are used as stand-ins in a fixed order (by rank,
  then suit s h d c), since a wild's suit is irrelevant (seed).  So the
  equivalence is: melds that differ only in which of your wilds stands in.
* lay-offs: one card at a time, at either end of a run (``lo``/``hi``) or
  into a set; runs are never re-ordered (6.4).
* swaps: by any seat except the meld's owner (D-6, option
  ``owner_may_swap``), holding the exact natural a run wild stands for, or a
  natural of a missing suit for a set wild.  ``take`` puts the wild in hand;
  ``place`` (offered only when a place exists) leads to a ``place`` decision
  where the same seat must put the wild at once into a lay-off or a new
  3-card meld with hand cards (D-8).

**Reaction windows (out-of-turn play, 6.5, D-7).**  After each on-turn
event that can open new out-of-turn play (a draw - it starts the round and
is what a Mose may prey upon - a meld, a lay-off or a swap) the engine asks
the other seats, one by one clockwise from the actor's left (the turn's
seat is never asked: it acts on its own turn), what they do; a seat with no
meld, lay-off or swap is asked too (``pass`` is all it may do), since
skipping it would tell the table which hands hold a play.  A seat
that plays keeps the decision (``react``) until it passes; then the window
starts again from its left (the table changed).  Every play moves a card
from a hand to the table for good, so windows end.  A discard changes
nothing anyone else can use, so it opens no window.  Out of turn nobody
draws or discards.  Before the first draw of a round nobody may play (D-9).

**Going out.**  A play that empties a hand is Mose, validated at once
(strict mode): the round ends, the winner scores 0, the others their hand
(J/Q/K/T 10, wild 20 overriding, Ace 1, else face value), plus penalties.
No discard is needed after melding out (D-11).  Preying upon card draws
(D-14): if the going-out seat's plays come directly after seat X's pickup,
with no event by anyone else in between (passes are not events), X's
picked-up cards go back (to the top of the stock, or as the pile in their
order) and are not scored.

**Stock exhaustion (D-13).**  When the stock is empty, the next seat may
``take pile`` or ``draw stock``, which shuffles the pile into a new stock
(the pile is then empty until the next discard).  When that second stock
runs out, the seat that drew its last card finishes its turn (plays, may go
out), and the round ends with no winner at its discard; option
``second_exhaustion_end=immediate`` ends it at the draw.

**Modes (D-16, D-17).**  ``strict`` (default): invalid plays are never
offered, so False Mose and False Play cannot happen.  ``contested``: the
turn's seat is also offered ``call mose`` with cards in hand (False Mose,
+50; once a turn) and lay-offs that do not fit (False Play, +10 each: every
hand card onto a set, or at either end, ``lo`` or ``hi``, of a run).  Every
False Play of a turn costs its 10; after three False Plays in a turn no
more are offered (not in the rules: a bound, so a game cannot loop on
mistakes; it is a public count, ``false_plays`` in the observation, because
the legal list may depend only on what the seat knows).  A mistake changes nothing else and the turn goes on.

**Turn limit (not in the rules).**  Players who only ever take the pile
never run the stock out, so a round also ends with no winner, scored like
an exhaustion, at the start of its ``turn_limit``-th turn (300 by default,
0 for none); random play ends rounds long before that.

**Decision limit (not in the rules).**  The turn limit alone does not bound
a game's decisions: in one turn every other seat that could meld is asked
after each draw and play (reaction windows), a hand of a whole taken pile
allows many plays, and contested mode adds a False Mose and three False
Plays a turn.  So 13 rounds of 300 turns could take some 90,000 decisions at
10 players with two decks (`arena/games/README.md`, "Every game ends"), and
``turn_limit=0`` none at all.  Option ``decision_limit`` (20,000 by
default, 0 for none) ends the game at that many decisions: the round under
way is scored as it stands with no winner, like an exhaustion (an open
window lapses; a freed wild waiting to be placed goes to its swapper's
hand, as a ``take``), and the match ends there (the result's reason says
so).  Random play's games are far shorter: medians 1,630-2,359 decisions,
the longest 2,627 (2, 4 and 10 players, 20 games each, 2026-11-28,
`scripts/game_lengths.py`).

**Where RULES.md is silent.**  Two decks (``decks``; 0 = one deck up to 7
players, two above): sets may hold two naturals of a suit, up to 8 naturals
and a wild as the 9th.  In a set of the wild rank every card stands for
itself.  A wild freed into a set is the set's first stand-in.  Scores carry
over rounds; the result's points are the totals.
"""

from __future__ import annotations

from typing import Any, Mapping

from arena.games.mose.position import restore
from arena.games.mose.state import DEFAULT_DECISION_LIMIT, MoseState
from arena.games.registry import OptionSpec, RulesetInfo, register

OPTIONS = {
    "rounds": OptionSpec(13, "rounds to play (wilds 2, 3, ... in order); 13 is the full match", tuple(range(1, 14))),
    "decks": OptionSpec(0, "decks: 0 = one deck up to 7 players and two above, or 1, 2 (D-1)", (0, 1, 2)),
    "owner_may_swap": OptionSpec(False, "the meld's owner may swap its wilds too (D-6)"),
    "second_exhaustion_end": OptionSpec(
        "finish_turn",
        "when the stock runs out a second time: the drawer finishes the turn, or the round ends at once (D-13)",
        ("finish_turn", "immediate"),
    ),
    "turn_limit": OptionSpec(
        300,
        "turns after which a round ends with no winner (0: none); not in the rules, it stops endless pile-taking",
    ),
    "mode": OptionSpec(
        "strict",
        "strict: invalid plays are not offered; contested: False Mose (+50) and False Play (+10) are (D-16, D-17)",
        ("strict", "contested"),
    ),
    "decision_limit": OptionSpec(
        DEFAULT_DECISION_LIMIT,
        "decisions after which the game ends, its round scored as it stands with no winner (0: none); not in the "
        "rules, a bound on the whole game whatever the seats do",
        minimum=0,
    ),
}

SUMMARY = (
    "Rotating-wild rummy over 13 rounds (wilds 2..A). Draw the stock card or the whole pile, meld sets and "
    "runs (Ace low or high, no wrap) with declared wilds, lay off, swap a wild for its natural, discard; "
    "melds, lay-offs and swaps also out of turn in reaction windows. Going out is Mose; the others score "
    "their hands (wild 20, J/Q/K/T 10, Ace 1). Lowest total wins. "
    "Actions: draw stock | take pile | meld 5s 6s Kd:7s | meld 7s 7h Kd:7 | layoff 2 hi 8s | layoff 3 7d | "
    "swap 1 7s take | swap 1 7s place | discard 9h | pass."
)

RESOLUTIONS = (
    "D-1 one 52-card deck for 2-7 players, two above (option decks). D-2 sets: 3+ of a rank, naturals of "
    "distinct suits, a wild as 5th only on 4 naturals. D-3 runs: 3+ of a suit in sequence, Ace low or high, "
    "no wrap. D-4 all-wild melds allowed. D-5 run wilds declare a card, set wilds a rank; a wild written "
    "plain is itself and cannot be swapped. D-6 the owner may not swap (owner_may_swap). D-7 melds, "
    "lay-offs, swaps out of turn via reaction windows; no out-of-turn draw or discard. D-8 a swapped wild "
    "is taken or placed at once (place decision). D-9/D-15 nothing before the first draw. D-10 an empty pile "
    "leaves only draw stock. D-11 melding out needs no discard. D-12 sequential windows, so no races. D-13 "
    "second exhaustion: the drawer finishes the turn (second_exhaustion_end). D-14 Mose directly after "
    "another seat's pickup returns the pickup. D-16/D-17 strict by default; contested mode offers False "
    "Mose (+50, once a turn) and False Play (+10 each: any hand card that does not fit a set, or either end of "
    "a run; at most three a turn, so a turn's mistakes are bounded). D-18 wild 20 overrides. D-19 ties share places. D-20 any number of "
    "melds per turn. D-21 every play is a logged action. Offers: 3-card melds plus maximal natural melds, "
    "lay-offs one card at a time, a wild only where its natural is not held (see arena/games/mose)."
)


def _new_game(players: int, seed: int, options: Mapping[str, Any]) -> MoseState:
    from arena.games.base import OptionError
    from arena.games.base import GameError

    try:
        return MoseState.new(players, seed, options)
    except OptionError:
        raise
    except GameError as error:
        raise OptionError(str(error)) from None


def _from_position(position: Mapping[str, Any], options: Mapping[str, Any]) -> MoseState:
    """Options: the ones given that differ from the defaults win, then the position's own, then defaults."""
    from arena.games.base import PositionError

    merged = {name: spec.default for name, spec in OPTIONS.items()}
    stored = position.get("options") or {}
    if not isinstance(stored, Mapping):
        raise PositionError("'options' in a position must be an object")
    merged.update(INFO.resolve_options(dict(stored)))
    merged.update({k: v for k, v in options.items() if v != OPTIONS[k].default})
    return restore(position, merged)


INFO = register(
    RulesetInfo(
        name="mose",
        title="Mose (rotating-wild rummy, 13 rounds)",
        seed_document="seeds/003_f183a1da2a0dfaf1.txt",
        min_players=2,
        max_players=10,
        default_players=4,
        summary=SUMMARY,
        new_game=_new_game,
        from_position=_from_position,
        options=OPTIONS,
        resolutions=RESOLUTIONS,
    )
)

__all__ = ["MoseState", "INFO"]
