"""The ruleset facts a bot gets at the start of a game: `GameInfo.facts` and typed `GameInfo.options`."""

from __future__ import annotations

import json

import pytest

from arena import games
from arena.match.seat import GameStart
from arena.match.timecontrol import TimeControl
from arena import messages as convert
from mau_arena_sdk import Facts, GameInfo
from mau_arena_sdk.wire import pb


def started(ruleset: str, players: int = 2, **options) -> GameInfo:
    names = tuple(f"p{i}" for i in range(players))
    message = convert.game_started_to_pb(GameStart("g", ruleset, options, 0, names, TimeControl()))
    return GameInfo.from_pb(pb.GameStarted.FromString(message.SerializeToString()))  # over the wire


def test_options_arrive_typed_and_the_facts_answer_a_bots_questions():
    info = started("moumou", limit=151, quick=True)
    assert info.options["limit"] == 151 and info.options["quick"] is True and info.options["dealer"] == "loser"
    facts = info.facts
    assert facts.ruleset == "moumou" and facts.players == 2 and facts.family == "shedding"
    assert facts.options == info.options and facts.option_schema["limit"]["type"] == "int"
    assert len(facts.deck) == 36 and facts.hand_size == 5
    assert facts.points("Js") == 20 and facts.points("As") == 15 and facts.points("9s") == 9
    assert facts.has_role("Js", "wild") and facts.has_role("Js", "suit") and not facts.has_role("9s", "wild")
    assert facts.roles("7h") == {"draw"}
    assert set(facts.cards_with("cover")) == {"6s", "6h", "6d", "6c"}
    assert facts.points("Xx") == 0 and facts.roles("Xx") == frozenset()
    seen = ["Js", "9h", "9h"]  # a card named twice is still one copy
    assert len(facts.unseen(seen)) == 34 and "Js" not in facts.unseen(seen)


def test_mose_points_know_the_round_wild_and_ddmau_the_powers():
    mose = started("mose", 3).facts
    assert mose.points("Kd") == 10 and mose.points("Kd", wild_rank="K") == 20 and mose.points("As") == 1
    ddmau = started("ddmau", 4).facts
    assert ddmau.points("MM") == 50 and ddmau.has_role("MM", "block") and ddmau.has_role("SM", "color")
    assert ddmau.hand_size == 7 and len(ddmau.deck) == 80


def test_an_arena_without_facts_or_with_garbled_ones_leaves_text_options():
    bare = pb.GameStarted(game_id="g", ruleset="moumou", options={"limit": "151"}, seat=0, players=["a", "b"])
    info = GameInfo.from_pb(bare)
    assert info.facts is None and info.options == {"limit": "151"}
    bare.facts_json = "{not json"
    assert GameInfo.from_pb(bare).facts is None
    with pytest.raises(ValueError, match="not JSON"):
        Facts.from_json("{not json")
    with pytest.raises(ValueError, match="not a JSON object"):
        Facts.from_json("[1]")


def test_the_wire_carries_exactly_the_engines_facts():
    message = convert.game_started_to_pb(GameStart("g", "pesten", {"jokers": 3}, 1, ("a", "b", "c"), TimeControl()))
    assert json.loads(message.facts_json) == games.ruleset_facts("pesten", 3, jokers=3)
    unknown = convert.game_started_to_pb(GameStart("g", "no-such-game", {}, 0, ("a", "b"), TimeControl()))
    assert unknown.facts_json == ""


def test_is_wild_knows_the_mose_round_wild_that_no_role_names():
    """Mose's wild rank changes every round, so no card has the ``wild`` role there: `is_wild` takes the
    round's rank (``observation["wild_rank"]``, or `wild_rank` of the round), and agrees with the engine."""
    facts = started("mose", 3).facts
    assert facts.cards_with("wild") == () and not facts.has_role("2h", "wild")
    state = games.new_game("mose", 3, seed=5)
    obs = state.observation(0)
    wild = obs["wild_rank"]
    assert facts.wild_rank(obs["round"]) == wild == facts.data["wild_by_round"][obs["round"] - 1]
    assert facts.wild_rank(0) is None and facts.wild_rank(14) is None
    hand = obs["hand"]
    assert [facts.is_wild(card, wild) for card in hand] == [card[:1] == wild for card in hand]
    assert not any(facts.is_wild(card) for card in hand)  # without the round's rank nothing is wild
    assert facts.is_wild(wild + "h", wild) and facts.points(wild + "h", wild) == facts.data["wild_points"]
    # In a shedding ruleset the role decides, whatever rank is passed.
    moumou = started("moumou").facts
    assert moumou.is_wild("Js") and moumou.is_wild("Js", "7") and not moumou.is_wild("7s", "7")
