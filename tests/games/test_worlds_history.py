"""World sampling with the public history (`games.sample_world(..., history=...)`, `worlds.Tracker`).

Seeded random play of every ruleset and player count with the real recorded
history, a `Tracker` fed incrementally at every decision: (a) the world
gives the seat exactly its observation and legal actions; (b) every card the
history pins (each other hand's pinned cards, the buried pile card by card)
is where it really is and where every sample puts it; (c) the cards the
history leaves open land uniformly over the places it allows (chi-square);
(d) what the history changes: cards buried in the pile never reach another
hand, the stock after a reshuffle holds only reshuffled cards, a Mose pile
taken stays in the taker's hand, a Blind card given back is the liar's; the
observation alone (`history=None`) puts them elsewhere.  The SDK's events
and the engine's give the same worlds.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena import games
from arena import messages as convert
from arena.games import worlds
from arena.games.worlds.places import HAND, PILE
from mau_arena_sdk import Event
from tests.games.test_worlds import CASES, CRITICAL, chi_square, new_random_game, recorded

DECISIONS = 150
SAMPLED = 5


def single_pack(name: str, players: int, options: dict) -> bool:
    deck = games.ruleset_facts(name, players, **options)["deck"]
    return len(set(deck)) == len(deck)


def check_pins(sampler, state, world, seat) -> None:
    """(b): the history's pins hold in the real state and in the world."""
    real, sampled = state.to_position(), world.to_position()
    for place, cards in sampler.pinned.items():
        if place.kind == HAND:
            pinned = Counter(cards)
            assert not pinned - Counter(real["hands"][place.key]), f"pinned {cards} not in the real hand"
            assert not pinned - Counter(sampled["hands"][place.key]), f"pinned {cards} not in the world's hand"
        else:
            assert place.kind == PILE
            for index, card in enumerate(cards):
                if card is not None:
                    assert real["discard"][index] == card, f"the history has {card} at {index} of the pile"
                    assert sampled["discard"][index] == card


@pytest.mark.parametrize("name,players", CASES)
def test_worlds_with_the_history_fit_the_seat_and_keep_every_pinned_card(name, players):
    rng = random.Random(f"worlds-history/{name}/{players}")
    state, options = new_random_game(name, players, rng)
    log = state.record_events()
    tracker = worlds.Tracker(name, **options)
    checked = sorted(rng.sample(range(DECISIONS), SAMPLED))
    for decision in range(DECISIONS):
        if state.is_over:
            break
        tracker.update(log)  # every decision, as a bot does: only the new events are read
        if checked and decision == checked[0]:
            checked.pop(0)
            for seat in (state.current, rng.choice([*range(players), None])):
                observation = state.observation(seat)
                sampler = worlds.WorldSampler(name, observation, tracker, **options)
                assert sampler.history is not None and tracker.error is None
                for _ in range(2):
                    world = sampler.sample(rng)
                    assert world.observation(seat) == observation
                    if seat == state.current:
                        assert world.legal_actions() == state.legal_actions(), f"{name} {state.decision}"
                    check_pins(sampler, state, world, seat)
        state.apply(rng.choice(state.legal_actions()))
    if single_pack(name, players, options) and not options.get("blind"):
        assert tracker.collapses == 0, "one pack without Blind: every card's pool is known, nothing to forget"


def test_every_decision_of_games_with_reshuffles_and_blind_is_sampled_with_the_history():
    """Every decision of long games: reshuffles (the stock known as a multiset), Blind plays and challenges."""
    rng = random.Random("worlds-history/every")
    for name, players, options in (("maumau", 2, {}), ("tschau-sepp", 3, {"blind": True}), ("ddmau", 3, {}),
                                   ("mose", 2, {"rounds": 1})):
        state = games.new_game(name, players, seed=21, **options)
        log = state.record_events()
        tracker = worlds.Tracker(name, **options)
        for _ in range(160):
            if state.is_over:
                break
            tracker.update(log)
            observation = state.observation(state.current)
            sampler = worlds.WorldSampler(name, observation, tracker, **options)
            world = sampler.sample(rng)
            assert world.observation(state.current) == observation
            assert world.legal_actions() == state.legal_actions()
            check_pins(sampler, state, world, state.current)
            state.apply(rng.choice(state.legal_actions()))
        assert tracker.error is None


def test_an_incremental_tracker_knows_what_a_fresh_one_reading_the_whole_log_knows():
    state = games.new_game("maumau", 3, seed=8, hands=3)
    log = state.record_events()
    rng = random.Random(8)
    tracker = worlds.Tracker("maumau", hands=3)
    for _ in range(120):
        if state.is_over:
            break
        tracker.update(log)
        state.apply(rng.choice(state.legal_actions()))
    tracker.update(log)
    fresh = worlds.Tracker("maumau", hands=3).update(list(log))
    assert any(e.kind == "reshuffle" for e in log)
    assert tracker.pile == fresh.pile
    assert [(dict(p.known), p.slots) for p in tracker.ledger.pools] == [
        (dict(p.known), p.slots) for p in fresh.ledger.pools]


def sdk_events(log) -> list[Event]:
    return [Event.from_pb(convert.public_event_to_pb(event)) for event in log]


def test_the_sdk_events_and_their_dicts_give_the_same_worlds_as_the_engine_events():
    state = recorded("tschau-sepp", 3, 6, 90, blind=True)
    observation = state.observation(state.current)
    forms = [list(state.events), sdk_events(state.events), [e.to_dict() for e in sdk_events(state.events)]]
    positions = []
    for history in forms:
        world = games.sample_world("tschau-sepp", observation, random.Random(5), history=history, blind=True)
        positions.append(world.to_position())
    assert positions[0] == positions[1] == positions[2]


def hidden_holders(position: dict, seat: int) -> dict[str, list[str]]:
    out = {f"hand {s}": hand for s, hand in enumerate(position["hands"]) if s != seat}
    out["stock"] = position["stock"]
    return out


def test_cards_buried_in_the_pile_never_reach_a_hand_or_the_stock():
    """(d) In Mau-Mau the plays name every card under the top: they are not unseen cards any more."""
    state = recorded("maumau", 3, 5, 24)
    assert not any(e.kind == "reshuffle" for e in state.events)
    seat = state.current
    buried = Counter(state.to_position()["discard"][:-1])
    assert len(buried) >= 5
    observation = state.observation(seat)
    rng = random.Random(3)
    strays = {"with": 0, "without": 0}
    for key, history in (("with", state.events), ("without", None)):
        sampler = worlds.WorldSampler("maumau", observation, history)
        for _ in range(150):
            world = sampler.sample(rng).to_position()
            assert Counter(world["discard"][:-1]) == buried or key == "without"
            strays[key] += sum(card in buried for cards in hidden_holders(world, seat).values() for card in cards)
    assert strays["with"] == 0
    assert strays["without"] > 150, "the observation alone spreads the buried cards over the hidden places"


def test_after_a_reshuffle_the_stock_holds_only_reshuffled_cards():
    """(d) The cards the table saw go back into the stock are the stock's, less what was drawn since."""
    for seed in range(1, 100):  # the first random game with a reshuffle and three decisions after it
        state = games.new_game("maumau", 2, seed=seed, hands=3)
        log = state.record_events()
        rng = random.Random(seed)
        kinds: list = []
        while not state.is_over and "reshuffle" not in kinds:
            pile, start = state.to_position()["discard"], len(log)
            state.apply(rng.choice(state.legal_actions()))
            kinds = [e.kind for e in log[start:]]
        after = state.clone()
        if "reshuffle" in kinds and all(not after.is_over and (after.apply(after.legal_actions()[0]) or True)
                                        for _ in range(3)):
            break
    assert "reshuffle" in kinds, "no random game of 99 reshuffled: the test checks nothing"
    cut = kinds.index("reshuffle")
    pile += [e.details["card"] for e in log[start:start + cut] if e.kind == "play"]  # played in this decision
    reshuffled = Counter(pile[: log[start + cut].details["count"]])
    for _ in range(3):  # a few decisions more: draws from the new stock
        state.apply(rng.choice(state.legal_actions()))
    assert not any(e.kind == "deal" for e in log[start:])
    observation = state.observation(state.current)
    with_history = worlds.WorldSampler("maumau", observation, log, hands=3)
    without = worlds.WorldSampler("maumau", observation, hands=3)
    outside = 0
    for _ in range(100):
        assert not Counter(with_history.sample(rng).to_position()["stock"]) - reshuffled
        outside += sum((Counter(without.sample(rng).to_position()["stock"]) - reshuffled).values())
    assert outside > 0


def test_a_pile_taken_in_mose_stays_in_the_takers_hand():
    state = games.new_game("mose", 3, seed=4)
    log = state.record_events()
    rng = random.Random(4)
    while True:
        take = next((a for a in state.legal_actions() if a.verb == "take"), None)
        if take is not None and state.observation(None)["discard_size"] >= 2:
            break
        state.apply(rng.choice(state.legal_actions()))
    taker = state.current
    pile = list(state.observation(None)["discard"])
    state.apply(take)
    while state.current == taker and state.decision == "play":  # the taker's turn goes on: discard
        state.apply(next(a for a in state.legal_actions() if a.verb == "discard"))
    held = Counter(pile) & Counter(state.to_position()["hands"][taker])  # not discarded again
    assert held
    seat = next(s for s in range(3) if s != taker)
    observation = state.observation(seat)
    with_history = worlds.WorldSampler("mose", observation, log)
    without = worlds.WorldSampler("mose", observation)
    missing = 0
    for _ in range(60):
        assert not held - Counter(with_history.sample(rng).to_position()["hands"][taker])
        missing += bool(held - Counter(without.sample(rng).to_position()["hands"][taker]))
    assert missing > 0


def test_a_blind_card_given_back_after_a_challenge_is_pinned_to_the_liar():
    rng = random.Random(12)
    for seed in range(40):
        state = games.new_game("tschau-sepp", 3, seed=seed, blind=True)
        log = state.record_events()
        for _ in range(60):
            lie = next((a for a in state.legal_actions() if a.verb == "blind" and a.args[0] != a.args[1]), None)
            if lie is not None:
                liar = state.current
                state.apply(lie)
                state.apply("challenge")
                break
            state.apply(rng.choice(state.legal_actions()))
        else:
            continue
        card = lie.args[0]
        observation = state.observation(state.current)
        if state.current == liar or card not in state.to_position()["hands"][liar]:
            continue
        sampler = worlds.WorldSampler("tschau-sepp", observation, log, blind=True)
        assert [c for p, cards in sampler.pinned.items() if p.kind == HAND and p.key == liar for c in cards] == [card]
        for _ in range(30):
            assert card in sampler.sample(rng).to_position()["hands"][liar]
        return
    pytest.fail("no Blind lie challenged in 40 games")


@pytest.mark.parametrize(
    "name,players,decisions,options",
    [
        ("maumau", 2, 76, {"hands": 3}),  # after a reshuffle: the deal's cards and the reshuffled ones kept apart
        ("ddmau", 3, 42, {}),  # hands, stock, a known pile (42: at 40 the game since Session 19 drew 600 worlds whose
        # one tested card scored 14.4 against the 0.1% line of 13.8, while 3 x 3,000 worlds there fitted: the fixed
        # sample's one-in-a-thousand, not a bias)
        ("mose", 3, 30, {}),  # hands and stock, pinned pickups
        ("moumou", 2, 12, {}),
    ],
)
def test_the_cards_the_history_leaves_open_land_uniformly(name, players, decisions, options):
    """(c) Each pool of exchangeable cards is dealt uniformly over the places it may fill (chi-square)."""
    state = recorded(name, players, 5, decisions, **options)
    seat = state.current
    sampler = worlds.WorldSampler(name, state.observation(seat), state.events, **options)
    steps = sampler.history.plan.steps
    assert all(key[0] != "pool" for _, _, cuts in steps for key, _ in cuts), "flat pools: no Blind here"
    tested = 0
    rng = random.Random(20261126)
    samples = 600
    worlds_ = [sampler.sample(rng).to_position() for _ in range(samples)]
    for _, known, cuts in steps:
        if len(cuts) < 2:
            continue
        card = known[len(known) // 2]
        copies = known.count(card)
        size = len(known)
        expected = {key: samples * copies * count / size for key, count in cuts}
        counts: Counter = Counter()
        for world in worlds_:
            for key, _ in cuts:
                held = world["hands"][key[1]] if key[0] == "hand" else world["stock"]
                counts[key] += held.count(card)
        small = [k for k, e in expected.items() if e < 5]
        if small:
            expected["rest"] = sum(expected.pop(k) for k in small)
            counts["rest"] = sum(counts.pop(k, 0) for k in small)
        if len(expected) < 2:
            continue
        statistic = chi_square(counts, expected)
        assert statistic < CRITICAL[len(expected) - 1], (card, statistic, dict(counts), expected)
        tested += 1
    assert tested >= 1


@pytest.mark.parametrize("name", ["maumau", "mose", "ddmau"])
def test_a_finished_game_is_sampled_with_its_history(name):
    short = {"ddmau": {"max_hands": 1}, "mose": {"rounds": 1}}.get(name, {})
    state = games.new_game(name, 2, seed=2, **short)
    log = state.record_events()
    rng = random.Random(name)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    world = games.sample_world(name, state.observation(0), rng, history=log, **short)
    assert world.is_over and world.observation(0) == state.observation(0)


def test_a_log_recorded_from_the_middle_tells_nothing_until_the_next_deal():
    state = games.new_game("maumau", 3, seed=4, hands=2)
    rng = random.Random(4)
    for _ in range(10):
        state.apply(rng.choice(state.legal_actions()))
    log = state.record_events()
    assert log[0].kind == "start"
    for _ in range(5):
        state.apply(rng.choice(state.legal_actions()))
    observation = state.observation(state.current)
    sampler = worlds.WorldSampler("maumau", observation, log, hands=2)
    assert sampler.history is None and sampler.pinned == {}  # the observation alone
    assert sampler.sample(rng).observation(state.current) == observation
    while not any(e.kind == "deal" for e in log):
        state.apply(rng.choice(state.legal_actions()))
    if not state.is_over:
        observation = state.observation(state.current)
        assert worlds.WorldSampler("maumau", observation, log, hands=2).history is not None


def test_a_tracker_refuses_a_shorter_history_and_reports_events_that_do_not_fit():
    state = recorded("maumau", 2, 3, 10)
    tracker = worlds.Tracker("maumau").update(state.events)
    with pytest.raises(worlds.HistoryError, match="a new game needs a new Tracker"):
        tracker.update(state.events[:3])
    forged = list(state.events) + [{"seat": 0, "kind": "play", "details": {"card": state.events[1].details["card"]}}]
    broken = worlds.Tracker("maumau").update(forged)  # the opening card played again from a hand
    assert broken.error is not None
    with pytest.raises(worlds.HistoryError, match="does not fit"):
        worlds.WorldSampler("maumau", state.observation(0), broken)


def test_with_two_packs_a_view_no_deal_of_the_pools_fits_is_sampled_without_them():
    """Two packs: a copy charged to the wrong pool can leave no deal of the pools that fits; the sampler then
    deals without the pools, the pinned cards and the pile still known.  Random play used to meet such a view
    (a seat asked to answer a Seven had to hold one), but since a seat is asked whatever it holds (Session 19)
    none was found in thousands of walks, so here every deal of the pools is spoiled (`arrange` moves a card
    of the seat's own hand to the stock, which the view refuses) and the deals without them are left alone."""
    name, players = "maumau-online", 6
    rng = random.Random(f"h2/{name}/{players}/3")
    state, options = new_random_game(name, players, rng)
    log = state.record_events()
    for _ in range(160):
        state.apply(rng.choice(state.legal_actions()))
    observation = state.observation(1)
    sampler = worlds.WorldSampler(name, observation, log, **options)
    assert sampler.history is not None and not sampler.fell_back
    deals = []

    def spoil_the_pooled_deals(position):
        deals.append(sampler.fell_back)
        if not sampler.fell_back:
            position["stock"].append(position["hands"][1].pop())

    world = sampler.sample(random.Random(3), arrange=spoil_the_pooled_deals)
    assert world.observation(1) == observation
    assert sampler.fell_back and deals.count(False) == worlds.ATTEMPTS and deals[-1] is True
    check_pins(sampler, state, world, 1)
