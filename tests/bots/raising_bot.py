"""A bot whose code fails on every decision: ``act`` raises.

    python tests/bots/raising_bot.py --arena HOST:PORT --name NAME

The SDK answers the first legal action each time and reports the failure (Answer.bot_error), so the
bot keeps playing, without strikes, and the arena counts one error per decision.
"""

from mau_arena_sdk import Bot, run


class RaisingBot(Bot):
    def act(self, turn):
        raise RuntimeError(f"no idea what to do at decision {turn.request_id}")


if __name__ == "__main__":
    run(RaisingBot(), name="raiser")
