"""Online Mau-Mau: the named alternatives of RULES.md 4.9 as options, each against its default (B-3, B-14, B-17)."""

from __future__ import annotations

from arena import games
from tests.games.scenario import hands, legal, position, run

R = "maumau-online"
OTHERS = [["Ks", "Ks", "4c"], ["Qs", "3c", "5d"], ["2c", "4d", "5s"]]


def table(first, *rest, discard=("Th",), stock=("8c", "8d", "2s", "3s", "4s", "5h", "6h"), **extra):
    return position([first, *(rest or OTHERS)], list(discard), list(stock), **extra)


def test_B3_option_unlimited_draws_per_turn():
    pos = table(["Kc", "9c", "5c"])
    state = run(R, pos, ["draw"])
    assert legal(state) == ["pass"]  # default: one draw, then pass
    state = run(R, pos, ["draw"], max_draws_per_turn="unlimited")
    assert legal(state) == ["draw", "pass"]
    for _ in range(4):
        state.apply("draw")
    assert hands(state)[0] == ["Kc", "9c", "5c", "8c", "8d", "2s", "3s", "4s"] and state.current == 0
    state.apply("draw")
    assert legal(state) == ["play 5h", "draw", "pass"]
    state.apply("play 5h")
    assert state.current == 1


def test_B3_option_draws_stop_when_nothing_is_left():
    state = run(R, table(["Kc", "9c"], stock=["8c"]), ["draw"], max_draws_per_turn="unlimited")
    assert legal(state) == ["pass", "call mau-mau"]  # the stock is empty and the pile is only its top card


def test_B14_option_previous_is_the_last_player_who_discarded():
    pos = table(["Ah", "Kd", "Qd"], ["Ks", "Ks", "4c"], ["9h", "3c", "5d"], ["2c", "4d", "5s"])
    state = run(R, pos, ["play Ah", "play 9h"])  # seat 1 was skipped by the Ace
    assert hands(state)[1] == ["Ks", "Ks", "4c", "8c"] and hands(state)[0] == ["Kd", "Qd"]
    state = run(R, pos, ["play Ah", "play 9h"], previous="last_player_who_discarded")
    assert hands(state)[0] == ["Kd", "Qd", "8c"] and hands(state)[1] == ["Ks", "Ks", "4c"]
    assert state.to_position()["last_discarder"] == 2
    restored = games.from_position(R, state.to_position(), previous="last_player_who_discarded")
    assert restored.to_position() == state.to_position()


def test_B14_option_a_player_who_only_drew_is_not_the_previous_discarder():
    pos = table(["Kh", "Qd", "5c"], ["2c", "3c"], ["9h", "5d"], ["2s", "4d"], stock=["2d", "3d", "4s"])
    actions = ["play Kh", "draw", "pass", "play 9h"]
    assert hands(run(R, pos, actions))[1] == ["2c", "3c", "2d", "3d"]  # default: the seat before
    state = run(R, pos, actions, previous="last_player_who_discarded")
    assert hands(state)[1] == ["2c", "3c", "2d"] and hands(state)[0] == ["Qd", "5c", "3d"]


def test_B14_option_last_discarder_is_part_of_the_position():
    pos = table(["9h", "Qd"], ["2c"], ["5d"], ["4d"], last_discarder=2)
    state = run(R, pos, ["play 9h"], previous="last_player_who_discarded")
    assert hands(state)[2] == ["5d", "8c"] and hands(state)[3] == ["4d"]


def test_B17_option_finishing_effects_apply():
    pos = table(["7h"], ["Jc", "Ac", "9d"], ["Qs", "Kc", "2d"], ["Ts", "3d"])
    assert run(R, pos, ["play 7h"]).scores == [0, 40, 22, 13]  # default: the final 7 is ignored
    state = run(R, pos, ["play 7h"], finishing_effects="apply")
    assert state.is_over and hands(state)[1] == ["Jc", "Ac", "9d", "8c", "8d"]
    assert state.scores == [0, 40 + 16, 22, 13]
    state = run(R, table(["9h"], ["Jc"], ["Qs"], ["Ts"]), ["play 9h"], finishing_effects="apply")
    assert state.is_over and hands(state)[3] == ["Ts", "8c"]  # a final 9: the seat before draws


def test_B17_option_a_final_seven_on_a_live_seven_passes_the_whole_stack():
    pos = table(["7h"], ["Jc"], ["Qs"], ["Ts"], discard=["7c"], pending={"draw": 2})
    state = run(R, pos, ["play 7h"], finishing_effects="apply")
    assert state.is_over and hands(state)[1] == ["Jc", "8c", "8d", "2s", "3s"]


def test_new_options_are_listed_with_their_resolutions():
    info = games.ruleset_info(R)
    for name, ref in (("max_draws_per_turn", "B-3"), ("previous", "B-14"), ("finishing_effects", "B-17")):
        assert ref in info.options[name].help
        assert name in info.resolutions
