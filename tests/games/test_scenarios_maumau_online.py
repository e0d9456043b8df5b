"""Online Mau-Mau scenarios (RULES.md section 4, B-1..B-20)."""

from __future__ import annotations

from collections import Counter

import pytest

from arena import games
from arena.games import IllegalActionError, OptionError, PositionError
from tests.games.scenario import hands, legal, position, run, top

R = "maumau-online"
OTHERS = [["Ks", "Ks", "4c"], ["Qs", "3c", "5d"], ["2c", "4d", "5s"]]


def table(first, *rest, discard=("Th",), stock=("8c", "8d", "2s", "3s", "4s", "5h", "6h"), **extra):
    seats = [first, *(rest or OTHERS)]
    return position(seats, list(discard), list(stock), **extra)


def opening_with(rank: str, **options):
    for seed in range(600):
        state = games.new_game(R, players=4, seed=seed, **options)
        if state.to_position()["discard"][0][0] == rank:
            return state
    pytest.fail(f"no seed opens with rank {rank}")


def test_B1_two_52_card_packs_or_two_32():
    info = games.ruleset_info(R)
    assert (info.min_players, info.max_players) == (4, 8)
    with pytest.raises(OptionError):
        games.new_game(R, players=3, seed=1)
    for option, size in (("2x52", 104), ("2x32", 64)):
        pos = games.new_game(R, players=5, seed=2, deck=option).to_position()
        deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
        assert sum(deck.values()) == size and set(deck.values()) == {2}


def test_B2_upcard_seven_is_seat_zeros_discard():
    state = opening_with("7")
    pos = state.to_position()
    if any(c[0] == "7" for c in pos["hands"][1]):
        assert state.current == 1 and state.observation(1)["pending"] == {"draw": 2}
    else:  # nothing to fold with: seat 1 is asked all the same, takes the 2 cards and its turn ends
        assert state.current == 1 and legal(state) == ["accept"]
        state.apply("accept")
        assert len(state.to_position()["hands"][1]) == 7 and state.current == 2


def test_B2_upcard_ace_skips_seat_one_queen_reverses_nine_hits_the_last_seat():
    assert opening_with("A").current == 2
    state = opening_with("Q")
    assert state.current == 3 and state.observation(None)["direction"] == -1
    state = opening_with("9")
    assert [len(h) for h in hands(state)] == [5, 5, 5, 6] and state.current == 1


def test_B2_upcard_jack_seat_zero_names_the_suit_and_starter_effects_option():
    state = opening_with("J")
    assert state.current == 0 and state.decision == "suit"
    state.apply("suit c")
    assert state.current == 1 and state.observation(1)["active_suit"] == "c"
    assert opening_with("A", starter_effects=False).current == 1


def test_B3_one_voluntary_draw_per_turn_then_play_or_pass():
    state = run(R, table(["Kh", "9c", "5c"]))
    assert legal(state) == ["play Kh", "draw", "call mau-mau"]  # B-7: a call with 3 cards is false
    state.apply("draw")
    assert hands(state)[0] == ["Kh", "9c", "5c", "8c"]
    assert legal(state) == ["play Kh", "pass"]  # no second draw
    state.apply("pass")
    assert state.current == 1


def test_B4_after_drawing_any_legal_card_may_be_played():
    state = run(R, table(["Kc", "9c", "5c"], stock=["Th", "8c"]), ["draw"])
    assert legal(state) == ["play Th", "pass"]
    state = run(R, table(["Kh", "9c", "5c"], stock=["2h"]), ["draw"])
    assert legal(state) == ["play Kh", "play 2h", "pass"]


def test_B5_facing_a_live_seven_only_a_seven_or_accept():
    pos = table(["7c", "Kh", "9h"], discard=["Th", "7h"], pending={"draw": 2})
    state = run(R, pos)
    assert legal(state) == ["play 7c", "accept"] and str(state.default_action()) == "accept"


def test_B13_seven_folds_add_two_and_accepting_ends_the_turn_without_discard():
    pos = table(["7c", "Kh", "9h"], ["7s", "Kc", "9d"], ["Qs", "3c", "5d"], ["2c", "4d", "5s"],
                discard=["Th", "7h"], pending={"draw": 2})
    state = run(R, pos, ["play 7c"])
    assert state.current == 1 and state.observation(1)["pending"] == {"draw": 4}
    state.apply("play 7s")
    # seat 2 has no 7 (asked all the same: a step taken for it would tell the table it has no answer): it takes the 6 cards and its turn ends
    assert state.current == 2 and legal(state) == ["accept"]
    state.apply("accept")
    assert hands(state)[2] == ["Qs", "3c", "5d", "8c", "8d", "2s", "3s", "4s", "5h"]
    assert state.current == 3 and state.observation(3)["pending"] == {}
    assert top(state) == "7s"


def test_B6_after_a_valid_call_the_player_must_discard():
    state = run(R, table(["Kh", "9c"]))
    assert legal(state) == ["play Kh", "draw", "call mau-mau"]
    state.apply("call mau-mau")
    assert legal(state) == ["play Kh"] and hands(state)[0] == ["Kh", "9c"]
    assert state.observation(2)["called"] is True


def test_B7_false_call_without_a_legal_card_costs_five_and_the_turn_goes_on():
    state = run(R, table(["Kc", "9c"]))
    assert legal(state) == ["draw", "call mau-mau"]
    state.apply("call mau-mau")
    assert hands(state)[0] == ["Kc", "9c", "8c", "8d", "2s", "3s", "4s"]
    assert state.current == 0 and legal(state) == ["draw"]


def test_B7_call_after_drawing_is_false():
    state = run(R, table(["Kh"], stock=["9c", "8c", "8d", "2s", "3s", "4s"]), ["draw"])
    assert "call mau-mau" in legal(state)
    state.apply("call mau-mau")
    assert len(hands(state)[0]) == 7 and state.current == 0


def test_B8_omitted_call_opens_an_accusation_window_for_the_others_in_turn():
    state = run(R, table(["Kh", "9c"]), ["play Kh"])
    assert state.decision == "accuse" and state.current == 1 and legal(state) == ["accuse 0", "pass"]
    assert str(state.default_action()) == "pass"
    state.apply("pass")
    assert state.current == 2
    state.apply("accuse 0")
    assert hands(state)[0] == ["9c", "8c", "8d", "2s", "3s", "4s"]
    assert state.current == 1 and state.decision == "turn"


def test_B8_nobody_accuses_and_the_next_player_moves():
    state = run(R, table(["Kh", "9c"]), ["play Kh", "pass", "pass", "pass"])
    assert state.current == 1 and state.decision == "turn" and hands(state)[0] == ["9c"]


def test_B9_accusing_a_valid_caller_costs_the_accuser_five():
    state = run(R, table(["Kh", "9c"]), ["call mau-mau", "play Kh", "accuse 0"])
    assert hands(state)[0] == ["9c"] and len(hands(state)[1]) == 3 + 5
    assert state.current == 1 and state.decision == "turn"


def test_B7_a_call_with_three_cards_is_false_costs_five_and_the_turn_goes_on():
    state = run(R, table(["Kh", "9c", "5c"]), ["call mau-mau"])
    assert hands(state)[0] == ["Kh", "9c", "5c", "8c", "8d", "2s", "3s", "4s"]
    assert state.current == 0 and state.decision == "turn" and legal(state) == ["play Kh", "draw"]


def test_B8_the_next_player_may_still_accuse_after_its_voluntary_draw():
    state = run(R, table(["Kh", "9c"]), ["play Kh", "pass", "pass", "pass"])
    assert state.current == 1 and legal(state)[-1] == "accuse 0"
    state.apply("draw")  # a voluntary draw does not close the window
    assert "accuse 0" in legal(state)
    state.apply("accuse 0")
    assert hands(state)[0] == ["9c", "8d", "2s", "3s", "4s", "5h"] and len(hands(state)[1]) == 4
    assert state.current == 1 and state.decision == "turn" and "accuse 0" not in legal(state)  # the turn goes on
    restored = games.from_position(R, state.to_position())
    assert legal(restored) == legal(state)


def test_B8_facing_the_offenders_seven_the_next_player_may_accuse_before_taking_the_draw():
    state = run(R, table(["7h", "9c"]), ["play 7h", "pass", "pass", "pass"])
    assert state.current == 1 and legal(state) == ["accept", "accuse 0"]  # no longer a forced draw
    state.apply("accuse 0")  # then seat 1 takes the 2 cards (its one legal action, still its own) and its turn ends
    assert state.current == 1 and legal(state) == ["accept"]
    state.apply("accept")
    assert len(hands(state)[0]) == 6 and len(hands(state)[1]) == 5 and state.current == 2


def test_B8_the_next_players_discard_or_pass_closes_the_window():
    state = run(R, table(["Kh", "9c"]), ["play Kh", "pass", "pass", "pass", "play Ks"])
    assert state.current == 2 and "accuse 0" not in legal(state)
    state = run(R, table(["Kh", "9c"]), ["play Kh", "pass", "pass", "pass", "draw", "pass"])
    assert state.current == 2 and "accuse 0" not in legal(state)


def test_B9_accusing_when_nobody_can_be_accused_costs_the_accuser_five():
    # the offender called: the next player's accusation in its turn is false
    state = run(R, table(["Kh", "9c"]), ["call mau-mau", "play Kh", "pass", "pass", "pass"])
    assert state.current == 1 and "accuse 0" in legal(state)
    state.apply("accuse 0")
    assert hands(state)[0] == ["9c"] and len(hands(state)[1]) == 3 + 5 and state.current == 1
    # seat 2 caught the offender first: a second accusation finds nobody and costs the accuser
    stock = ["8c", "8d", "2s", "3s", "4s", "5h", "6h", "7h", "8h", "9h", "Td"]
    state = run(R, table(["Kh", "9c"], stock=stock), ["play Kh", "pass", "accuse 0"])
    assert len(hands(state)[0]) == 6 and state.current == 1 and "accuse 0" in legal(state)
    state.apply("accuse 0")
    assert len(hands(state)[0]) == 6 and len(hands(state)[1]) == 3 + 5


def test_two_to_one_after_a_draw_opens_no_window():
    state = run(R, table(["Kh"], stock=["9h"]), ["draw", "play 9h"])
    assert state.decision == "turn" and state.current == 1


def test_B11_jack_not_wild_on_a_seven_but_matches_its_suit():
    assert legal(run(R, table(["Jh", "Js", "Kc"], discard=["Th", "7s"]))) == ["play Js", "draw", "call mau-mau"]
    assert legal(run(R, table(["Jh", "Js", "Kc"], discard=["Th", "8s"])))[:3] == ["play Jh", "play Js", "draw"]


def test_jack_wish_and_B12_it_lasts_through_draws_and_passes():
    pos = table(["Jc", "Kd", "Qd"], ["9h", "3s", "3d"], ["9s", "4h", "5d"], ["2c", "4d", "5s"])
    state = run(R, pos, ["play Jc", "suit s", "draw", "pass"])
    assert state.current == 2 and state.observation(2)["active_suit"] == "s"
    assert legal(state) == ["play 9s", "draw", "call mau-mau"]


def test_B14_nine_previous_player_draws_in_the_current_direction():
    state = run(R, table(["9h", "Kd", "Qd"]), ["play 9h"])
    assert hands(state)[3] == ["2c", "4d", "5s", "8c"] and state.current == 1
    state = run(R, table(["9h", "Kd", "Qd"], direction=-1), ["play 9h"])
    assert hands(state)[1] == ["Ks", "Ks", "4c", "8c"] and state.current == 3


def test_B16_ace_skips_and_cannot_be_answered():
    state = run(R, table(["Ah", "Kd", "Qd"], ["As", "3c", "5d"], ["2c", "4d", "5s"], ["Ac", "4h", "5s"]),
                ["play Ah"])
    assert state.current == 2


def test_queen_reverses_the_direction():
    state = run(R, table(["Qh", "Kd", "8d"]), ["play Qh"])
    assert state.current == 3 and state.observation(3)["direction"] == -1


def test_B17_effects_of_the_final_card_are_ignored_and_B18_points():
    pos = table(["7h"], ["Jc", "Ac", "9d"], ["Qs", "Kc", "2d"], ["Ts", "3d"])
    state = run(R, pos, ["play 7h"])
    assert state.is_over and state.scores == [0, 30 + 1 + 9, 10 + 10 + 2, 13]
    assert state.result().placements == (1, 4, 3, 2)
    assert state.observation(None)["pending"] == {}
    assert run(R, pos, ["play 7h"], ace_points=11).scores[1] == 50


def test_B19_recycle_keeps_the_top_card_and_B10_short_penalties():
    state = run(R, table(["Kc", "9c"], discard=["4h", "5h", "Th"], stock=[]), ["call mau-mau"])
    after = state.to_position()
    assert after["discard"] == ["Th"] and sorted(after["hands"][0]) == ["4h", "5h", "9c", "Kc"]
    assert after["stock"] == []


def test_B20_a_caller_may_discard_a_jack_and_name_a_suit():
    state = run(R, table(["Jd", "9c"]), ["call mau-mau", "play Jd"])
    assert state.decision == "suit" and state.current == 0
    state.apply("suit c")
    assert state.decision == "accuse" and state.current == 1  # the window still opens; accusing would be false


def test_bad_positions_and_actions():
    with pytest.raises(PositionError, match="appears 3 times"):
        games.from_position(R, table(["Kh", "Kh"], discard=["Kh"]))
    with pytest.raises(PositionError, match="players"):
        games.from_position(R, position([["Kh"], ["9c"], ["8c"]], ["Th"]))
    with pytest.raises(PositionError, match="pending"):
        games.from_position(R, table(["Kh"], pending={"cards": 3}))
    state = run(R, table(["Kh", "9c", "8s", "4s"]))
    before = state.to_position()
    for bad in ("call mau-mau", "pass", "accept", "play 9c", "suit h"):
        with pytest.raises(IllegalActionError):
            state.apply(bad)
    assert state.to_position() == before
