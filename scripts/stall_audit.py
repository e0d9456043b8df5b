#!/usr/bin/env python3
"""How long seats that want a game never to end can make it last: decisions, and how it ended.

    .venv/bin/python scripts/stall_audit.py --rulesets ddmau,mose --policy keeper --options '{"decision_limit": 0}'

The match runner aborts a game unrated at 50,000 decisions; a seat losing a game it could stall that far
would erase its loss.  Every seat plays one policy (all seats colluding, the worst case):

* ``staller``: the first legal action of take, draw, pass, accept, believe, stop, discard (in that order),
  else the first: never a card it need not play;
* ``keeper``: a random legal action among those that neither end the hand (round) nor the game, tried on a
  clone; a random one when every action ends it;
* ``maximizer``: as ``keeper``, but the first of those by verb: call (Mose contested: a False Mose), layoff
  (there: a False Play), take, pass, draw, accept, believe, stop, discard; then any.

Each game runs until it ends or ``--cap`` decisions (default 60,000, past the runner's abort); a line per
game: ruleset, players, policy, options, decisions, how it ended, seconds.  Engine only, in-process.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import games  # noqa: E402
from arena.match.runner import DEFAULT_MAX_DECISIONS  # noqa: E402

STALL_VERBS = ("take", "draw", "pass", "accept", "believe", "stop", "discard")


def hand_of(state: games.GameState) -> tuple:
    """Which hand (Mose: round) is being played, and whether the game is over."""
    return (getattr(state, "hand_number", None) or getattr(state, "round", None), state.is_over)


def staller(state: games.GameState, rng: random.Random) -> games.Action:
    legal = state.legal_actions()
    for verb in STALL_VERBS:
        for action in legal:
            if action.verb == verb:
                return action
    return legal[0]


def keeper(state: games.GameState, rng: random.Random) -> games.Action:
    legal = state.legal_actions()
    now = hand_of(state)
    keeping = []
    for action in legal:
        trial = state.clone()
        trial.apply(action)
        if hand_of(trial) == now:
            keeping.append(action)
    return rng.choice(keeping or legal)


MAXIMIZER_VERBS = ("call", "layoff", "take", "pass", "draw", "accept", "believe", "stop", "discard")


def maximizer(state: games.GameState, rng: random.Random) -> games.Action:
    legal = state.legal_actions()
    now = hand_of(state)
    keeping = []
    for action in legal:
        trial = state.clone()
        trial.apply(action)
        if hand_of(trial) == now:
            keeping.append(action)
    for verb in MAXIMIZER_VERBS:
        for action in keeping:
            if action.verb == verb:
                return action
    return rng.choice(keeping or legal)


POLICIES = {"staller": staller, "keeper": keeper, "maximizer": maximizer}


def play(ruleset: str, players: int, policy: str, options: dict, cap: int, seed: int) -> tuple[int, str, float]:
    state = games.new_game(ruleset, players=players, seed=seed, **options)
    rng = random.Random(f"{ruleset}/{players}/{seed}")
    choose = POLICIES[policy]
    began = time.perf_counter()
    decisions = 0
    while not state.is_over and decisions < cap:
        state.apply(choose(state, rng))
        decisions += 1
    ended = state.result().reason if state.is_over else f"still running at {cap}"
    return decisions, ended, time.perf_counter() - began


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", default="", help="comma-separated (default: every ruleset)")
    parser.add_argument("--players", default="", help="comma-separated table sizes (default: each ruleset's "
                                                      "smallest and largest)")
    parser.add_argument("--policy", choices=sorted(POLICIES), default="keeper")
    parser.add_argument("--options", default="{}", help="ruleset options as JSON, e.g. '{\"decision_limit\": 0}'")
    parser.add_argument("--cap", type=int, default=60_000, help="decisions after which a game is cut")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as error:
        parser.error(f"--options is not JSON: {error}")
    if not isinstance(options, dict):
        parser.error("--options must be a JSON object")
    if args.cap < 1:
        parser.error("--cap must be positive")
    names = [n.strip() for n in args.rulesets.split(",") if n.strip()] or games.rulesets()
    for name in names:
        if name not in games.rulesets():
            parser.error(f"unknown ruleset {name!r}; known: {', '.join(games.rulesets())}")
    try:
        sizes = [int(p) for p in args.players.split(",") if p.strip()]
    except ValueError:
        parser.error(f"--players takes whole numbers, not {args.players!r}")
    for name in names:
        info = games.ruleset_info(name)
        for players in sizes or sorted({info.min_players, info.max_players}):
            try:
                decisions, ended, seconds = play(name, players, args.policy, options, args.cap, args.seed)
            except games.OptionError as error:
                print(f"{name}, {players} players: {error}")
                continue
            over = " (past the runner's abort)" if decisions >= DEFAULT_MAX_DECISIONS else ""
            print(f"{name}, {players} players, {args.policy}, {json.dumps(options)}: {decisions} decisions{over}; "
                  f"{ended}; {seconds:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
