"""sample_bots/deal_weights.py: whole deals of Online Mau-Mau weighted by the tacticians' past choices."""

from __future__ import annotations

import importlib
import random
from collections import Counter

from arena import games
from arena import messages as convert
from mau_arena_sdk import Turn
from mau_arena_sdk.history import Event

from tests.sdk.test_sample_bots import load
from tests.sdk.test_searcher_bot import start_with_options, turn_for

searcher_module = load("searcher")
tactician_module = load("tactician")
deal_weights = importlib.import_module("deal_weights")  # the searcher's own module (load() put sample_bots/ on the path)

RULESET = "maumau-online"


def facts():
    return start_with_options(tactician_module.Tactician(), RULESET, 4, {}).facts


def tactician_game(seed, me, on_decision=None):
    """Four tacticians play a game of `seed`; `on_decision(state, log, turn)` at each of seat `me`'s decisions.
    Returns (log, the cards each draw event brought, the hands dealt), or None if the upcard made a seat draw
    before the first decision (the cards of that draw are not recorded)."""
    bots = [tactician_module.Tactician() for _ in range(4)]
    for bot in bots:
        start_with_options(bot, RULESET, 4, {})
    state = games.new_game(RULESET, 4, seed)
    log = state.record_events()
    if any(event.kind == "draw" for event in log):
        return None
    dealt = [list(hand) for hand in state.to_position()["hands"]]
    drawn = {}
    while not state.is_over:
        turn = turn_for(state, state.current, events=log)
        if state.current == me and on_decision is not None:
            on_decision(state, log, turn)
        before = [Counter(hand) for hand in state.to_position()["hands"]]
        start = len(log)
        state.apply(state.legal_actions()[turn.index_of(bots[state.current].act(turn))])
        after = [Counter(hand) for hand in state.to_position()["hands"]]
        played = Counter((e.seat, e.details["card"]) for e in log[start:] if e.kind == "play")
        for index in range(start, len(log)):
            event = log[index]
            if event.kind == "draw":
                seat = event.seat
                back = Counter({card: n for (s, card), n in played.items() if s == seat})
                drawn[index] = list((after[seat] - before[seat] + back).elements())
    return log, drawn, dealt


def real_cards(model, drawn, dealt):
    """The real card of each of the model's slots: the deal's hands, then each draw's cards, in order."""
    cards, taken = [], Counter()
    for seat, time in model.slots:
        source = dealt[seat] if time == 0 else drawn[time]
        cards.append(source[taken[seat, time]])
        taken[seat, time] += 1
    return cards


def test_the_real_deal_agrees_with_every_choice_of_the_tacticians():
    # Tacticians play each other; the model reads seat `me`'s history, and the real cards of every opponent's
    # slots (its deal, then each draw's cards) agree with every choice it judges: a misread rule, a wrong fit or
    # a wrong score would give the real deal a factor `epsilon`, and the chain would then favour wrong deals.
    judged, kinds = 0, Counter()
    for seed in range(14):
        me = seed % 4
        model = deal_weights.DealPosterior(facts(), facts().data["deck"], epsilon=0.05)
        game = tactician_game(seed, me, lambda state, log, turn: model.update(turn.history, turn.observation))
        if game is None or not model.active:
            continue
        _, drawn, dealt = game
        cards = real_cards(model, drawn, dealt)
        model.timelines = {s: model.timeline(s) for s in range(4) if s != me}
        for seat in model.timelines:
            assert model.valid(seat, cards)
            assert model.seat_logl(seat, cards)[0] > model.log_eps  # no choice judged off the tactician's
            held = Counter()
            for _, kind, x in model.timelines[seat]:
                if kind == deal_weights.IN:
                    held[cards[x]] += 1
                elif kind == deal_weights.OUT:
                    held[x] -= 1
                else:
                    assert model.judge(model.checks[x], held) != model.log_eps, (seed, model.checks[x])
                    judged += 1
                    kinds[model.checks[x][2]] += 1
    assert judged > 250 and {"play", "void", "suit", "accept"} <= set(kinds)


def test_the_chain_draws_possible_hands_and_places_more_real_cards_than_the_plain_deal():
    # At seat 0's decisions the chain's hands have the real sizes, come from the cards the seat has not seen
    # (less the stock), and every state of the chain holds each played card before its play.  Over the
    # decisions, the posterior's hands hold more of the real cards than the history sampler's uniform deals.
    rng = random.Random(3)
    hits = Counter()

    def check(state, log, turn):
        model.update(turn.history, turn.observation)
        if len(turn.legal) < 2 or not model.ready(rng):
            return
        real = state.to_position()["hands"]
        observation = state.observation(0)
        unseen = Counter(facts().data["deck"]) - Counter(observation["hand"]) - Counter(
            e.details["card"] for e in log if e.kind in ("play", "open"))
        for _ in range(6):
            hands = model.hands(rng)
            assert all(model.valid(seat, model.cards) for seat in model.timelines)
            together = Counter()
            for seat, hand in hands.items():
                assert len(hand) == len(real[seat])
                together.update(hand)
                hits["posterior"] += sum((Counter(hand) & Counter(real[seat])).values())
            assert not together - unseen
            world = games.sample_world(RULESET, observation, rng, history=log)
            for seat in hands:
                hits["uniform"] += sum((Counter(world.to_position()["hands"][seat]) & Counter(real[seat])).values())

    for seed in (0, 1, 2, 3):
        model = deal_weights.DealPosterior(facts(), facts().data["deck"])
        tactician_game(seed, 0, check)
    assert hits["uniform"] > 120  # 171 with these seeds; the posterior 242
    assert hits["posterior"] > 1.2 * hits["uniform"]


def events(*items):
    return [Event(seat, kind, "", details) for seat, kind, details in items]


def test_a_draw_on_its_own_turn_says_no_card_fitted_then():
    # Seat 1 drew with 8c on the pile and nothing owed: with a tiny epsilon its five dealt cards hold no club, no
    # 8 and no Jack (a Jack fits on an 8); only the drawn card may fit.  The uniform deal breaks that often.
    history = events((None, "deal", {"hand": 1, "dealer": 0, "hand_sizes": [5, 5, 5, 5]}),
                     (None, "open", {"card": "8c", "from_hand": False}),
                     (1, "draw", {"count": 1}), (1, "pass", {}))
    state = games.new_game(RULESET, 4, 1)
    observation = dict(state.observation(0).to_dict())
    hand = ["2h", "3h", "4h", "5h", "6d"]
    observation.update(hand=hand, hand_sizes=[5, 6, 5, 5], discard=["8c"], discard_size=1, stock_size=104 - 21 - 1,
                       current=2, decision="turn", direction=1, active_suit=None)
    model = deal_weights.DealPosterior(facts(), facts().data["deck"], epsilon=1e-9)
    model.update(history, observation)
    rng = random.Random(1)
    assert model.ready(rng)
    fitting = [sum(c[1] == "c" or c[0] in "8J" for c in model.hands(rng)[1]) for _ in range(200)]
    assert max(fitting) == 0  # the pass after the draw: the drawn card did not fit either
    assert {len(model.hands(rng)[s]) for s in (2, 3)} == {5}


def test_the_hands_drawn_depend_only_on_what_the_seat_sees():
    # Two deals the seat cannot tell apart (the real one, and a world sampled from its observation and the public
    # history, whose hidden cards differ) reach the bot as the same turn request, and the posterior draws the same
    # hands from them: it reads nothing but the seat's observation and the public events.
    seen = []

    def capture(state, log, turn):
        if len(seen) < 3 and len(turn.legal) > 1 and len(log) > 40:
            seen.append((state.clone(), list(log)))

    tactician_game(1, 2, capture)
    assert seen
    for state, log in seen:
        world = games.sample_world(RULESET, state.observation(2), random.Random(9), history=log)
        assert world.to_position()["hands"] != state.to_position()["hands"]
        drawn = []
        for source in (state, world):
            names = [f"p{i}" for i in range(4)]
            message = convert.turn_request_to_pb("g", 1, source.observation(2), source.legal_actions(), 1000, 1000,
                                                 names, log)
            turn = Turn.from_pb(message)
            model = deal_weights.DealPosterior(facts(), facts().data["deck"])
            model.update(turn.history, turn.observation)
            rng = random.Random(4)
            drawn.append([model.hands(rng) for _ in range(5)])
        assert drawn[0] == drawn[1]


def test_the_searcher_with_deal_weights_plays_a_whole_game_legally():
    bots = [searcher_module.SearchBot(worlds=2, depth=4, seed=3, deals=True)] + [
        tactician_module.Tactician() for _ in range(3)]
    for bot in bots:
        start_with_options(bot, RULESET, 4, {})
    searcher = bots[0].games["g"][0]
    assert isinstance(searcher, deal_weights.DealSearcher)
    state = games.new_game(RULESET, 4, 11)
    log = state.record_events()
    while not state.is_over:
        turn = turn_for(state, state.current, events=log)
        answer = bots[state.current].act(turn)
        state.apply(state.legal_actions()[turn.index_of(answer)])  # index_of raises on an illegal answer
    assert searcher.deals.slots
