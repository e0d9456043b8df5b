"""An SDK bot that thinks a little before each random legal action (``THINK_MS``, default 30).

    THINK_MS=40 python tests/bots/thinking_bot.py --arena HOST:PORT --name NAME --parallel 2

Games last long enough that some are always in flight, for tests that kill a host mid-game.
"""

import os
import random
import sys
import time

from mau_arena_sdk import Bot, run


class ThinkingBot(Bot):
    def __init__(self) -> None:
        self.rng = random.Random(" ".join(sys.argv))
        self.think_s = int(os.environ.get("THINK_MS", "30")) / 1000

    def act(self, turn):
        time.sleep(self.think_s)
        return self.rng.choice(turn.legal)


if __name__ == "__main__":
    run(ThinkingBot(), name="thinker", log_level="INFO")
