"""A bot whose ``act`` always chooses an action that is never legal ("play ZZ").

    python tests/bots/illegal_choice_bot.py --arena HOST:PORT --name NAME

The SDK answers the first legal action instead and reports the bad choice (Answer.bot_error), so
the arena never strikes it: only that report tells that the bot's own choices were all wrong.
"""

from mau_arena_sdk import Bot, run


class IllegalChoiceBot(Bot):
    def act(self, turn):
        return "play ZZ"


if __name__ == "__main__":
    run(IllegalChoiceBot(), name="illegal-choice")
