"""Time the sample searcher bot's decisions against the tactician's, per ruleset, in the same run.

    python scripts/searcher_timing.py [--rulesets moumou,maumau] [--decisions 40] [--worlds N] [--prune K] [--leaf N] [--plan N] [--tree N] [--same-games]

Plays games with the searcher in seat 0 and tacticians elsewhere (engine only, no server) and
prints the mean and 90th percentile time per searched decision (more than one legal action),
and the ratio to the tactician's time on the same decisions.  Times are the process's CPU time
(`time.process_time`), so other work on a shared machine does not inflate them.

A decision's cost depends much on the position (its legal actions, the hand's length), and the
searcher's choices steer the games: two budgets or versions that choose differently meet other
decisions.  `--same-games` plays the tactician's choice at seat 0 too (the searcher still decides,
timed, and reads the same history), so that every budget and version times the same decisions.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_bots"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from searcher import SearchBot  # noqa: E402
from tactician import Tactician  # noqa: E402

from arena import games  # noqa: E402
from engine_seat import start, turn  # noqa: E402

PLAYERS = {"moumou": 2, "maumau": 2, "maumau-online": 4, "mose": 4, "ddmau": 4}
OPTIONS = {"ddmau": {"max_hands": 1}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulesets", default=",".join(PLAYERS))
    parser.add_argument("--decisions", type=int, default=30, help="searched decisions per ruleset")
    parser.add_argument("--worlds", type=int, default=None)
    parser.add_argument("--depth", type=int, default=None)
    parser.add_argument("--prune", type=float, default=None,
                        help="race the worlds with this pruning threshold (`pimc.Searcher.race`; 0: the flat search)")
    parser.add_argument("--leaf", type=int, default=None,
                        help="cut 2-seat maumau rollouts at this many decisions, valued by `leaf_value` (0: to the end)")
    parser.add_argument("--second-step", dest="second_step", action="store_true", default=None,
                        help="2-seat maumau: search the own next decision too (`second_step.py`)")
    parser.add_argument("--no-second-step", dest="second_step", action="store_false", help="the flat search")
    parser.add_argument("--step-extra", type=int, default=None, help="the second step's pass-2 rollouts a decision")
    parser.add_argument("--plan", type=int, default=None,
                        help="2-seat maumau: own decisions searched inside each world (`own_plan.py`; 0: the flat search)")
    parser.add_argument("--tree", type=int, default=None,
                        help="2-seat maumau: own decisions chosen by nodes the worlds share (`own_tree.py`; 0: the flat search)")
    parser.add_argument("--same-games", action="store_true",
                        help="play the tactician's choices at seat 0 too: the same decisions for every budget")
    args = parser.parse_args()
    if args.plan is not None and args.plan < 0:
        parser.error(f"--plan must be 0 or more, not {args.plan}")
    for ruleset in args.rulesets.split(","):
        players = PLAYERS.get(ruleset, 2)
        options = OPTIONS.get(ruleset, {})
        bot, reference, other = SearchBot(args.worlds, args.depth, seed=1, prune=args.prune, leaf=args.leaf,
                                               second_step=args.second_step, step_extra=args.step_extra,
                                               plan=args.plan, tree=args.tree), Tactician(), Tactician()
        times, ref_times, seed = [], [], 0
        while len(times) < args.decisions and seed < 50:
            state = games.new_game(ruleset, players, seed, **options)
            log = state.record_events()  # the searcher reads the public history, as over the wire
            for b in (bot, reference, other):
                start(b, ruleset, players, options)
            seed += 1
            while not state.is_over and len(times) < args.decisions:
                legal = state.legal_actions()
                seat = state.current
                asked = turn(state, legal, log)
                if seat == 0 and len(legal) > 1:
                    t0 = time.process_time()
                    choice = bot.act(asked)
                    times.append(time.process_time() - t0)
                    t0 = time.process_time()
                    tactician_choice = reference.act(asked)
                    ref_times.append(time.process_time() - t0)
                    if args.same_games:
                        choice = tactician_choice
                else:
                    choice = other.act(asked)
                state.apply(legal[asked.index_of(choice)])
        mean, ref = statistics.mean(times), statistics.mean(ref_times)
        p90 = sorted(times)[int(0.9 * (len(times) - 1))]
        print(f"{ruleset:14} {len(times):4} decisions  searcher mean {1000 * mean:7.1f} ms  p90 {1000 * p90:7.1f} ms"
              f"  tactician {1000 * ref:6.3f} ms  ratio {mean / ref:8.0f}x")


if __name__ == "__main__":
    main()
