"""The tactician's choices, made faster for the searcher's rollouts.

`QuickTactician` picks exactly the action `tactician.Tactician` picks over the wire, but reads
each card's points and roles from tables built once per game's facts instead of asking the
`Facts` for every card of every candidate play (a rollout asks the policy thousands of times a
decision: the tactician was half of a rollout's time).  The rare decisions (naming a suit, a
finishing bonus, an accusation window, everything in Mose) are the tactician's own code.

One difference of input, none of choice: over the wire an observation carries the seats
(`seats`, with their statuses), from which the tactician finds the next player and its hand size
("attack a next player close to going out").  An engine observation, which the rollouts see,
has no `seats`: there the quick tactician finds the next seat the same way from `seat`,
`direction` and `seat_count` (every seat of a shedding hand is "active" on the wire).  Without
that, rollout opponents never saw a next player close to going out, and played unlike the real
tactician at the end of a hand, where it matters most.
"""

from __future__ import annotations

from tactician import QUIET_VERBS, Tactician, next_player, rank, suit


class CardTable:
    """One game's facts as plain lookups: points, and the roles the tactician's scoring asks about."""

    __slots__ = ("points", "wild", "attack", "covers", "no_finish", "plain_suit")

    def __init__(self, facts) -> None:
        cards = facts.data.get("cards") or {}
        self.points = {card: facts.points(card) for card in cards}
        self.wild = frozenset(card for card in cards if facts.has_role(card, "wild"))
        self.attack = frozenset(card for card in cards if facts.has_role(card, "draw") or facts.has_role(card, "skip"))
        self.covers = {card: tuple((cards[card].get("rule") or {}).get("cover_ranks", ()))
                       for card in cards if facts.has_role(card, "cover")}
        self.covers = {card: ranks for card, ranks in self.covers.items() if ranks}
        self.no_finish = frozenset(card for card in cards if facts.has_role(card, "no-finish"))
        # the suit `suit_counts` counts a card under (None: a wild, or no suit)
        self.plain_suit = {card: (None if card in self.wild else suit(card)) for card in cards}

    def suits_held(self, cards) -> int:
        """How many of the four suits the cards hold, wilds left out (`tactician.suit_counts`, counted)."""
        plain = self.plain_suit
        held = set()
        for card in cards:
            s = plain[card] if card in plain else suit(card)
            if s is not None and s in "shdc":
                held.add(s)
        return len(held)


def _next_of(obs):
    """The next player's seat, as the tactician finds it over the wire (`tactician.next_player`)."""
    if obs.get("seats"):
        return next_player(obs)
    me, count = obs.get("seat"), obs.get("seat_count")
    if me is None or not count or count < 2:
        return None
    step = -1 if obs.get("direction", 1) == -1 else 1
    return (me + step) % count


class QuickTactician(Tactician):
    """`Tactician` with its card scoring from `CardTable`s: the same choices, a few times faster."""

    name = "quick-tactician"

    def __init__(self):
        super().__init__()
        self._tables = {}  # id(facts) -> (facts, CardTable): the facts are kept so the id stays theirs

    def table(self, facts) -> CardTable:
        entry = self._tables.get(id(facts))
        if entry is None or entry[0] is not facts:
            entry = self._tables[id(facts)] = (facts, CardTable(facts))
        return entry[1]

    def act(self, turn):
        legal = turn.legal
        if turn.ruleset == "mose":
            return super().act(turn)
        obs = turn.observation
        facts = self.facts.get(turn.game_id)
        if facts is None:
            return super().act(turn)
        table = self.table(facts)
        hand = obs.get("hand") or ()
        rare = False
        for action in legal:
            verb = action.verb
            if verb == "suit":
                return self.quick_suit(table, legal, hand)
            rare = rare or verb == "bonus" or verb == "accuse"
        if rare:  # a finishing bonus or an accusation window: the tactician's own code
            return super().act(turn)
        plays = [a for a in legal if a.verb == "play" and a.cards]
        calls = [a for a in legal if a.verb == "call"]
        due = turn.ruleset != "maumau-online" or len(hand) <= 2
        if calls and ((plays and due) or turn.decision == "call"):
            return calls[0]

        next_seat = _next_of(obs)
        sizes = obs.get("hand_sizes") or ()
        next_size = sizes[next_seat] if next_seat is not None and next_seat < len(sizes) else 5
        decision = turn.decision
        me = obs.get("seat")
        danger = min((n for i, n in enumerate(sizes) if i != me and n), default=5)
        wild = table.wild
        plain_play = any(not any(c in wild for c in a.cards) for a in plays)

        best, best_score = None, None
        for action in legal:
            cards = action.cards
            if action.verb == "call":
                value = -100
            elif not cards:
                verb = action.verb
                value = 2 if "draw" in verb else QUIET_VERBS.get(verb, 1)
            else:
                value = self.quick_score(table, cards, hand, decision, plain_play, next_size, danger)
            if best_score is None or value > best_score:
                best, best_score = action, value
        return best

    @staticmethod
    def quick_suit(table: CardTable, legal, hand):
        """`Tactician.choose_suit`: the suit held most (wilds left out), then the one of most points."""
        counts = {"s": 0, "h": 0, "d": 0, "c": 0}
        points = {"s": 0, "h": 0, "d": 0, "c": 0}
        plain, worth = table.plain_suit, table.points
        for card in hand:
            s = plain[card] if card in plain else suit(card)
            if s in counts:
                counts[s] += 1
                points[s] += worth.get(card, 0)
        best, best_key = None, None
        for action in legal:
            if action.verb != "suit":
                continue
            s = action.args[0] if action.args else ""
            key = (counts.get(s, -1), points.get(s, -1))
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best

    @staticmethod
    def quick_score(table: CardTable, cards, hand, decision, plain_play, next_size, danger) -> float:
        """`Tactician.score_play`, from the table (`plain_play`: some play holds no wild card)."""
        points = table.points
        card = cards[0]
        rest = list(hand)
        for c in cards:
            if c in rest:
                rest.remove(c)
        score = 100.0 + sum(points.get(c, 0) for c in cards) + 15 * (len(cards) - 1)
        wild = table.wild
        if decision == "cover":
            return score - (40 if card in wild else 0) - points.get(card, 0) * 2
        if card in wild and plain_play and rest:
            score -= 60 if danger > 2 else 10
        if card in table.attack:
            score += 20 + (25 if next_size <= 2 else 0)
        covers = table.covers.get(card)
        if covers and decision != "combo":
            mine = suit(card)
            has_cover = any(rank(c) in covers or suit(c) == mine or c in wild for c in rest)
            score += 10 if has_cover else -80
        if not rest:
            score += 1000
        elif len(rest) == 1:
            if rest[0] in table.no_finish:
                score -= 70
            if card in table.no_finish:
                score += 40
        if rest:
            score += 2 * table.suits_held(rest)
        return score



class PlayModel:
    """What the tactician's choice of a card tells of the hand it chose from (`inference.PlayTell`).

    `beaten(card, hand, top_fits, next_size, danger)` is whether the tactician, holding `hand` (the
    played card among it) with `top_fits(card)` saying which cards surely fit the pile, would have
    scored another fitting card strictly above the one it played: a hand it cannot have held.  Ties
    tell nothing (the tactician then plays the first in the engine's order, which a card counter does not
    know), and the scores are `QuickTactician.quick_score`'s, so the model is the tactician's very choice."""

    def __init__(self, facts) -> None:
        self.table = CardTable(facts)

    def beaten(self, card, hand, top_fits, next_size, danger) -> bool:
        table = self.table
        fitting = [c for c in hand if c != card and top_fits(c)]
        if not fitting:
            return False
        wild = table.wild
        plain_play = card not in wild or any(c not in wild for c in fitting)
        score = QuickTactician.quick_score
        played = score(table, (card,), hand, "turn", plain_play, next_size, danger)
        return any(score(table, (c,), hand, "turn", plain_play, next_size, danger) > played for c in fitting)
