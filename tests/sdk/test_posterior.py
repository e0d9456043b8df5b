"""sample_bots/posterior.py: the opponent's hand from its whole history, each choice judged against the cards it held then."""

from __future__ import annotations

import importlib
import random
from collections import Counter

from arena import games
from mau_arena_sdk.history import Event

from tests.sdk.test_sample_bots import load
from tests.sdk.test_searcher_bot import play_out, start_with_options, turn_for

posterior = load("posterior")
tactician_module = load("tactician")


def fresh(info):
    return posterior.HandPosterior(info.facts, info.facts.data["deck"])


def seat0_choices(seeds):
    """Tacticians play each other, a game per seed; at each of seat 0's decisions with a choice, once the model
    has read it: (model, state, log, real), ``real`` the real assignment of cards to seat 1's slots (its deal,
    then each card it drew, in order)."""
    bots = [tactician_module.Tactician(), tactician_module.Tactician()]
    info = start_with_options(bots[0], "maumau", 2, {})
    start_with_options(bots[1], "maumau", 2, {})
    for seed in seeds:
        model = fresh(info)
        state = games.new_game("maumau", 2, seed)
        log = state.record_events()
        real = list(state.to_position()["hands"][1])
        while not state.is_over:
            turn = turn_for(state, state.current)
            if state.current == 0 and len(turn.legal) > 1:
                model.update(log, state.observation(0))
                yield model, state, log, real
            before = list(state.to_position()["hands"][1])
            state.apply(state.legal_actions()[turn.index_of(bots[state.current].act(turn))])
            if not state.is_over:
                real.extend(c for c in state.to_position()["hands"][1] if c not in before)


def test_the_real_cards_agree_with_every_choice_and_the_drawn_hands_are_possible():
    # At each of seat 0's decisions the real assignment agrees with every decision the model reads: a misread
    # rule or choice would make the real hand impossible.  The hands drawn hold no card seat 0 holds or saw played.
    rng = random.Random(5)
    checked = judged = 0
    for model, state, log, real in seat0_choices(range(3)):
        if not model.active:
            continue
        checked += 1
        judged += bool(model.checks)
        assert model.placed(real) and model.wrong(real) == 0
        truth = state.to_position()["hands"][1]
        seen = set(state.observation(0)["hand"]) | {e.details.get("card") for e in log if e.seat == 0}
        for hand in model.hands(rng, 5):
            assert len(hand) == len(truth) and not set(hand) & seen
            assert not set(hand) & set(model.exits)  # nor a card it played
    assert checked > 20 and judged > 10


def test_a_move_is_judged_by_the_decisions_it_can_change_and_a_kept_verdict_is_the_verdict():
    # From the real assignment (every decision agrees), random moves of the chain's kind: `moved_wrong`, which
    # re-judges only the decisions a move can change, says 0 exactly when the full count (`wrong`) does, and that
    # count, which reads kept verdicts, is the count of the decisions judged afresh (`judge`).
    rng = random.Random(11)
    moves = refused = 0
    for model, _state, _log, real in seat0_choices(range(20, 30)):
        if not (model.active and model.checks and len(real) == len(model.slots)):
            continue
        cards, pool = list(real), model.pool()
        for _ in range(100):
            slot, card = rng.randrange(len(cards)), rng.choice(pool)
            old = cards[slot]
            other = cards.index(card) if card in cards else -1
            if card == old or (other < 0 and old in model.exits):
                continue
            if not model.may_hold(slot, card) or (other >= 0 and not model.may_hold(other, old)):
                continue
            cards[slot] = card
            if other >= 0:
                cards[other] = old
            fast = model.moved_wrong(cards, slot, other, old, card)
            afresh = sum(not model.judge(check, model.hand_at(cards, check[1])) for check in model.checks)
            afresh += sum(cards[s] in model.fitting(*model.nofit[s]) for s in model.nofit)
            assert model.placed(cards) and model.wrong(cards) == afresh and (fast == 0) == (afresh == 0)
            moves += 1
            if afresh:  # back to an assignment every decision agrees with, as the chain does
                refused += 1
                cards[slot] = old
                if other >= 0:
                    cards[other] = card
    assert moves > 300 and 0 < refused < moves


def game_start():
    info = start_with_options(tactician_module.Tactician(), "maumau", 2, {})
    return info, [Event(None, "deal", "", {"hand": 1, "dealer": 1, "hand_sizes": [5, 5]}),
                  Event(None, "open", "", {"card": "8c"})]


def observe(hand, sizes):
    return {"seat": 0, "seat_count": 2, "hand": hand, "hand_sizes": sizes}


def test_a_void_judges_the_cards_held_then_not_the_card_drawn_at_it():
    # Seat 1 draws on 9c (it held no club, no 9, no Jack) and the drawn card did not fit either; then it plays
    # Ts on Tc.  Its hand now holds no club or 9 or Jack: not from the deal (the void) nor the draw (no fit).
    info, events = game_start()
    events += [Event(0, "play", "", {"card": "9c"}), Event(1, "draw", "", {"count": 1}),
               Event(0, "play", "", {"card": "Tc"}), Event(1, "play", "", {"card": "Ts"}),
               Event(0, "play", "", {"card": "Qs"})]
    model = fresh(info)
    model.update(events, observe(["Ks", "7d"], [2, 5]))
    assert model.active
    hands = model.hands(random.Random(1), 200)
    assert all(len(h) == 5 for h in hands)
    held = Counter(c for h in hands for c in h)
    assert not [c for c in held if c[1] == "c" or c[0] in "9J"]
    assert {"Ks", "7d", "9c", "Tc", "Qs", "Ts", "8c"}.isdisjoint(held)


def test_a_card_drawn_after_a_void_may_be_one_that_fits_the_old_top():
    # The same void on 9c, but seat 1 drew twice more since (on other tops, with the drawn cards unknown):
    # a club may have come with those draws, so the void no longer keeps every club out of the hand.
    info, events = game_start()
    events += [Event(0, "play", "", {"card": "9c"}), Event(1, "draw", "", {"count": 1}),
               Event(0, "play", "", {"card": "9h"}), Event(1, "draw", "", {"count": 1}),
               Event(0, "play", "", {"card": "Kh"}), Event(1, "draw", "", {"count": 1}),
               Event(0, "play", "", {"card": "Qh"})]
    model = fresh(info)
    model.update(events, observe(["7d"], [1, 8]))
    hands = model.hands(random.Random(2), 400)
    clubs = [sum(c[1] == "c" for c in h) for h in hands]
    assert max(clubs) <= 2 and sum(clubs) > 0  # only the two cards drawn on hearts may be clubs
    assert not [c for h in hands for c in h if c[1] == "h" or c[0] in "KJ"]  # hearts, Kings, Jacks: never (voids)


def test_the_suit_named_after_a_jack_is_the_one_held_most_then():
    # Seat 1 plays Jd and names hearts, then its next play is Th on hearts: when it named them it held the
    # most hearts (by count, then points), so no suit of its four other cards then outnumbers hearts.
    info, events = game_start()
    events += [Event(0, "play", "", {"card": "9c"}), Event(1, "play", "", {"card": "Jd"}),
               Event(1, "suit", "", {"suit": "h"})]
    model = fresh(info)
    model.update(events, observe(["7s", "8s", "9s", "Ts"], [4, 4]))
    for hand in model.hands(random.Random(3), 200):
        counts = Counter(c[1] for c in hand if c[0] != "J")
        assert all(n <= counts["h"] for n in counts.values())
        assert counts["h"] >= 1


def test_a_world_with_the_drawn_hand_gives_the_seat_the_same_view():
    state = games.new_game("maumau", 2, 9001)
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    seat = state.current
    position = state.to_position()
    pool = position["hands"][1 - seat] + position["stock"]
    hand = sorted(pool)[: len(position["hands"][1 - seat])]
    position = state.to_position()
    assert posterior.with_hand(position, 1 - seat, hand, random.Random(1))
    world = games.from_position("maumau", position)
    assert not posterior.with_hand(state.to_position(), 1 - seat, [*hand, "7s"], random.Random(1))  # wrong size
    assert world.to_position()["hands"][1 - seat] == hand
    assert Counter(world.to_position()["stock"]) == Counter(pool) - Counter(hand)
    assert world.observation(seat).to_dict() == state.observation(seat).to_dict()


def test_the_searcher_draws_its_maumau_worlds_from_the_posterior_and_plays_legally():
    searcher_module = load("searcher")
    bot = searcher_module.SearchBot(worlds=4, depth=8, seed=3)
    start_with_options(bot, "maumau", 2, {})
    other = tactician_module.Tactician()
    start_with_options(other, "maumau", 2, {})
    searcher = bot.games["g"][0]
    assert isinstance(searcher, importlib.import_module("posterior").PosteriorSearcher)
    state = games.new_game("maumau", 2, 12)
    log = state.record_events()
    drawn = 0
    original = searcher.posterior.hands

    def counting(rng, n):
        nonlocal drawn
        out = original(rng, n)
        drawn += out is not None
        return out

    searcher.posterior.hands = counting
    play_out(state, [bot, other], log)
    assert drawn > 0
    assert importlib.import_module("searcher").POSTERIOR == frozenset({"maumau"})


def test_options_that_change_what_a_choice_tells_keep_the_searchers_own_worlds():
    searcher_module = load("searcher")
    for options in ({"seven_stack": True}, {"no_jack_on_jack": True}):
        bot = searcher_module.SearchBot(worlds=2, seed=1)
        start_with_options(bot, "maumau", 2, options)
        assert not isinstance(bot.games["g"][0], importlib.import_module("posterior").PosteriorSearcher)
    bot = searcher_module.SearchBot(worlds=2, seed=1)
    start_with_options(bot, "maumau", 3, {})  # three seats: not this model either
    assert not isinstance(bot.games["g"][0], importlib.import_module("posterior").PosteriorSearcher)
