"""Invariants of every ruleset under random play (hypothesis).

Generic over `arena.games.rulesets()` and each ruleset's `RulesetInfo`:
every allowed player count is a case, and hypothesis draws the seed, the
action picker's seed and its policy, and a combination of the ruleset's
choice and yes/no options.  One random game per example checks every
property the engine contract promises (DESIGN.md, "Invariants"):

* cards are conserved (the deck is whatever the first position holds);
* every legal action applies, and nothing outside the legal list does
  (the state is unchanged after the error);
* the game ends within a bound, with no deadlock on the way;
* ``default_action()`` is always legal;
* the same seed and actions give the same states (state hashes);
* ``from_position(to_position())`` round trips, chance included;
* no observation shows another seat's hidden cards or the seed;
* the public events (`record_events`) name no card that is face down: every card
  an action's events name was face up before or after it, or is the card it
  played (or a challenge turned up); re-dealing the cards hidden from the actor
  (the other hands and the stock, sizes kept) changes no card the events name,
  and every event is JSON-safe;
* the result's placements agree with its points.

The checks that copy the state (round trips, illegal probes, every legal
action on a clone, observations) run at a random sample of decisions so
that long matches stay within the time budget.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys
from collections import Counter
from typing import Any, Iterable, Mapping

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from arena import games
from arena.games import Action, ActionError, GameError, GameState, Observation, OptionError, Result, registry
from arena.games.registry import RulesetInfo
from arena.games.selfplay import MAX_DECISIONS

# -- the cases -----------------------------------------------------------------

def player_counts(name: str) -> range:
    info = games.ruleset_info(name)
    return range(info.min_players, info.max_players + 1)


CASES = [(name, players) for name in games.rulesets() for players in player_counts(name)]

#: Random games per ruleset, spread over its player counts (at least 2 per count: hypothesis's
#: first example is always its simplest one).  The module must stay near 60 s of CPU on 2 cores;
#: raise it for a thorough run: MAU_PROPERTY_EXAMPLES=100 pytest tests/games/test_properties.py
EXAMPLES_PER_RULESET = int(os.environ.get("MAU_PROPERTY_EXAMPLES", "8"))


def examples_for(name: str) -> int:
    return max(2, -(-EXAMPLES_PER_RULESET // len(player_counts(name))))


#: Seeds with 16 digits: their decimal text cannot turn up in an observation by accident.
SEEDS = st.integers(min_value=10**15, max_value=10**16 - 1)

#: The expensive checks run at the first decisions and then at geometrically spaced ones
#: (about 1.4x apart, jittered), so a game of n decisions gets O(log n) of them.
ALWAYS_CHECKED = 4
CHECK_SPACING = 1.4

#: Keys every observation carries (arena/games/base.py, Observation).
OBSERVATION_KEYS = {
    "ruleset", "seat", "seat_count", "current", "decision", "hand",
    "hand_sizes", "discard", "stock_size", "direction", "scores",
}

#: Verbs no ruleset uses: an action with one of them must be rejected.
UNKNOWN_VERBS = ("frobnicate", "teleport")


def options_strategy(ruleset: str) -> st.SearchStrategy[dict[str, Any]]:
    """Draw the options that have a small domain (choices, yes/no); others keep their default."""
    drawn = {}
    for name, spec in games.ruleset_info(ruleset).options.items():
        if spec.choices is not None:
            drawn[name] = st.sampled_from(spec.choices)
        elif isinstance(spec.default, bool):
            drawn[name] = st.booleans()
    return st.fixed_dictionaries(drawn)


# -- reading positions ------------------------------------------------------------------


def hands_of(position: Mapping[str, Any]) -> list[list[str]]:
    if "hands" in position:
        return [list(hand) for hand in position["hands"]]
    return [list(seat["hand"]) for seat in position["seats"]]


def cards_in(value: Any) -> Iterable[str]:
    """Every card of a holding: a list of cards, a list of lists, or melds (dicts with ``cards``)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        yield from cards_in(value.get("cards", ()))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from cards_in(item)


#: Top-level position keys that hold cards, besides the hands.
HOLDING_KEYS = ("stock", "discard", "melds", "table", "set_aside")


def public_holdings(position: Mapping[str, Any]) -> Counter:
    """Cards outside every hand and the stock: they have been shown face up.

    A discard played face down (the Blind variation) is hidden; the position lists it under
    ``claims`` as ``[index, claimed card]``, and the claim is what was shown.
    """
    public = Counter(c for key in HOLDING_KEYS if key != "stock" for c in cards_in(position.get(key, ())))
    discard = position.get("discard", [])
    for index, claim in position.get("claims") or ():
        public[discard[index]] -= 1
        public[claim] += 1
    return +public


def all_cards(position: Mapping[str, Any]) -> Counter:
    held = Counter(c for hand in hands_of(position) for c in hand)
    for key in HOLDING_KEYS:
        held.update(cards_in(position.get(key, ())))
    return held


def card_tokens(value: Any, deck: Counter) -> Counter:
    """Card codes of the deck named anywhere in an observation (also inside texts like ``play 7h``)."""
    found: Counter = Counter()
    if isinstance(value, str):
        found.update(token for token in value.split() if token in deck)
    elif isinstance(value, Mapping):
        for item in value.values():
            found.update(card_tokens(item, deck))
    elif isinstance(value, (list, tuple)):
        for item in value:
            found.update(card_tokens(item, deck))
    return found


# -- the checks ------------------------------------------------------------------------


def check_turn(state: GameState) -> list[Action]:
    """No deadlock: a valid seat decides, has choices, and the default is one of them (every decision)."""
    assert state.current in range(state.players), f"current seat {state.current!r} is not a seat"
    legal = state.legal_actions()
    assert legal, f"no legal action for seat {state.current} ({state.decision}): deadlock"
    default = state.default_action()
    assert default in legal, f"default action {default} is not legal: {legal}"
    return legal


def check_decision(state: GameState, legal: list[Action]) -> None:
    """The legal list is well-formed and the game does not claim a result yet (sampled decisions)."""
    assert isinstance(state.decision, str) and state.decision, "decision must name the kind of decision"
    assert len(set(legal)) == len(legal), f"duplicate legal actions: {legal}"
    for action in legal:
        assert Action.parse(str(action)) == action, f"{action!r} does not round trip through its text"
    with pytest.raises(GameError):
        state.result()
    assert state.clone().to_position() == state.to_position(), "clone() is not the same position"


def check_cards_conserved(position: Mapping[str, Any], deck: Counter) -> None:
    held = all_cards(position)
    assert held == deck, f"cards not conserved: missing {dict(deck - held)}, extra {dict(held - deck)}"


def check_observations(state: GameState, position: Mapping[str, Any], seed: int, deck: Counter) -> None:
    """Each seat sees its own hand and nothing hidden of the others; nobody sees the seed."""
    hands = hands_of(position)
    public = public_holdings(position)
    for seat in [*range(state.players), None]:
        observation = state.observation(seat)
        data = observation.data
        text = json.dumps(data, allow_nan=False)  # JSON-safe, or this raises
        assert observation.to_dict() == json.loads(text)
        missing = OBSERVATION_KEYS - set(data)
        assert not missing, f"observation({seat}) lacks {sorted(missing)}"
        assert data["seat"] == seat and data["seat_count"] == state.players
        assert data["current"] == state.current and data["decision"] == state.decision
        assert str(seed) not in text, f"observation({seat}) contains the seed"
        own = Counter(hands[seat]) if seat is not None else Counter()
        if seat is None:
            assert data["hand"] is None, "the spectator view shows a hand"
        else:
            assert Counter(data["hand"]) == own, f"observation({seat}) hand {data['hand']} != {hands[seat]}"
        assert list(data["hand_sizes"]) == [len(hand) for hand in hands]
        rest = {key: value for key, value in data.items() if key != "hand"}
        allowed = public + own
        for key, value in rest.items():  # key by key: a card may show in two places (the pile and this play)
            leaked = card_tokens(value, deck) - allowed
            assert not leaked, (
                f"observation({seat})[{key!r}] names cards that are face down (other hands, stock): "
                f"{dict(leaked)} in {value}"
            )


def illegal_probes(state: GameState, legal: list[Action], seen: list[Action], deck: Counter, rng: random.Random):
    """Well-formed actions that are not legal here: from other states, cards not held, unknown verbs."""
    legal_set = set(legal)
    probes = [a for a in rng.sample(seen, min(len(seen), 6)) if a not in legal_set]
    position = state.to_position()
    held = Counter(hands_of(position)[state.current])
    not_held = sorted(set(deck) - set(held))
    for card in rng.sample(not_held, min(len(not_held), 3)):
        probes.append(Action("play", (card,)))
    probes.extend(Action(verb) for verb in UNKNOWN_VERBS)
    probes.append(Action("play"))
    return [p for p in probes if p not in legal_set]


def check_illegal_rejected(state: GameState, probes: list[Action]) -> None:
    before = state.to_position()
    for probe in probes:
        for form in (probe, str(probe)):
            with pytest.raises(ActionError):
                state.apply(form)
            assert state.to_position() == before, f"rejected {probe} changed the state"


def check_every_legal_applies(state: GameState, legal: list[Action]) -> None:
    before = state.to_position()
    for action in legal:
        state.clone().apply(action)
    assert state.to_position() == before, "applying to a clone changed the original"


def check_round_trip(state: GameState, position: Mapping[str, Any]) -> GameState:
    """The restored state equals the original; the caller continues it to compare the future."""
    restored = games.from_position(state.ruleset, json.loads(json.dumps(position)), **state.options)
    assert restored.to_position() == position, "from_position(to_position()) is not the same position"
    assert restored.current == state.current and restored.decision == state.decision
    assert restored.legal_actions() == state.legal_actions()
    assert restored.is_over == state.is_over
    return restored


def check_result(state: GameState) -> None:
    assert state.is_over and state.current is None
    assert state.legal_actions() == [], "legal actions after the end"
    result = state.result()
    players = state.players
    assert len(result.placements) == players and len(result.points) == players
    assert 1 in result.placements
    for place in result.placements:
        assert place == 1 + sum(1 for other in result.placements if other < place), (
            f"placements {result.placements} are not ranks (1, 1, 3...)"
        )
    pairs = [(i, j) for i in range(players) for j in range(players)]
    lower_better = all(
        result.placements[i] <= result.placements[j]
        for i, j in pairs
        if result.points[i] < result.points[j]
    )
    higher_better = all(
        result.placements[i] <= result.placements[j]
        for i, j in pairs
        if result.points[i] > result.points[j]
    )
    assert lower_better or higher_better, f"placements {result.placements} disagree with points {result.points}"
    json.dumps(result.to_dict(), allow_nan=False)
    with pytest.raises(ActionError):
        state.apply(Action("pass"))


#: Verbs that put the cards they name face up on the table (a Blind play does not: its card is face down).
FACE_UP_VERBS = frozenset({"play", "meld", "layoff", "discard", "swap"})


def recording(state: GameState) -> GameState | None:
    """A clone of the state that records public events (None if the engine records none)."""
    copy = state.clone()
    try:
        copy.record_events()
    except NotImplementedError:
        return None
    return copy


def new_events(state: GameState, action: Action) -> list:
    """The public events that applying ``action`` to a recording clone of ``state`` produces."""
    copy = recording(state)
    before = len(copy.events)
    copy.apply(action)
    return copy.events[before:]


def redealt(state: GameState, position: Mapping[str, Any], rng: random.Random) -> GameState | None:
    """The same state with every card the acting seat cannot see (other hands, the stock) dealt anew,
    each holding keeping its size; None if the engine refuses the result (a holding it checks)."""
    actor = state.current
    hands = hands_of(position)
    pool = [c for seat, hand in enumerate(hands) if seat != actor for c in hand] + list(position["stock"])
    rng.shuffle(pool)
    changed = json.loads(json.dumps(position))
    for seat, hand in enumerate(hands):
        if seat != actor:
            changed["hands"][seat] = [pool.pop() for _ in hand]
    changed["stock"] = [pool.pop() for _ in position["stock"]]
    try:
        return games.from_position(state.ruleset, changed, **state.options)
    except GameError:
        return None


def check_events(state: GameState, position: Mapping[str, Any], action: Action, deck: Counter,
                 rng: random.Random) -> None:
    """The events of one action name only cards that are, or just became, face up; and they do not
    change when the cards the actor cannot see are dealt differently."""
    if recording(state) is None:
        return
    events = new_events(state, action)
    for event in events:
        json.dumps(event.to_dict(), allow_nan=False)
        assert event.seat is None or event.seat in range(state.players), f"event seat {event.seat!r}: {event}"
    after = state.clone()
    after.apply(action)
    allowed = public_holdings(position) + public_holdings(after.to_position())
    if action.verb in FACE_UP_VERBS:
        allowed.update(action.cards)  # they were in the hand and are face up now (maybe scored away at once)
    for event in events:
        if event.kind == "declare":  # DD MAU: a Master Mau declared as a power (SM, LM...) names no card
            continue
        shown = event_cards(event, deck)  # each event on its own: it may name the card it played again
        if event.kind == "challenge":  # the card a challenge turned up
            shown[event.details["card"]] -= 1
        leaked = +shown - allowed
        assert not leaked, f"{action} gives an event naming face-down cards {dict(leaked)}: {event}"
    other = redealt(state, position, rng)
    if other is None or action not in other.legal_actions():
        return
    again = new_events(other, action)
    # The events themselves may differ (a forced step depends on what the next seat holds), the cards
    # they name may not: none of them was hidden from the actor.  Up to the end of a hand: what follows
    # it (the next deal's upcard, or the game's end) depends on the points the hidden hands held, and
    # those are public from then on.
    assert sum(map(lambda e: event_cards(e, deck), until_hand_end(again)), Counter()) == sum(
        map(lambda e: event_cards(e, deck), until_hand_end(events)), Counter()
    ), (
        f"{action}: the events name other cards when the hidden cards are dealt differently: {events} / {again}"
    )


def until_hand_end(events: list) -> list:
    """The events up to and including the first ``hand-end`` (all of them if there is none)."""
    for place, event in enumerate(events):
        if event.kind == "hand-end":
            return events[: place + 1]
    return events


def event_cards(event: Any, deck: Counter) -> Counter:
    """The cards an event names, in its text or its details (both name a played card once each)."""
    return card_tokens(event.text, deck) | card_tokens(event.details, deck)


# -- one random game ------------------------------------------------------------------


def pick(legal: list[Action], state: GameState, policy: str, rng: random.Random) -> Action:
    """Uniform, card-playing first (shorter games), or now and then the default (a timed-out bot)."""
    if policy == "plays" and rng.random() < 0.85:
        plays = [a for a in legal if a.cards]
        if plays:
            return rng.choice(plays)
    if policy == "defaults" and rng.random() < 0.05:
        return state.default_action()
    return rng.choice(legal)


def play_and_check(ruleset: str, players: int, seed: int, options: dict, chooser_seed: int, policy: str) -> None:
    rng = random.Random(chooser_seed)
    state = games.new_game(ruleset, players=players, seed=seed, **options)
    start = state.to_position()
    json.dumps(start, allow_nan=False)
    deck = all_cards(start)
    assert sum(deck.values()) > 0, "the opening position holds no cards"
    actions: list[Action] = []
    seen: list[Action] = []
    checkpoints: dict[int, str] = {}
    restored: tuple[int, GameState] | None = None
    checks = 0
    next_check = 0

    while not state.is_over:
        step = len(actions)
        assert step < MAX_DECISIONS, f"no end after {MAX_DECISIONS} decisions"
        legal = check_turn(state)
        checked = step >= next_check
        if checked:
            checks += 1
            next_check = step + 1 if step < ALWAYS_CHECKED else int(step * rng.uniform(1.1, 2 * CHECK_SPACING - 1.1)) + 1
            position = state.to_position()
            json.dumps(position, allow_nan=False)
            check_decision(state, legal)
            check_cards_conserved(position, deck)
            check_observations(state, position, seed, deck)
            check_illegal_rejected(state, illegal_probes(state, legal, seen, deck, rng))
            check_every_legal_applies(state, legal)
            checkpoints[step] = state.state_hash()
            copy = check_round_trip(state, position)
            # Keep one restored copy, at a uniformly chosen check (reservoir), to continue later.
            if restored is None or rng.random() < 1 / checks:
                restored = (step, copy)
        action = pick(legal, state, policy, rng)
        if checked:
            check_events(state, position, action, deck, rng)
        if len(seen) < 400:
            seen.extend(legal[:20])
        state.apply(action)
        actions.append(action)

    final = state.to_position()
    check_cards_conserved(final, deck)
    check_observations(state, final, seed, deck)
    check_result(state)
    assert games.from_position(ruleset, final, **state.options).to_position() == final
    checkpoints[len(actions)] = state.state_hash()

    # Determinism and carried chance in one extra pass: re-simulate from the seed up to the
    # restored decision, then go on from the restored position to the end; every checkpoint
    # hash on the way must match the original game's.
    resumed_at, resumed = restored if restored is not None else (len(actions), None)
    replay = games.new_game(ruleset, players=players, seed=seed, **options)
    for step, action in enumerate(actions[:resumed_at]):
        if step in checkpoints:
            assert replay.state_hash() == checkpoints[step], f"replay from the seed diverged before decision {step}"
        replay.apply(str(action))
    assert replay.state_hash() == checkpoints[resumed_at], f"replay from the seed diverged at decision {resumed_at}"
    if resumed is not None:
        for step, action in enumerate(actions[resumed_at:], start=resumed_at):
            if step in checkpoints:
                assert resumed.state_hash() == checkpoints[step], (
                    f"play continued from the position restored at decision {resumed_at} diverged before "
                    f"decision {step} (chance not carried?)"
                )
            resumed.apply(action)
        assert resumed.state_hash() == checkpoints[len(actions)], (
            f"play continued from the position restored at decision {resumed_at} ends elsewhere"
        )
        assert resumed.result() == state.result()


@pytest.mark.skipif(not CASES, reason="no ruleset is registered yet")
@pytest.mark.parametrize(("ruleset", "players"), CASES or [("none", 0)], ids=lambda v: str(v))
def test_random_play_keeps_every_invariant(ruleset, players):
    @settings(
        max_examples=examples_for(ruleset),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(
        options=options_strategy(ruleset),
        seed=SEEDS,
        chooser_seed=st.integers(0, 2**32 - 1),
        policy=st.sampled_from(["uniform", "plays", "defaults"]),
    )
    def random_game(options, seed, chooser_seed, policy):
        try:
            games.new_game(ruleset, players=players, seed=seed, **options)
        except OptionError:
            reject()  # a combination the ruleset refuses for this table (e.g. teams with 5 seats)
        play_and_check(ruleset, players, seed, options, chooser_seed, policy)

    random_game()


def test_every_ruleset_describes_itself():
    for name in games.rulesets():
        info = games.ruleset_info(name)
        assert info.name == name and info.title and info.summary and info.seed_document
        assert 1 <= info.min_players <= info.max_players
        default = info.default_players or info.min_players
        assert info.min_players <= default <= info.max_players
        for option, spec in info.options.items():
            assert spec.help, f"{name} option {option} has no help"
            spec.coerce(option, spec.default)


# -- the checks themselves catch broken engines ----------------------------------------------


class Toy(GameState):
    """A small shedding game with a recycled stock: the checks above must pass on it as written,
    and fail on each deliberately broken variant below."""

    VERBS = frozenset({"play", "draw", "pass"})
    ruleset = "toy-properties"
    DECK = [r + s for s in "shdc" for r in "789TJ"]

    def __init__(self, position: dict, options: dict):
        self.p = position
        self.options = options
        self.players = len(position["hands"])

    @classmethod
    def new(cls, players: int, seed: int, options: dict) -> "Toy":
        from arena.games import chance

        cards = chance.shuffled(cls.DECK, seed, 0)
        hands = [cards[i * 3:(i + 1) * 3] for i in range(players)]
        rest = cards[players * 3:]
        return cls({"hands": hands, "discard": [rest[0]], "stock": rest[1:], "current": 0, "drawn": False,
                    "turns": 0, "seed": seed, "counter": 1}, options)

    @property
    def current(self):
        return None if self.is_over else self.p["current"]

    @property
    def decision(self):
        return "turn"

    @property
    def is_over(self):
        return self.p["turns"] >= 60 or any(not hand for hand in self.p["hands"])

    def legal_actions(self):
        if self.is_over:
            return []
        top = self.p["discard"][-1]
        hand = self.p["hands"][self.p["current"]]
        actions = [Action("play", (c,)) for c in sorted(set(hand)) if c[0] == top[0] or c[1] == top[1]]
        can_draw = self.p["stock"] or len(self.p["discard"]) > 1
        actions.append(Action("draw") if can_draw and not self.p["drawn"] else Action("pass"))
        return actions

    def default_action(self):
        return self.legal_actions()[-1]

    def _apply_legal(self, action):
        from arena.games import chance

        p = self.p
        if action.verb == "draw":
            if not p["stock"]:
                p["stock"] = chance.shuffled(p["discard"][:-1], p["seed"], p["counter"])
                p["counter"] += 1
                del p["discard"][:-1]
            p["hands"][p["current"]].append(p["stock"].pop())
            p["drawn"] = True
            return
        if action.verb == "play":
            p["hands"][p["current"]].remove(action.args[0])
            p["discard"].append(action.args[0])
        p["current"] = (p["current"] + 1) % self.players
        p["drawn"] = False
        p["turns"] += 1

    def observation(self, seat):
        p = self.p
        return Observation({
            "ruleset": self.ruleset, "seat": seat, "seat_count": self.players, "current": self.current,
            "decision": "turn", "hand": None if seat is None else list(p["hands"][seat]),
            "hand_sizes": [len(h) for h in p["hands"]], "discard": p["discard"][-1:],
            "stock_size": len(p["stock"]), "direction": 1, "scores": [0] * self.players,
        })

    def result(self):
        if not self.is_over:
            raise GameError("the game is still running")
        return Result.from_points([len(h) for h in self.p["hands"]], "done")

    def to_position(self):
        return copy.deepcopy(self.p)

    def clone(self):
        return type(self)(copy.deepcopy(self.p), dict(self.options))


def _toy_info(cls: type, restore=None) -> RulesetInfo:
    return RulesetInfo(
        name=Toy.ruleset, title="Toy", seed_document="none (a test fixture)", min_players=2, max_players=3,
        summary="A toy.", new_game=cls.new,
        from_position=restore or (lambda position, options: cls(copy.deepcopy(dict(position)), options)),
    )


class LeakyHand(Toy):
    def observation(self, seat):
        data = dict(super().observation(seat).data)
        data["next_hand"] = list(self.p["hands"][((seat or 0) + 1) % self.players])
        return Observation(data)


class LeakySeed(Toy):
    def observation(self, seat):
        return Observation({**super().observation(seat).data, "game": f"game-{self.p['seed']}"})


class LosesCards(Toy):
    def _apply_legal(self, action):
        super()._apply_legal(action)
        if action.verb == "pass" and self.p["stock"]:
            self.p["stock"].pop()


class RejectionChangesState(Toy):
    def apply(self, action):
        self.p["turns"] += 0.5 if Action.parse(action) not in self.legal_actions() else 0
        super().apply(action)


class BadDefault(Toy):
    def default_action(self):
        return Action("pass")


class NeverEnds(Toy):
    @property
    def is_over(self):
        return False


def _forget_chance(position, options):
    return Toy({**copy.deepcopy(dict(position)), "counter": 1}, options)


BROKEN = {
    "an observation shows the next seat's hand": (LeakyHand, None, "face down"),
    "an observation shows the seed": (LeakySeed, None, "contains the seed"),
    "a pass loses a stock card": (LosesCards, None, "not conserved"),
    "a rejected action changes the state": (RejectionChangesState, None, "changed the state"),
    "the default action is not legal": (BadDefault, None, "default action"),
    "restoring a position forgets the chance counter": (Toy, _forget_chance, "position"),
    "the game never ends": (NeverEnds, None, "no end after 500 decisions"),
}


def test_the_checks_pass_on_a_sound_engine(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, Toy.ruleset, _toy_info(Toy))
    for seed in range(10):
        play_and_check(Toy.ruleset, 3, 10**15 + seed, {}, seed, "uniform")


@pytest.mark.parametrize("flaw", list(BROKEN))
def test_the_checks_catch_a_broken_engine(monkeypatch, flaw):
    cls, restore, message = BROKEN[flaw]
    monkeypatch.setitem(registry._REGISTRY, Toy.ruleset, _toy_info(cls, restore))
    if cls is NeverEnds:
        monkeypatch.setattr(sys.modules[__name__], "MAX_DECISIONS", 500)
    caught = []
    for seed in range(10):
        try:
            play_and_check(Toy.ruleset, 3, 10**15 + seed, {}, seed, "uniform")
        except (AssertionError, GameError) as error:
            caught.append(str(error))
    assert caught, f"no check noticed that {flaw}"
    assert any(message in text for text in caught), caught[:3]
