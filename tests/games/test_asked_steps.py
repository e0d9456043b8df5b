"""Steps a seat may take for itself are asked of it, whatever it holds (Session 19's red-team find).

The engine used to step on alone where the seat's hand left it one action, though another hand could
have chosen: every other seat (and any spectator) then learned for certain what the hand lacked.

* A debt (a 7, a 2, an 8, an Ace...) that some card of the ruleset answers: a seat holding no answer had
  its debt taken without a decision, logged ``accept (forced)``, while a seat holding one may accept too.
* A single draw where only the drawn card may then be played (C-4): a card that did not fit ended the
  turn at once, while a seat may also keep a card that fits (``pass``): the table learned it did not fit.
* A DD MAU play under way that no card in hand could extend: the engine ended it (``stop (forced)``),
  while a seat that could add a card may stop too: the table learned the hand held none that follows.
* A Mose reaction window skipped the seats with no meld, lay-off or swap: being asked told every seat
  and spectator that a hand held a play (and that a seat which then passed was keeping it back).

Each test makes the same moves from two positions that differ only in a card the table cannot see, and
checks that the table sees the same.  The engine still steps on alone where no hand could choose (a debt
that no card of the ruleset answers; the failed follow of an Ace, which a seat that can follow may not
decline).
"""

from __future__ import annotations

import random

import pytest

from arena import games

#: Rulesets and options where a debt (a draw or a skip) can be answered by a card.
STACKING = [
    ("prsi", {}), ("pesten", {}), ("faraon", {}), ("maumau-online", {}), ("neuner", {}), ("evil-seven", {}),
    ("pharaoh-101", {}), ("maumau", {"seven_stack": True}), ("maumau", {"eight_deflect": True}),
]


def _counters(state) -> frozenset:
    return state.rules.rule(state.discard[-1]).stack_with


def _answers(card: str, counters: frozenset) -> bool:
    return card[0] in counters or card in counters


def _with_hand(position: dict, seat: int, answer: bool, counters: frozenset) -> dict | None:
    """The position with ``seat``'s hand trading cards with the stock so that it holds an answer (one
    card of it) or none; None when the stock cannot make the trade."""
    hands = [list(h) for h in position["hands"]]
    stock = list(position["stock"])
    hand = hands[seat]
    if answer:
        if any(_answers(c, counters) for c in hand):
            return position
        swap = next((i for i, c in enumerate(stock) if _answers(c, counters)), None)
        if swap is None or not hand:
            return None
        hand[0], stock[swap] = stock[swap], hand[0]
    else:
        for i, card in enumerate(hand):
            if _answers(card, counters):
                swap = next((j for j, c in enumerate(stock) if not _answers(c, counters)), None)
                if swap is None:
                    return None
                hand[i], stock[swap] = stock[swap], card
    return {**position, "hands": hands, "stock": stock}


def _after(ruleset: str, options: dict, position: dict, action: str):
    state = games.from_position(ruleset, position, **options)
    log = state.record_events()
    state.apply(action)
    return state, [(e.seat, e.kind, e.text, e.details) for e in log]


@pytest.mark.parametrize("ruleset,options", STACKING, ids=[f"{r}-{'-'.join(o) or 'default'}" for r, o in STACKING])
def test_a_play_that_leaves_a_debt_looks_the_same_whether_the_next_seat_can_answer_it(ruleset, options):
    rng = random.Random(f"asked/{ruleset}/{sorted(options)}")
    compared = 0
    for game in range(40):
        players = max(3, games.ruleset_info(ruleset).min_players)
        state = games.new_game(ruleset, players=players, seed=rng.getrandbits(32), **options)
        while not state.is_over and compared < 25:
            legal = state.legal_actions()
            action = rng.choice(legal)
            trial = state.clone()
            trial.apply(action)
            if (not trial.is_over and trial.current != state.current and trial.decision == "turn"
                    and (trial.pending_draw or trial.pending_skip) and _counters(trial)):
                before, target = state.to_position(), trial.current
                worlds = [_with_hand(before, target, answer, _counters(trial)) for answer in (True, False)]
                if None not in worlds:
                    seen = [_after(ruleset, options, w, str(action)) for w in worlds]
                    (holds, events_a), (lacks, events_b) = seen
                    assert holds.current == lacks.current == target, (ruleset, str(action), events_a, events_b)
                    assert "accept" in [str(a) for a in lacks.legal_actions()]
                    assert events_a == events_b, f"{ruleset}: the table sees whether seat {target} can answer"
                    compared += 1
            state.apply(action)
        if compared >= 25:
            break
    assert compared > 0, f"no debt was met in {ruleset}'s random games: the test checked nothing"


def test_a_debt_no_card_answers_is_still_taken_without_asking():
    """Default Mau-Mau: a 7 makes the next seat draw 2 at once, with nothing to answer it, so no decision."""
    state = games.from_position("maumau", {"hands": [["7h", "Kd", "Qd"], ["9h", "Ks"]], "discard": ["Th"],
                                           "stock": ["8c", "8d", "Ac"], "current": 0, "direction": 1,
                                           "scores": [0, 0]})
    state.apply("play 7h")
    assert state.current == 1 and state.hands[1] == ["9h", "Ks", "8c", "8d"]


#: Rulesets where only the drawn card may be played after a single draw (C-4).
DRAWN_ONLY = ["maumau", "prsi", "pesten", "faraon", "neuner", "evil-seven", "pharaoh-101", "puque", "tschau-sepp"]


def _drawn(ruleset: str, position: dict, card_at: int):
    """The position with the stock's card at ``card_at`` on top, the seat's draw made; and its public log."""
    stock = list(position["stock"])
    stock.insert(0, stock.pop(card_at))
    state = games.from_position(ruleset, {**position, "stock": stock})
    log = state.record_events()
    state.apply("draw")
    return state, log


@pytest.mark.parametrize("ruleset", DRAWN_ONLY)
def test_a_single_draw_looks_the_same_whether_the_drawn_card_fits(ruleset):
    rng = random.Random(f"asked-draw/{ruleset}")
    compared = 0
    for game in range(60):
        state = games.new_game(ruleset, players=games.ruleset_info(ruleset).min_players, seed=rng.getrandbits(32))
        while not state.is_over and compared < 20:
            legal = [str(a) for a in state.legal_actions()]
            if state.decision == "turn" and legal == ["draw"] and len(state.to_position()["stock"]) > 1:
                position, seat = state.to_position(), state.current
                fits = unfit = None
                for i in range(len(position["stock"])):
                    drawn, log = _drawn(ruleset, position, i)
                    if drawn.current != seat:
                        continue  # not a plain draw here (a drawn card that ends the hand...)
                    kind = any(str(a).startswith("play") for a in drawn.legal_actions())
                    if kind and fits is None:
                        fits = (drawn, log)
                    elif not kind and unfit is None:
                        unfit = (drawn, log)
                if fits and unfit:
                    others = [s for s in range(drawn.players) if s != seat]
                    views = [[w.observation(o) for o in others] for w, _ in (fits, unfit)]
                    assert views[0] == views[1], f"{ruleset}: the table sees whether the drawn card fits"
                    for world, _ in (fits, unfit):
                        world.apply("pass")
                    assert fits[0].current == unfit[0].current
                    public = [[(e.seat, e.kind, e.text) for e in log] for _, log in (fits, unfit)]
                    assert public[0] == public[1], f"{ruleset}: drawing and keeping a card tells whether it fits"
                    compared += 1
            state.apply(rng.choice(state.legal_actions()))
        if compared >= 20:
            break
    assert compared > 0, f"no single draw met in {ruleset}'s random games: the test checked nothing"


def test_a_dd_mau_play_under_way_looks_the_same_whether_a_card_could_follow():
    """DD MAU: a seat that has called with one card left and stops its play.  Its last card follows (G2 on
    R2: the same number) or does not (B4); stopping is its own decision either way, so the table sees the
    same.  (The engine ended the play for it when nothing could follow, with ``stop (forced)``.)"""
    from tests.games.scenario import position

    spare = [["B13", "G13", "Y13"], ["B12", "G12", "Y12"]]
    seen = []
    for last in ("G2", "B4"):
        state = games.from_position("ddmau", position([["R2", last], *spare], ["R7"], ["Y1"]))
        log = state.record_events()
        for action in ("play R2", "call ddmau", "stop"):
            assert state.current == 0 and action in [str(a) for a in state.legal_actions()]
            state.apply(action)
        seen.append(([(e.seat, e.kind, e.text, e.details) for e in log], state.current, state.observation(1)))
    assert seen[0] == seen[1]


def test_a_mose_window_asks_the_same_seats_whether_or_not_they_can_play():
    """Mose: after a draw the other seats are asked in turn whether they meld, lay off or swap.  Seat 1
    holds a lay-off for the run on the table (8s) or nothing that fits (Kh); either way it is asked and
    passes, and the table (and any spectator) sees the same seats decide in the same order.  (The engine
    used to skip a seat with no play, so being asked told everyone it had one.)"""
    run = {"id": 1, "owner": 2, "kind": "run", "cards": ["5s", "6s", "7s"], "as": [None, None, None]}
    seen = []
    for card in ("8s", "Kh"):
        state = games.from_position("mose", {
            "hands": [["9d", "Kc"], [card, "Jh"], ["3h", "Qc"]], "discard": ["9c"], "stock": ["Qs", "8d", "Ad"],
            "current": 0, "direction": 1, "scores": [0, 0, 0], "melds": [run], "round_started": True})
        log = state.record_events()
        order = []
        state.apply("draw stock")
        while state.decision == "react":
            order.append((state.current, state.observation(None), state.observation(2)))
            state.apply("pass")
        seen.append((order, state.current, [(e.seat, e.kind, e.text) for e in log]))
    assert seen[0] == seen[1] and [seat for seat, _, _ in seen[0][0]] == [1, 2]
