"""The shedding engine's cards and kept lists: one object per card code, and legal lists the caller may change."""

from __future__ import annotations

import random

import pytest

from arena import games
from arena.games.shedding import RULESET_MODULES
from arena.games.shedding.actions import PLAY

#: Every shedding ruleset, at its fewest players and at a table that needs more packs or jokers where it has one.
CASES = [(module.NAME, module.MIN_PLAYERS, {}) for module in RULESET_MODULES] + [
    ("maumau-online", 6, {}),
    ("pesten", 5, {"jokers": 3}),
    ("neuner", 3, {"jokers": 2, "blind": True}),
]


def _cards_of(state) -> list[str]:
    return [*(card for hand in state.hands for card in hand), *state.discard, *state.stock, *state.combo]


@pytest.mark.parametrize("ruleset, players, options", CASES)
def test_a_card_is_one_object_wherever_it_goes(ruleset, players, options):
    """The deck's cards are the very objects the ``play`` actions name, and stay so in hands, pile, stock and
    the play under way through random games (reshuffles and new hands included), and in a restored
    position: the engine's card look-ups and comparisons succeed on identity (the speed-up of interning)."""
    rng = random.Random(3)
    seen = 0
    for seed in range(8):
        state = games.new_game(ruleset, players=players, seed=seed, **options)
        canonical = {card: card for card in state.rules.deck}
        assert all(PLAY[card].args[0] is card for card in canonical)
        for _ in range(400):
            assert all(canonical[card] is card for card in _cards_of(state))
            seen += 1
            if state.is_over:
                break
            for action in state.legal_actions():
                if action.verb == "play":
                    assert action.args[0] is canonical[action.args[0]]
            state.apply(rng.choice(state.legal_actions()))
        position = state.to_position()
        restored = games.from_position(ruleset, {**position, "hands": [[*map("".join, map(list, hand))]
                                                                       for hand in position["hands"]]}, **options)
        assert all(canonical[card] is card for card in _cards_of(restored))
    assert seen > 200


def test_a_legal_list_is_the_callers_to_change():
    """A decision whose legal list never changes (a suit to name) still hands out a new list each time: a
    caller that empties it changes neither the state nor the next list, nor another game's."""
    rng = random.Random(1)
    state = games.new_game("maumau", players=2, seed=4)
    while state.phase != "suit":
        state.apply(rng.choice(state.legal_actions()))
    other = state.clone()
    first = state.legal_actions()
    expected = list(first)
    first.clear()
    assert state.legal_actions() == expected == other.legal_actions()
    assert [str(action) for action in expected] == ["suit s", "suit h", "suit d", "suit c"]
