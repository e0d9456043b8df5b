"""An SDK bot with scripted faults, for `arena match` tests; answers the first legal action.

    python tests/bots/scripted_bot.py [--sleep-ms MS --slow-turns K] [--crash-after N --crash-marker FILE]
                                      --arena HOST:PORT --name NAME ...

--sleep-ms MS     think MS milliseconds on each of the first K decisions of every game (default K: 3)
--crash-after N   the process dies (exit status 5) on its Nth decision, once: only if FILE does not
                  exist yet (it is created first), so a restarted bot plays on normally
"""

import argparse
import os
import sys
import threading
import time
from pathlib import Path


from mau_arena_sdk import Bot, run


class ScriptedBot(Bot):
    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.decisions = 0
        self.per_game: dict[str, int] = {}
        self.lock = threading.Lock()

    def act(self, turn):
        with self.lock:
            self.decisions += 1
            count = self.decisions
            self.per_game[turn.game_id] = self.per_game.get(turn.game_id, 0) + 1
            in_game = self.per_game[turn.game_id]
        options = self.options
        if options.crash_after and count == options.crash_after:
            marker = Path(options.crash_marker)
            try:
                marker.touch(exist_ok=False)
            except FileExistsError:
                pass
            else:
                print(f"scripted_bot: crashing on purpose at decision {count}", file=sys.stderr, flush=True)
                os._exit(5)
        if options.sleep_ms and in_game <= options.slow_turns:
            time.sleep(options.sleep_ms / 1000)  # the bot's "thinking", not a synchronisation
        return turn.legal[0]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--sleep-ms", type=int, default=0)
    parser.add_argument("--slow-turns", type=int, default=3)
    parser.add_argument("--crash-after", type=int, default=0)
    parser.add_argument("--crash-marker", default="")
    options, rest = parser.parse_known_args()
    if options.crash_after and not options.crash_marker:
        parser.error("--crash-after needs --crash-marker")
    run(ScriptedBot(options), name="scripted", log_level="WARNING", argv=rest)
