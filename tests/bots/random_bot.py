"""A well-behaved bot written with the SDK: picks a random legal action.

    python tests/bots/random_bot.py --arena HOST:PORT --name NAME --games-limit 1
"""

import random
import sys

from mau_arena_sdk import Bot, run


class RandomBot(Bot):
    def __init__(self) -> None:
        self.rng = random.Random(" ".join(sys.argv))

    def act(self, turn):
        return self.rng.choice(turn.legal)


if __name__ == "__main__":
    run(RandomBot(), name="random", log_level="WARNING")
