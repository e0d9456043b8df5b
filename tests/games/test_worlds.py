"""World sampling (`games.sample_world`): sampled states are indistinguishable for the seat, and random.

For every ruleset and player count, a seeded random game (options drawn
from each ruleset's choice and yes/no options) is sampled at several
decisions, for the seat to act and another seat: the world gives that seat
exactly its observation and, when it is the seat to act, exactly its legal
actions; the world holds the whole deck; its hidden places have the real
sizes.  Then frequency tests with a fixed seed: a hidden card lands in each
hidden place in proportion to the place's size (chi-square).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arena import games
from arena.games import worlds
from arena.games.worlds import WorldError
from arena.games.worlds.places import FACE_DOWN, HAND, PILE, STOCK

CASES = [
    (name, players)
    for name in games.rulesets()
    for players in range(games.ruleset_info(name).min_players, games.ruleset_info(name).max_players + 1)
]

#: Decisions of each random game, and how many of them are sampled (spread at random over them).
DECISIONS = 120
SAMPLED = 6


def random_options(name: str, rng: random.Random) -> dict[str, Any]:
    options = {}
    for key, spec in games.ruleset_info(name).options.items():
        if spec.choices is not None:
            options[key] = rng.choice(spec.choices)
        elif isinstance(spec.default, bool):
            options[key] = rng.random() < 0.5
    return options


def new_random_game(name: str, players: int, rng: random.Random):
    for _ in range(20):  # some option combinations do not fit every table (teams, decks)
        options = random_options(name, rng)
        try:
            return games.new_game(name, players, seed=rng.getrandbits(48), **options), options
        except games.OptionError:
            continue
    return games.new_game(name, players, seed=rng.getrandbits(48)), {}


def card_count(position: dict) -> Counter:
    cards = Counter(c for hand in position["hands"] for c in hand)
    cards.update(position["stock"])
    cards.update(position["discard"])
    cards.update(position.get("table", ()))
    cards.update(c for meld in position.get("melds", ()) for c in meld["cards"])
    return cards


def check_world(name: str, state, seat: int | None, options: dict, rng: random.Random) -> None:
    observation = state.observation(seat)
    world = games.sample_world(name, observation, rng, **options)
    assert world.observation(seat) == observation
    if seat == state.current:
        assert world.legal_actions() == state.legal_actions(), f"{name} {state.decision}: legal actions differ"
    real, sampled = state.to_position(), world.to_position()
    assert card_count(sampled) == card_count(real), "the world does not hold the real deck"
    assert [len(h) for h in sampled["hands"]] == [len(h) for h in real["hands"]]
    assert len(sampled["stock"]) == len(real["stock"]) and len(sampled["discard"]) == len(real["discard"])
    assert sampled["seed"] != real["seed"], "the world's future chance must not be the real game's"


@pytest.mark.parametrize("name,players", CASES)
def test_sampled_worlds_give_the_seat_its_observation_and_legal_actions(name, players):
    rng = random.Random(f"worlds/{name}/{players}")
    state, options = new_random_game(name, players, rng)
    checked = sorted(rng.sample(range(DECISIONS), SAMPLED))
    for decision in range(DECISIONS):
        if state.is_over:
            break
        if checked and decision == checked[0]:
            checked.pop(0)
            check_world(name, state, state.current, options, rng)
            check_world(name, state, rng.choice([*range(players), None]), options, rng)  # None: the spectator
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", games.rulesets())
def test_a_finished_game_is_sampled_too(name):
    players = games.ruleset_info(name).min_players
    short = {"ddmau": {"max_hands": 1}, "mose": {"rounds": 1}}.get(name, {})
    state = games.new_game(name, players, seed=2, **short)
    rng = random.Random(name)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    world = games.sample_world(name, state.observation(0), rng, **short)
    assert world.is_over and world.observation(0) == state.observation(0)


def test_every_decision_of_blind_games_is_sampled_exactly():
    """Every decision of the first 120 of three games with the Blind variation (face-down cards, challenges)."""
    rng = random.Random("worlds/blind")
    for name in ("tschau-sepp", "moumou", "maumau"):
        state = games.new_game(name, 3 if name != "moumou" else 2, seed=11, blind=True)
        for _ in range(120):
            if state.is_over:
                break
            check_world(name, state, state.current, {"blind": True}, rng)
            state.apply(rng.choice(state.legal_actions()))


def chi_square(counts: Counter, expected: dict) -> float:
    return sum((counts[k] - e) ** 2 / e for k, e in expected.items())


#: Chi-square critical values at p = 0.001, by degrees of freedom.
CRITICAL = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32, 8: 26.12, 9: 27.88}


def played(name: str, players: int, seed: int, decisions: int, **options):
    state = games.new_game(name, players, seed=seed, **options)
    state.record_events()
    rng = random.Random(seed)
    for _ in range(decisions):
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(
    "name,players,decisions,options",
    [
        ("maumau", 3, 6, {}),  # hands and stock
        ("ddmau", 3, 25, {}),  # hands, stock and the buried pile
        ("mose", 3, 12, {}),  # hands and stock
        ("moumou", 2, 7, {"blind": True}),  # with face-down cards on the shown pile
    ],
)
def test_a_hidden_card_lands_in_each_place_in_proportion_to_its_size(name, players, decisions, options):
    state = played(name, players, 5, decisions, **options)
    seat = state.current
    observation = state.observation(seat)
    hidden = worlds.unseen(name, observation, **options)
    card = hidden.cards[len(hidden.cards) // 2]
    copies = hidden.cards.count(card)
    places = {str(p): p.size for p in hidden.places}
    assert len(places) >= 2, places
    rng = random.Random(20261124)
    samples = 1500
    counts: Counter = Counter()
    sampler = worlds.WorldSampler(name, observation, **options)  # the observation read once
    for _ in range(samples):
        position = sampler.sample(rng).to_position()
        for place in hidden.places:
            counts[str(place)] += cards_at(position, place, observation).count(card)
    total = len(hidden.cards)
    expected = {key: samples * copies * size / total for key, size in places.items()}
    # Places expected to get fewer than 5 cards are pooled, as the test requires.
    small = [k for k, e in expected.items() if e < 5]
    if len(small) > 0:
        expected["rest"] = sum(expected.pop(k) for k in small)
        counts["rest"] = sum(counts.pop(k, 0) for k in small)
    statistic = chi_square(counts, expected)
    assert statistic < CRITICAL[len(expected) - 1], (statistic, dict(counts), expected)


def recorded(name: str, players: int, seed: int, decisions: int, **options):
    """A random game of `decisions` decisions with its public events recorded from the deal."""
    return played(name, players, seed, decisions, **options)


def cards_at(position: dict, place, observation) -> list[str]:
    if place.kind == HAND:
        return list(position["hands"][place.key])
    if place.kind == STOCK:
        return list(position["stock"])
    buried = observation["discard_size"] - len(observation["discard"])
    if place.kind == PILE:
        return list(position["discard"][:buried])
    assert place.kind == FACE_DOWN
    return [position["discard"][place.key]]


def test_the_unseen_cards_are_the_deck_less_what_the_seat_sees():
    state = played("maumau", 4, 9, 10)
    observation = state.observation(2)
    hidden = worlds.unseen("maumau", observation)
    seen = Counter(observation["hand"]) + Counter(observation["discard"])
    deck = Counter(games.ruleset_facts("maumau", 4)["deck"])
    assert Counter(hidden.cards) == deck - seen
    assert sum(p.size for p in hidden.places) == len(hidden.cards)
    assert [str(p) for p in hidden.places if p.kind == HAND] == ["hand 0", "hand 1", "hand 3"]


def test_bad_requests_are_clear_errors():
    state = played("maumau", 2, 3, 4)
    observation = state.observation(0)
    rng = random.Random(1)
    with pytest.raises(WorldError, match="observation of 'maumau', not of 'moumou'"):
        games.sample_world("moumou", observation, rng)
    with pytest.raises(worlds.HistoryError, match="has a 'kind'"):
        games.sample_world("maumau", observation, rng, history=[{"seat": 0}])
    with pytest.raises(worlds.HistoryError, match="history of 4 seats|history is of 4 seats"):
        games.sample_world("maumau", observation, rng, history=recorded("maumau", 4, 3, 4).events)
    with pytest.raises(worlds.HistoryError, match="the history"):
        games.sample_world("maumau", observation, rng, history=recorded("maumau", 2, 4, 4).events)
    with pytest.raises(WorldError, match="rng must be a random.Random"):
        games.sample_world("maumau", observation, 7)
    forged = observation.to_dict()
    forged["hand"] = forged["hand"] + forged["discard"]  # a card both in hand and on the pile
    forged["hand_sizes"][0] += 1
    with pytest.raises(WorldError):
        games.sample_world("maumau", forged, rng)
    with pytest.raises(games.OptionError):
        games.sample_world("maumau", observation, rng, no_such_option=1)
    truncated = observation.to_dict()
    del truncated["hand_sizes"]
    with pytest.raises(WorldError, match="not an observation of maumau: no key 'hand_sizes'"):
        games.sample_world("maumau", truncated, rng)
    lying = observation.to_dict()
    lying["decision"] = "suit"  # a suit choice with no suit-choosing card on top: no world has it
    with pytest.raises(WorldError, match="no world of maumau fits .*the engine refused: a suit choice"):
        games.sample_world("maumau", lying, rng, attempts=3)


def test_a_judge_rejects_deals_before_a_state_is_built_and_the_first_it_accepts_is_the_world():
    state = games.new_game("maumau", 2, 5)
    observation = state.observation(0)
    sampler = worlds.WorldSampler("maumau", observation)
    unseen = sorted(set(sampler.unseen.cards))
    banned = unseen[0]  # a card seat 1 may hold: a judge that knows better rules it out
    judged = []

    def judge(hands):
        judged.append(len(hands[1]))
        return hands[1].count(banned)

    rng = random.Random(1)
    for _ in range(40):
        world = sampler.sample(rng, judge=judge, tries=50)
        assert banned not in world.hands[1]
        assert world.observation(0).to_dict() == observation.to_dict()
    assert set(judged) == {len(state.hands[1])}  # the judge saw seat 1's dealt hand
    assert len(judged) > 40  # some deals were rejected, each at the price of a deal

    once = worlds.WorldSampler("maumau", observation)
    plain = [once.sample(random.Random(k)).hands for k in range(5)]
    judged_once = [once.sample(random.Random(k), judge=lambda hands: 0, tries=8).hands for k in range(5)]
    assert judged_once == plain  # a judge that accepts every deal draws the same worlds


def test_arrange_trades_hidden_cards_before_the_state_is_built_and_a_wrong_arrangement_is_dealt_again():
    state = games.new_game("maumau", 2, 5)
    observation = state.observation(0)
    sampler = worlds.WorldSampler("maumau", observation)
    wanted = sorted(sampler.unseen.cards)[: len(state.hands[1])]  # a hand for seat 1 of the caller's choosing

    def arrange(position):
        pool = Counter(position["hands"][1]) + Counter(position["stock"])
        position["hands"][1] = list(wanted)
        position["stock"] = list((pool - Counter(wanted)).elements())

    world = sampler.sample(random.Random(2), arrange=arrange)
    assert world.hands[1] == wanted and world.observation(0).to_dict() == observation.to_dict()

    def spoil(position):  # changes what seat 0 sees: never a world of this observation
        position["hands"][0] = list(position["hands"][0][1:])

    with pytest.raises(WorldError):
        sampler.sample(random.Random(2), attempts=3, arrange=spoil)
