"""Ruleset facts (`games.ruleset_facts`): JSON data that agrees with what the engines do."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from arena import games

CASES = [
    (name, players)
    for name in games.rulesets()
    for players in sorted({games.ruleset_info(name).min_players, games.ruleset_info(name).max_players})
]


def cards_of(position: dict) -> Counter:
    cards = Counter(c for hand in position["hands"] for c in hand)
    for key in ("stock", "discard", "table"):
        cards.update(position.get(key, ()))
    cards.update(c for meld in position.get("melds", ()) for c in meld["cards"])
    return cards


@pytest.mark.parametrize("name,players", CASES)
def test_the_deck_is_the_one_a_game_deals_and_the_facts_are_json(name, players):
    facts = games.ruleset_facts(name, players)
    assert json.loads(json.dumps(facts)) == facts
    state = games.new_game(name, players, seed=3)
    assert Counter(facts["deck"]) == cards_of(state.to_position())
    assert set(facts["cards"]) == set(facts["deck"])
    sizes = state.observation(None)["hand_sizes"]  # the opening may give a seat more cards or take one
    assert facts["hand_size"] in sizes, (facts["hand_size"], sizes)
    assert all(isinstance(info["points"], int) and isinstance(info["roles"], list) for info in facts["cards"].values())


def test_options_come_typed_with_their_schema():
    facts = games.ruleset_facts("moumou", 2, limit="151", quick="yes")
    assert facts["options"]["limit"] == 151 and facts["options"]["quick"] is True
    assert facts["option_schema"]["limit"] == {
        "type": "int", "default": 101, "choices": None, "help": games.ruleset_info("moumou").options["limit"].help,
    }
    assert facts["option_schema"]["dealer"]["type"] == "str" and facts["option_schema"]["dealer"]["choices"]
    mose = games.ruleset_facts("mose", 8)
    assert Counter(mose["deck"])["7s"] == 2  # two packs above seven players (D-1)
    assert mose["wild_by_round"][:3] == ["2", "3", "4"] and len(mose["wild_by_round"]) == 13


def test_a_bigger_table_gets_more_packs_and_the_options_change_the_deck():
    assert len(games.ruleset_facts("pesten", 10)["deck"]) > len(games.ruleset_facts("pesten", 2)["deck"])
    custom = games.ruleset_facts("ddmau", 4, deck="MM=1")
    assert Counter(custom["deck"])["MM"] == 1 and Counter(games.ruleset_facts("ddmau", 4)["deck"])["MM"] == 3


def test_points_are_what_the_engine_scores_for_a_card_left_in_hand():
    facts = games.ruleset_facts("maumau", 2)
    loser = ["Ac", "Jd", "Tc", "7s"]
    state = games.from_position("maumau", {
        "hands": [["9h"], loser], "discard": ["9s"], "stock": ["8c", "8d", "8h", "8s"], "current": 0, "direction": 1,
    })
    state.apply("play 9h")
    while state.observation(0)["last_hand"] is None:
        state.apply(state.default_action())
    scored = state.observation(0)["last_hand"]["points"]
    assert scored[1] == sum(facts["cards"][c]["points"] for c in loser) == 11 + 10 + 10 + 7


SHEDDING = [n for n in games.rulesets() if games.ruleset_facts(n, games.ruleset_info(n).min_players)["family"]
            == "shedding"]


@pytest.mark.parametrize("name", SHEDDING)
def test_wild_cards_are_the_ones_legal_on_any_top(name):
    """A card with the role 'wild' may go on a plain top of another rank and suit; other cards may not."""
    players = games.ruleset_info(name).min_players
    facts = games.ruleset_facts(name, players)
    cards = facts["cards"]
    top = next(c for c, info in cards.items() if not info["roles"] and c[0] != "X")
    checked = 0
    for card, info in cards.items():
        if card[0] == top[0] or card[1:] == top[1:] or card[0] == "X" and "wild" not in info["roles"]:
            continue
        rest = [c for c in facts["deck"] if c not in (card, top)]
        state = games.from_position(name, {
            "hands": [[card, rest[0]]] + [[rest[1 + i]] for i in range(players - 1)],
            "discard": [top], "stock": rest[players:players + 8], "current": 0, "direction": 1,
        })
        legal = {str(a) for a in state.legal_actions()}
        assert (f"play {card}" in legal) == ("wild" in info["roles"]), (card, top, legal)
        checked += 1
    assert checked > 10


def test_bad_requests_are_clear_errors():
    with pytest.raises(games.UnknownRulesetError):
        games.ruleset_facts("no-such-game", 2)
    with pytest.raises(games.OptionError, match="for 4-8 players"):
        games.ruleset_facts("maumau-online", 2)
    with pytest.raises(games.OptionError, match="limit"):
        games.ruleset_facts("moumou", 2, limit="many")


def test_each_call_returns_a_fresh_copy():
    first = games.ruleset_facts("moumou", 2)
    first["deck"].clear()
    first["cards"]["Js"]["roles"].append("nonsense")
    again = games.ruleset_facts("moumou", 2)
    assert again["deck"] and "nonsense" not in again["cards"]["Js"]["roles"]


TEXT_OPTIONS = [(name, option) for name in games.rulesets() for option, spec in games.ruleset_info(name).options.items()
                if isinstance(spec.default, str)]
FREE_TEXT = {("ddmau", "deck")}  # power-card counts: a format, not a list of words


@pytest.mark.parametrize("name,option", TEXT_OPTIONS)
def test_a_text_option_lists_the_words_it_takes_and_a_game_starts_with_each(name, option):
    """`arena rules show`, the facts' option schema and the wire's typed options list an option's choices: a word
    option that listed none (DD MAU's ``teams``) was shown as free text and then refused every word but two."""
    info = games.ruleset_info(name)
    spec = info.options[option]
    players = info.default_players or info.min_players
    if (name, option) in FREE_TEXT:
        assert spec.choices is None
        return
    assert spec.choices, f"{name} option {option} takes words but lists none"
    for word in spec.choices:
        extra = {"teams": {"players": 4}}.get(option, {})
        games.new_game(name, extra.get("players", players), 1, **{option: word})
    with pytest.raises(games.OptionError, match=f"option {option}: 'xyzzy' is not one of"):
        games.new_game(name, players, 1, **{option: "xyzzy"})
