"""The tactician as a model of the opponents' choices, for the searcher's inference.

`PlayModel` says what a tactician's choice of card tells of the hand it chose from, with the tactician's
very scoring (`tactician.score_play`, from a `tactician.CardTable` built once a game).  The rollouts
play the tactician itself (`tactician.Tactician`): one scoring serves the bot over the wire, the
rollouts, this model and `posterior.py`.
"""

from __future__ import annotations

from tactician import CardTable, score_play

__all__ = ["PlayModel"]


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
