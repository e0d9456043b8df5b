"""Mose engine scenarios (RULES.md section 6, D-1..D-21): position + actions -> outcome."""

from __future__ import annotations

import json
import random
import time
from collections import Counter

import pytest

import arena.games.mose  # noqa: F401  (registers the ruleset)
from arena import games
from arena.games import ActionParseError, IllegalActionError, OptionError, PositionError
from tests.games.clones import check_clones_along


def position(hands, discard=("9c",), stock=("Qs", "8d", "Ad"), current=0, **extra):
    pos = {
        "hands": [h.split() for h in hands],
        "discard": list(discard),
        "stock": list(stock),
        "current": current,
        "direction": 1,
        "scores": [0] * len(hands),
    }
    pos.update(extra)
    return pos


def load(pos, **options):
    return games.from_position("mose", pos, **options)


def play(state, text):
    """Apply ``text``, then let every seat asked in the window that follows with nothing to play pass (each
    seat is asked, whatever it holds: skipping those without a play would tell the table who has one)."""
    state.apply(text)
    while not state.is_over and state.decision == "react" and [str(a) for a in state.legal_actions()] == ["pass"]:
        state.apply("pass")


def run_meld(meld_id, owner, cards, meanings=None):
    return {"id": meld_id, "owner": owner, "kind": "run", "cards": cards.split(), "as": meanings or [None] * len(cards.split())}


def set_meld(meld_id, owner, cards, meanings=None):
    return {"id": meld_id, "owner": owner, "kind": "set", "cards": cards.split(), "as": meanings or [None] * len(cards.split())}


def legal(state):
    return [str(a) for a in state.legal_actions()]


def started(hands, **extra):
    """A position in the middle of a round: the turn's seat has drawn and may play."""
    extra.setdefault("phase", "play")
    extra.setdefault("round_started", True)
    return position(hands, **extra)


# -- deal and match set-up (D-1, 6.2) ------------------------------------------------------


def test_deal_gives_seven_each_an_upcard_and_the_stock():
    state = games.new_game("mose", players=4, seed=11)
    pos = state.to_position()
    assert [len(h) for h in pos["hands"]] == [7] * 4
    assert len(pos["discard"]) == 1 and len(pos["stock"]) == 52 - 28 - 1
    assert state.decision == "draw" and state.current == (pos["dealer"] + 1) % 4
    assert state.observation(None)["wild_rank"] == "2" and pos["round"] == 1


def test_first_dealer_comes_from_the_seed():
    dealers = {games.new_game("mose", players=5, seed=s).to_position()["dealer"] for s in range(30)}
    assert len(dealers) > 2
    a, b = games.new_game("mose", players=5, seed=3), games.new_game("mose", players=5, seed=3)
    assert a.to_position() == b.to_position()


def test_player_counts_and_decks():
    seven = games.new_game("mose", players=7, seed=1).to_position()
    assert len(seven["stock"]) == 2  # 52 - 49 - 1
    eight = games.new_game("mose", players=8, seed=1).to_position()
    assert sum(len(h) for h in eight["hands"]) + len(eight["stock"]) + len(eight["discard"]) == 104
    with pytest.raises(OptionError):
        games.new_game("mose", players=8, seed=1, decks=1)
    assert games.new_game("mose", players=3, seed=1, decks=2).to_position()["stock"].__len__() == 104 - 22


def test_meld_tokens_may_come_in_any_order():
    state = load(started(["7d 7s 7h 5c", "8s 2d"]))
    state.apply("meld 7d 7s 7h")
    assert state.to_position()["melds"][0]["cards"] == ["7s", "7h", "7d"]


def test_turn_limit_ends_a_round_of_endless_pile_taking():
    state = load(position(["9d Kc", "Td Jh"], discard=("3c",), stock=("Qs",)), rounds=1, turn_limit=5)
    while not state.is_over:
        play(state, "take pile" if state.decision == "draw" else f"discard {state.to_position()['hands'][state.current][0]}")
    history = state.to_position()["history"]
    assert history[0]["winner"] is None and "turn limit" in history[0]["reason"]


def test_minimal_position_is_round_one_draw_phase():
    state = load(position(["5s 6s 7s", "8h 9h Th"], current=1))
    assert state.decision == "draw" and state.current == 1
    pos = state.to_position()
    assert pos["round"] == 1 and pos["dealer"] == 0 and pos["round_started"] is False and pos["melds"] == []
    assert legal(state) == ["draw stock", "take pile"]


# -- the round begins at the first draw (D-9, D-15) ---------------------------------------


def test_nothing_happens_before_the_first_draw_then_a_window_opens():
    state = load(position(["9h Kd", "3h 4h 5h Jc"]))
    assert legal(state) == ["draw stock", "take pile"]  # no meld before drawing, nobody else asked
    with pytest.raises(IllegalActionError):
        state.apply("meld 3h 4h 5h")
    state.apply("draw stock")
    assert state.to_position()["round_started"] is True
    assert state.decision == "react" and state.current == 1  # seat 1 may now meld out of turn
    assert legal(state)[0] == "pass" and "meld 3h 4h 5h" in legal(state)
    state.apply("pass")
    assert state.decision == "play" and state.current == 0
    assert "Qs" in state.observation(0)["hand"]


def test_take_pile_takes_the_whole_pile():
    state = load(position(["9h Kd", "Jc Qd"], discard=("2c", "7d", "Th")))
    state.apply("take pile")
    assert state.observation(0)["hand"] == ["7d", "9h", "Th", "Kd", "2c"] or Counter(state.observation(0)["hand"]) == Counter(
        "9h Kd 2c 7d Th".split()
    )
    assert state.to_position()["discard"] == []
    assert not any(a.startswith("take") for a in legal(state))


def test_empty_pile_leaves_only_the_stock_d10():
    state = load(position(["9h Kd", "Jc Qd"], discard=()))
    assert legal(state) == ["draw stock"]


# -- turn: melds, lay-offs, discards (6.3, D-11, D-20) --------------------------------------


def test_several_melds_then_a_discard_passes_the_turn():
    state = load(started(["5s 6s 7s 9d 9h 9c Kd", "Jc Qd"], discard=("3d",)))
    play(state, "meld 5s 6s 7s")
    play(state, "meld 9h 9d 9c")  # D-20: any number of melds per turn
    assert state.decision == "play" and state.current == 0
    assert [m["cards"] for m in state.to_position()["melds"]] == [["5s", "6s", "7s"], ["9h", "9d", "9c"]]
    state.apply("discard Kd")
    # Kd was the last card: seat 0 went out by discarding and round 2 is dealt.
    assert state.to_position()["round"] == 2 and state.to_position()["history"][0]["winner"] == 0


def test_discard_ends_the_turn_and_opens_no_window():
    state = load(started(["5s 6s 7s Kd Qh", "8s 2d"]))
    state.apply("discard Kd")
    assert state.decision == "draw" and state.current == 1
    assert state.to_position()["discard"][-1] == "Kd"


def test_going_out_by_melding_needs_no_discard_d11():
    state = load(started(["5s 6s 7s", "Jc Qd Ks"], scores=[3, 4]), rounds=1)
    state.apply("meld 5s 6s 7s")
    assert state.is_over
    assert state.result().points == (3, 4 + 30)
    assert state.result().placements == (1, 2)


def test_layoff_needs_the_right_end_and_no_reordering():
    melds = [run_meld(1, 1, "5s 6s 7s"), set_meld(2, 1, "Jc Jd Jh")]
    state = load(started(["4s 8s Js 3d Kd", "Qc Qd"], melds=melds))
    actions = legal(state)
    assert {"layoff 1 lo 4s", "layoff 1 hi 8s", "layoff 2 Js"} <= set(actions)
    assert "layoff 1 hi 4s" not in actions and "layoff 1 lo 8s" not in actions
    state.apply("layoff 1 hi 8s")
    assert state.to_position()["melds"][0]["cards"] == ["5s", "6s", "7s", "8s"]


def test_runs_take_an_ace_at_either_end_but_do_not_wrap_d3():
    melds = [run_meld(1, 1, "Qs Ks As"), run_meld(2, 1, "2h 3h 4h", None)]
    state = load(started(["Jh Ah 2s 9d", "Qc Qd"], melds=melds, round=3, stock=("8d",)))  # wilds are 4s, so 2s is natural
    actions = legal(state)
    assert "layoff 2 lo Ah" in actions
    assert not any(a.startswith("layoff 1 hi") for a in actions)  # nothing follows a high Ace


def test_wild_in_a_set_and_the_fifth_card_d2():
    melds = [set_meld(1, 1, "7s 7h 7d 7c")]
    state = load(started(["2d 9h", "Qc Qd"], melds=melds))
    assert "layoff 1 2d:7" in legal(state)
    state.apply("layoff 1 2d:7")
    assert len(state.to_position()["melds"][0]["cards"]) == 5


def test_all_wild_meld_is_offered_d4():
    state = load(started(["2s 2h 2d Kc", "Qc Qd"]))
    assert "meld 2s:7 2h:7 2d:7" in legal(state) or "meld 2s:7 2h:7 2d:7".split()[1:] != []
    assert any(a.startswith("meld 2s:") for a in legal(state))
    assert "meld 2s 2h 2d" in legal(state)


# -- wild swaps (D-5, D-6, D-8) ----------------------------------------------------------------


def test_another_seat_swaps_the_natural_for_the_wild_and_takes_it():
    melds = [run_meld(1, 1, "5s 2h 7s", [None, "6s", None])]
    state = load(started(["6s 9d Kc", "Td Jh"], melds=melds))
    assert "swap 1 6s take" in legal(state)
    play(state, "swap 1 6s take")
    pos = state.to_position()
    assert pos["melds"][0]["cards"] == ["5s", "6s", "7s"] and pos["melds"][0]["as"] == [None, None, None]
    assert "2h" in pos["hands"][0] and "6s" not in pos["hands"][0]
    assert state.decision == "play" and state.current == 0


def test_owner_may_not_swap_unless_the_option_says_so_d6():
    melds = [run_meld(1, 0, "5s 2h 7s", [None, "6s", None])]
    pos = started(["6s 9d Kc", "Td Jh"], melds=melds)
    assert not any(a.startswith("swap") for a in legal(load(pos)))
    assert "swap 1 6s take" in legal(load(pos, owner_may_swap=True))


def test_a_wild_standing_for_itself_cannot_be_swapped_d5():
    melds = [run_meld(1, 1, "As 2s 3s")]  # round 1: the 2s is wild but is itself
    state = load(started(["2h 9d Kc", "Td Jh"], melds=melds))
    assert not any(a.startswith("swap") for a in legal(state))


def test_set_wild_swaps_for_a_missing_suit_only():
    melds = [set_meld(1, 1, "7s 7h 2d", [None, None, "7"])]
    state = load(started(["7c 9d", "Td Jh"], melds=melds))
    swaps = [a for a in legal(state) if a.startswith("swap")]
    assert swaps == ["swap 1 7c take", "swap 1 7c place"]  # the freed wild may go back as the 4th 7
    full = [set_meld(1, 1, "7s 7h 7d 7c 2d", [None, None, None, None, "7"])]
    assert not any(a.startswith("swap") for a in legal(load(started(["9d Kc", "Td Jh"], melds=full))))


def test_swap_and_place_the_wild_at_once_then_go_out_d8():
    melds = [run_meld(1, 1, "5s 2h 7s", [None, "6s", None])]
    state = load(started(["6s 9d 9h", "Td Jh"], melds=melds), rounds=1)
    state.apply("swap 1 6s place")
    assert state.decision == "place" and state.current == 0
    assert state.observation(1)["table"] == ["2h"]
    actions = legal(state)
    assert "pass" not in actions and not any(a.startswith("discard") for a in actions)
    assert {"meld 9h 9d 2h:9", "layoff 1 lo 2h:4s", "layoff 1 hi 2h:8s"} <= set(actions)
    state.apply("meld 9h 9d 2h:9")
    assert state.is_over and state.result().points == (0, 20)


def test_place_is_not_offered_when_the_wild_has_nowhere_to_go():
    melds = [run_meld(1, 1, "As 2h 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks", [None, "2s"] + [None] * 11)]
    state = load(started(["2s 9d", "Td Jh"], melds=melds, stock=("8d",)))
    swaps = [a for a in legal(state) if a.startswith("swap")]
    assert swaps == ["swap 1 2s take"]


# -- reaction windows (6.5, D-7, D-12) -------------------------------------------------------------


def test_window_asks_every_other_seat_in_order_even_those_without_plays():
    hands = ["9d Kc", "Td Jh", "3h 4h 5h Qc", "3c 4c 5c Qd"]
    state = load(position(hands))
    state.apply("draw stock")
    assert (state.decision, state.current) == ("react", 1) and legal(state) == ["pass"]  # nothing, asked all the same
    state.apply("pass")
    assert (state.decision, state.current) == ("react", 2)
    state.apply("pass")
    assert state.current == 3
    state.apply("meld 3c 4c 5c")
    assert (state.decision, state.current) == ("react", 3)  # a seat that plays keeps the decision
    state.apply("pass")
    # The table changed: the window starts again left of seat 3, skipping the turn's seat 0.
    assert state.current == 1
    state.apply("pass")
    assert state.current == 2
    state.apply("pass")
    assert (state.decision, state.current) == ("play", 0)


def test_window_after_an_on_turn_meld_lets_another_seat_go_out():
    state = load(started(["5s 6s 7s Kd", "8s", "Qc Qd"]), rounds=1)
    state.apply("meld 5s 6s 7s")
    assert (state.decision, state.current) == ("react", 1)
    state.apply("layoff 1 hi 8s")
    assert state.is_over
    assert state.result().points == (10, 0, 20)


def test_out_of_turn_players_never_draw_or_discard():
    state = load(position(["9d Kc", "3h 4h 5h Qc"]))
    state.apply("draw stock")
    assert state.current == 1
    assert not any(a.split()[0] in ("draw", "take", "discard") for a in legal(state))


# -- preying upon card draws (D-14) -----------------------------------------------------------------


def test_mose_directly_after_a_stock_draw_returns_the_card():
    melds = [run_meld(1, 2, "5s 6s 7s")]
    pos = position(["9d 3c", "8s", "Qc Qd"], stock=("Kc", "Jc"), melds=melds, round_started=True)
    state = load(pos, rounds=1)
    state.apply("draw stock")
    assert state.current == 1
    state.apply("layoff 1 hi 8s")
    final = state.to_position()
    assert state.is_over and final["stock"][:2] == ["Kc", "Jc"]
    assert "Kc" not in final["hands"][0]
    assert state.result().points == (12, 0, 20)  # the Kc is not scored


def test_mose_directly_after_taking_the_pile_returns_the_pile():
    melds = [run_meld(1, 2, "5s 6s 7s")]
    pos = position(["9d", "8s", "Qc Qd"], discard=("Kh", "Ah", "Td"), melds=melds, round_started=True)
    state = load(pos, rounds=1)
    state.apply("take pile")
    state.apply("layoff 1 hi 8s")
    final = state.to_position()
    assert final["discard"] == ["Kh", "Ah", "Td"] and final["hands"][0] == ["9d"]
    assert state.result().points == (9, 0, 20)


def test_a_play_in_between_means_the_pickup_stands():
    pos = position(["9d", "8s", "5s 6s 7s Qd"], stock=("Kc", "Jc"), round_started=True)
    state = load(pos, rounds=1)
    state.apply("draw stock")
    assert state.current == 1 and legal(state) == ["pass"]  # seat 1 cannot play yet, and is asked all the same
    state.apply("pass")
    assert state.current == 2
    state.apply("meld 5s 6s 7s")
    state.apply("pass")
    assert state.current == 1
    state.apply("layoff 1 hi 8s")
    assert state.is_over and state.result().points == (19, 0, 10)  # 9d + Kc


# -- stock exhaustion (D-13) ------------------------------------------------------------------------


def exhaustion_state(**options):
    pos = position(["4c 9d", "3d 8h"], discard=("9c", "Td"), stock=("Kc",), round_started=True)
    return load(pos, rounds=1, **options)


def test_first_exhaustion_offers_the_pile_or_a_reshuffle_second_ends_the_round():
    state = exhaustion_state()
    play(state, "draw stock")
    assert state.to_position()["exhaustions"] == 1
    play(state, "discard Kc")
    assert legal(state) == ["draw stock", "take pile"]
    play(state, "draw stock")  # the pile (9c Td Kc) is shuffled into a new stock
    pos = state.to_position()
    assert pos["discard"] == [] and len(pos["stock"]) == 2 and pos["exhaustions"] == 1
    play(state, f"discard {pos['hands'][1][0]}")
    play(state, "draw stock")
    play(state, f"discard {state.to_position()['hands'][0][0]}")
    play(state, "draw stock")  # the new stock's last card: the second exhaustion
    assert state.to_position()["exhaustions"] == 2 and state.decision == "play" and not state.is_over
    play(state, f"discard {state.to_position()['hands'][1][0]}")
    assert state.is_over and state.to_position()["history"][0]["winner"] is None


def test_second_exhaustion_immediate_option():
    state = exhaustion_state(second_exhaustion_end="immediate")
    play(state, "draw stock")
    play(state, "discard Kc")
    play(state, "take pile")
    play(state, "discard 9c")
    play(state, "draw stock")  # reshuffle the single 9c and draw it: second exhaustion, round over
    assert state.is_over


# -- scoring and the match (6.7, D-18, D-19) ------------------------------------------------------------


def test_scoring_wilds_override_and_ties_share_places():
    hands = ["9c", "As Kd 7h 5c Th", "Ks Qh Jd 2c Ac"]
    pos = started(hands, round=13, penalties=[0, 10, 0], scores=[0, 0, 10], discard=("3d",))
    state = load(pos)
    state.apply("discard 9c")
    assert state.is_over
    # round 13: Aces are wild (20). Seat 1: 20+10+7+5+10 +10 penalty; seat 2: 10+10+10+2+20 +10 before.
    assert state.result().points == (0, 62, 62)
    assert state.result().placements == (1, 2, 2)


def test_rounds_rotate_the_dealer_and_the_wild():
    state = games.new_game("mose", players=3, seed=5, rounds=2)
    dealer = state.to_position()["dealer"]
    rng = random.Random(1)
    while state.to_position()["round"] == 1:
        state.apply(rng.choice(state.legal_actions()))
    pos = state.to_position()
    assert pos["dealer"] == (dealer + 1) % 3 and state.observation(None)["wild_rank"] == "3"
    assert state.current == (dealer + 2) % 3 and state.decision == "draw"
    assert len(pos["history"]) == 1


# -- contested mode (D-16, D-17) ------------------------------------------------------------------------


def test_contested_mode_charges_false_mose_and_false_play():
    melds = [run_meld(1, 1, "5s 6s 7s")]
    pos = started(["9d Kc", "Td Jh"], melds=melds)
    strict = load(pos)
    assert "call mose" not in legal(strict)
    with pytest.raises(IllegalActionError):
        strict.apply("call mose")
    state = load(pos, mode="contested")
    assert "call mose" in legal(state) and "layoff 1 hi 9d" in legal(state)
    state.apply("call mose")
    assert state.to_position()["penalties"] == [50, 0] and state.decision == "play"
    assert "call mose" not in legal(state)  # one mistake per turn, so a game cannot loop on them
    state = load(pos, mode="contested")
    state.apply("layoff 1 hi 9d")
    after = state.to_position()
    assert after["penalties"] == [10, 0] and after["hands"][0] == ["9d", "Kc"]
    assert after["melds"][0]["cards"] == ["5s", "6s", "7s"]


def test_contested_every_false_play_in_a_turn_costs_10_at_either_end_of_a_run_D17():
    melds = [run_meld(1, 1, "5s 6s 7s")]
    pos = started(["9d Kc", "Td Jh"], melds=melds)
    state = load(pos, mode="contested")
    assert {"layoff 1 lo 9d", "layoff 1 hi 9d", "layoff 1 lo Kc", "layoff 1 hi Kc"} <= set(legal(state))
    for text in ("layoff 1 lo 9d", "layoff 1 hi 9d", "layoff 1 hi Kc"):
        state.apply(text)
    after = state.to_position()
    assert after["penalties"] == [30, 0] and after["hands"][0] == ["9d", "Kc"] and state.decision == "play"
    assert after["melds"][0]["cards"] == ["5s", "6s", "7s"]
    # three False Plays in a turn and no more are offered (so a turn's mistakes are bounded); the count is public
    assert not any(a.startswith("layoff 1") for a in legal(state))
    assert state.observation(1)["false_plays"] == 3 and state.observation(0)["false_plays"] == 3
    assert "call mose" in legal(state)  # a False Play does not use up the turn's False Mose
    restored = load(after, mode="contested")
    assert legal(restored) == legal(state)
    play(state, "discard Kc")
    play(state, "draw stock")
    assert "layoff 1 hi Td" in legal(state)  # the next turn starts afresh


# -- bad input ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        {"hands": "5s"},
        {"hands": [["5s"]]},
        {"hands": [["5s", "1x"], ["6s"]]},
        {"hands": [["5s"], ["5s"]]},
        {"current": 2},
        {"current": None},
        {"direction": -1},
        {"round": 14},
        {"scores": [0]},
        {"phase": "react"},
        {"phase": "play"},
        {"phase": "dance"},
        {"melds": [{"id": 1, "owner": 0, "kind": "run", "cards": ["5s", "7s", "8s"], "as": [None] * 3}], "round_started": True},
        {"melds": [{"id": 1, "owner": 5, "kind": "set", "cards": ["5s", "5h", "5d"]}], "round_started": True},
        {"table": ["2h"]},
        {"last_pickup": {"seat": 0, "source": "stock", "cards": ["Ah"], "by": None}},
        {"stock": [], "discard": []},
        {"options": {"rounds": "many"}},
        {"ruleset": "moumou"},
        {"options": {"turn_limit": -1}},
    ],
)
def test_bad_positions_raise(change):
    pos = position(["5s 6s", "8h 9h"])
    pos.update(change)
    with pytest.raises((PositionError, OptionError)):
        load(pos)


def test_missing_keys_raise():
    pos = position(["5s 6s", "8h 9h"])
    del pos["stock"]
    with pytest.raises(PositionError, match="stock"):
        load(pos)


@pytest.mark.parametrize(
    "text, error",
    [
        ("frobnicate", ActionParseError),
        ("", ActionParseError),
        ("meld 5s 6s", IllegalActionError),
        ("discard Ah", IllegalActionError),
        ("meld 5s 6s Kd", IllegalActionError),
        ("meld 5s 6s 2h:7s", IllegalActionError),
        ("swap 9 6s take", IllegalActionError),
        ("draw stock", IllegalActionError),
    ],
)
def test_illegal_actions_raise_and_change_nothing(text, error):
    state = load(started(["5s 6s 7s Kd", "8s 2d"]))
    before = state.to_position()
    with pytest.raises(error):
        state.apply(text)
    assert state.to_position() == before


# -- observations, defaults, positions ---------------------------------------------------------------------


def test_observation_shows_own_hand_public_table_and_no_secrets():
    melds = [run_meld(1, 1, "5s 2h 7s", [None, "6s", None])]
    state = load(started(["6s 9d Kc", "Td Jh"], melds=melds, discard=("3c", "4d"), seed=987654321))
    mine = state.observation(0).to_dict()
    assert mine["hand"] == ["6s", "9d", "Kc"] and mine["hand_sizes"] == [3, 2]
    assert mine["discard"] == ["3c", "4d"] and mine["melds"][0]["tokens"] == ["5s", "2h:6s", "7s"]
    spectator = json.dumps(state.observation(None).to_dict())
    assert state.observation(None)["hand"] is None
    assert "Td" not in spectator and "987654321" not in spectator and "Kc" not in spectator


def test_default_actions():
    state = load(position(["5s 2c Kd", "8s 2d"]))
    assert str(state.default_action()) == "draw stock"
    state.apply("draw stock")  # Qs
    assert str(state.default_action()) == "pass"  # seat 1 is asked first: nothing to play
    play(state, "pass")
    assert str(state.default_action()) == "discard 2c"  # the wild scores most
    state = load(position(["9d Kc", "3h 4h 5h Qc"]))
    state.apply("draw stock")
    assert str(state.default_action()) == "pass"


def test_position_round_trip_mid_game():
    state = games.new_game("mose", players=4, seed=21, rounds=3)
    rng = random.Random(2)
    for _ in range(150):
        if state.is_over:
            break
        pos = state.to_position()
        again = games.from_position("mose", json.loads(json.dumps(pos)))
        assert again.to_position() == pos and again.legal_actions() == state.legal_actions()
        state.apply(rng.choice(state.legal_actions()))


# -- random self-play soak ------------------------------------------------------------------------------------


def holdings(pos):
    held = Counter(c for h in pos["hands"] for c in h)
    held.update(pos["stock"] + pos["discard"] + pos["table"])
    held.update(c for m in pos["melds"] for c in m["cards"])
    return held


@pytest.mark.parametrize("players", [2, 3, 5, 7, 9])
def test_random_self_play_terminates_and_conserves_cards(players):
    decisions, started_at = 0, time.perf_counter()
    for seed in range(2):
        state = games.new_game("mose", players=players, seed=seed, rounds=4)
        deck = holdings(state.to_position())
        assert sum(deck.values()) == 52 * (1 if players <= 7 else 2)
        rng = random.Random(seed)
        while not state.is_over:
            assert decisions < 100_000
            actions = state.legal_actions()
            assert actions and state.default_action() in actions
            state.apply(rng.choice(actions))
            decisions += 1
            if decisions % 50 == 0:
                assert holdings(state.to_position()) == deck
        assert holdings(state.to_position()) == deck
        assert len(state.to_position()["history"]) == 4
    rate = decisions / (time.perf_counter() - started_at)
    print(f"mose {players} players: {decisions} decisions, {rate:.0f} decisions/s")


def test_out_of_turn_swap_in_a_window():
    state = load(started(["5s 7s 2h Kd", "6s 9h Jd"]))
    state.apply("meld 5s 2h:6s 7s")
    assert (state.decision, state.current) == ("react", 1)
    state.apply("swap 1 6s take")
    assert (state.decision, state.current) == ("react", 1)  # seat 1 may go on (e.g. lay the wild off)
    state.apply("pass")
    assert (state.decision, state.current) == ("play", 0)
    pos = state.to_position()
    assert pos["melds"][0]["cards"] == ["5s", "6s", "7s"] and pos["hands"][1] == ["2h", "9h", "Jd"]


@pytest.mark.parametrize("players, options", [(4, {}), (3, {"mode": "contested"}), (9, {})])
def test_legal_melds_and_layoffs_are_the_offers_of_the_melds_module(players, options):
    """The engine lists the offers from what it keeps per hand and per table (its own quick paths); they
    must stay exactly `new_meld_offers` and `layoff_offers` meld by meld, in that order."""
    from arena.games.mose.melds import layoff_offers, new_meld_offers

    state = games.new_game("mose", players=players, seed=11, rounds=3, **options)
    rng = random.Random(players)
    checked = 0
    while not state.is_over and checked < 400:
        if state.decision in ("play", "react"):
            hand, wild, decks = state.hands[state.current], state.wild, state.decks
            expected = ["meld " + " ".join(map(str, tokens)) for tokens in new_meld_offers(hand, wild, decks)]
            for meld in state.melds:
                for end, token in layoff_offers(meld, hand, wild, decks):
                    expected.append(" ".join(["layoff", str(meld.id), *([end] if end else []), str(token)]))
            legal = [str(a) for a in state.legal_actions() if a.verb in ("meld", "layoff")]
            if options.get("mode") == "contested" and state.decision == "play":
                legal = legal[: len(expected)]  # then the False Plays
            assert legal == expected
            checked += 1
        state.apply(rng.choice(state.legal_actions()))
    assert checked > 100


def test_a_freed_wilds_placements_are_the_offers_of_the_melds_module():
    """After ``swap ... place`` the engine lists the freed wild's places from the table's kept needs and the
    hand's mask (its quick paths); they must stay exactly `layoff_offers` with that wild as the only card,
    meld by meld, then the new melds of `new_meld_offers` with it first that hold it, in that order."""
    from arena.games.mose.melds import layoff_offers, new_meld_offers

    checked = 0
    for players, options in ((4, {}), (3, {"decks": 2}), (5, {"owner_may_swap": True})):
        state = games.new_game("mose", players=players, seed=3, rounds=13, **options)
        rng = random.Random(players)
        while not state.is_over and checked < 60 * players:
            if state.decision == "place":
                hand, wild, decks, card = state.hands[state.current], state.wild, state.decks, state.pending["card"]
                expected = []
                for meld in state.melds:
                    for end, token in layoff_offers(meld, hand, wild, decks, only_wild=card):
                        expected.append(" ".join(["layoff", str(meld.id), *([end] if end else []), str(token)]))
                for tokens in new_meld_offers([*hand, card], wild, decks, first_wild=card):
                    if any(t.card == card for t in tokens):
                        expected.append("meld " + " ".join(map(str, tokens)))
                assert [str(a) for a in state.legal_actions()] == expected
                checked += 1
            legal = state.legal_actions()
            places = [a for a in legal if a.verb == "swap" and a.args[-1] == "place"]
            state.apply(places[0] if places and rng.random() < 0.7 else rng.choice(legal))
    assert checked > 100


def test_a_clone_copies_every_field_and_plays_on_alone():
    from arena.games.mose.state import MoseState

    rng = __import__("random").Random(5)
    for players in (2, 4):
        state = games.new_game("mose", players=players, seed=21, rounds=2)
        for _ in range(150):  # into the round, with melds on the table
            state.apply(rng.choice(state.legal_actions()))
        copy = state.clone()
        assert all(hasattr(copy, name) for name in MoseState.__slots__)  # a field clone() forgot is unset
        before = state.to_position()
        assert copy.to_position() == before
        assert copy.legal_actions() == state.legal_actions()
        while not copy.is_over:
            copy.apply(rng.choice(copy.legal_actions()))
        assert state.to_position() == before


def test_a_clone_sets_every_slot_at_every_decision_and_the_kept_masks_stay_true():
    # As the shedding engine's test: clone() lists the fields one by one (a new slot it forgets is unset),
    # and the engine keeps each hand's mask and size as cards move (`MoseState.masks`, what the offers read;
    # `sizes`, what observations show), each seat's plays once worked out (`_plays`), and the
    # table's needs meld by meld as the table changes (`offers.with_meld`): all checked at every decision
    # of whole rounds, in every phase, against what is worked out afresh, and each copy plays on alone
    # (`check_clones_along`, shared with DD MAU's test).
    from arena.games.mose.melds import has_meld
    from arena.games.mose.offers import bits_of, meld_actions, plays, table_needs
    from arena.games.selfplay import chooser

    def needs_view(needs):
        fits = [(f.meld, f.bits, f.takes_wild, f.swap_bits, f.swaps, f.ends, f.plain) for f in needs.melds]
        return fits, needs.bits, needs.takes_wild, needs.swap_bits, needs.run_takes_wild, needs.touch

    def kept_values_are_true(state):
        assert state.masks == [bits_of(hand) for hand in state.hands]
        assert state.sizes == [len(hand) for hand in state.hands]
        needs = table_needs(state.melds, state.wild, state.decks)
        assert needs_view(state._needs) == needs_view(needs)
        # Each seat's kept plays (a tuple; no play is an empty one) against its plays worked out afresh.
        for seat, kept in enumerate(state._plays):
            if kept is not None:
                assert kept == afresh_plays(state, seat, needs), seat

    def afresh_plays(state, seat, needs):
        hand, mask, wild, decks = state.hands[seat], bits_of(state.hands[seat]), state.wild, state.decks
        melds = tuple(meld_actions(hand, mask, wild, decks)) if has_meld(hand, wild, decks) else ()
        return plays(seat, hand, mask, melds, needs, state.melds, wild, decks, state.options["owner_may_swap"])

    rng = chooser(5)
    phases = set()
    for players, options in ((2, {}), (4, {"owner_may_swap": True}), (3, {"mode": "contested", "decks": 2, "turn_limit": 30})):
        state = games.new_game("mose", players=players, seed=11, rounds=1, **options)
        phases |= check_clones_along(state, rng, kept_values_are_true)
    assert phases == {"draw", "play", "react", "place"}


def test_every_meld_offered_in_play_builds_unchecked_as_checked():
    # The engine applies a `meld` action by `melds.offered_meld`, without `build_meld`'s checks: for every
    # meld in the legal lists of random games (one and two decks, placements of a freed wild included),
    # the two give the same meld.
    from arena.games.mose.melds import build_meld, offered_meld, parse_token

    seen = set()
    for players, options in ((4, {}), (3, {"decks": 2, "owner_may_swap": True}), (2, {})):
        state = games.new_game("mose", players=players, seed=23, rounds=4, **options)
        rng = random.Random(players)
        while not state.is_over:
            for action in state.legal_actions():
                if action.verb == "meld":
                    tokens = tuple(parse_token(text, state.wild) for text in action.args)
                    built = build_meld(tokens, state.wild, state.decks, 9, 1)
                    assert offered_meld(tokens, 9, 1) == built, action
                    seen.add((built.kind, state.phase, any(t.stands for t in tokens)))
            state.apply(rng.choice(state.legal_actions()))
    assert {(kind, wilds) for kind, _, wilds in seen} == {("set", False), ("set", True), ("run", False), ("run", True)}
    assert {phase for _, phase, _ in seen} == {"play", "react", "place"}


def test_pickups_made_by_their_slots_are_the_records_init_makes():
    # `pile_pickup` and `Pickup.claimed` fill the slots themselves (no Python __init__ on the hot path).
    from arena.games.mose.public import Pickup, pile_pickup, stock_pickup

    def fields(pickup):
        return [getattr(pickup, name) for name in Pickup.__slots__]

    assert fields(pile_pickup(2, ("7s", "Kd"))) == fields(Pickup(2, "pile", ("7s", "Kd")))
    assert fields(pile_pickup(2, ("7s", "Kd")).claimed(3)) == fields(Pickup(2, "pile", ("7s", "Kd"), 3))
    assert fields(stock_pickup(1, "9h").claimed(0)) == fields(Pickup(1, "stock", ("9h",), 0))


def test_a_window_is_made_once_with_the_windows_it_leads_to():
    """Opening a window, passing down it and playing in it make no record (`public.window`): each window
    keeps the one every seat in its queue would decide in, and its played form."""
    from arena.games.mose.public import window

    opened = window((2, 3, 0), False)
    assert opened is window((2, 3, 0), False) and opened.to_dict() == {"queue": [2, 3, 0], "acted": False}
    assert [(seat, rest.queue) for seat, rest in opened.steps] == [(2, (3, 0)), (3, (0,)), (0, ())]
    assert all(rest is window(rest.queue, False) and not rest.acted for _, rest in opened.steps)
    played = opened.played
    assert played is window((2, 3, 0), True) and played.acted and played.queue == opened.queue
    assert played.played is played and played.steps == opened.steps


def test_every_window_in_play_is_the_one_made_once():
    from arena.games.mose.public import window

    for players in (2, 4, 7):
        state = games.new_game("mose", players=players, seed=5, rounds=2)
        rng = random.Random(players)
        windows = 0
        while not state.is_over:
            if state.window is not None:
                assert state.window is window(state.window.queue, state.window.acted)
                windows += 1
            state.apply(rng.choice(state.legal_actions()))
        assert windows > 10


def test_a_position_whose_window_asks_a_seat_twice_is_refused():
    state = games.new_game("mose", players=4, seed=3)
    rng = random.Random(3)
    while state.window is None or not state.window.queue:
        state.apply(rng.choice(state.legal_actions()))
    pos = state.to_position()
    assert load(pos).window.queue == state.window.queue  # as it is, restored
    seat = pos["window"]["queue"][0]
    pos["window"]["queue"] = [seat, seat]
    with pytest.raises(PositionError, match="distinct seats"):
        load(pos)
