"""How much the searcher would gain from knowing the opponent's hand: in-process duplicate games against the tactician.

    python scripts/searcher_ceiling.py --seeds 9000:9100 [--oracle [hand|all]] [--ruleset maumau] [--second-step | --no-second-step] [--plan N [--plan-mix X]] [--tree N [--tree-widen K] [--tree-merge] ...] [--leaf D] [--confidence K]
    python scripts/searcher_ceiling.py --compare new_*.log --against old_*.log

Plays each seed twice (the searcher in seat 0, then in seat 1, the same deal) with the engine alone (no
server), the searcher with its default budget and search seed = the game's seed, and prints the
searcher's score, the pentanomial pair counts and the Elo with its 95% interval (`arena match`'s
estimate).  With `--oracle` (or `--oracle hand`) every sampled world is the real state with only the stock
shuffled and the future reshuffles drawn afresh: the searcher knows the opponent's hand (and the stock's
cards, not their order), so the gap between the two runs on the same seeds bounds what better inference
of the hidden hand could still give.  With `--oracle all` every world is the real state itself (the stock's
order and the future reshuffles too): the searcher sees every card, and only its own policy (one step of
improvement over the tactician's rollouts) limits it.  The oracles are measuring tools of this script
only, never a bot option: they replace the bot's world sampler in-process.
`--prune K` races the worlds (`pimc.Searcher.race`; 0 the flat search).  `--second-step` / `--no-second-step` turn the searcher's second step (`second_step.py`) on or off (default:
as `searcher.SECOND_STEP` says), so that two codes can be screened on the same deals.  `--plan N` searches the
searcher's own next N decisions inside each world (`own_plan.py`), and `--plan-mix X` (a screening knob of this script,
no bot flag) values such a node by the tactician's child plus X times the best child's gain over it.  Two
seats only.  A seed is about 1 s of CPU in `maumau`.  `--compare LOG ... --against LOG ...` reads
runs' output (the `seed N: k/2` lines; a run may be split over seed ranges) and compares them deal by deal, as
`pairs_elo.py --against` does for `arena match` logs: the mean difference of the pair scores (0..2) over the
seeds of both, with its 95% interval, and each side's Elo on those seeds.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_bots"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from engine_seat import start, turn  # noqa: E402
from pairs_elo import paired  # noqa: E402
from searcher import SearchBot  # noqa: E402
from tactician import Tactician  # noqa: E402

from arena import games  # noqa: E402
from arena.ladder.elo import elo_from_pairs  # noqa: E402


def oracle_world(real: dict, ruleset: str, knows: str = "hand"):
    """A `pimc.Searcher.world` that returns the real state of `real["state"]`: with `knows` "hand" its stock
    shuffled and its chance seed drawn from `rng` (the future reshuffles unknown), with "all" as it is."""

    def world(sampler, rng: random.Random, tracker, seat: int, visible: int):
        if knows == "all":
            return real["state"].clone()
        position = real["state"].to_position()
        stock = list(position["stock"])
        rng.shuffle(stock)
        position["stock"] = stock
        position["seed"] = rng.getrandbits(62)
        return games.from_position(ruleset, position)

    return world


def play(ruleset: str, seed: int, me: int, oracle: str | None, second_step: bool | None = None,
         prune: float | None = None, worlds: int | None = None, step_extra: int | None = None,
         plan: int | None = None, plan_mix: float | None = None, tree: int | None = None,
         tree_knobs: dict | None = None, leaf: int | None = None, confidence: float | None = None) -> bool:
    """One game, the searcher in seat `me`: whether it placed first."""
    bot = SearchBot(worlds=worlds, seed=seed, second_step=second_step, prune=prune, step_extra=step_extra, plan=plan, tree=tree,
                    leaf=leaf, confidence=confidence)
    other = Tactician()
    start(bot, ruleset)
    start(other, ruleset)
    state = games.new_game(ruleset, 2, seed)
    log = state.record_events()
    real = {"state": state}
    if plan_mix is not None:
        bot.games["g"][0].mix = plan_mix
    for name, value in (tree_knobs or {}).items():
        setattr(bot.games["g"][0], name, value)
    if oracle:
        bot.games["g"][0].world = oracle_world(real, ruleset, oracle)
    while not state.is_over:
        legal, seat = state.legal_actions(), state.current
        asked = turn(state, legal, log)
        choice = (bot if seat == me else other).act(asked)
        state.apply(legal[asked.index_of(choice)])
    return state.result().placements[me] == 1


def read_pairs(paths) -> dict[int, int]:
    """{seed: games of the pair the searcher won (0..2)} from runs' output, a seed at most once."""
    won: dict[int, int] = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            found = re.match(r"seed (\d+): ([012])/2,", line)
            if found:
                seed = int(found[1])
                if seed in won:
                    raise ValueError(f"seed {seed} twice in {', '.join(map(str, paths))}: do the runs overlap?")
                won[seed] = int(found[2])
    return won


def compare(mine: dict[int, int], theirs: dict[int, int]) -> str:
    """The deal-by-deal comparison of two sets of runs on the same seeds, as a line."""
    n, mean, half = paired(mine, theirs)
    both = sorted(mine.keys() & theirs.keys())
    elo = [elo_from_pairs([sum(2 * side[s] == k for s in both) for k in range(5)]) for side in (mine, theirs)]
    return (f"deal by deal over the {n} seeds of both: {mean:+.3f} ± {half:.3f} pair points (95%); on those seeds "
            f"Elo {elo[0].elo:+.1f} ({elo[0].low:+.1f} .. {elo[0].high:+.1f}) against {elo[1].elo:+.1f} "
            f"({elo[1].low:+.1f} .. {elo[1].high:+.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="9000:9100", help="first:last (exclusive) deal seeds")
    parser.add_argument("--ruleset", default="maumau")
    parser.add_argument("--oracle", nargs="?", const="hand", default=None, choices=("hand", "all"),
                        help="hand: worlds are the real state, the stock and future reshuffles drawn afresh; "
                             "all: worlds are the real state itself (a ceiling, never a bot option)")
    parser.add_argument("--second-step", dest="second_step", action="store_true", default=None,
                        help="the searcher searches its own next decision too (second_step.py)")
    parser.add_argument("--no-second-step", dest="second_step", action="store_false", help="the flat search")
    parser.add_argument("--worlds", type=int, default=None, help="worlds a decision (default: the ruleset's budget)")
    parser.add_argument("--step-extra", type=int, default=None, help="the second step's pass-2 rollouts a decision")
    parser.add_argument("--prune", type=float, default=None,
                        help="race the worlds with this pruning threshold (`pimc.Searcher.race`; 0: the flat search)")
    parser.add_argument("--plan", type=int, default=None,
                        help="own decisions searched inside each world (`own_plan.py`; 0: the flat search)")
    parser.add_argument("--plan-mix", type=float, default=None,
                        help="with --plan: a node's value is the tactician's child's plus this share of the best child's gain "
                             "over it (`own_plan.OwnPlan.mix`; 1: the world's best)")
    parser.add_argument("--leaf", type=int, default=None,
                        help="cut the rollouts at this many decisions, valued by `leaf_value` (0: to the end; default: "
                             "the searcher's `LEAF`)")
    parser.add_argument("--tree", type=int, default=None,
                        help="own decisions chosen by nodes the worlds share (`own_tree.py`; 0: the flat search)")
    parser.add_argument("--tree-explore", type=float, default=None, help="with --tree: `OwnTree.explore` (a screening knob)")
    parser.add_argument("--tree-prior", type=float, default=None, help="with --tree: `OwnTree.prior` (a screening knob)")
    parser.add_argument("--tree-widen", type=int, default=None, help="with --tree: `OwnTree.widen` (a screening knob)")
    parser.add_argument("--tree-merge", action="store_const", const=True, default=None,
                        help="with --tree: `OwnTree.merge`, nodes keyed by what the choice depends on (a screening knob)")
    parser.add_argument("--confidence", type=float, default=None,
                        help="standard errors of gain the search needs to leave the tactician's choice (`Budget.confidence`; "
                             "default: the ruleset's budget)")
    parser.add_argument("--compare", nargs="+", default=None, help="runs' output to compare (with --against)")
    parser.add_argument("--against", nargs="+", default=None, help="other runs' output on the same seeds")
    args = parser.parse_args()
    if args.compare or args.against:
        if not (args.compare and args.against):
            parser.error("--compare and --against go together")
        try:
            print(compare(read_pairs(args.compare), read_pairs(args.against)))
        except (OSError, ValueError) as error:
            parser.error(str(error))
        return
    if args.plan is not None and args.plan < 0:
        parser.error(f"--plan must be 0 or more, not {args.plan}")
    if args.plan_mix is not None and not args.plan:
        parser.error("--plan-mix needs --plan N (N > 0)")
    if args.plan_mix is not None and not 0 <= args.plan_mix <= 1:
        parser.error(f"--plan-mix must be between 0 and 1, not {args.plan_mix}")
    if args.tree is not None and args.tree < 0:
        parser.error(f"--tree must be 0 or more, not {args.tree}")
    if args.leaf is not None and args.leaf < 0:
        parser.error(f"--leaf must be 0 or more, not {args.leaf}")
    if args.confidence is not None and not args.confidence >= 0:  # (NaN too)
        parser.error(f"--confidence must be 0 or more, not {args.confidence}")
    knobs = {name: value for name, value in (("explore", args.tree_explore), ("prior", args.tree_prior),
                                                          ("widen", args.tree_widen), ("merge", args.tree_merge)) if value is not None}
    if knobs and not args.tree:
        parser.error("--tree-explore, --tree-prior, --tree-widen and --tree-merge need --tree N (N > 0)")
    try:
        first, last = (int(x) for x in args.seeds.split(":"))
    except ValueError:
        parser.error(f"--seeds wants first:last, got {args.seeds!r}")
    pairs = [0] * 5
    for seed in range(first, last):
        won = sum(play(args.ruleset, seed, me, args.oracle, args.second_step, args.prune, args.worlds,
                        args.step_extra, args.plan, args.plan_mix, args.tree, knobs, args.leaf, args.confidence)
                  for me in (0, 1))
        pairs[2 * won] += 1
        done = sum(pairs)
        print(f"seed {seed}: {won}/2, pairs {pairs}, score {sum(k * n for k, n in enumerate(pairs)) / (4 * done):.3f}",
              flush=True)
    estimate = elo_from_pairs(pairs)
    print(f"{'oracle ' + args.oracle if args.oracle else 'honest'} searcher, {2 * sum(pairs)} games: score {estimate.score:.3f}, "
          f"pairs {pairs}, Elo {estimate.elo:+.1f} ({estimate.low:+.1f} .. {estimate.high:+.1f}, 95%)")


if __name__ == "__main__":
    main()
