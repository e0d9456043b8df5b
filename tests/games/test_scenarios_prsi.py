"""Prší scenarios (RULES.md 5.2 Czech Republic, C-5, C-16..C-19, decision 10.3)."""

from __future__ import annotations

from collections import Counter

from arena import games
from tests.games.scenario import hands, legal, position, run

R = "prsi"


def test_32_german_cards_four_each():
    pos = games.new_game(R, players=3, seed=2, starter_effects=False).to_position()
    deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
    assert sum(deck.values()) == 32 and [len(h) for h in pos["hands"]] == [4, 4, 4]


def test_C19_ace_skip_passed_on_by_an_ace():
    pos = position([["Ah", "Kd", "Qd"], ["As", "Ks", "9d"], ["Qh", "8d", "7c"]], ["Th"], ["7d"])
    state = run(R, pos, ["play Ah"])
    assert state.current == 1 and legal(state) == ["play As", "accept"]
    state.apply("play As")
    # seat 2 has no Ace: asked all the same (taking the skip for it would tell the table), it misses its turn (C-6)
    assert state.current == 2 and legal(state) == ["accept"]
    state.apply("accept")
    assert state.current == 0 and state.observation(0)["pending"] == {}


def test_C19_ace_deflect_off_skips_at_once():
    pos = position([["Ah", "Kd", "Qd"], ["As", "Ks", "9d"], ["Qh", "8d", "7c"]], ["Th"], ["7d"])
    assert run(R, pos, ["play Ah"], ace_deflect=False).current == 2


def test_C5_seven_stacks_and_the_drawer_may_not_play():
    pos = position([["7h", "Kd", "Qd"], ["7c", "Ks", "9s"], ["Qh", "8d", "7d"]], ["Th"],
                   ["8c", "9c", "Tc", "Jc", "As"])
    state = run(R, pos, ["play 7h", "play 7c"])
    assert legal(state) == ["play 7d", "accept"]
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "8d", "7d", "8c", "9c", "Tc", "Jc"] and state.current == 0


def test_C17_ober_wild_with_a_wish_but_not_on_a_live_seven():
    pos = position([["Qc", "Kd", "Qd"], ["9h", "9s", "8d"], ["Qh"]], ["Th"], ["7c"])
    state = run(R, pos, ["play Qc", "suit s"])
    assert state.current == 1 and legal(state) == ["play 9s"]
    state = run(R, position([["7h", "Kd"], ["Qs", "7s", "9c"], ["Qh"]], ["Th"], ["8s"]), ["play 7h"])
    assert legal(state) == ["play 7s", "accept"]
    # on a dead 7 (already paid) the Ober goes again
    state = run(R, position([["Qs", "8d"], ["9c"]], ["Th", "7h"], ["8s"]))
    assert "play Qs" in legal(state)


def test_C18_unter_is_plain():
    assert legal(run(R, position([["Jc", "9h", "8d"], ["9c"]], ["Th"], ["8c"]))) == ["play 9h"]


def test_no_call_at_one_card():
    state = run(R, position([["9h", "Kd"], ["9c", "8c"], ["Qd"]], ["Th"], ["8s"]), ["play 9h"])
    assert state.decision == "turn" and state.current == 1


def test_C16_green_king_draws_four_and_stacks_with_sevens():
    pos = position([["Ks", "Kd", "Qd"], ["7s", "Kh", "9c"], ["Qh", "8d", "9d"]], ["Ts"],
                   ["8c", "9s", "Tc", "Jc", "Ac", "Ad", "7d"])
    state = run(R, pos, ["play Ks"], green_king=True)
    assert legal(state) == ["play 7s", "accept"]
    state.apply("play 7s")
    assert state.current == 2 and legal(state) == ["accept"]  # no 7 or green King, asked all the same
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "8d", "9d", "8c", "9s", "Tc", "Jc", "Ac", "Ad"]
    assert run(R, pos, ["play Ks"]).current == 1 and hands(run(R, pos, ["play Ks"]))[1] == ["7s", "Kh", "9c"]


def test_C16_seven_of_hearts_all_others_draw_one_and_the_player_goes_again():
    pos = position([["7h", "Kh", "Qd"], ["9c", "8c"], ["Qc", "8d"]], ["Th"], ["7c", "9d"])
    state = run(R, pos, ["play 7h"], seven_hearts=True)
    assert hands(state)[1] == ["9c", "8c", "7c"] and hands(state)[2] == ["Qc", "8d", "9d"]
    assert state.current == 0 and state.decision == "follow" and legal(state) == ["play Kh", "play Qd"]


def test_C16_seven_of_hearts_does_not_answer_a_live_seven():
    pos = position([["7s", "Kd"], ["7h", "7c", "9c"], ["Qh"]], ["Ts"], ["8c", "9d"])
    state = run(R, pos, ["play 7s"], seven_hearts=True)
    assert legal(state) == ["play 7c", "accept"]


def test_losers_score_one_point_per_card():
    state = run(R, position([["9h"], ["Ah", "8s", "Kd"], ["9d"]], ["Th"], ["Kc"]), ["play 9h"])
    assert state.is_over and state.scores == [0, 3, 1]


def test_C20_return_to_game_the_finisher_wins_after_a_full_round():
    pos = position([["9h"], ["Kc", "8s"], ["Kd", "Ts"]], ["Th"], ["7c", "8c", "9c"])
    state = run(R, pos, ["play 9h"], return_to_game=True)
    assert not state.is_over and state.current == 1 and state.observation(1)["returning"] == 0
    state.apply("draw")  # seat 1: 7c does not fit, so it passes
    state.apply("pass")
    assert state.current == 2
    state.apply("draw")  # seat 2: 8c does not fit either; its pass ends the round and seat 0 has won
    state.apply("pass")
    assert state.is_over and state.result().placements[0] == 1


def test_C20_a_seven_of_hearts_brings_the_finisher_back():
    pos = position([["9h"], ["7h", "Kh", "Kd"], ["Qd", "Ts"]], ["Th"], ["7c", "8c", "9c", "Ac"])
    state = run(R, pos, ["play 9h", "play 7h"], return_to_game=True)
    assert hands(state)[0] == ["8c"] and hands(state)[2] == ["Qd", "Ts", "7c"]
    assert state.observation(0)["returning"] is None and not state.is_over
    assert state.decision == "follow" and state.current == 1


def test_C13_blind_play_with_nobody_left_to_challenge_stands_as_believed():
    # Two players: seat 1 went out and waits out the return window (C-20), so seat 0's blind
    # play has nobody to doubt it (the property tests found seat 0 asked to challenge itself).
    pos = position([["Kc", "8s"], ["9h"]], ["Th"], ["7c", "8c", "9c"], current=1)
    state = run(R, pos, ["blind 9h 9h", "believe"], return_to_game=True, blind=True)
    assert state.current == 0 and state.observation(0)["returning"] == 1
    state.apply("blind 8s 9s")  # a lie nobody can doubt
    assert state.is_over and state.result().placements == (2, 1)  # seat 0 had its one turn: seat 1 wins


def test_C20_going_out_on_a_queen_names_the_suit_then_the_others_play():
    # The finisher names the suit of its last card while it waits out the round; that position
    # must load (the property tests found it refused: "the returning seat ... not the current seat").
    pos = position([["Qh"], ["Kc", "8s"], ["Kd", "Ts"]], ["Th"], ["7c", "8c", "9c"])
    state = run(R, pos, ["play Qh"], return_to_game=True)
    assert state.decision == "suit" and state.current == 0 and state.observation(0)["returning"] == 0
    restored = games.from_position(R, state.to_position(), return_to_game=True)
    assert restored.to_position() == state.to_position()
    state.apply("suit c")
    assert state.current == 1 and legal(state)[0] == "play Kc"
