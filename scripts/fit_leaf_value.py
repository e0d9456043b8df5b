"""Fit `sample_bots/leaf_value.py`'s model: the chance of winning a 2-seat `maumau` hand from a state, both seats tacticians.

    python scripts/fit_leaf_value.py --seeds 100000:120000 [--share 0.3] [--check 120000:125000]

Plays tactician games with the engine alone (no server), keeps a share of the states (every decision's, the
features of both seats), labels each by whether that seat won the hand, and fits a logistic regression (Newton's
method, a little ridge).  Prints the coefficients to paste into `leaf_value.COEFFICIENTS`, the fit's log loss and
Brier score on the games of `--check` (beside a constant's), and the spread of its predictions.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_bots"))
sys.path.insert(0, str(ROOT))

from leaf_value import NAMES, features  # noqa: E402
from pimc import Move, PolicyTurn  # noqa: E402
from tactician import Tactician  # noqa: E402

from arena import games  # noqa: E402
from mau_arena_sdk import Facts  # noqa: E402


def samples(seeds: range, share: float):
    """(features, won) rows of tactician games of these seeds, both seats' view of each kept state."""
    policy = Tactician()
    policy.facts["fit"] = Facts(games.ruleset_facts("maumau", 2))
    xs, ys = [], []
    for seed in seeds:
        state = games.new_game("maumau", 2, seed)
        keep = random.Random(f"fit:{seed}")
        kept = []
        while not state.is_over:
            legal = state.legal_actions()
            if keep.random() < share:
                kept.append((features(state, 0), features(state, 1)))
            if len(legal) == 1:
                state.apply(legal[0])
                continue
            seat = state.current
            turn = PolicyTurn("fit", "maumau", seat, state.decision, state.observation(seat), [Move(a) for a in legal])
            state.apply(policy.act(turn).action)
        placements = state.result().placements
        for f0, f1 in kept:
            xs += [f0, f1]
            ys += [float(placements[0] == 1), float(placements[1] == 1)]
    return np.array(xs), np.array(ys)


def fit(x, y, ridge: float = 1e-3, steps: int = 30):
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) + ridge * len(y) * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + ridge * len(y) * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w


def losses(x, y, w):
    p = np.clip(1 / (1 + np.exp(-(x @ w))), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))), float(np.mean((p - y) ** 2)), p


def main(argv=None) -> None:
    def span(text):
        a, b = (int(v) for v in text.split(":"))
        return range(a, b)

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=span, default=span("100000:120000"))
    parser.add_argument("--check", type=span, default=span("120000:125000"))
    parser.add_argument("--share", type=float, default=0.3)
    args = parser.parse_args(argv)
    x, y = samples(args.seeds, args.share)
    w = fit(x, y)
    cx, cy = samples(args.check, args.share)
    loss, brier, p = losses(cx, cy, w)
    base = float(np.mean(y))
    const = losses(cx, cy, np.array([np.log(base / (1 - base))] + [0.0] * (len(w) - 1)))
    print(f"{len(y)} rows fitted, {len(cy)} checked: log loss {loss:.4f} (constant {const[0]:.4f}), "
          f"Brier {brier:.4f} (constant {const[1]:.4f}), predictions' spread {np.std(p):.3f}")
    print("COEFFICIENTS = (" + ", ".join(f"{v:.4f}" for v in w) + ")")
    for name, v in zip(NAMES, w):
        print(f"  {name:14} {v:+.4f}")


if __name__ == "__main__":
    main()
