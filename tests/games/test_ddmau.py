"""DD MAU scenarios (RULES.md 7, E-1..E-32): a position, actions, the expected outcome."""

from __future__ import annotations

from collections import Counter

import pytest

from arena import games
from arena.games import ActionParseError, IllegalActionError, OptionError, PositionError
from arena.games.cards import is_card_code
from tests.games.clones import check_clones_along
from tests.games.scenario import hands, legal, position, run

R = "ddmau"
POOL = ["B13", "G13", "Y13", "B12", "G12", "Y12", "B11", "G11", "Y11", "G10", "Y9", "G9", "B9", "G8", "Y8"]


def F(seat: int) -> list[str]:
    """Three spare cards for a seat (distinct per seat), so a play does not leave one card."""
    return POOL[3 * seat: 3 * seat + 3]


def pos(hands_, discard=(), stock=(), **extra):
    return position(hands_, discard, stock, **extra)


# -- cards, deal, dealer -------------------------------------------------------------


def test_codes_are_card_codes_for_action_cards():
    assert all(is_card_code(c) for c in ("R7", "Y10", "PT-r", "SK-b", "OWM-g", "JTT", "SM", "LM", "DM", "MM"))
    assert is_card_code("7h") and is_card_code("X1") and not is_card_code("R14")
    assert games.Action.parse("play PT-r").cards == ("PT-r",)


@pytest.mark.parametrize(("players", "size"), [(2, 9), (3, 7), (7, 7), (8, 5), (10, 5)])
def test_hand_size_by_players_and_no_upcard(players, size):
    state = games.new_game(R, players=players, seed=11)
    p = state.to_position()
    assert [len(h) for h in p["hands"]] == [size] * players
    assert p["discard"] == [] and len(p["stock"]) == 80 - size * players
    assert state.current == (p["dealer"] + 1) % players and state.decision == "turn"


def test_first_dealer_is_the_first_seat_dealt_a_deck_master():
    from arena.games.chance import shuffled
    from arena.games.ddmau.cards import deck

    for seed in range(5):
        state = games.new_game(R, players=4, seed=seed)
        cards = shuffled(deck(), seed, 0)
        assert state.to_position()["dealer"] == cards.index("DM") % 4


def test_options_are_checked():
    with pytest.raises(OptionError):
        games.new_game(R, players=5, seed=1, teams="on")
    with pytest.raises(OptionError):
        games.new_game(R, players=4, seed=1, deck="PT=x")
    with pytest.raises(OptionError):
        games.new_game(R, players=4, seed=1, teams="on", tournament=True)
    state = games.new_game(R, players=4, seed=1, deck="MM=1,SM=1")
    assert sum(len(h) for h in hands(state)) + len(state.to_position()["stock"]) == 76


def test_the_first_play_of_a_hand_may_be_any_card_E4():
    state = run(R, pos([["PT-g", "R3", "LM"] + F(0), F(1)]))
    assert {"play PT-g", "play R3", "play LM"} <= set(legal(state))


# -- the turn: digging, passing ------------------------------------------------------


def test_no_play_means_dig_until_a_play_turns_up():
    state = run(R, pos([["B2", "G3", "Y4"], F(0)], ["R7"], ["Y9", "R1", "B8"]))
    assert legal(state) == ["draw"]
    state.apply("draw")
    assert legal(state) == ["draw"]
    state.apply("draw")  # R1 fits the red 7
    assert set(legal(state)) == {"play R1", "draw"}


def test_digging_for_power_with_a_play_then_pass_after_three_E6():
    state = run(R, pos([["R2", "G3"], F(0)], ["R7"], ["Y9", "Y1", "B8", "B1"]), ["draw", "draw", "draw"])
    assert set(legal(state)) == {"play R2", "pass"}  # playing is optional after 3 draws
    state.apply("pass")
    assert state.current == 1 and len(hands(state)[0]) == 5
    strict = run(R, pos([["R2", "G3"], F(0)], ["R7"], ["Y9", "Y1", "B8"]), ["draw"] * 3, must_play_if_able=True)
    assert legal(strict) == ["play R2"]


def test_three_draws_without_a_play_end_the_turn():
    state = run(R, pos([["B2"], F(0), F(1)], ["R7"], ["Y9", "Y1", "B8"]), ["draw"] * 3)
    assert legal(state) == ["pass"]
    state.apply("pass")
    assert state.current == 1


def test_reshuffle_keeps_the_whole_last_play_E8():
    state = run(R, pos([["B2"], F(0)], ["Y1", "G5", "R7", "Y7"], [], last_play=2))
    state.apply("draw")
    p = state.to_position()
    assert p["discard"] == ["R7", "Y7"] and len(p["stock"]) == 1 and len(p["hands"][0]) == 2


# -- plays ------------------------------------------------------------------------------


def test_same_number_chain_then_stop():
    state = run(R, pos([["R10", "Y10", "B10", "G2"] + F(0), F(1)], ["R7"]), ["play R10", "play Y10"])
    assert state.decision == "chain" and set(legal(state)) == {"stop", "play B10", "call ddmau"}
    state.apply("play B10")
    state.apply("stop")
    assert state.current == 1 and state.to_position()["discard"][-1] == "B10"
    assert state.observation(1)["color"] == "b" and state.observation(1)["number"] == 10


def test_link_master_run_is_offered_step_by_step_and_stop_waits_for_three():
    state = run(R, pos([["LM", "G7", "G8", "G9", "B5"] + F(0), F(1)], ["G2"]), ["play LM", "play G7"])
    assert "play G8" in legal(state) and "stop" in legal(state)
    state.apply("play G8")
    assert "stop" not in legal(state) and "play G9" in legal(state)
    state.apply("play G9")
    assert "stop" in legal(state)


def test_run_card_without_a_link_master_is_not_offered():
    state = run(R, pos([["G7", "G8", "G9"] + F(0), F(1)], ["G2"]), ["play G7"])
    assert "play G8" not in legal(state)


def test_link_master_is_never_offered_alone_but_with_a_deck_master_is():
    state = run(R, pos([["LM", "B2"], F(0)], ["R7"], ["Y9"]))
    assert "play LM" not in legal(state)
    state = run(R, pos([["LM", "DM", "B2"], F(0)], ["R7"], ["Y9"]), ["play LM"])
    assert legal(state) == ["play DM", "call ddmau"]
    state.apply("play DM")  # LM + DM alone: tip 3; leaves one card
    assert "stop" in legal(state)
    state.apply("call ddmau")  # nothing else can be added: stop is all that is left, and still the seat's own
    assert state.current == 0 and legal(state) == ["stop"]
    state.apply("stop")
    assert state.current == 1 and state.observation(1)["color"] == "r"  # see-through (E-21)


def test_deck_master_needs_a_link_master_unless_it_goes_out_E20():
    state = run(R, pos([["DM", "B2"], F(0)], ["R7"], ["Y9"]))
    assert "play DM" not in legal(state)
    state = run(R, pos([["G7", "DM", "DM", "DM"], F(0)], ["R7"]), ["play G7", "play DM", "play DM", "play DM"])
    assert state.to_position()["scores"][0] == -7 and state.to_position()["dealer"] == 0  # E-22


def test_master_mau_declaration_is_its_own_decision_never_deck_master_E30():
    state = run(R, pos([["MM", "SK-b"] + F(0), F(1), F(2)], ["R7"]), ["play MM"])
    assert state.decision == "declare"
    assert set(legal(state)) == {"declare PT", "declare SK", "declare OWM", "declare JTT", "declare SM"}
    state.apply("declare SK")  # absorbs red (FAQ), so a blue Skip may follow
    assert state.to_position()["marks"][-1] == "SK:r" and "play SK-b" in legal(state)


def test_shadow_master_colour_choice():
    state = run(R, pos([["SM", "B2"] + F(0), F(1)], ["R7"]), ["play SM"])
    assert state.decision == "color" and legal(state) == ["color r", "color y", "color b", "color g"]
    assert str(state.default_action()) == "color b"  # the colour held most (B2, B13)
    state.apply("color g")
    state.apply("stop")
    assert state.current == 1 and state.observation(1)["color"] == "g"  # no extra turn


# -- hits ---------------------------------------------------------------------------------


def test_two_skips_two_penal_ts_hit_the_third_player_for_four():
    state = run(R, pos([["SK-r", "SK-b", "PT-b", "PT-g"] + F(0), F(1), F(2), F(3), F(4)], ["R4"], ["Y1", "Y2", "Y3", "Y4", "Y5"]),
                ["play SK-r", "play SK-b", "play PT-b", "play PT-g", "stop"])
    assert state.decision == "hit" and state.current == 3 and legal(state) == ["accept"]
    assert state.observation(0)["pending_hit"] == {"target": 3, "count": 4, "kind": "pt", "by": 0}
    state.apply("accept")
    assert len(hands(state)[3]) == 7 and state.current == 4  # seat 3 lost its turn


def test_tip5_skip_three_hit_the_fourth_then_hit_again_for_four():
    hand = ["SK-y", "SK-b", "SK-r", "PT-r", "PT-g"] + F(0)
    state = run(R, pos([hand, F(1), F(2), F(3), F(4)], ["Y4"], ["Y1", "Y2", "Y3", "Y5", "Y6", "Y7"]),
                ["play SK-y", "play SK-b", "play SK-r", "play PT-r", "stop"])
    assert state.current == 4 and state.decision == "hit"
    state.apply("accept")
    assert len(hands(state)[4]) == 5 and state.current == 0  # your turn again
    state.apply("play PT-g")
    state.apply("stop")
    assert state.current == 1 and state.observation(1)["pending_hit"]["count"] == 4
    state.apply("accept")
    assert len(hands(state)[1]) == 7 and state.current == 2


def test_penal_t_is_progressive_P2_draws_2_P4_draws_6_E13():
    stock = ["R1", "R2", "R3", "R4", "R6", "R8", "R9", "R10", "R11", "R12", "R13", "Y1"]
    state = run(R, pos([["PT-r"] + F(0), F(1), ["PT-y", "PT-b"] + F(2), F(3)], ["R5"], stock),
                ["play PT-r", "stop", "accept"])
    assert len(hands(state)[1]) == 5 and state.current == 2
    for action in ("play PT-y", "play PT-b", "stop"):
        state.apply(action)
    assert state.current == 3 and state.observation(3)["pending_hit"]["count"] == 6
    state.apply("accept")
    assert len(hands(state)[3]) == 9 and state.current == 0


def test_jtt_on_two_penal_ts_draws_6_without_losing_the_turn_then_a_pt_draws_8_E16():
    stock = ["R1", "R2", "R3", "R4", "R6", "R8", "R9", "R10", "R11", "R12", "R13", "Y1", "Y2", "Y3"]
    state = run(R, pos([["JTT"] + F(0), ["PT-y"] + F(1), F(2), F(3)], ["R5", "PT-r", "PT-b"], stock, last_play=2),
                ["play JTT", "stop", "accept"])
    assert len(hands(state)[1]) == 10 and state.current == 1 and state.decision == "turn"
    assert state.observation(1)["effective_top"]["kind"] == "pt"  # looks through the JTT
    state.apply("play PT-y")
    state.apply("stop")
    assert state.current == 2 and state.observation(2)["pending_hit"]["count"] == 8
    state.apply("accept")
    assert len(hands(state)[2]) == 11 and state.current == 3


def test_any_other_visible_card_breaks_the_run_E18():
    state = run(R, pos([["SM", "PT-g"] + F(0), F(1), F(2)], ["PT-r"], ["Y1", "Y2", "Y3"]),
                ["play SM", "color g", "play PT-g", "stop"])
    assert state.observation(1)["pending_hit"]["count"] == 2


def test_block_with_master_mau_no_draw_run_broken_blocker_may_pass_E23():
    state = run(R, pos([["PT-r", "PT-y"] + F(0), ["MM"] + F(1), F(2)], ["R5"], ["Y1", "Y2", "Y3", "Y4"]),
                ["play PT-r", "stop"])
    assert legal(state) == ["accept", "block"] and str(state.default_action()) == "accept"
    state.apply("block")
    p = state.to_position()
    assert p["discard"][-1] == "MM" and p["marks"][-1] == "BLOCK:r" and len(p["hands"][1]) == 3
    assert state.current == 1 and state.decision == "turn" and "pass" in legal(state)
    state.apply("pass")
    assert state.current == 2


def test_a_penal_t_target_cannot_pass_it_on_E24():
    state = run(R, pos([["PT-r"] + F(0), ["PT-y"] + F(1), F(2)], ["R5"], ["Y1", "Y2"]), ["play PT-r", "stop"])
    assert legal(state) == ["accept"]


def test_other_way_mae_reverses_and_plays_again_two_cancel_E17():
    state = run(R, pos([["OWM-r", "R2"] + F(0), F(1), F(2)], ["R5"]), ["play OWM-r", "stop"])
    assert state.current == 0 and state.decision == "turn" and state.to_position()["direction"] == -1
    state.apply("play R2")
    state.apply("stop")
    assert state.current == 2
    state = run(R, pos([["OWM-r", "OWM-b"] + F(0), F(1), F(2)], ["R5"]), ["play OWM-r", "play OWM-b", "stop"])
    assert state.current == 0 and state.to_position()["direction"] == 1


# -- the call and the catch window ---------------------------------------------------------


def test_missing_call_opens_a_catch_window_in_order_and_the_catch_costs_one_card():
    state = run(R, pos([["R2", "B4"], ["G1"] + F(0), ["G2"] + F(1)], ["R7"], ["Y1", "Y2"]), ["play R2", "stop"])
    assert state.decision == "catch" and state.current == 1 and legal(state) == ["catch 0", "pass"]
    state.apply("pass")
    assert state.current == 2
    state.apply("catch 0")
    assert len(hands(state)[0]) == 2 and state.current == 1 and state.decision == "turn"


def test_called_play_leaves_no_window_and_nobody_catches():
    state = run(R, pos([["R2", "B4"], F(0), F(1)], ["R7"], ["Y1"]), ["play R2", "call ddmau"])
    assert state.decision == "chain" and legal(state) == ["stop"]  # B4 cannot follow: the seat is asked all the same
    state.apply("stop")
    assert state.decision == "turn" and state.current == 1


def test_going_out_with_several_cards_needs_no_call():
    state = run(R, pos([["R10", "Y10"], ["G1"], ["G2"]], ["R7"], []), ["play R10", "play Y10"], max_hands=1)
    assert state.is_over and state.result().points == (-20, 1, 2)


# -- going out and scoring ---------------------------------------------------------------------


def test_minus_164_rainbow_run_going_out():
    play = ["LM", "LM", "MM", "R1", "Y1", "B1", "Y2", "R3", "B4", "G5", "G6", "Y7", "B8", "Y8", "R8"]
    state = run(R, pos([play, ["G13"], ["B12", "B11"]], ["R7"]), max_hands=1)
    for card in play:
        state.apply(f"play {card}")
        if card == "MM":
            state.apply("declare LM")
    assert state.is_over and state.to_position()["scores"] == [-164, 13, 23]


def test_shadow_master_finish_multiplies_the_others_hand_points_E10():
    state = run(R, pos([["SM"], ["G13"], ["B2", "B3"]], ["R7"]), ["play SM"], max_hands=1)
    assert state.to_position()["scores"] == [-35, 26, 10]
    state = run(R, pos([["SM", "SM"], ["G13"], ["B2", "B3"]], ["R7"]), ["play SM", "color r", "play SM"], max_hands=1)
    assert state.to_position()["scores"] == [-70, 52, 20]
    totals = run(R, pos([["SM"], ["G13"], ["B2", "B3"]], ["R7"], scores=[0, 100, 10]), ["play SM"],
                 max_hands=1, sm_multiplies="totals")
    assert totals.to_position()["scores"] == [-35, 226, 30]


def test_going_out_with_a_penal_t_still_hits_and_the_cards_count_E9():
    state = run(R, pos([["PT-r"], ["G13"], ["B1"]], ["R7"], ["Y5", "Y6"]), ["play PT-r"], max_hands=1)
    assert state.decision == "hit" and state.current == 1
    state.apply("accept")
    assert state.is_over and state.to_position()["scores"] == [-20, 24, 1]


def test_master_mau_always_scores_50_E31():
    state = run(R, pos([["MM"], ["G13"], ["B1"]], ["R7"]), ["play MM", "declare SK"], max_hands=1)
    assert state.to_position()["scores"][0] == -50


def test_safety_net_then_end_check_lowest_total_wins_ties_share_E11_E32():
    state = run(R, pos([["R2"], ["R5"], ["G8"]], ["R7"], scores=[10, 497, 492]), ["play R2"])
    p = state.to_position()
    assert p["scores"] == [8, 350, 350] and not state.is_over and p["hand_number"] == 2
    state = run(R, pos([["R2"], ["R13"], ["G8"]], ["R7"], scores=[10, 493, 100]), ["play R2"])
    assert state.is_over and state.result().points == (8, 506, 108) and state.result().placements == (1, 3, 2)
    state = run(R, pos([["R2"], ["R13"], ["G8"]], ["R7"], scores=[10, 493, 0]), ["play R2"])
    assert state.result().placements == (1, 3, 1)


def test_deck_master_passes_to_the_first_holder_in_the_direction_of_play_E22():
    state = run(R, pos([["R2"], ["G1"], ["DM", "B1"], ["DM"]], ["R7"], dealer=1), ["play R2"])
    assert state.to_position()["dealer"] == 2
    state = run(R, pos([["R2"], ["G1"], ["DM", "B1"], ["DM"]], ["R7"], dealer=1, direction=-1), ["play R2"])
    assert state.to_position()["dealer"] == 3
    state = run(R, pos([["R2"], ["G1"], ["B1"]], ["R7"], dealer=1), ["play R2"])
    p = state.to_position()
    assert p["dealer"] == 1 and p["current"] == 2 and p["discard"] == [] and p["hand_number"] == 2


def test_teams_add_partners_hand_scores_E29():
    state = run(R, pos([["R2"], ["G1"], ["B10"], ["Y5"]], ["R7"]), ["play R2"], teams="on", max_hands=1)
    assert state.to_position()["scores"] == [8, 6, 8, 6]
    assert state.result().placements == (3, 1, 3, 1)
    assert state.observation(0)["teams"] == [0, 1, 0, 1]
    six = games.new_game(R, players=6, seed=3, teams="on")
    assert six.observation(None)["teams"] == [0, 1, 2, 0, 1, 2]


def test_tournament_eliminates_seats_above_505_until_one_is_left():
    state = run(R, pos([["R2"], ["R13"], ["G8"]], ["R7"], scores=[10, 500, 100]), ["play R2"], tournament=True)
    p = state.to_position()
    assert not state.is_over and p["active"] == [True, False, True] and p["hands"][1] == []
    assert len(p["hands"][0]) == 9  # two seats left: 9 cards each
    state = run(R, pos([["R2"], ["R13"], ["G8"]], ["R7"], scores=[10, 500, 500]), ["play R2"], tournament=True)
    assert state.is_over and state.result().placements[0] == 1


def test_target_and_max_hands_shorten_the_game():
    state = run(R, pos([["R2"], ["R13"], ["G8"]], ["R7"], scores=[10, 40, 100]), ["play R2"], target=50)
    assert state.is_over


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [
    {"hands": [["R7"]], "discard": [], "stock": [], "current": 0, "direction": 1},
    {"hands": [["R7"], ["R7"]], "discard": [], "stock": [], "current": 0, "direction": 1},
    {"hands": [["Q7"], ["R8"]], "discard": [], "stock": [], "current": 0, "direction": 1},
    {"hands": [["R7"], ["R8"]], "discard": [], "stock": [], "current": 2, "direction": 1},
    {"hands": [["R7"], ["R8"]], "discard": ["R1"], "stock": [], "current": 0, "direction": 0},
    {"hands": [["R7"], ["R8"]], "discard": ["R1"], "marks": ["PT:r"], "stock": [], "current": 0, "direction": 1},
    {"hands": [["R7"], ["R8"]], "discard": ["R1"], "stock": [], "current": 0, "direction": 1, "phase": "declare"},
    {"hands": [["R7"], ["R8"]], "discard": ["R1", "B5"], "stock": [], "current": 0, "direction": 1,
     "phase": "chain", "chain": 2},
    {"hands": [["R7"], ["R8"]], "discard": ["R1"], "stock": [], "current": 0, "direction": 1, "phase": "hit"},
    {"hands": [["R7"], ["R8"]], "stock": [], "current": 0, "direction": 1},
    "not a position",
])
def test_bad_positions_raise(bad):
    with pytest.raises(PositionError):
        games.from_position(R, bad)


def test_illegal_and_unknown_actions_raise_and_change_nothing():
    state = run(R, pos([["R2", "B4"] + F(0), F(1)], ["R7"], ["Y1"]))
    before = state.to_position()
    for text in ("play B4", "play Y5", "stop", "declare DM", "color r", "catch 1", "block", "frobnicate", "play"):
        with pytest.raises((IllegalActionError, ActionParseError)):
            state.apply(text)
        assert state.to_position() == before
    with pytest.raises(ActionParseError):
        state.apply("")


def test_a_minimal_position_is_valid_and_round_trips():
    state = games.from_position(R, pos([["R2"], ["G3"]], ["R7"]))
    again = games.from_position(R, state.to_position())
    assert again.to_position() == state.to_position() and legal(again) == legal(state)


def test_observation_hides_other_hands_and_the_seed():
    state = games.new_game(R, players=3, seed=123456789012345)
    obs = state.observation(1).to_dict()
    assert obs["hand"] == hands(state)[1] and "123456789012345" not in str(obs)
    assert state.observation(None)["hand"] is None
    for key in ("effective_top", "color", "hit_run", "play_size", "teams", "dealer", "pending_hit"):
        assert key in obs


# -- random self-play ----------------------------------------------------------------------------------


def test_random_self_play_ends_and_conserves_cards():
    import random
    import time

    decisions = 0
    started = time.perf_counter()
    for players, seed in ((2, 1), (4, 2), (7, 3), (10, 4)):
        state = games.new_game(R, players=players, seed=seed, target=200)
        rng = random.Random(seed)
        while not state.is_over:
            legal_now = state.legal_actions()
            assert state.default_action() in legal_now
            plays = [a for a in legal_now if a.verb in ("play", "stop", "declare", "color")]
            state.apply(rng.choice(plays if plays and rng.random() < 0.8 else legal_now))
            decisions += 1
            assert decisions < 100_000
            if decisions % 97 == 0:
                p = state.to_position()
                held = Counter(p["discard"] + p["stock"] + [c for h in p["hands"] for c in h])
                assert sum(held.values()) == 80
    rate = decisions / (time.perf_counter() - started)
    print(f"ddmau self-play: {decisions} decisions, {rate:.0f}/s")


# -- more effects, order, edge cases ----------------------------------------------------------------


def test_effects_in_card_order_an_owm_turns_the_hit_back_E28():
    state = run(R, pos([["OWM-r", "PT-r"] + F(0), F(1), F(2)], ["R5"], ["Y1", "Y2"]),
                ["play OWM-r", "play PT-r", "stop"])
    assert state.current == 2 and state.decision == "hit"  # the direction flipped before the PT
    state.apply("accept")
    assert state.current == 0 and state.decision == "turn"  # the OWM's extra turn


def test_a_hit_sent_round_to_its_own_player_goes_on_to_the_next_seat():
    state = run(R, pos([["SK-r", "PT-r"] + F(0), F(1)], ["R5"], ["Y1", "Y2"]), ["play SK-r", "play PT-r", "stop"])
    assert state.current == 1 and state.decision == "hit"
    state.apply("accept")
    assert state.current == 0 and len(hands(state)[1]) == 5


def test_master_mau_as_jtt_hits_and_can_be_blocked_by_another_master_mau():
    state = run(R, pos([["MM"] + F(0), ["MM"] + F(1), F(2)], ["R5"], ["Y1", "Y2"]), ["play MM", "declare JTT", "stop"])
    assert state.current == 1 and state.observation(1)["pending_hit"]["kind"] == "jtt"
    state.apply("block")
    p = state.to_position()
    assert p["marks"][-2:] == ["JTT", "BLOCK:r"] and state.observation(2)["hit_run"] == 0


def test_a_deck_master_is_offered_first_when_the_play_can_go_out():
    state = run(R, pos([["G7", "DM", "DM", "DM"], F(0)], ["R7"]))
    assert set(legal(state)) == {"play G7", "play DM"}
    state = run(R, pos([["G7", "DM", "B2"], F(0)], ["R7"], ["Y1"]))
    assert "play DM" not in legal(state)


def test_numbers_then_powers_with_the_flag_E27():
    state = run(R, pos([["R5", "PT-r"] + F(0), F(1), F(2)], ["R2"], ["Y1", "Y2"]), ["play R5"])
    assert "play PT-r" not in legal(state)
    state = run(R, pos([["R5", "PT-r"] + F(0), F(1), F(2)], ["R2"], ["Y1", "Y2"]), ["play R5", "play PT-r", "stop"],
                allow_number_to_power_chain=True)
    assert state.current == 1 and state.decision == "hit"


def test_catch_window_follows_the_direction_of_play():
    state = run(R, pos([["R2", "B4"], F(0), F(1), F(2)], ["R7"], ["Y1"], direction=-1), ["play R2", "stop"])
    assert state.decision == "catch" and state.current == 3
    state.apply("pass")
    assert state.current == 2
    state.apply("pass")
    state.apply("pass")
    assert state.decision == "turn" and state.current == 3 and len(hands(state)[0]) == 1


def test_a_hand_where_nobody_can_play_or_draw_ends_blocked():
    state = run(R, pos([["B2", "G3"], ["Y4"]], ["R7"], []), ["pass", "pass"], max_hands=1)
    assert state.is_over and state.to_position()["scores"] == [5, 4]


def test_hit_draws_reshuffle_the_pile_but_keep_the_hitting_play():
    state = run(R, pos([["PT-r"] + F(0), F(1), F(2)], ["Y1", "Y2", "R5"], ["B1"]), ["play PT-r", "stop", "accept"])
    p = state.to_position()
    assert p["discard"] == ["PT-r"] and len(p["hands"][1]) == 5


def test_positions_round_trip_in_every_kind_of_decision():
    starts = [
        (pos([["MM", "SK-b"] + F(0), F(1)], ["R7"]), ["play MM"]),
        (pos([["SM", "B2"] + F(0), F(1)], ["R7"]), ["play SM"]),
        (pos([["LM", "G7", "G8", "G9"] + F(0), F(1)], ["G2"]), ["play LM", "play G7", "play G8"]),
        (pos([["PT-r"] + F(0), ["MM"] + F(1), F(2)], ["R5"], ["Y1", "Y2"]), ["play PT-r", "stop"]),
        (pos([["R2", "B4"], F(0), F(1)], ["R7"], ["Y1"]), ["play R2", "stop"]),
        (pos([["PT-r"], ["G13"], ["B1"]], ["R7"], ["Y5", "Y6"]), ["play PT-r"]),
    ]
    for start, actions in starts:
        state = run(R, start, actions)
        restored = games.from_position(R, state.to_position())
        assert restored.to_position() == state.to_position()
        assert restored.decision == state.decision and legal(restored) == legal(state)
        action = state.default_action()
        state.apply(action)
        restored.apply(action)
        assert restored.state_hash() == state.state_hash()


def test_team_end_on_individual_totals_flag_E29():
    start = pos([["R2"], ["G1"], ["B10"], ["Y5"]], ["R7"], scores=[400, 400, 400, 400], individual=[300, -98, 492, 100])
    state = run(R, start, ["play R2"], teams="on", team_end_on_individual=True, max_hands=1)
    p = state.to_position()
    assert p["individual"] == [298, -97, 350, 105] and p["scores"] == [648, 8, 648, 8]
    state = run(R, start, ["play R2"], teams="on")
    assert state.to_position()["scores"] == [408, 406, 408, 406] and state.is_over is False


# -- issue 14: rules exactness ------------------------------------------------------------------


def test_blocking_with_the_last_card_ends_the_hand_and_the_blocker_scores_minus_50():
    start = pos([["PT-r"] + F(0), ["MM"], F(1)], ["R7"], ["Y1", "Y2", "Y3"])
    state = run(R, start, ["play PT-r", "stop", "block"], max_hands=1)
    assert state.is_over and state.to_position()["scores"] == [39, -50, 36]
    state = run(R, start, ["play PT-r", "stop", "block"])  # the match goes on with hand 2
    p = state.to_position()
    assert p["hand_number"] == 2 and p["last_hand"]["winner"] == 1 and p["scores"] == [39, -50, 36]


@pytest.mark.parametrize(("hit", "target", "after"), [("JTT", 2, 2), ("PT-r", 2, 3)])
def test_a_skip_after_the_hit_card_sends_the_hit_one_seat_further(hit, target, after):
    """7.5/E-14: the target is k+1 seats along, k = the Skips anywhere in the play."""
    stock = ["Y1", "Y2", "Y3", "Y4"]
    state = run(R, pos([[hit, "SK-r"] + F(0), F(1), F(2), F(3)], ["R7"], stock), [f"play {hit}", "play SK-r", "stop"])
    assert state.decision == "hit" and state.current == target
    state.apply("accept")
    assert len(hands(state)[target]) == 5 and len(hands(state)[1]) == 3
    assert state.current == after and state.decision == "turn"


def test_a_hand_that_goes_round_without_progress_ends_stalled():
    """Stock empty, one card under the last play: each seat digs it and plays it; a full round of that ends it."""
    start = pos([["G2", "G4", "G6"], ["B9", "B8", "B6"]], ["R3", "R7"], [], last_play=1)
    actions = ["draw", "play R3", "stop", "draw", "play R7", "stop"]
    state = run(R, start, actions, max_hands=1)
    assert state.is_over and state.to_position()["last_hand"]["reason"] == "stalled"
    assert state.to_position()["scores"] == [12, 23]
    state = run(R, start, actions[:3], max_hands=1)  # one stale turn is not yet a round
    restored = games.from_position(R, state.to_position(), max_hands=1)
    for text in actions[3:]:
        restored.apply(text)
    assert restored.is_over


def dig_first_bot(state):
    """Digs whenever it may, passes whenever it may, else plays the first legal action."""
    legal = state.legal_actions()
    for verb in ("draw", "pass"):
        for action in legal:
            if action.verb == verb:
                return action
    return legal[0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seats_that_always_dig_and_pass_still_finish_every_hand(players):
    state = games.new_game(R, players=players, seed=1)
    decisions = 0
    while not state.is_over:
        state.apply(dig_first_bot(state))
        decisions += 1
        assert decisions < 5_000, "a hand never ends"
    assert state.to_position()["last_hand"]["reason"] == "stalled"


def test_turn_limit_ends_a_hand_and_is_checked():
    state = games.new_game(R, players=2, seed=3, turn_limit=5, max_hands=1)
    while not state.is_over:
        state.apply(state.default_action())
    p = state.to_position()
    assert p["last_hand"]["reason"] == "turn-limit" and p["last_hand"]["winner"] is None and p["turns"] == 5
    with pytest.raises(OptionError):
        games.new_game(R, players=2, seed=3, turn_limit=-1)


def test_a_clone_copies_every_field_and_plays_on_alone():
    from arena.games.ddmau.cards import mask
    from arena.games.ddmau.state import DDMauState

    rng = __import__("random").Random(5)
    state = games.new_game(R, players=4, seed=21, tournament=True, target=60)
    for _ in range(400):  # into a later hand, with a window, a hit or an elimination on the way
        state.apply(rng.choice(state.legal_actions()))
        if state.is_over:
            break
    copy = state.clone()
    assert all(hasattr(copy, name) for name in DDMauState.__slots__)  # a field clone() forgot is unset
    before = state.to_position()
    assert copy.to_position() == before
    while not copy.is_over:
        copy.apply(rng.choice(copy.legal_actions()))
    assert state.to_position() == before
    assert copy.sizes == [len(hand) for hand in copy.hands]  # kept through the hands dealt since
    assert copy.held == [*map(mask, copy.hands)]
    assert state.held == [*map(mask, state.hands)]  # (the copy's masks are its own)


def test_a_clone_sets_every_slot_at_every_decision_and_the_kept_sizes_stay_true():
    # As Mose's test: clone() lists the fields one by one (a new slot it forgets is unset), and the engine keeps
    # the hand sizes and each hand's mask of distinct cards as cards move (`DDMauState.sizes`, what the
    # observations share; `DDMauState.held`, what the validator reads): checked at every decision of whole
    # hands, in every phase, and each copy plays on alone.
    from arena.games.ddmau.cards import mask
    from arena.games.selfplay import chooser

    def kept_sizes_and_masks_are_true(state):
        assert state.sizes == [len(hand) for hand in state.hands]
        assert state.held == [*map(mask, state.hands)]  # each hand's distinct cards, kept as cards move

    rng = chooser(5)
    phases = set()
    for players, seed in ((3, 2),):  # (a hand with every phase, in 1,982 decisions)
        state = games.new_game(R, players=players, seed=seed, max_hands=1)
        phases |= check_clones_along(state, rng, kept_sizes_and_masks_are_true)
    assert phases >= {"turn", "chain", "declare", "color", "hit", "catch"}
