"""Fit `sample_bots/field_leaf.py`'s model: the chance that a seat finishes an Online Mau-Mau game ahead of another, every seat a tactician.

    python scripts/fit_field_leaf.py --seeds 200000:210000 [--check 220000:222000] [--share 0.15] [--model pair|public]

Plays tactician games with the engine alone (no server), keeps a share of the states (every decision's, all pairs
of seats), labels each pair by whether the first seat ended with fewer points than the second (a tie: one half), and
fits a logistic regression without a constant (Newton's method, a little ridge).  Prints the game lengths, the
coefficients to paste into `field_leaf.COEFFICIENTS`, and on the games of `--check` how well three values of a seat
predict its pairwise score at the end (the mean over the other seats of 1, 1/2 or 0): a constant 1/2, `pimc.evaluate`'s
value of a cut rollout (`0.5 + 0.35 * score edge + 0.15 * hand_value`) and the fitted `field_value`: the mean squared
error and the share of pairs of seats the value orders as the game did; on every kept state and on those at least
`--late` decisions into the game (where the searcher's rollouts, cut at 60 decisions, end).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_bots"))
sys.path.insert(0, str(ROOT))

from field_leaf import MODELS, NAMES, PUBLIC_NAMES, field_value, views  # noqa: E402
from pimc import Move, PolicyTurn, evaluate  # noqa: E402
from tactician import Tactician  # noqa: E402

from arena import games  # noqa: E402
from mau_arena_sdk import Facts  # noqa: E402
from scripts.fit_leaf_value import fit as _newton_fit  # noqa: E402

RULESET = "maumau-online"


def card_points(players: int) -> dict[str, int]:
    """Every card's points, as the searcher reads them from the game's facts."""
    facts = games.ruleset_facts(RULESET, players)
    return {card: info.get("points", 0) for card, info in (facts.get("cards") or {}).items()}


def play(seed: int, players: int, share: float, policy, points):
    """One tactician game: (its decisions, [(decision index, state copy)] kept, final points)."""
    state = games.new_game(RULESET, players, seed)
    keep = random.Random(f"fit:{seed}")
    kept = []
    decisions = 0
    while not state.is_over:
        legal = state.legal_actions()
        if keep.random() < share:
            kept.append((decisions, state.clone()))
        decisions += 1
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        seat = state.current
        turn = PolicyTurn("fit", RULESET, seat, state.decision, state.observation(seat), [Move(a) for a in legal])
        state.apply(policy.act(turn).action)
    return decisions, kept, list(state.scores)


def beats(final, i: int, j: int) -> float:
    return 1.0 if final[i] < final[j] else 0.5 if final[i] == final[j] else 0.0


def samples(seeds: range, players: int, share: float, points, model: str = "pair"):
    """Rows of these seeds' games: pair features and labels (`model`'s: the pair model's for i < j, the public one's
    for every ordered pair), and per kept state its decision index, the final points and the state (for the check)."""
    features = MODELS[model][0]
    policy = Tactician()
    policy.facts["fit"] = Facts(games.ruleset_facts(RULESET, players))
    xs, ys, states, lengths = [], [], [], []
    for seed in seeds:
        decisions, kept, final = play(seed, players, share, policy, points)
        lengths.append(decisions)
        for index, state in kept:
            view = views(state)
            for i in range(players):
                for j in range(i + 1 if model == "pair" else 0, players):
                    if j != i:
                        xs.append(features(state, i, j, points, view))
                        ys.append(beats(final, i, j))
            states.append((index, final, state))
    return np.array(xs), np.array(ys), states, lengths


def fit(x, y):
    """Logistic regression (labels may be 1/2), no constant: the model is antisymmetric in the pair
    (`fit_leaf_value.fit`'s Newton steps with this model's ridge and step count)."""
    return _newton_fit(x, y, ridge=1e-4, steps=25)


def check(states, players: int, points, w, late: int, model: str = "pair") -> list[tuple[str, int, dict, dict]]:
    """How well each value predicts the seats' pairwise scores, on all states and on the late ones: per set (label,
    states, {value: mean squared error}, {value: share of pairs of seats with different final points ordered right})."""
    sets = []
    for label, chosen in (("all", states), (f"{late}+ decisions in", [s for s in states if s[0] >= late])):
        errors = {"constant": [], "evaluate": [], "field_value": []}
        ordered = {"evaluate": [], "field_value": []}
        for _, final, state in chosen:
            target = [sum(beats(final, i, j) for j in range(players) if j != i) / (players - 1) for i in range(players)]
            values = {
                "constant": [0.5] * players,
                "evaluate": [evaluate(state, i, [0] * players, points, True) for i in range(players)],
                "field_value": [field_value(state, i, points, 0.0, w, model) for i in range(players)],
            }
            for name, value in values.items():
                errors[name] += [(v - t) ** 2 for v, t in zip(value, target)]
            for name in ordered:
                value = values[name]
                for i in range(players):
                    for j in range(i + 1, players):
                        if final[i] != final[j]:
                            ordered[name].append(1.0 if (value[i] - value[j]) * (final[j] - final[i]) > 0
                                                 else 0.5 if value[i] == value[j] else 0.0)
        if chosen:
            sets.append((label, len(chosen), {k: statistics.fmean(v) for k, v in errors.items()},
                         {k: statistics.fmean(v) for k, v in ordered.items()}))
    return sets


def report(sets) -> list[str]:
    return [f"{label} ({count} states): mean squared error of a seat's pairwise score "
            + ", ".join(f"{k} {v:.4f}" for k, v in errors.items())
            + "; pairs ordered right " + ", ".join(f"{k} {v:.3f}" for k, v in ordered.items())
            for label, count, errors, ordered in sets]


def main(argv=None) -> None:
    def span(text):
        a, b = (int(v) for v in text.split(":"))
        return range(a, b)

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=span, default=span("200000:220000"))
    parser.add_argument("--check", type=span, default=span("220000:225000"))
    parser.add_argument("--share", type=float, default=0.3)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--model", choices=sorted(MODELS), default="pair",
                        help="pair: both seats' counts, antisymmetric; public: of the other seat only what the seat sees")
    parser.add_argument("--late", type=int, default=60, help="the check's late states: this many decisions into the game")
    args = parser.parse_args(argv)
    points = card_points(args.players)
    x, y, _, lengths = samples(args.seeds, args.players, args.share, points, args.model)
    q = statistics.quantiles(lengths, n=10)
    print(f"{len(lengths)} games: decisions a game median {statistics.median(lengths):.0f}, deciles "
          + " ".join(f"{v:.0f}" for v in q) + f", longest {max(lengths)}; "
          f"{sum(n > args.late for n in lengths) / len(lengths):.1%} longer than {args.late}")
    w = fit(x, y)
    _, _, states, _ = samples(args.check, args.players, args.share, points, args.model)
    print(f"{len(y)} pair rows fitted")
    for line in report(check(states, args.players, points, w, args.late, args.model)):
        print(line)
    print(("COEFFICIENTS" if args.model == "pair" else "PUBLIC_COEFFICIENTS") + " = (" + ", ".join(f"{v:.4f}" for v in w) + ")")
    for name, v in zip(NAMES if args.model == "pair" else PUBLIC_NAMES, w):
        print(f"  {name:12} {v:+.4f}")


if __name__ == "__main__":
    main()
