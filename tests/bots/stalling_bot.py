"""A bot that wants the game never to end: it takes the pile, draws, passes, accepts, stops or discards
whenever it may, and plays a card only when it must (the attack on the runner's unrated abort).

    arena match tests/bots/stalling_bot.py OTHER_BOT --local ...
"""

from mau_arena_sdk import Bot, run

STALL_VERBS = ("take", "draw", "pass", "accept", "believe", "stop", "discard")


class StallingBot(Bot):
    name = "stalling"

    def act(self, turn):
        for verb in STALL_VERBS:
            for action in turn.legal:
                if action.verb == verb:
                    return action
        return turn.legal[0]


if __name__ == "__main__":
    run(StallingBot(), name="stalling", log_level="WARNING")
