"""Greedy: shed the most points first.  Prefers plays of high-value cards, keeps combos going, avoids drawing.

Generic over every ruleset: it only reads ``turn.legal`` (and, for the suit
choice, its own hand), so it also plays rulesets it has never heard of.
"""

from _cards import suit_counts, value

from sdk import Bot, run

_FALLBACK = {"accept": 3, "draw": 2, "stop": 1, "pass": 0}


class GreedyBot(Bot):
    name = "greedy"

    def act(self, turn):
        ruleset = turn.ruleset
        hand = turn.observation.hand
        has_play = any(a.cards for a in turn.legal)

        def score(action):
            if action.verb == "suit" and action.args:
                return 50 + suit_counts(hand, ruleset).get(action.args[0], 0)
            if action.verb == "call":  # with more than 2 cards an offered MAU-MAU call is false (B-7)
                return 500 if (has_play and len(hand) <= 2) or turn.decision == "call" else -1
            if action.verb == "bonus":
                return 10 if action.args == ("others",) else 5
            if action.verb == "accuse":
                return -1  # never risk a false accusation
            if action.cards:
                return 100 + 10 * len(action.cards) + sum(value(c, ruleset) for c in action.cards)
            if "draw" in action.verb:
                return 2
            return _FALLBACK.get(action.verb, 1)

        return max(turn.legal, key=score)


if __name__ == "__main__":
    run(GreedyBot(), name="greedy")
