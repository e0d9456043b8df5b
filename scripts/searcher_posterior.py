"""How much the opponent's history tells of its hand: `sample_bots/posterior.py` against the real hand, in-process.

    python scripts/searcher_posterior.py --seeds 9000:9050 [--hands 20] [--me tactician|searcher]

Plays 2-seat `maumau` games (the seat observed plays as the tactician, or as the searcher, in seat 0 and
then seat 1 of each deal; its opponent is the tactician) and at each of the seat's decisions with more than
one legal action draws `--hands` opponent hands from `HandPosterior` and prints, over all those decisions:

* the share of the real hand's cards a drawn hand holds (`overlap`), beside that of a uniform deal of the
  same pool (`uniform`) and that of the worlds the searcher drew before (`tells`: the engine's history
  sampler judged by `inference.CardTracker`'s voids and tells, up to 8 deals a world), on the same decisions;
* on how many decisions the model was on (`active`: two seats, before the first reshuffle) and found an
  assignment (`settled`);
* `exact`: on how many decisions the real assignment of cards to the opponent's slots (the cards it was
  dealt and drew, in order) agrees with every decision the model reads (it must be all of them: a
  disagreement is a misread rule or choice);
* the milliseconds the posterior took per decision (CPU, this machine, under its load).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_bots"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from inference import CardTracker  # noqa: E402
from pimc import Budget, Searcher  # noqa: E402
from posterior import HandPosterior  # noqa: E402
from play_model import PlayModel  # noqa: E402
from searcher import SearchBot  # noqa: E402
from tactician import Tactician  # noqa: E402

from arena import games  # noqa: E402
from arena.games.worlds import Tracker  # noqa: E402
from engine_seat import start  # noqa: E402
import engine_seat  # noqa: E402
from mau_arena_sdk import Facts  # noqa: E402


def play(seed: int, me: int, hands: int, searcher: bool, totals: dict) -> None:
    ruleset = "maumau"
    bot = SearchBot(seed=seed) if searcher else Tactician()
    other = Tactician()
    info = start(bot, ruleset)
    start(other, ruleset)
    facts = info.facts or Facts({})
    posterior = HandPosterior(facts, list(facts.data.get("deck") or ()) or games.ruleset_info(ruleset).deck(2))
    rng = random.Random(seed * 2 + me)
    cards = CardTracker(facts, policy_tells=True, play_model=PlayModel(facts))  # the searcher's worlds before
    history = Tracker(ruleset)
    previous = Searcher(ruleset, {}, Tactician().act, Budget(worlds=1, tries=8))
    state = games.new_game(ruleset, 2, seed)
    log = state.record_events()
    opp = 1 - me
    real = list(state.to_position()["hands"][opp])  # the opponent's slots' real cards, in order
    while not state.is_over:
        legal, seat = state.legal_actions(), state.current
        turn = engine_seat.turn(state, legal, log)
        if seat == me and len(legal) > 1:
            began = time.process_time()
            posterior.update(turn.history, turn.observation)
            drawn = posterior.hands(rng, hands)
            totals["ms"] += 1000 * (time.process_time() - began)
            totals["decisions"] += 1
            truth = state.to_position()["hands"][opp]
            if posterior.active:
                totals["active"] += 1
                totals["exact"] += posterior.wrong(real) == 0 and posterior.placed(real)
                pool = len(posterior.pool()) - len(posterior.exits)
                totals["uniform"] += len(truth) / pool if pool else 0
                if drawn is not None:
                    totals["settled"] += 1
                    totals["overlap"] += sum(len(set(h) & set(truth)) / len(truth) for h in drawn) / len(drawn)
                    cards.update(turn.history)
                    history.update(turn.history)
                    sampler = previous.sampler(turn.observation, history)
                    visible = len(turn.observation.get("discard") or ())
                    old = [previous.world(sampler, rng, cards, me, visible).to_position()["hands"][opp] for _ in drawn]
                    totals["tells"] += sum(len(set(h) & set(truth)) / len(truth) for h in old) / len(old)
        choice = (bot if seat == me else other).act(turn)
        before = list(state.to_position()["hands"][opp])
        state.apply(legal[turn.index_of(choice)])
        if not state.is_over:
            after = state.to_position()["hands"][opp]
            real.extend(c for c in after if c not in before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="9000:9050", help="first:last (exclusive) deal seeds")
    parser.add_argument("--hands", type=int, default=20, help="opponent hands drawn per decision")
    parser.add_argument("--me", choices=("tactician", "searcher"), default="tactician")
    args = parser.parse_args()
    try:
        first, last = (int(x) for x in args.seeds.split(":"))
    except ValueError:
        parser.error(f"--seeds wants first:last, got {args.seeds!r}")
    totals = dict.fromkeys(("ms", "decisions", "active", "exact", "uniform", "settled", "overlap", "tells"), 0.0)
    for seed in range(first, last):
        for me in (0, 1):
            play(seed, me, args.hands, args.me == "searcher", totals)
        t = totals
        print(f"seed {seed}: {int(t['decisions'])} decisions, active {int(t['active'])}, exact {int(t['exact'])}, "
              f"settled {int(t['settled'])}, overlap {t['overlap'] / max(1, t['settled']):.3f} "
              f"(tells {t['tells'] / max(1, t['settled']):.3f}) "
              f"(uniform {t['uniform'] / max(1, t['active']):.3f}), {t['ms'] / max(1, t['decisions']):.1f} ms",
              flush=True)


if __name__ == "__main__":
    main()
