"""A bot whose code works in its first game only: from its second game on, ``act`` raises.

    python tests/bots/tiring_bot.py --arena HOST:PORT --name NAME

As raising_bot.py, its SDK answers the first legal action after each failure and reports it
(Answer.bot_error): no strike, so only that report tells.  `arena check-bot --games 1` plays its
decision games first, so the failures come only in the games after them (stale answers, resume).
"""

import random

from mau_arena_sdk import Bot, run


class TiringBot(Bot):
    def __init__(self) -> None:
        self.games_started = 0
        self.rng = random.Random(3)

    def on_game_start(self, game):
        self.games_started += 1

    def act(self, turn):
        if self.games_started > 1:
            raise RuntimeError(f"tired in game {self.games_started}")
        return self.rng.choice(turn.legal)


if __name__ == "__main__":
    run(TiringBot(), name="tiring")
