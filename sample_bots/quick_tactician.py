"""The tactician as a model of the opponents' choices, for the searcher's inference.

`PlayModel` says what a tactician's choice of card tells of the hand it chose from, with the tactician's
very scoring (`tactician.score_play`, from a `tactician.CardTable` built once a game).

`QuickTactician` is the name the searcher's rollouts and other modules knew the table-driven tactician
by, when `tactician.Tactician` still asked the `Facts` for every card of every candidate play: the
tactician itself now scores from `CardTable`s (one scoring function for the bot over the wire and in a
rollout), so `QuickTactician` is the tactician, and `quick_score` and `quick_suit` are
`tactician.score_play` and `tactician.choose_suit`.
"""

from __future__ import annotations

from tactician import CardTable, Tactician, choose_suit, score_play

__all__ = ["CardTable", "PlayModel", "QuickTactician"]


class QuickTactician(Tactician):
    """`tactician.Tactician` (see the module's docstring)."""

    name = "quick-tactician"
    quick_score = staticmethod(score_play)
    quick_suit = staticmethod(choose_suit)


class PlayModel:
    """What the tactician's choice of a card tells of the hand it chose from (`inference.PlayTell`).

    `beaten(card, hand, top_fits, next_size, danger)` is whether the tactician, holding `hand` (the
    played card among it) with `top_fits(card)` saying which cards surely fit the pile, would have
    scored another fitting card strictly above the one it played: a hand it cannot have held.  Ties
    tell nothing (the tactician then plays the first in the engine's order, which a card counter does not
    know), and the scores are `tactician.score_play`'s, so the model is the tactician's very choice."""

    def __init__(self, facts) -> None:
        self.table = CardTable(facts)

    def beaten(self, card, hand, top_fits, next_size, danger) -> bool:
        table = self.table
        fitting = [c for c in hand if c != card and top_fits(c)]
        if not fitting:
            return False
        wild = table.wild
        plain_play = card not in wild or any(c not in wild for c in fitting)
        score = score_play
        played = score(table, (card,), hand, "turn", plain_play, next_size, danger)
        return any(score(table, (c,), hand, "turn", plain_play, next_size, danger) > played for c in fitting)
