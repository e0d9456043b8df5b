"""The decision path's conversion (`arena.server.convert`): one constructor call, same message."""

from __future__ import annotations

import json
import math
import random

import pytest

from arena import games
from arena.server import convert
from sdk.wire import pb


def _positions(ruleset: str, players: int, decisions: int = 60):
    rng = random.Random(ruleset)
    state = games.new_game(ruleset, players=players, seed=rng.randrange(2**31))
    for _ in range(decisions):
        if state.is_over:
            return
        legal = tuple(state.legal_actions())
        yield state.observation(state.current), legal
        state.apply(rng.choice(legal))


@pytest.mark.parametrize("ruleset", games.rulesets())
def test_turn_message_is_the_turn_request_wrapped(ruleset):
    """turn_message builds the ArenaMessage in one go; it must be byte for byte the wrapped TurnRequest,
    and its details_json exactly the observation's keys that have no typed field."""
    players = games.ruleset_info(ruleset).min_players
    names = [f"bot{i}" for i in range(players)]
    for observation, legal in _positions(ruleset, players):
        wrapped = pb.ArenaMessage(turn=convert.turn_request_to_pb("g-1", 7, observation, legal, 900, 4000, names))
        built = convert.turn_message("g-1", 7, observation, legal, 900, 4000, names)
        assert built.SerializeToString() == wrapped.SerializeToString()
        data = observation.data
        rest = {k: v for k, v in data.items() if k not in convert.TYPED_KEYS}
        details = json.loads(built.turn.observation.details_json) if rest else {}
        assert details == json.loads(json.dumps(rest))
        assert [seat.name for seat in built.turn.observation.seats] == names


def test_details_json_normalises_non_json_values_and_refuses_nan():
    assert json.loads(convert._details_json({"seen": (1, 2), "flags": {"a": None}})) == {"seen": [1, 2],
                                                                                        "flags": {"a": None}}
    assert convert._details_json({"text": "Sepp ö"}) == '{"text":"Sepp ö"}'  # not ASCII-escaped, compact
    with pytest.raises(ValueError):
        convert._details_json({"x": math.nan})
