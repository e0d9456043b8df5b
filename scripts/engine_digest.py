#!/usr/bin/env python3
"""One digest of everything an engine shows over random games, to compare two versions.

    .venv/bin/python scripts/engine_digest.py moumou --players 2 --games 150
    git worktree add /tmp/old HEAD~1 && (cd /tmp/old && python scripts/engine_digest.py moumou ...)

A refactoring or a speed-up of an engine must not change any game: run this
on the old and the new checkout with the same arguments and compare the two
lines.  Every decision feeds the digest its position, the acting seat's and
the spectator's observations, the legal list, the decision kind and the
seat; the result too.  Actions are picked by a fixed generator (one in ten
the default action), so both runs play the same games while they agree.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import games  # noqa: E402


def digest(ruleset: str, players: int, count: int, options: dict) -> tuple[int, str]:
    """(decisions played, hex digest) over `count` games with seeds 1000, 1001, ..."""
    h = hashlib.sha256()
    decisions = 0
    for game in range(count):
        rng = random.Random(game)
        state = games.new_game(ruleset, players=players, seed=1000 + game, **options)
        while True:
            position = state.to_position()
            seat = state.current
            record = [
                position,
                state.observation(seat).to_dict(),
                state.observation(None).to_dict(),
                [str(a) for a in state.legal_actions()],
                state.decision,
                seat,
                state.is_over,
            ]
            h.update(json.dumps(record, sort_keys=True).encode())
            if state.is_over:
                h.update(json.dumps(state.result().to_dict(), sort_keys=True).encode())
                break
            legal = state.legal_actions()
            action = rng.choice(legal) if rng.random() < 0.9 else state.default_action()
            state.apply(action)
            decisions += 1
    return decisions, h.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ruleset")
    parser.add_argument("--players", type=int, default=None, help="seats (default: the ruleset's default)")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--options", default="{}", help='ruleset options as JSON, e.g. \'{"quick": true}\'')
    args = parser.parse_args(argv)
    if args.ruleset not in games.rulesets():
        parser.error(f"unknown ruleset {args.ruleset!r}; known: {', '.join(games.rulesets())}")
    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as error:
        parser.error(f"--options is not JSON: {error}")
    if not isinstance(options, dict):
        parser.error("--options must be a JSON object")
    info = games.ruleset_info(args.ruleset)
    players = args.players or info.default_players or info.min_players
    try:
        decisions, hexdigest = digest(args.ruleset, players, args.games, options)
    except games.GameError as error:
        parser.error(str(error))
    print(f"{args.ruleset} players={players} games={args.games} options={json.dumps(options, sort_keys=True)} "
          f"decisions={decisions} digest={hexdigest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
