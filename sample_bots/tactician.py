"""The tactician: follows the strategy tips of the Moumou guide (seed 000, section 8) and their
equivalents in the other rulesets.

* keep wild cards (Jacks, Queens in Prší/Faraón, Nines in Neuner) for when nothing else fits;
* never play a Moumou 6 without a cover in hand, and cover with the cheapest fitting card;
* play effect cards (draws, skips) when they hurt the next player, the more the closer they are to going out;
* dump high-value cards early; keep suits diverse; chain combos;
* plan the last cards: never end on a card that cannot finish (Moumou 6 and Ace, Mau-Mau Ace...);
* call Mau when it is due, accuse when a window is open and the offender did not call;
* name the suit you hold most of; take the finishing bonus that hurts the opponent most.

Everything is generic over ``turn.legal``, the observation and the ruleset's
facts the arena sends at the start of each game (card points and roles:
wild, draw, skip, cover, no-finish...), so unknown rulesets and verbs still
get sensible play.
"""

from mau_arena_sdk import Bot, Facts, run

#: How much the tactician likes an action that plays no card (a draw beats a pass).
QUIET_VERBS = {"accept": 3, "draw": 2, "stop": 1, "pass": 0}
_NO_FACTS = Facts({})  # an arena that sends none: no card is special


def rank(card):
    return card[0]


def suit(card):
    return None if card[0] == "X" else card[1:2] or None


def suit_counts(hand, facts):
    """How many cards of each suit the hand holds (wilds left out: they fit any suit anyway)."""
    counts = {s: 0 for s in "shdc"}
    for card in hand:
        s = suit(card)
        if s in counts and not facts.has_role(card, "wild"):
            counts[s] += 1
    return counts


def cover_ranks(card, facts):
    """The ranks that cover this card, when its player must cover it at once (Moumou's 6); else empty."""
    if not facts.has_role(card, "cover"):
        return ()
    return tuple(facts.data["cards"][card].get("rule", {}).get("cover_ranks", ()))


def is_attack(card, facts):
    """Makes the next player draw or lose a turn."""
    return facts.has_role(card, "draw") or facts.has_role(card, "skip")


def next_player(obs):
    """The seat that plays after us (skipping seats that are out), or None if unknown."""
    seats = obs.get("seats") or ()
    me = obs.get("seat")
    if me is None or not seats:
        return None
    step = -1 if obs.get("direction", 1) == -1 else 1
    for k in range(1, len(seats)):
        candidate = seats[(me + step * k) % len(seats)]
        if candidate.status in ("", "active"):
            return candidate.seat
    return None


def _offender_called(obs):
    """Whether the seat in an open accusation window said its word; None if the observation does not say."""
    for key in ("window", "call_window"):
        window = obs.get(key)
        if hasattr(window, "get"):
            for flag in ("called", "announced"):
                if flag in window:
                    return bool(window[flag])
    return None


class Tactician(Bot):
    name = "tactician"

    def __init__(self):
        self.facts = {}  # game id -> Facts (games may overlap with max_games > 1)

    def on_game_start(self, game):
        self.facts[game.game_id] = game.facts or _NO_FACTS

    def on_game_end(self, game, result):
        self.facts.pop(game.game_id, None)

    def act(self, turn):
        obs = turn.observation
        facts = self.facts.get(turn.game_id, _NO_FACTS)
        hand = list(obs.get("hand") or ())
        legal = turn.legal
        plays = [a for a in legal if a.verb == "play" and a.cards]

        if turn.ruleset == "mose":
            return self.act_mose(turn, facts)
        if any(a.verb == "suit" for a in legal):
            return self.choose_suit(legal, hand, facts)
        if any(a.verb == "bonus" for a in legal):
            return self.choose_bonus(legal)
        if any(a.verb == "accuse" for a in legal):
            called = _offender_called(obs)
            accuse = next(a for a in legal if a.verb == "accuse")
            if called is False:
                return accuse
            return next((a for a in legal if a.verb == "pass"), legal[0])
        calls = [a for a in legal if a.verb == "call"]
        # Online Mau-Mau also offers the call with 3 cards, where it is false (5 cards, RULES.md B-7).
        due = turn.ruleset != "maumau-online" or len(hand) <= 2
        if calls and ((plays and due) or turn.decision == "call"):
            return calls[0]  # say the word when it is due: the play comes next

        next_seat = next_player(obs)
        sizes = obs.get("hand_sizes") or ()
        next_size = sizes[next_seat] if next_seat is not None and next_seat < len(sizes) else 5
        decision = turn.decision
        me = obs.get("seat")
        danger = min((n for i, n in enumerate(sizes) if i != me and n), default=5)  # fewest cards of an opponent

        def score(action):
            if action.verb == "call":
                return -100  # a call without a play to follow is a false call
            if not action.cards:
                if "draw" in action.verb:
                    return 2
                return QUIET_VERBS.get(action.verb, 1)
            return self.score_play(action.cards, hand, facts, decision, plays, next_size, danger)

        return max(legal, key=score)

    # ------------------------------------------------------------------ pieces
    def score_play(self, cards, hand, facts, decision, plays, next_size, danger=5):
        card = cards[0]
        rest = list(hand)
        for c in cards:
            if c in rest:
                rest.remove(c)
        score = 100.0 + sum(facts.points(c) for c in cards) + 15 * (len(cards) - 1)

        if decision == "cover":
            # Any cover will do: spend the cheapest fitting non-wild first.
            return score - (40 if facts.has_role(card, "wild") else 0) - facts.points(card) * 2

        others = [a for a in plays if not any(facts.has_role(c, "wild") for c in a.cards)]
        if facts.has_role(card, "wild") and others and len(rest) > 0:
            # Keep the wild for when nothing else fits, unless someone is about to go out:
            # then an expensive wild is a liability.
            score -= 60 if danger > 2 else 10
        if is_attack(card, facts):
            score += 20 + (25 if next_size <= 2 else 0)
        covers = cover_ranks(card, facts)
        if covers and decision != "combo":
            has_cover = any(rank(c) in covers or suit(c) == suit(card) or facts.has_role(c, "wild") for c in rest)
            score += 10 if has_cover else -80

        if not rest:
            score += 1000  # going out (the engine only offers it when allowed)
        elif len(rest) == 1:
            if facts.has_role(rest[0], "no-finish"):
                score -= 70  # would leave a last card that cannot finish
            if facts.has_role(card, "no-finish"):
                score += 40  # get rid of it while another card remains to finish with
        if rest:
            counts = suit_counts(rest, facts)
            score += 2 * sum(1 for n in counts.values() if n)  # keep suits diverse
        return score

    def act_mose(self, turn, facts):
        """Mose (a rummy): meld and lay off as much as possible, win wilds back by swaps, keep the
        round's wild rank, discard the costliest other card, and draw from the stock."""
        wild = turn.observation.get("wild_rank")

        def score(action):
            cards = action.cards
            if action.verb == "meld":
                return 400 + 10 * len(cards)
            if action.verb == "layoff":
                return 300 + 10 * len(cards)
            if action.verb == "swap":
                return 250 if action.args[-1:] == ("take",) else 200
            if action.verb == "discard" and cards:
                card = cards[0]
                return 100 + facts.points(card) - (90 if rank(card) == wild else 0)
            if "draw" in action.verb:
                return 50
            if action.verb == "take":
                return 20
            return QUIET_VERBS.get(action.verb, 1)

        return max(turn.legal, key=score)

    def choose_suit(self, legal, hand, facts):
        counts = suit_counts(hand, facts)
        points = {s: sum(facts.points(c) for c in hand if suit(c) == s and not facts.has_role(c, "wild")) for s in counts}

        def score(action):
            s = action.args[0] if action.args else ""
            return (counts.get(s, -1), points.get(s, -1))

        return max((a for a in legal if a.verb == "suit"), key=score)

    def choose_bonus(self, legal):
        # Adding points to the opponents pushes them toward the match limit; it hurts most with one opponent.
        return next((a for a in legal if a.verb == "bonus" and a.args == ("others",)), legal[0])


if __name__ == "__main__":
    run(Tactician(), name="tactician")
