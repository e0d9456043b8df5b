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


class CardTable:
    """One game's facts as plain lookups: points, and the roles the tactician's scoring asks about.

    Built once a game: the scoring asks about every card of every candidate play, and a search bot's
    rollouts ask the tactician thousands of times a decision."""

    __slots__ = ("points", "wild", "attack", "covers", "no_finish", "plain_suit")

    def __init__(self, facts) -> None:
        cards = facts.data.get("cards") or {}
        self.points = {card: facts.points(card) for card in cards}
        self.wild = frozenset(card for card in cards if facts.has_role(card, "wild"))
        self.attack = frozenset(card for card in cards if is_attack(card, facts))
        covers = {card: cover_ranks(card, facts) for card in cards}
        self.covers = {card: ranks for card, ranks in covers.items() if ranks}
        self.no_finish = frozenset(card for card in cards if facts.has_role(card, "no-finish"))
        # the suit `suit_counts` counts a card under (None: a wild, or no suit)
        self.plain_suit = {card: (None if card in self.wild else suit(card)) for card in cards}

    def suits_held(self, cards) -> int:
        """How many of the four suits the cards hold, wilds left out (`suit_counts`, counted)."""
        plain = self.plain_suit
        held = set()
        for card in cards:
            s = plain[card] if card in plain else suit(card)
            if s is not None and s in "shdc":
                held.add(s)
        return len(held)


def next_player(obs):
    """The seat that plays after us (skipping seats that are out), or None if unknown.

    Over the wire the observation lists the seats with their statuses; an engine observation (a search
    bot's rollouts) has none, and there the next seat follows from `seat`, `direction` and `seat_count`
    (every seat of a shedding hand is active)."""
    seats = obs.get("seats") or ()
    me = obs.get("seat")
    step = -1 if obs.get("direction", 1) == -1 else 1
    if not seats:
        count = obs.get("seat_count")
        if me is None or not count or count < 2:
            return None
        return (me + step) % count
    if me is None:
        return None
    for k in range(1, len(seats)):
        candidate = seats[(me + step * k) % len(seats)]
        if candidate.status in ("", "active"):
            return candidate.seat
    return None


def score_play(table, cards, hand, decision, plain_play, next_size, danger=5) -> float:
    """How much the tactician likes playing `cards` from `hand` (`plain_play`: some legal play holds no wild
    card; `next_size`: the next player's hand size; `danger`: the fewest cards an opponent holds)."""
    points = table.points
    card = cards[0]
    rest = list(hand)
    for c in cards:
        if c in rest:
            rest.remove(c)
    score = 100.0 + sum(points.get(c, 0) for c in cards) + 15 * (len(cards) - 1)
    wild = table.wild
    if decision == "cover":
        # Any cover will do: spend the cheapest fitting non-wild first.
        return score - (40 if card in wild else 0) - points.get(card, 0) * 2
    if card in wild and plain_play and rest:
        # Keep the wild for when nothing else fits, unless someone is about to go out:
        # then an expensive wild is a liability.
        score -= 60 if danger > 2 else 10
    if card in table.attack:
        score += 20 + (25 if next_size <= 2 else 0)
    covers = table.covers.get(card)
    if covers and decision != "combo":
        mine = suit(card)
        has_cover = any(rank(c) in covers or suit(c) == mine or c in wild for c in rest)
        score += 10 if has_cover else -80
    if not rest:
        score += 1000  # going out (the engine only offers it when allowed)
    elif len(rest) == 1:
        if rest[0] in table.no_finish:
            score -= 70  # would leave a last card that cannot finish
        if card in table.no_finish:
            score += 40  # get rid of it while another card remains to finish with
    if rest:
        score += 2 * table.suits_held(rest)  # keep suits diverse
    return score


class SingleCardScores:
    """`score_play` of one card of `hand`, for every card of one decision, with what does not depend on the
    card (the suits the hand holds) counted once: the same scores (the tactician's turns in a search bot's
    rollouts are hot).  For a card of the hand that need not be covered (`covers`, Moumou's 6)."""

    __slots__ = ("table", "hand", "counts", "held")

    def __init__(self, table, hand) -> None:
        self.table = table
        self.hand = hand
        plain = table.plain_suit
        counts = {}  # the suits `suits_held` counts (wilds and suitless cards left out): cards of each
        for card in hand:
            s = plain[card] if card in plain else suit(card)
            if s is not None and s in "shdc":
                counts[s] = counts.get(s, 0) + 1
        self.counts = counts
        self.held = len(counts)

    def score(self, card, decision, plain_play, next_size, danger) -> float:
        """`score_play(table, (card,), hand, decision, plain_play, next_size, danger)` of a card of the hand
        that is not in `table.covers`."""
        table = self.table
        points = table.points
        score = 100.0 + points.get(card, 0) + 0
        if decision == "cover":
            return score - (40 if card in table.wild else 0) - points.get(card, 0) * 2
        left = len(self.hand) - 1
        if card in table.wild and plain_play and left:
            score -= 60 if danger > 2 else 10
        if card in table.attack:
            score += 20 + (25 if next_size <= 2 else 0)
        if not left:
            return score + 1000
        if left == 1:
            hand = self.hand
            other = hand[1] if hand[0] == card else hand[0]
            if other in table.no_finish:
                score -= 70
            if card in table.no_finish:
                score += 40
        plain = table.plain_suit
        s = plain[card] if card in plain else suit(card)
        return score + 2 * (self.held - (1 if self.counts.get(s) == 1 else 0))


def suit_keys(table, hand):
    """How much the tactician wants each suit named: (cards held of it, their points), wilds left out."""
    counts = {"s": 0, "h": 0, "d": 0, "c": 0}
    points = {"s": 0, "h": 0, "d": 0, "c": 0}
    plain, worth = table.plain_suit, table.points
    for card in hand:
        s = plain[card] if card in plain else suit(card)
        if s in counts:
            counts[s] += 1
            points[s] += worth.get(card, 0)
    return counts, points


def names_suit(table, hand, named, order="shdc"):
    """Whether the tactician, holding `hand` and offered every suit in `order`, names `named` (`choose_suit`)."""
    counts, points = suit_keys(table, hand)
    best, best_key = None, None
    for s in order:
        key = (counts[s], points[s])
        if best_key is None or key > best_key:
            best, best_key = s, key
    return best == named


def choose_suit(table, legal, hand):
    """The suit to name: the one held most (wilds left out), then the one of most points; the first of equals."""
    counts, points = suit_keys(table, hand)
    best, best_key = None, None
    for action in legal:
        if action.verb != "suit":
            continue
        s = action.args[0] if action.args else ""
        key = (counts.get(s, -1), points.get(s, -1))
        if best_key is None or key > best_key:
            best, best_key = action, key
    return best


def _offender_called(obs):
    """Whether the offender of an open accusation window said its word; None if the observation does not say.

    Out of turn (right after the discard) the window is `window` {offender, called, ...}; in the
    turn of the next player (Online Mau-Mau, B-8) it is `accusable` {offender, guilty}."""
    accusable = obs.get("accusable")
    if hasattr(accusable, "get") and "guilty" in accusable:
        return not accusable["guilty"]
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
        self._tables = {}  # id(facts) -> (facts, CardTable): the facts are kept so that the id stays theirs
        self._last = (None, None)  # the (facts, CardTable) asked last: a search's rollouts ask for one game's

    def on_game_start(self, game):
        self.facts[game.game_id] = game.facts or _NO_FACTS

    def on_game_end(self, game, result):
        facts = self.facts.pop(game.game_id, None)
        if facts is not None and all(other is not facts for other in self.facts.values()):
            self._tables.pop(id(facts), None)
            if self._last[0] is facts:
                self._last = (None, None)

    def table(self, facts) -> CardTable:
        """The `CardTable` of these facts, built once (a search bot may set `facts[game id]` itself)."""
        entry = self._tables.get(id(facts))
        if entry is None or entry[0] is not facts:
            entry = self._tables[id(facts)] = (facts, CardTable(facts))
        self._last = entry
        return entry[1]

    def act(self, turn):
        facts = self.facts.get(turn.game_id, _NO_FACTS)
        if turn.ruleset == "mose":
            return self.act_mose(turn, facts)
        obs = turn.observation
        legal = turn.legal
        last = self._last
        table = last[1] if last[0] is facts else self.table(facts)
        hand = obs.get("hand") or ()
        bonus = accuse = False
        plays, calls = [], []
        for action in legal:  # one pass: the plays, the calls and the verbs that decide alone
            verb = action.verb
            if verb == "play":
                if action.cards:
                    plays.append(action)
            elif verb == "call":
                calls.append(action)
            elif verb == "suit":
                return choose_suit(table, legal, hand)
            elif verb == "bonus":
                bonus = True
            elif verb == "accuse":
                accuse = True
        if bonus:
            return self.choose_bonus(legal)
        if accuse:
            if _offender_called(obs) is False:
                return next(a for a in legal if a.verb == "accuse")
            others = [a for a in legal if a.verb not in ("accuse", "pass")]
            if not others:  # asked only whether to accuse (out of turn): an innocent offender is let be
                return next((a for a in legal if a.verb == "pass"), legal[0])
            # In its own turn the window is one more choice beside the turn's (B-8): play the turn as usual.
            legal = [a for a in legal if a.verb != "accuse"]
        # Online Mau-Mau also offers the call with 3 cards, where it is false (5 cards, RULES.md B-7).
        if calls and ((plays and (turn.ruleset != "maumau-online" or len(hand) <= 2)) or turn.decision == "call"):
            return calls[0]  # say the word when it is due: the play comes next

        me = obs.get("seat")
        if obs.get("seats"):
            next_seat = next_player(obs)
        else:  # `next_player` of an engine observation (a search bot's rollouts), inline
            count = obs.get("seat_count")
            next_seat = None if me is None or not count or count < 2 else (
                (me + (-1 if obs.get("direction", 1) == -1 else 1)) % count)
        sizes = obs.get("hand_sizes") or ()
        next_size = sizes[next_seat] if next_seat is not None and next_seat < len(sizes) else 5
        decision = turn.decision
        danger = 5  # the fewest cards of an opponent
        fewest = None
        for i, n in enumerate(sizes):
            if i != me and n and (fewest is None or n < fewest):
                fewest = n
        if fewest is not None:
            danger = fewest
        wild = table.wild
        plain_play = False  # some play holds no wild card
        for action in plays:
            for c in action.cards:
                if c in wild:
                    break
            else:
                plain_play = True
                break
        single = None  # the hand's single-card scorer, made at the first card
        covers = table.covers

        best, best_score = None, None
        for action in legal:  # the first of the best
            cards = action.cards
            if action.verb == "call":
                value = -100  # a call without a play to follow is a false call
            elif not cards:
                verb = action.verb
                value = 2 if "draw" in verb else QUIET_VERBS.get(verb, 1)  # a draw beats a pass
            elif len(cards) == 1 and cards[0] in hand and cards[0] not in covers:
                if single is None:
                    single = SingleCardScores(table, hand)
                value = single.score(cards[0], decision, plain_play, next_size, danger)
            else:
                value = score_play(table, cards, hand, decision, plain_play, next_size, danger)
            if best_score is None or value > best_score:
                best, best_score = action, value
        return best

    # ------------------------------------------------------------------ pieces
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

    def choose_bonus(self, legal):
        # Adding points to the opponents pushes them toward the match limit; it hurts most with one opponent.
        return next((a for a in legal if a.verb == "bonus" and a.args == ("others",)), legal[0])


if __name__ == "__main__":
    run(Tactician(), name="tactician")
