"""A fitted value of an unfinished 2-seat Mau-Mau hand: the chance that a seat wins it, both seats playing as the tactician.

The searcher's rollouts play a hand to its end, and the end is one bit (won or lost), so a rollout is a
noisy measure of the position it started from: most of its spread is the luck of the draws after the
first few moves.  A rollout cut after a few decisions and valued by the chance of winning from there
keeps the part the root action decides and drops much of that luck, and costs less.

`win_chance(state, seat)` is a logistic model of a few counts of the state (`features`): both hands'
sizes, who is to move, how many of each hand's cards fit the pile, and the special cards each holds.  It
reads the sampled world's hands, as the rollouts themselves do (the opponent's hand there is one draw from
what the searcher may know).  The coefficients are fitted by `scripts/fit_leaf_value.py` on tactician
games, engine only (the model's numbers in `COEFFICIENTS` say from which games).
"""

from __future__ import annotations

import math


#: The features' names, in the order of `features` and `COEFFICIENTS`.
NAMES = ("bias", "mine", "theirs", "to_move", "fit_mine", "fit_theirs", "none_mine", "none_theirs",
         "jacks_mine", "jacks_theirs", "eights_mine", "eights_theirs", "aces_mine", "aces_theirs",
         "sevens_mine", "sevens_theirs", "suits_mine", "suits_theirs", "one_mine", "one_theirs",
         "move_x_mine", "move_x_theirs")

#: Fitted by `scripts/fit_leaf_value.py --seeds 100000:115000 --check 120000:123000 --share 0.3` (15,000 tactician
#: games, 205,462 rows; on the 3,000 check games log loss 0.5865 against a constant's 0.6931, Brier 0.2014 against 0.25).
COEFFICIENTS = (0.0000, -0.2877, 0.2877, 0.1533, 0.0410, -0.0410, -0.5317, 0.5317, 0.6246, -0.6246, 0.2886, -0.2886, 0.1858, -0.1858, 0.3162, -0.3162, -0.3400, 0.3400, 0.4092, -0.4092, -0.0043, -0.0043)


def _counts(hand, top, named):
    """(cards, fitting cards, Jacks, 8s, Aces, 7s, suits held) of a hand on `top` (`named`: the suit a Jack asked)."""
    suit_on = named or (top[1:2] if top else None)
    rank_on = None if named else (top[0] if top else None)
    fit = jacks = eights = aces = sevens = 0
    suits = set()
    for card in hand:
        r, s = card[0], card[1:2]
        if r == "J":
            jacks += 1
            fit += 1
            continue
        suits.add(s)
        if s == suit_on or r == rank_on:
            fit += 1
        if r == "8":
            eights += 1
        elif r == "A":
            aces += 1
        elif r == "7":
            sevens += 1
    return len(hand), fit, jacks, eights, aces, sevens, len(suits)


def features(state, seat: int) -> list[float]:
    """The model's inputs for `seat` in a 2-seat `maumau` state (a sampled world: both hands are there)."""
    mine_obs = state.observation(seat)
    theirs_obs = state.observation(1 - seat)
    discard = mine_obs.get("discard") or ()
    top = discard[-1] if discard else None
    named = mine_obs.get("active_suit")
    m = _counts(mine_obs.get("hand") or (), top, named)
    t = _counts(theirs_obs.get("hand") or (), top, named)
    to_move = 1.0 if state.current == seat else -1.0
    return [1.0, m[0], t[0], to_move, m[1], t[1], float(m[1] == 0), float(t[1] == 0), m[2], t[2], m[3], t[3],
            m[4], t[4], m[5], t[5], m[6], t[6], float(m[0] == 1), float(t[0] == 1), to_move * m[0], to_move * t[0]]


def logistic(xs, coefficients) -> float:
    z = sum(x * c for x, c in zip(xs, coefficients))
    if z < -30:
        return 0.0
    if z > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-z))


def win_chance(state, seat: int, coefficients=COEFFICIENTS) -> float:
    """The chance that `seat` wins the hand from `state`, both seats playing as the tactician (the fitted model)."""
    return logistic(features(state, seat), coefficients)


class LeafValued:
    """A mixin for a `pimc.Searcher` of 2-seat `maumau`: a rollout cut short (at `Budget.depth` decisions) is valued by
    `win_chance` instead of `pimc.evaluate`'s rough count of cards; a finished hand by its placement as before."""

    def cut_value(self, state, seat: int, start_scores) -> float:
        return win_chance(state, seat)
