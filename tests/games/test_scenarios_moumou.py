"""Moumou scenarios: one test per card effect and per resolution A-1..A-26 (RULES.md section 3)."""

from __future__ import annotations

import pytest

from arena import games
from arena.games import ActionParseError, IllegalActionError, OptionError, PositionError
from tests.games.scenario import hands, legal, position, run, top

R = "moumou"


def test_A1_exactly_two_players():
    info = games.ruleset_info(R)
    assert (info.min_players, info.max_players) == (2, 2)
    with pytest.raises(OptionError):
        games.new_game(R, players=3, seed=1)
    with pytest.raises(PositionError):
        games.from_position(R, position([["7h"], ["8h"], ["9h"]], ["Th"]))


def test_A2_dealers_fifth_card_is_the_dealers_play_with_its_effects():
    for seed in range(400):
        state = games.new_game(R, players=2, seed=seed)
        pos = state.to_position()
        opening = pos["discard"][0]
        if opening[0] == "7" and not any(c[0] == "7" for c in pos["hands"][0]):
            break
    else:
        pytest.fail("no seed opened with a lone 7")
    assert pos["dealer"] == 0 and len(pos["discard"]) == 1
    assert len(pos["hands"][0]) == 4  # the dealer keeps 4 of 5
    assert len(pos["hands"][1]) == 6  # the 7 made the non-dealer draw 1
    assert state.current == 1 and state.decision == "turn"


def test_A2_dealer_may_continue_the_opening_with_a_combo():
    for seed in range(400):
        state = games.new_game(R, players=2, seed=seed)
        if state.decision == "combo":
            break
    else:
        pytest.fail("no seed opened with a combo chance")
    assert state.current == 0
    rank = top(state)[0]
    assert legal(state)[-1] == "stop"
    assert all(a.split()[1][0] == rank for a in legal(state)[:-1])


def test_A3_seven_opponent_draws_one_then_takes_a_normal_turn():
    state = run(R, position([["7h", "Kd"], ["9c", "Qs"]], ["Th"], ["6d", "8c"]), ["play 7h"])
    assert hands(state)[1] == ["9c", "Qs", "6d"]
    assert state.current == 1 and state.decision == "turn"
    assert state.observation(1)["pending"] == {}


def test_A4_eights_draw_two_each_and_skip_once():
    pos = position([["8h", "8s", "Kd"], ["9c"]], ["Th"], ["6d", "6c", "7s", "7c", "9h"])
    state = run(R, pos, ["play 8h"])
    assert state.decision == "combo" and legal(state) == ["play 8s", "stop"]
    state.apply("play 8s")
    assert hands(state)[1] == ["9c", "6d", "6c", "7s", "7c"]
    assert state.current == 0 and state.decision == "turn"  # one skip: the 8 player moves again


def test_A5_penalties_are_immediate_and_cannot_be_passed_on():
    state = run(R, position([["7h", "Kd"], ["7c", "Qs"]], ["Th"], ["6d"]), ["play 7h"])
    assert hands(state)[1] == ["7c", "Qs", "6d"]
    assert "accept" not in legal(state)
    state.apply("play 7c")
    assert hands(state)[0] == ["Kd"]  # the stock was empty after the first draw; nothing stacked


def test_A6_combo_first_card_legal_rest_same_rank_last_sets_suit():
    pos = position([["9h", "9c", "9s", "Ad"], ["Kd"]], ["Th"], ["6d"])
    state = run(R, pos, ["play 9h"])
    assert legal(state) == ["play 9c", "play 9s", "stop"]
    state.apply("play 9c")
    state.apply("stop")
    assert top(state) == "9c" and hands(state)[0] == ["9s", "Ad"]
    assert state.current == 1
    assert legal(state) == ["draw"]  # Kd matches neither 9 nor clubs


def test_A7_demand_beats_six_anywhere():
    pos = position([["6s", "6h", "Jd", "Ks"], ["Qc"]], ["8c", "Jc"], ["7d"], active_suit="h", suit_kind="demand")
    assert legal(run(R, pos)) == ["play 6h", "play Jd"]
    assert legal(run(R, pos, six_overrides_demand=True)) == ["play 6s", "play 6h", "play Jd"]


def test_A8_cover_a_six_with_six_same_suit_or_jack_and_cover_effects_apply():
    pos = position([["6h", "6s", "Kh", "Jc", "9d"], ["Qc"]], ["Th"], ["8d", "8s"])
    state = run(R, pos, ["play 6h"])
    assert state.decision == "combo"
    state.apply("stop")
    assert state.decision == "cover" and state.current == 0
    assert legal(state) == ["play 6s", "play Kh", "play Jc"]
    state.apply("play Jc")
    assert state.decision == "suit" and state.current == 0
    state.apply("suit d")
    assert state.current == 1 and state.observation(1)["active_suit"] == "d"
    assert state.observation(1)["suit_kind"] == "demand"


def test_A8_cover_after_a_six_combo_matches_the_last_six():
    pos = position([["6h", "6s", "Kh", "Js", "9s"], ["Qc"]], ["Th"], ["8d"])
    state = run(R, pos, ["play 6h", "play 6s"])
    assert state.decision == "cover"
    assert legal(state) == ["play Js", "play 9s"]


def test_A8_covering_seven_makes_the_opponent_draw():
    state = run(R, position([["6h", "7h", "Ks"], ["Qc"]], ["Th"], ["8d"]), ["play 6h", "play 7h"])
    assert hands(state)[1] == ["Qc", "8d"] and state.current == 1


def test_A8_covering_six_starts_a_new_cover_obligation():
    state = run(R, position([["6h", "Kd", "6d"], ["Qc"]], ["Th"], ["8d"]), ["play 6h", "stop"])
    assert legal(state) == ["play 6d"]
    state.apply("play 6d")
    assert state.decision == "cover" and legal(state) == ["play Kd"]


def test_A9_draw_until_a_cover_which_must_be_played():
    pos = position([["6h", "Kc"], ["Qc"]], ["Th"], ["9c", "Ks", "7h", "8d"])
    state = run(R, pos, ["play 6h"])
    assert legal(state) == ["draw"]
    state.apply("draw")
    assert hands(state)[0] == ["Kc", "9c", "Ks", "7h"]
    assert legal(state) == ["play 7h"]
    state.apply("play 7h")
    assert hands(state)[1] == ["Qc", "8d"] and state.current == 1


def test_A9_empty_stock_lapses_the_cover_and_the_turn_passes():
    state = run(R, position([["6h", "Kc"], ["Qc", "9h"]], ["8s", "9s", "Th"], []), ["play 6h"])
    assert legal(state) == ["pass"]
    state.apply("pass")
    assert state.current == 1 and state.decision == "turn" and top(state) == "6h"
    assert legal(state) == ["play 9h"]


def test_A10_draw_until_playable_then_any_legal_play_is_required():
    pos = position([["Kc", "9s"], ["Qd"]], ["Th"], ["8c", "Qd", "7h", "9d"])
    pos["hands"][1] = ["Ad"]
    state = run(R, pos)
    assert legal(state) == ["draw"]
    state.apply("draw")
    assert hands(state)[0] == ["Kc", "9s", "8c", "Qd", "7h"]
    assert legal(state) == ["play 7h"]  # no pass, no further draw


def test_A10_no_playable_card_and_nothing_to_draw_ends_the_turn():
    state = run(R, position([["Kc"], ["Qd"]], ["9h", "Th"], []))
    assert legal(state) == ["pass"]
    state.apply("pass")
    assert state.current == 1


def test_A11_demand_draw_exactly_one_then_the_turn_ends():
    pos = position([["Kc", "9d"], ["Qh", "Qs"]], ["8c", "Js"], ["9c", "8h"], active_suit="h", suit_kind="demand")
    state = run(R, pos, ["draw"])
    assert hands(state)[0] == ["Kc", "9d", "9c"]
    assert state.current == 1


def test_A11_demand_draw_that_fits_must_be_played():
    pos = position([["Kc", "9d"], ["Qh"]], ["8c", "Js"], ["8h", "9c"], active_suit="h", suit_kind="demand")
    state = run(R, pos, ["draw"])
    assert legal(state) == ["play 8h"]


def test_A12_demand_binds_the_jack_player_after_the_opponent_fails():
    pos = position([["Kc", "9d"], ["Qh", "Qs", "Ts"]], ["8c", "Js"], ["9c"], active_suit="h", suit_kind="demand")
    state = run(R, pos, ["draw"])
    assert state.current == 1 and legal(state) == ["play Qh"]


def test_A13_jack_on_jack_replaces_the_demand():
    pos = position([["Jd", "Kc"], ["Qh"]], ["8c", "Js"], ["9c"], active_suit="h", suit_kind="demand")
    state = run(R, pos, ["play Jd", "suit c"])
    assert state.observation(None)["active_suit"] == "c" and state.current == 1


def test_A14_last_ace_does_not_win_skip_applies_and_the_player_draws_on():
    pos = position([["As"], ["9c", "Kd"]], ["Ts"], ["Kh", "9s"])
    state = run(R, pos, ["play As"])
    assert not state.is_over
    assert state.current == 0 and hands(state)[0] == [] and legal(state) == ["draw"]
    state.apply("draw")
    assert hands(state)[0] == ["Kh", "9s"] and legal(state) == ["play 9s"]


def test_A14_option_forbids_an_ace_as_the_last_card():
    pos = position([["As"], ["9c"]], ["Ts"], ["Kh"])
    assert legal(run(R, pos, ace_last="forbidden")) == ["draw"]


def test_A15_last_six_must_be_covered_before_winning():
    pos = position([["6h"], ["9s", "Kd"]], ["Th"], ["Jd", "9c"])
    state = run(R, pos, ["play 6h"])
    assert not state.is_over and state.decision == "cover" and legal(state) == ["draw"]
    state.apply("draw")
    assert legal(state) == ["play Jd"]
    state.apply("play Jd")
    assert state.decision == "finish-bonus"  # the covering Jack empties the hand


def test_A16_last_card_jack_bonus_self_minus_20():
    state = run(R, position([["Jh"], ["9c", "Kd"]], ["Th"], ["8s"]), ["play Jh"])
    assert state.decision == "finish-bonus" and legal(state) == ["bonus self", "bonus others"]
    assert state.default_action().args == ("self",)
    state.apply("bonus self")
    assert state.scores == [-20, 19]
    assert state.to_position()["hand_number"] == 2 and not state.is_over


def test_A16_last_card_jack_bonus_others_plus_20():
    state = run(R, position([["Jh"], ["9c", "Kd"]], ["Th"], ["8s"]), ["play Jh", "bonus others"])
    assert state.scores == [0, 39]


def test_A16_several_last_jacks_give_one_bonus_unless_per_card():
    pos = position([["Jh", "Jc"], ["9c"]], ["Th"], ["8s"])
    assert run(R, pos, ["play Jh", "play Jc", "bonus self"]).scores == [-20, 9]
    assert run(R, pos, ["play Jh", "play Jc", "bonus self"], jack_bonus_per_card=True).scores == [-40, 9]


def test_A17_finishing_king_of_clubs_draws_five_before_scoring():
    pos = position([["Kc"], ["9d"]], ["Ks"], ["6s", "6h", "7s", "7h", "8s", "9s"])
    state = run(R, pos, ["play Kc"])
    assert state.scores == [0, 9 + 6 + 6 + 7 + 7 + 8]
    assert run(R, pos, ["play Kc"], finishing_effects="ignore").scores == [0, 9]


def test_Kc_draws_five_and_skips_other_kings_are_plain():
    pos = position([["Kc", "Kh", "Qh"], ["9d"]], ["Ks"], ["6s", "6h", "7s", "7h", "8s", "9s"])
    state = run(R, pos, ["play Kc", "play Kh"])
    assert hands(state)[1] == ["9d", "6s", "6h", "7s", "7h", "8s"] and state.current == 0
    state = run(R, position([["Kh", "Qh"], ["9d"]], ["Ks"], ["6s"]), ["play Kh"])
    assert hands(state)[1] == ["9d"] and state.current == 1


def test_ace_skips_once_even_in_a_combo():
    state = run(R, position([["Ah", "As", "9s"], ["9d"]], ["Th"], ["6s"]), ["play Ah", "play As"])
    assert state.current == 0 and hands(state)[1] == ["9d"]


def test_A18_moumou_event_ends_the_hand_and_pending_effects_lapse():
    pos = position([["7c", "9h"], ["Kh"]], ["8c", "7s", "7h", "7d"], ["6s"])
    state = run(R, pos, ["play 7c"])
    assert state.scores == [9, 10]  # seat 1 did not draw for the 7
    assert state.to_position()["last_hand"]["reason"] == "table-pattern"
    assert state.to_position()["hand_number"] == 2


def test_A19_moumou_check_after_every_card_of_a_combo():
    pos = position([["9d", "9c", "Ac"], ["Kh"]], ["8c", "Ts", "9s", "9h"], ["6s"])
    state = run(R, pos, ["play 9d"])
    assert state.decision == "combo"
    state.apply("play 9c")
    assert state.scores == [15, 10]


def test_A20_moumou_event_with_an_empty_hand_and_a_last_jack_gives_the_bonus():
    pos = position([["Jc"], ["Kh"]], ["8c", "Js", "Jh", "Jd"], ["6s"])
    state = run(R, pos, ["play Jc"])
    assert state.decision == "finish-bonus"
    state.apply("bonus others")
    assert state.scores == [0, 30]


def test_A21_recycle_keeps_the_top_four():
    pos = position([["Kh"], ["Qd"]], ["6s", "6h", "7s", "8c", "9d", "Tc"], [])
    state = run(R, pos, ["draw"])
    after = state.to_position()
    assert after["discard"] == ["7s", "8c", "9d", "Tc"]
    assert sorted(after["hands"][0][1:] + after["stock"]) == ["6h", "6s"]
    assert after["counter"] == 1


def test_A22_match_ends_when_a_total_exceeds_the_limit():
    state = run(R, position([["Qh"], ["Ks", "As"]], ["Th"], ["8s"], scores=[0, 80]), ["play Qh"])
    assert state.is_over and state.current is None and legal(state) == []
    result = state.result()
    assert result.points == (0, 105) and result.placements == (1, 2)


def test_A22_both_over_with_equal_totals_is_a_draw_and_the_limit_is_an_option():
    pos = position([["9c", "Ks"], ["Kd"]], ["8c", "9s", "9h", "9d"], ["8s"], scores=[95, 95])
    assert run(R, pos, ["play 9c"]).result().placements == (1, 1)
    assert not run(R, pos, ["play 9c"], limit=200).is_over


def test_A23_loser_deals_the_next_hand_or_alternate():
    pos = position([["Qh"], ["Ks"]], ["Th"], ["8s"], dealer=0)
    assert run(R, pos, ["play Qh"]).to_position()["dealer"] == 1
    pos = position([["Qh", "Kh"], ["9h"]], ["Th"], ["8s"], dealer=0, current=1)
    state = run(R, pos, ["play 9h"])
    assert state.to_position()["dealer"] == 0  # seat 0 lost
    assert run(R, pos, ["play 9h"], dealer="alternate").to_position()["dealer"] == 1


def test_A24_observation_shows_top_four_own_hand_sizes_and_demand():
    pos = position([["Kc", "9d"], ["Qh", "Qs"]], ["6s", "8c", "9c", "Tc", "Js"], ["9h"],
                   active_suit="h", suit_kind="demand")
    state = run(R, pos)
    seen = state.observation(1)
    assert seen["discard"] == ["8c", "9c", "Tc", "Js"]
    assert seen["hand"] == ["Qh", "Qs"] and seen["hand_sizes"] == [2, 2] and seen["stock_size"] == 1
    assert seen["active_suit"] == "h" and seen["suit_kind"] == "demand"
    spectator = state.observation(None)
    assert spectator["hand"] is None
    text = str(spectator.data) + str(seen.data)
    assert "Kc" not in text and "9h" not in text and "seed" not in seen.data and "counter" not in seen.data


def test_A25_no_voluntary_draw():
    assert legal(run(R, position([["7h", "Kc"], ["9d"]], ["Th"], ["8s"]))) == ["play 7h"]


def test_A26_queens_nines_tens_other_kings_are_plain():
    for card in ("Qh", "9h", "Kh", "Tc"):
        state = run(R, position([[card, "8d"], ["9d"]], ["Th"], ["8s"]), [f"play {card}"])
        assert state.current == 1 and hands(state)[1] == ["9d"], card


def test_minimal_position_is_valid_and_round_trips():
    pos = {"hands": [["7h"], ["9d"]], "discard": ["Th"], "stock": ["8s"], "current": 0, "direction": 1,
           "scores": [0, 0]}
    state = games.from_position(R, pos)
    again = games.from_position(R, state.to_position())
    assert again.to_position() == state.to_position()
    assert state.to_position()["seed"] == 0 and state.to_position()["counter"] == 0


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"hands": [["Zz"], ["9d"]]}, "not a card"),
        ({"hands": [["2h"], ["9d"]]}, "not a card"),
        ({"hands": [["7h"], ["7h"]]}, "appears 2 times"),
        ({"current": 2}, "out of range"),
        ({"discard": []}, "discard pile is empty"),
        ({"direction": 0}, "direction"),
        ({"scores": [0]}, "scores"),
        ({"phase": "dance"}, "unknown phase"),
    ],
)
def test_bad_positions_raise_clear_errors(bad, words):
    pos = position([["7h"], ["9d"]], ["Th"], ["8s"])
    pos.update(bad)
    with pytest.raises(PositionError, match=words):
        games.from_position(R, pos)


def test_illegal_and_unknown_actions_raise_and_change_nothing():
    state = run(R, position([["7h", "Kc"], ["9d"]], ["Th"], ["8s"]))
    before = state.to_position()
    with pytest.raises(ActionParseError):
        state.apply("frobnicate")
    with pytest.raises(IllegalActionError):
        state.apply("play Kc")
    with pytest.raises(IllegalActionError):
        state.apply("draw")
    assert state.to_position() == before


def test_A14_forbidden_ace_drawn_into_a_longer_hand_is_playable():
    pos = position([["Kc", "9d"], ["9c"]], ["Ts"], ["As", "9s"])
    state = run(R, pos, ["draw"], ace_last="forbidden")
    assert hands(state)[0] == ["Kc", "9d", "As"] and legal(state) == ["play As"]


def test_A3_option_seven_player_goes_again():
    pos = position([["7h", "Kd"], ["9c", "Qs"]], ["Th"], ["6d", "8c"])
    state = run(R, pos, ["play 7h"], seven_player_goes_again=True)
    assert hands(state)[1] == ["9c", "Qs", "6d"] and state.current == 0
