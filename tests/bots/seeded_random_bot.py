"""A random legal action from a fixed seed: the same choices in every run, for tests whose outcome must not
depend on luck (`arena match --local` makes one instance per game, so every game starts the same stream).

    arena match tests/bots/seeded_random_bot.py OTHER_BOT --local ...
"""

import random

from mau_arena_sdk import Bot, run


class SeededRandomBot(Bot):
    name = "seeded_random"

    def __init__(self, seed: int = 20261127) -> None:
        self.rng = random.Random(seed)

    def act(self, turn):
        return self.rng.choice(turn.legal)


if __name__ == "__main__":
    run(SeededRandomBot(), name="seeded_random", log_level="WARNING")
