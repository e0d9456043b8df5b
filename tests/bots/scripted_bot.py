"""An SDK bot with scripted faults, for `arena match` tests; answers the first legal action.

    python tests/bots/scripted_bot.py [--sleep-ms MS --slow-turns K] [--crash-after N --crash-marker FILE]
                                      --arena HOST:PORT --name NAME ...

--sleep-ms MS     think MS milliseconds on each of the first K decisions of every game (default K: 3)
--crash-after N   the process dies (exit status 5) on its Nth decision, once: only if FILE does not
                  exist yet (it is created first), so a restarted bot plays on normally
--hang-after N    the process hangs on its Nth decision, alive, once: only if FILE (--hang-marker) does
                  not exist yet (it is created first, holding the pid), so a restarted bot plays on.
                  --hang stop (the default) stops it with SIGSTOP (nothing of it runs: no answer, no
                  keepalive ping, no signal handler until SIGCONT); --hang loop spins in act for ever, the
                  rest of the process still running, and blocks SIGTERM and SIGINT from the start (a
                  process that ignores them, as code stuck in a C extension never gets back to Python's
                  signal handlers)
"""

import argparse
import os
import signal
import sys
import threading
import time

if __name__ == "__main__" and "--hang" in sys.argv and sys.argv[sys.argv.index("--hang") + 1:][:1] == ["loop"]:
    # --hang loop: blocked before any thread starts (grpc's too), so every thread inherits the mask and no
    # handler ever sees a SIGTERM or SIGINT
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})

from mau_arena_sdk import Bot, run  # noqa: E402


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
        if options.crash_after and count == options.crash_after and _first(options.crash_marker):
            print(f"scripted_bot: crashing on purpose at decision {count}", file=sys.stderr, flush=True)
            os._exit(5)
        if options.hang_after and count == options.hang_after and _first(options.hang_marker):
            print(f"scripted_bot: hanging on purpose ({options.hang}) at decision {count}", file=sys.stderr,
                  flush=True)
            if options.hang == "stop":
                os.kill(os.getpid(), signal.SIGSTOP)
            while True:  # --hang loop (SIGTERM and SIGINT blocked since the start)
                pass
        if options.sleep_ms and in_game <= options.slow_turns:
            time.sleep(options.sleep_ms / 1000)  # the bot's "thinking", not a synchronisation
        return turn.legal[0]


def _first(marker: str) -> bool:
    """Whether this is the first process to get here: it creates ``marker`` (holding its pid)."""
    try:
        with open(marker, "x") as created:
            created.write(str(os.getpid()))
    except FileExistsError:
        return False
    return True


if __name__ == "__main__":
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--sleep-ms", type=int, default=0)
    parser.add_argument("--slow-turns", type=int, default=3)
    parser.add_argument("--crash-after", type=int, default=0)
    parser.add_argument("--crash-marker", default="")
    parser.add_argument("--hang-after", type=int, default=0)
    parser.add_argument("--hang", choices=("stop", "loop"), default="stop")
    parser.add_argument("--hang-marker", default="")
    options, rest = parser.parse_known_args()
    if options.crash_after and not options.crash_marker:
        parser.error("--crash-after needs --crash-marker")
    if options.hang_after and not options.hang_marker:
        parser.error("--hang-after needs --hang-marker")
    run(ScriptedBot(options), name="scripted", log_level="WARNING", argv=rest)
