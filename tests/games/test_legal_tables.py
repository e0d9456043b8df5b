"""Each shedding ruleset's legal-list functions (`legal.phase_table`) give the general functions' lists."""

from __future__ import annotations

import random

import pytest

from arena import games
from arena.games.shedding import legal

#: (ruleset, players, options, plain turn?): the plain turn's rulesets, with options that change its tail (a
#: voluntary draw; a single draw after which the seat may pass; pending draws that stack), and rulesets that
#: keep the general turn: Blind, a call in turn (Online Mau-Mau, two packs too), a card that may not finish
#: a hand (Pesten, Moumou's ``ace_last = forbidden``).
CASES = [
    ("moumou", 2, {}, True),
    ("moumou", 2, {"voluntary_draw": True, "ace_last": "s7_literal"}, True),
    ("maumau", 3, {"seven_stack": True}, True),
    ("maumau", 2, {"quick": True}, True),
    ("prsi", 3, {"return_to_game": True, "seven_hearts": True}, True),
    ("faraon", 3, {"rescue": True}, True),
    ("tschau-sepp", 3, {}, True),
    ("maumau", 2, {"blind": True}, False),
    ("maumau-online", 4, {}, False),
    ("pesten", 2, {}, False),
    ("moumou", 2, {"ace_last": "forbidden"}, False),
]


@pytest.mark.parametrize("ruleset, players, options, is_plain", CASES)
def test_the_plain_turn_lists_what_the_general_turn_lists(ruleset, players, options, is_plain):
    """Over random games, at every turn decision, the ruleset's own table gives `turn_actions`' list in
    the same order (with two packs, folded as `legal_actions` folds it); the plain turn is picked only for
    rulesets without Blind, a call in turn, an unfinishable card or repeated draws."""
    rng = random.Random(7)
    plain = turns = 0
    for seed in range(6):
        state = games.new_game(ruleset, players=players, seed=seed, **options)
        table = legal.phase_table(state.rules)
        for _ in range(300):
            if state.is_over:
                break
            if state.phase == "turn":
                turns += 1
                plain += table["turn"] is legal.plain_turn_actions
                expected = legal.legal_actions(state)
                assert table["turn"](state) == expected
                assert state.legal_actions() == expected
            state.apply(rng.choice(state.legal_actions()))
    assert turns > 100 and plain == (turns if is_plain else 0)


@pytest.mark.parametrize("ruleset, discard", [("moumou", ["6c", "Kc", "Ac", "9c"]), ("maumau", ["9c"])])
def test_a_plain_turn_with_nothing_to_play_or_draw_is_a_pass(ruleset, discard):
    """Nothing legal on the top, an empty stock and no more discards than recycling keeps: only ``pass``
    (random games rarely get there); with a club in hand, only its play."""
    for hand, expected in ((["7h", "8d"], ["pass"]), (["7h", "Tc", "8d"], ["play Tc"])):
        state = games.from_position(ruleset, {"hands": [hand, ["9s", "Td", "Qs"]], "discard": discard, "stock": [],
                                              "current": 0, "direction": 1})
        assert legal.phase_table(state.rules)["turn"] is legal.plain_turn_actions
        assert [str(a) for a in state.legal_actions()] == expected == [str(a) for a in legal.turn_actions(state)]
