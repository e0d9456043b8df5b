"""A well-behaved bot written with the SDK: picks a random legal action.

    python tests/bots/random_bot.py --arena HOST:PORT --name NAME --games-limit 1
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout without installing

from sdk import Bot, run  # noqa: E402


class RandomBot(Bot):
    def __init__(self) -> None:
        self.rng = random.Random(" ".join(sys.argv))

    def act(self, turn):
        return self.rng.choice(turn.legal)


if __name__ == "__main__":
    run(RandomBot(), name="random", log_level="WARNING")
