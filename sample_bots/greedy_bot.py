"""Greedy: shed the most points first.  Prefers plays of high-value cards, keeps combos going, avoids drawing.

Generic over every ruleset: it reads ``turn.legal``, its own hand (for the
suit choice) and the ruleset's facts the arena sends at the start of each
game (card points and roles), so it also plays rulesets it has never heard of.
"""

from mau_arena_sdk import Bot, Facts, run

_FALLBACK = {"accept": 3, "draw": 2, "stop": 1, "pass": 0}
_NO_FACTS = Facts({})  # an arena that sends none: every card is worth the same


def suit_counts(hand, facts):
    """How many cards of each suit the hand holds (wilds left out: they fit any suit anyway)."""
    counts = {s: 0 for s in "shdc"}
    for card in hand:
        if card[1:2] in counts and card[0] != "X" and not facts.has_role(card, "wild"):
            counts[card[1]] += 1
    return counts


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self):
        self.facts = {}  # game id -> Facts (games may overlap with max_games > 1)

    def on_game_start(self, game):
        self.facts[game.game_id] = game.facts or _NO_FACTS

    def on_game_end(self, game, result):
        self.facts.pop(game.game_id, None)

    def act(self, turn):
        facts = self.facts.get(turn.game_id, _NO_FACTS)
        observation = turn.observation
        hand = observation.hand
        wild = observation.get("wild_rank")  # Mose: the round's wild rank costs more
        has_play = any(a.cards for a in turn.legal)

        def score(action):
            if action.verb == "suit" and action.args:
                return 50 + suit_counts(hand, facts).get(action.args[0], 0)
            if action.verb == "call":  # with more than 2 cards an offered MAU-MAU call is false (B-7)
                return 500 if (has_play and len(hand) <= 2) or turn.decision == "call" else -1
            if action.verb == "bonus":
                return 10 if action.args == ("others",) else 5
            if action.verb == "accuse":
                return -1  # never risk a false accusation
            if action.cards:
                return 100 + 10 * len(action.cards) + sum(facts.points(c, wild) for c in action.cards)
            if "draw" in action.verb:
                return 2
            return _FALLBACK.get(action.verb, 1)

        return max(turn.legal, key=score)


if __name__ == "__main__":
    run(GreedyBot(), name="greedy")
