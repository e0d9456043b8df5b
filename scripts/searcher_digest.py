"""A digest of the sample searcher's choices (and the values behind them), to check that a speed-up changed nothing.

    python scripts/searcher_digest.py [--rulesets maumau-online] [--games 4] [--seed 0] [--worlds N] [--tree N]

Plays whole games in-process (engine only, no server) with the searcher (search seed 1) in seat 0
and tacticians elsewhere, and prints per ruleset the number of searched decisions and a SHA-256 over
every action of the games and every value table the searcher computed (rounded to 12 digits).  The
same code gives the same digest on every machine; a change that keeps the searcher's choices and
values keeps it.  `--worlds` and `--tree` pass through to the searcher (`SearchBot`), so that a configuration
other than the default (`--rulesets maumau --tree 2 --worlds 120`) can be digested too.
"""

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_bots"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from searcher import SearchBot  # noqa: E402
from tactician import Tactician  # noqa: E402

from arena import games  # noqa: E402
from engine_seat import start, turn  # noqa: E402
from searcher_timing import OPTIONS, PLAYERS  # noqa: E402


def digest(ruleset, games_count, first_seed, worlds=None, tree=None):
    players = PLAYERS.get(ruleset, 2)
    options = OPTIONS.get(ruleset, {})
    h = hashlib.sha256()
    searched = 0
    for seed in range(first_seed, first_seed + games_count):
        bot, other = SearchBot(worlds, seed=1, tree=tree), Tactician()
        state = games.new_game(ruleset, players, seed, **options)
        log = state.record_events()
        for b in (bot, other):
            start(b, ruleset, players, options)
        searcher = bot.games["g"][0]
        table = searcher.table

        def recorded(*args, **kwargs):
            rows = table(*args, **kwargs)
            h.update(repr([[round(v, 12) for v in row] for row in rows]).encode())
            return rows

        searcher.table = recorded
        while not state.is_over:
            legal = state.legal_actions()
            seat = state.current
            asked = turn(state, legal, log)
            if seat == 0:
                choice = bot.act(asked)
                searched += len(legal) > 1
            else:
                choice = other.act(asked)
            action = legal[asked.index_of(choice)]
            h.update(f"{seat}:{action};".encode())
            state.apply(action)
        print(f"  game {seed}: {searched} searched decisions so far", file=sys.stderr, flush=True)
    return searched, h.hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulesets", default="maumau-online")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0, help="first deal's seed")
    parser.add_argument("--worlds", type=int, default=None, help="worlds a decision (default: the searcher's budget)")
    parser.add_argument("--tree", type=int, default=None,
                        help="2-seat maumau: own decisions chosen by shared nodes (`own_tree.py`; default: `searcher.TREE`)")
    args = parser.parse_args()
    if args.tree is not None and args.tree < 0:
        parser.error(f"--tree must be 0 or more, not {args.tree}")
    for ruleset in args.rulesets.split(","):
        if ruleset not in games.rulesets():
            sys.exit(f"searcher_digest.py: unknown ruleset {ruleset!r} (known: {', '.join(games.rulesets())})")
        searched, hexdigest = digest(ruleset, args.games, args.seed, args.worlds, args.tree)
        print(f"{ruleset:14} {args.games} games  {searched:4} searched decisions  {hexdigest}")


if __name__ == "__main__":
    main()
