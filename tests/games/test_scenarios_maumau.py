"""Base Mau-Mau scenarios (RULES.md 5.1, C-1..C-14 that apply to the base game)."""

from __future__ import annotations

from collections import Counter

import pytest

from arena import games
from arena.games import IllegalActionError, OptionError, PositionError
from tests.games.scenario import hands, legal, position, run, top

R = "maumau"


def opening_with(rank: str, players: int = 3, **options):
    """The first seed whose upcard has this rank (deterministic: seeds are tried in order)."""
    for seed in range(500):
        state = games.new_game(R, players=players, seed=seed, **options)
        if state.to_position()["discard"][0][0] == rank:
            return state
    pytest.fail(f"no seed opens with rank {rank}")


def test_players_two_to_five_and_a_32_card_pack():
    info = games.ruleset_info(R)
    assert (info.min_players, info.max_players) == (2, 5)
    with pytest.raises(OptionError):
        games.new_game(R, players=6, seed=1)
    pos = games.new_game(R, players=4, seed=3).to_position()
    deck = Counter(pos["stock"] + pos["discard"] + [c for h in pos["hands"] for c in h])
    assert sum(deck.values()) == 32 and set(c[0] for c in deck) == set("789TJQKA")


def test_C2_hand_size_option():
    state = games.new_game(R, players=3, seed=5, hand_size=6, starter_effects=False)
    assert [len(h) for h in state.to_position()["hands"]] == [6, 6, 6]
    assert state.current == 0  # the last seat dealt; seat 0 plays first


def test_C3_starter_seven_first_player_draws_two_then_plays():
    state = opening_with("7")
    assert [len(h) for h in hands(state)] == [7, 5, 5] and state.current == 0 and state.decision == "turn"
    state = opening_with("7", starter_effects=False)
    assert [len(h) for h in hands(state)] == [5, 5, 5]


def test_C3_starter_eight_skips_the_first_player():
    assert opening_with("8").current == 1


def test_C3_starter_jack_first_player_names_the_suit_then_plays():
    state = opening_with("J")
    assert state.current == 0 and state.decision == "suit"
    state.apply("suit h")
    assert state.current == 0 and state.decision == "turn" and state.observation(0)["active_suit"] == "h"


def test_C3_starter_ace_obliges_nobody():
    state = opening_with("A")
    assert state.current == 0 and state.decision == "turn"


def test_C4_draw_only_when_unable_and_only_the_drawn_card_may_follow():
    pos = position([["Kc", "9d", "8s"], ["Qs"], ["Qc"]], ["Th"], ["7h", "Ac"])
    state = run(R, pos)
    assert legal(state) == ["draw"]
    state.apply("draw")
    assert legal(state) == ["play 7h", "pass"]
    assert str(state.default_action()) == "pass"
    state.apply("pass")
    assert state.current == 1 and hands(state)[0] == ["Kc", "9d", "8s", "7h"]


def test_C4_unplayable_drawn_card_leaves_only_a_pass_which_is_the_seats_own():
    """The seat is asked even so: ending its turn for it would tell the table the card did not fit, while a
    seat may also keep a drawn card that fits.  The table sees the same either way: a draw, then a pass."""
    pos = position([["Kc", "9d", "8s"], ["Qs"], ["Qc"]], ["Th"], ["Ac", "7h"])
    state = run(R, pos, ["draw"])
    assert state.current == 0 and legal(state) == ["pass"] and hands(state)[0] == ["Kc", "9d", "8s", "Ac"]
    assert state.observation(1)["must_play_drawn"] is True and state.observation(1)["forced"] is None
    state.apply("pass")
    assert state.current == 1
    fits = games.from_position(R, {**pos, "stock": ["Tc", "7h"]})  # a drawn card that fits, kept
    unfit = games.from_position(R, pos)
    seen = []
    for state, card in ((fits, "Tc"), (unfit, "Ac")):
        log = state.record_events()
        state.apply("draw")
        before = state.observation(1)
        state.apply("pass")
        seen.append(([(e.seat, e.kind, e.text) for e in log], before, state.observation(1)["hand_sizes"]))
    assert seen[0] == seen[1]


def test_C4_no_voluntary_draw():
    assert legal(run(R, position([["Kh", "9d"], ["Qs"]], ["Th"], ["7h"]))) == ["play Kh"]


def test_seven_next_player_draws_two_and_may_play():
    pos = position([["7h", "Kd", "Qd"], ["9h", "Ks"], ["Qc"]], ["Th"], ["8c", "8d", "Ac"])
    state = run(R, pos, ["play 7h"])
    assert hands(state)[1] == ["9h", "Ks", "8c", "8d"]
    assert state.current == 1 and legal(state) == ["play 9h"]


def test_seven_stack_option_passes_the_penalty_on_and_grows():
    pos = position([["7h", "Kd", "Qd"], ["7c", "Ks", "9s"], ["Qh", "8d"]], ["Th"],
                   ["8c", "9c", "Tc", "Jc", "As"])
    state = run(R, pos, ["play 7h"], seven_stack=True)
    assert state.current == 1 and state.observation(1)["pending"] == {"draw": 2}
    assert legal(state) == ["play 7c", "accept"] and str(state.default_action()) == "accept"
    state.apply("play 7c")
    # seat 2 holds no 7: it is asked all the same (a step taken for it would tell the table it has none),
    # takes the 4 cards, then may play (C-5)
    assert state.current == 2 and legal(state) == ["accept"]
    state.apply("accept")
    assert hands(state)[2] == ["Qh", "8d", "8c", "9c", "Tc", "Jc"]
    assert state.current == 2 and legal(state) == ["play 8c", "play 9c", "play Tc", "play Jc"]


def test_C5_play_after_penalty_draw_can_be_switched_off():
    pos = position([["7h", "Kd", "Qd"], ["Ks", "9s"], ["Qh", "8d"]], ["Th"], ["8c", "9c"])
    state = run(R, pos, ["play 7h", "accept"], seven_stack=True, play_after_penalty_draw=False)
    assert hands(state)[1] == ["Ks", "9s", "8c", "9c"] and state.current == 2


def test_eight_skips_the_next_player():
    state = run(R, position([["8h", "Kd", "Qd"], ["9h", "Ks"], ["Qh", "8d"]], ["Th"], ["7c"]), ["play 8h"])
    assert state.current == 2


def test_C6_eight_deflect_first_seat_that_accepts_misses_its_turn():
    pos = position([["8h", "Kd", "Qd"], ["8s", "Ks", "9d"], ["Qh", "8d", "7c"]], ["Th"], ["7d"])
    state = run(R, pos, ["play 8h"], eight_deflect=True)
    assert state.current == 1 and legal(state) == ["play 8s", "accept"]
    state.apply("play 8s")
    assert state.current == 2 and legal(state) == ["play 8d", "accept"]
    state.apply("accept")
    assert state.current == 0 and state.observation(0)["pending"] == {}


def test_jack_is_wild_and_the_wish_binds_the_next_player():
    pos = position([["Jc", "Kd", "Qd"], ["9h", "9s", "Js"], ["Qh"]], ["Th"], ["7c"])
    state = run(R, pos, ["play Jc", "suit s"])
    assert state.current == 1 and legal(state) == ["play 9s", "play Js"]


def test_C7_jack_on_jack_allowed_unless_the_house_rule():
    pos = position([["Jc", "Kd", "Qd"], ["9h", "9s", "Js"], ["Qh"]], ["Th"], ["7c"])
    assert legal(run(R, pos, ["play Jc", "suit s"], no_jack_on_jack=True)) == ["play 9s"]


def test_C8_ace_must_be_followed_by_the_same_player():
    pos = position([["Ah", "Kh", "9d", "8d"], ["Qs"], ["Qc"]], ["Th"], ["7c"])
    state = run(R, pos, ["play Ah"])
    assert state.current == 0 and state.decision == "follow" and legal(state) == ["play Kh"]
    state.apply("play Kh")
    assert state.current == 1


def test_C8_failed_follow_draws_one_and_leaves_no_obligation():
    pos = position([["Ah", "9d", "8c"], ["As", "Qs"], ["Qc"]], ["Th"], ["Ks"])
    state = run(R, pos, ["play Ah"])
    assert hands(state)[0] == ["9d", "8c", "Ks"] and state.current == 1 and top(state) == "Ah"
    assert state.decision == "turn" and legal(state) == ["play As"]


def test_C8_an_ace_follows_an_ace_with_its_own_follow_up():
    pos = position([["Ah", "As", "Ks", "9d"], ["Qs"], ["Qc"]], ["Th"], ["7c"])
    state = run(R, pos, ["play Ah"])
    assert legal(state) == ["play As"]
    state.apply("play As")
    assert state.decision == "follow" and legal(state) == ["play Ks"]


def test_C8_a_final_ace_never_wins():
    state = run(R, position([["Ah"], ["Qs", "Kd"], ["Qc"]], ["Th"], ["9c"]), ["play Ah"])
    assert not state.is_over and hands(state)[0] == ["9c"]
    assert state.decision == "call"  # down to one card again


def test_C9_mau_call_on_one_card_left():
    pos = position([["9h", "Kd"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c"])
    state = run(R, pos, ["play 9h"])
    assert state.current == 0 and state.decision == "call" and legal(state) == ["call mau", "pass"]
    assert str(state.default_action()) == "call mau"
    state.apply("call mau")
    assert state.current == 1 and state.decision == "turn" and hands(state)[0] == ["Kd"]


def test_C9_mau_mau_when_the_last_card_is_a_jack():
    state = run(R, position([["9h", "Jd"], ["9c"], ["Qd"]], ["Th"], ["8c"]), ["play 9h"])
    assert legal(state) == ["call mau-mau", "pass"]


def test_C9_forgotten_call_caught_costs_one_card():
    pos = position([["9h", "Kd"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c"])
    state = run(R, pos, ["play 9h", "pass"])
    assert state.decision == "accuse" and state.current == 1 and legal(state) == ["accuse 0", "pass"]
    assert str(state.default_action()) == "pass"
    state.apply("pass")
    assert state.current == 2
    state.apply("accuse 0")
    assert hands(state)[0] == ["Kd", "8c"] and state.current == 1 and state.decision == "turn"


def test_C9_nobody_catches_and_play_goes_on():
    pos = position([["9h", "Kd"], ["9c", "Ks"], ["Qd", "Qs"]], ["Th"], ["8c"])
    state = run(R, pos, ["play 9h", "pass", "pass", "pass"])
    assert hands(state)[0] == ["Kd"] and state.current == 1 and state.decision == "turn"


def test_C10_points_and_a_winning_jack_doubles_them():
    pos = position([["Jh"], ["Ah", "Ts", "7c"], ["9d", "8d"]], ["Th"], ["Kc"])
    state = run(R, pos, ["play Jh"])
    assert state.is_over and state.scores == [0, 56, 34]
    assert state.result().placements == (1, 3, 2)
    pos["hands"][0] = ["9h"]
    assert run(R, pos, ["play 9h"]).scores == [0, 28, 17]


def test_hands_option_plays_a_scored_series():
    pos = position([["9h"], ["Ah"], ["9d"]], ["Th"], ["Kc"], dealer=0)
    state = run(R, pos, ["play 9h"], hands=2)
    assert not state.is_over and state.scores == [0, 11, 9]
    after = state.to_position()
    assert after["hand_number"] == 2 and after["dealer"] == 1
    assert sum(len(h) for h in after["hands"]) + len(after["stock"]) + len(after["discard"]) == 32


def test_recycle_keeps_the_top_card():
    state = run(R, position([["Kc", "Qc", "8c"], ["Qs"]], ["9s", "9d", "Th"], []), ["draw"])
    after = state.to_position()
    assert after["discard"] == ["Th"] and sorted(after["hands"][0][3:] + after["stock"]) == ["9d", "9s"]


def test_C12_a_short_stock_forgives_the_rest():
    state = run(R, position([["7h", "Kd", "Qd"], ["9c"]], ["Th"], []), ["play 7h"])
    assert hands(state)[1] == ["9c", "Th"] and state.to_position()["discard"] == ["7h"]


def test_blocked_hand_ends_when_no_seat_can_play_or_draw():
    state = run(R, position([["Kc"], ["Qc"]], ["Th"], []), ["pass", "pass"])
    assert state.is_over and state.scores == [10, 10] and state.result().reason == "blocked"


def test_bad_positions_and_actions():
    with pytest.raises(PositionError, match="not a card"):
        games.from_position(R, position([["6h"], ["9d"]], ["Th"]))
    with pytest.raises(PositionError, match="players"):
        games.from_position(R, position([["7h"]] * 1, ["Th"]))
    state = run(R, position([["Kh", "9d"], ["Qs"]], ["Th"], ["7h"]))
    before = state.to_position()
    with pytest.raises(IllegalActionError):
        state.apply("call mau")
    with pytest.raises(IllegalActionError):
        state.apply("accuse 1")
    assert state.to_position() == before
