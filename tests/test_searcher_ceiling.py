"""scripts/searcher_ceiling.py: the oracle's worlds are the real game with only the stock's order changed."""

from __future__ import annotations

import random
from collections import Counter

from arena import games
from tests.scripts_loaded import load_script


def test_the_oracle_world_is_the_real_state_with_the_stock_shuffled(monkeypatch):
    ceiling = load_script(monkeypatch, "searcher_ceiling")
    state = games.new_game("maumau", 2, 9001)
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    world = ceiling.oracle_world({"state": state}, "maumau")(None, random.Random(3), None, state.current, 1)
    real, seen = state.to_position(), world.to_position()
    assert seen["hands"] == real["hands"] and seen["discard"] == real["discard"]  # the opponent's hand is known
    assert Counter(seen["stock"]) == Counter(real["stock"]) and seen["stock"] != real["stock"]  # the order is not
    assert [str(a) for a in world.legal_actions()] == [str(a) for a in state.legal_actions()]
