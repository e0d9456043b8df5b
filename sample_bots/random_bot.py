"""The baseline: a uniformly random choice among the legal actions (plays every ruleset)."""

import random

from mau_arena_sdk import Bot, run


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def act(self, turn):
        return self.rng.choice(turn.legal)


if __name__ == "__main__":
    run(RandomBot(), name="random")
