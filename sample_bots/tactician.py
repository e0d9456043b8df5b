"""The tactician: follows the strategy tips of the Moumou guide (seed 000, section 8) and their
equivalents in the other rulesets.

* keep wild cards (Jacks, Queens in Prší/Faraón, Nines in Neuner) for when nothing else fits;
* never play a Moumou 6 without a cover in hand, and cover with the cheapest fitting card;
* play effect cards (draws, skips) when they hurt the next player, the more the closer they are to going out;
* dump high-value cards early; keep suits diverse; chain combos;
* plan the last cards: never end on a card that cannot finish (Moumou 6 and Ace, Mau-Mau Ace...);
* call Mau when it is due, accuse when a window is open and the offender did not call;
* name the suit you hold most of; take the finishing bonus that hurts the opponent most.

Everything is generic over ``turn.legal`` and the observation, with small
ruleset-specific tweaks keyed by ``turn.ruleset``, so unknown rulesets and
verbs still get sensible play.
"""

from _cards import COVER_RANKS, cannot_finish, is_attack, is_wild, rank, suit, suit_counts, value

from sdk import Bot, run

_LOW = {"accept": 3, "draw": 2, "stop": 1, "pass": 0}


def _next_seat(obs):
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

    def act(self, turn):
        obs = turn.observation
        ruleset = turn.ruleset
        hand = list(obs.get("hand") or ())
        legal = turn.legal
        plays = [a for a in legal if a.verb == "play" and a.cards]

        if ruleset == "mose":
            return self.act_mose(turn)
        if any(a.verb == "suit" for a in legal):
            return self.choose_suit(legal, hand, ruleset)
        if any(a.verb == "bonus" for a in legal):
            return self.choose_bonus(legal)
        if any(a.verb == "accuse" for a in legal):
            called = _offender_called(obs)
            accuse = next(a for a in legal if a.verb == "accuse")
            if called is False:
                return accuse
            return next((a for a in legal if a.verb == "pass"), legal[0])
        calls = [a for a in legal if a.verb == "call"]
        if calls and (plays or turn.decision == "call"):
            return calls[0]  # say the word when it is due: the play comes next

        next_seat = _next_seat(obs)
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
                return _LOW.get(action.verb, 1)
            return self.score_play(action.cards, hand, ruleset, decision, plays, next_size, danger)

        return max(legal, key=score)

    # ------------------------------------------------------------------ pieces
    def score_play(self, cards, hand, ruleset, decision, plays, next_size, danger=5):
        card = cards[0]
        rest = list(hand)
        for c in cards:
            if c in rest:
                rest.remove(c)
        score = 100.0 + sum(value(c, ruleset) for c in cards) + 15 * (len(cards) - 1)

        if decision == "cover":
            # Any cover will do: spend the cheapest fitting non-wild first.
            return score - (40 if is_wild(card, ruleset) else 0) - value(card, ruleset) * 2

        others = [a for a in plays if not any(is_wild(c, ruleset) for c in a.cards)]
        if is_wild(card, ruleset) and others and len(rest) > 0:
            # Keep the wild for when nothing else fits, unless someone is about to go out:
            # then an expensive wild is a liability.
            score -= 60 if danger > 2 else 10
        if is_attack(card, ruleset):
            score += 20 + (25 if next_size <= 2 else 0)
        if rank(card) in COVER_RANKS.get(ruleset, ()) and decision != "combo":
            has_cover = any(
                rank(c) in COVER_RANKS[ruleset] or suit(c) == suit(card) or is_wild(c, ruleset) for c in rest
            )
            score += 10 if has_cover else -80

        if not rest:
            score += 1000  # going out (the engine only offers it when allowed)
        elif len(rest) == 1:
            if cannot_finish(rest[0], ruleset):
                score -= 70  # would leave a last card that cannot finish
            if cannot_finish(card, ruleset):
                score += 40  # get rid of it while another card remains to finish with
        if rest:
            counts = suit_counts(rest, ruleset)
            score += 2 * sum(1 for n in counts.values() if n)  # keep suits diverse
        return score

    def act_mose(self, turn):
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
                return 100 + value(card, "mose") - (90 if rank(card) == wild else 0)
            if "draw" in action.verb:
                return 50
            if action.verb == "take":
                return 20
            return _LOW.get(action.verb, 1)

        return max(turn.legal, key=score)

    def choose_suit(self, legal, hand, ruleset):
        counts = suit_counts(hand, ruleset)
        points = {s: sum(value(c, ruleset) for c in hand if suit(c) == s and not is_wild(c, ruleset)) for s in counts}

        def score(action):
            s = action.args[0] if action.args else ""
            return (counts.get(s, -1), points.get(s, -1))

        return max((a for a in legal if a.verb == "suit"), key=score)

    def choose_bonus(self, legal):
        # Adding points to the opponents pushes them toward the match limit; it hurts most with one opponent.
        return next((a for a in legal if a.verb == "bonus" and a.args == ("others",)), legal[0])


if __name__ == "__main__":
    run(Tactician(), name="tactician")
