"""A fitted value of an unfinished Online Mau-Mau game (4 or more seats): a seat's chance of finishing ahead of each other.

The arena scores a 4-seat game by pairwise results (`scripts/field_elo.py`): a seat's value is the share of the
other seats it finishes ahead of, which is what `pimc.evaluate` gives a finished game by its placement.  A rollout
cut at `Budget.depth` decisions is valued there by a rough count of cards (`0.5 + 0.15 * hand_value`, between 0.35
and 0.65), on another scale than the finished rollouts beside it (0, 1/3, 2/3, 1).  This module values it on the
same scale: the mean, over the other seats j, of the chance that `seat` ends the game with fewer points than j.

`ahead(state, i, j)` is a logistic model of the difference of two seats' counts (`seat_counts`: cards, points,
Jacks, 7s, cards that fit the pile, one or two cards left, on the move, next to move, a 7's draw faced, and the cards
and points weighted by how close the other seats are to going out), without a constant, so that `ahead(i, j)` and
`ahead(j, i)` add up to 1.  It reads the sampled world's hands, as the rollouts do.  The `public` model (`public_features`,
the one `FieldLeafValued` uses) reads of the other seat only its cards and turn, so that a cut value takes no card of a
sampled opponent's hand for true.  Off by default (`searcher.FIELD_LEAF`; README, Session 13: no measured gain).  The coefficients are fitted by
`scripts/fit_field_leaf.py` on tactician games, engine only (`COEFFICIENTS` says from which games).
"""

from __future__ import annotations

from typing import Mapping

from leaf_value import logistic

#: The features' names, in the order of `seat_counts` and `COEFFICIENTS` (each the first seat's minus the second's).
NAMES = ("cards", "points", "jacks", "sevens", "fit", "none_fit", "one", "two", "to_move", "next", "faces",
         "cards_near", "points_near")

#: Fitted by `scripts/fit_field_leaf.py --seeds 200000:210000 --check 220000:222000 --share 0.15` (10,000 4-seat tactician
#: games, 656,646 pair rows; on the 2,000 check games the mean squared error of a seat's pairwise score 0.1218 against
#: `pimc.evaluate`'s 0.1289 and a constant's 0.1377, pairs of seats ordered as the game ended 63.3% against 61.4%).
COEFFICIENTS = (-0.1026, -0.0753, 0.6032, 0.2296, -0.0171, -0.2905, 0.2758, 0.0633, 0.0520, 0.0071, -0.1513, -0.0077, -0.2423)


def seat_counts(hand, points: Mapping[str, int], top, named, seat: int, current: int, following: int,
                draw: int, near: float) -> list[float]:
    """One seat's counts (`NAMES`): `top` the pile's top card, `named` the suit a Jack asked, `following` the seat
    after the one on the move, `draw` a live 7's draw, `near` how close the other seats are to going out."""
    suit_on = named or (top[1:2] if top else None)
    rank_on = None if named else (top[0] if top else None)
    fit = jacks = sevens = total = 0
    for card in hand:
        rank = card[0]
        total += points.get(card, 0)
        if rank == "J":
            jacks += 1
            if not draw:
                fit += 1
            continue
        if rank == "7":
            sevens += 1
            if draw:
                fit += 1
                continue
        if not draw and (card[1:2] == suit_on or rank == rank_on):
            fit += 1
    size = len(hand)
    return [size, total / 10.0, jacks, sevens, fit, float(fit == 0), float(size == 1), float(size == 2),
            float(current == seat), float(following == seat), draw / 2.0 if current == seat else 0.0,
            size * near, total / 10.0 * near]


#: The `public` model's features: a constant, the first seat's counts (`NAMES`) and of the second's only those a seat
#: that does not see its hand knows too (`THEIR_PUBLIC`, indices into `NAMES`).
THEIR_PUBLIC = (0, 6, 7, 8, 9, 10, 11)
PUBLIC_NAMES = ("bias",) + tuple(f"own_{name}" for name in NAMES) + tuple(f"their_{NAMES[k]}" for k in THEIR_PUBLIC)

#: Fitted by `scripts/fit_field_leaf.py --model public` on the games of `COEFFICIENTS` (1,313,292 rows, every ordered pair;
#: on the check games mean squared error 0.1227, pairs ordered as the game ended 63.2%).
PUBLIC_COEFFICIENTS = (0.1154, -0.0940, -0.0906, 0.6090, 0.2241, -0.0141, -0.2708, 0.2895, 0.0785, 0.0493, 0.0081, -0.0606,
                       -0.0134, -0.2201, 0.1189, -0.2175, -0.0427, -0.0645, -0.0212, 0.1407, 0.1623)


def public_features(state, i: int, j: int, points: Mapping[str, int], view=None) -> list[float]:
    """The `public` model's inputs for "seat i finishes ahead of seat j": all of i's counts, and of j's only the public
    ones (its cards, whose turn, a 7's draw), so that the value reads no card of a sampled opponent's hand."""
    hands, top, named, current, following, draw = view or views(state)
    rest = [len(hands[k]) for k in range(len(hands)) if k != i and k != j]
    near = 1.0 / max(1, min(rest)) if rest else 0.0
    a = seat_counts(hands[i], points, top, named, i, current, following, draw, near)
    b = seat_counts(hands[j], points, top, named, j, current, following, draw, near)
    return [1.0] + a + [b[k] for k in THEIR_PUBLIC]


def pair_features(state, i: int, j: int, points: Mapping[str, int], view=None) -> list[float]:
    """The model's inputs for "seat i finishes ahead of seat j" in `state` (a sampled world: every hand is there);
    `view` (optional) is what `views` returns for the state, shared by the pairs of one state."""
    hands, top, named, current, following, draw = view or views(state)
    rest = [len(hands[k]) for k in range(len(hands)) if k != i and k != j]
    near = 1.0 / max(1, min(rest)) if rest else 0.0
    a = seat_counts(hands[i], points, top, named, i, current, following, draw, near)
    b = seat_counts(hands[j], points, top, named, j, current, following, draw, near)
    return [x - y for x, y in zip(a, b)]


def views(state):
    """(every seat's hand, the pile's top, the suit asked, the seat on the move, the seat after it, a live 7's draw)."""
    n = state.players
    hands = [state.observation(k).get("hand") or () for k in range(n)]
    obs = state.observation(state.current)
    discard = obs.get("discard") or ()
    direction = obs.get("direction") or 1
    draw = (obs.get("pending") or {}).get("draw", 0)
    current = state.current
    return hands, discard[-1] if discard else None, obs.get("active_suit"), current, (current + direction) % n, draw


def ahead(state, i: int, j: int, points: Mapping[str, int], coefficients=COEFFICIENTS, view=None) -> float:
    """The chance that seat i ends the game with fewer points than seat j (a tie counts half), every seat a tactician."""
    return logistic(pair_features(state, i, j, points, view), coefficients)


#: The models: their features (`state, i, j, points, view`) and coefficients.
MODELS = {"pair": (pair_features, COEFFICIENTS), "public": (public_features, PUBLIC_COEFFICIENTS)}


def field_value(state, seat: int, points: Mapping[str, int], edge_weight: float = 0.0,
                coefficients=None, model: str = "pair") -> float:
    """The mean, over the other seats, of `ahead(state, seat, j)`: the pairwise score `seat` may expect; plus
    `edge_weight` times the points the others hold beyond `seat`'s (their mean less its own, over 60, squashed to
    [-1, 1]), as `pimc.evaluate` adds the final points' edge to a finished game's placement."""
    view = views(state)
    others = [j for j in range(state.players) if j != seat]
    features, fitted = MODELS[model]
    weights = fitted if coefficients is None else coefficients
    value = sum(logistic(features(state, seat, j, points, view), weights) for j in others) / len(others)
    if not edge_weight:
        return value
    hands = view[0]
    held = [sum(points.get(card, 0) for card in hand) for hand in hands]
    edge = (sum(held[j] for j in others) / len(others) - held[seat]) / 60.0
    return value + edge_weight * max(-1.0, min(1.0, edge))


class FieldLeafValued:
    """A mixin for a `pimc.Searcher` of Online Mau-Mau: a rollout cut short (at `Budget.depth` decisions) is valued by
    `field_value` instead of `pimc.evaluate`'s rough count of cards; a finished game by its placement as before."""

    model = "public"  # which of `MODELS` values a cut rollout (public: it reads no card of a sampled opponent's hand)

    def cut_value(self, state, seat: int, start_scores) -> float:
        return field_value(state, seat, self.points, self.budget.edge, model=self.model)
