"""The decision path's conversion (`arena.messages`): one constructor call, same message."""

from __future__ import annotations

import json
import math
import random

import pytest

from arena.games.cards import is_card_code

from arena import games
from arena import messages as convert
from mau_arena_sdk.wire import pb


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


def _reference_turn(observation, legal, names) -> bytes:
    """The conversion as the protocol describes it, written plainly from the ``data`` mapping."""
    data = dict(observation.data)
    sizes, scores, statuses = data.get("hand_sizes") or [], data.get("scores") or [], data.get("statuses") or []
    count = data["seat_count"]
    seats = [pb.SeatView(seat=i, name=names[i], hand_size=sizes[i] if i < len(sizes) else 0,
                                     score=scores[i] or 0 if i < len(scores) else 0,
                                     status=statuses[i] if i < len(statuses) else "active")
             for i in range(count)]
    rest = {k: v for k, v in data.items() if k not in convert.TYPED_KEYS}
    view = pb.Observation(
        ruleset=data["ruleset"], seat=-1 if data.get("seat") is None else data["seat"],
        current=-1 if data.get("current") is None else data["current"], decision=data.get("decision") or "",
        hand=[str(c) for c in data.get("hand") or []], discard=[str(c) for c in data.get("discard") or []],
        stock_size=data.get("stock_size") or 0, direction=data.get("direction") or 1, seats=seats,
        details_json=json.dumps(rest, separators=(",", ":"), ensure_ascii=False) if rest else "")
    structured = [pb.LegalAction(verb=a.verb, args=list(a.args), text=str(a),
                                 cards=[t.split(":")[0] for t in a.args if is_card_code(t.split(":")[0])])
                  for a in legal]
    turn = pb.TurnRequest(game_id="g-1", request_id=7, observation=view, legal=[str(a) for a in legal],
                          time=pb.TimeLeft(move_ms=900, bank_ms=4000), legal_actions=structured)
    return pb.ArenaMessage(turn=turn).SerializeToString()


@pytest.mark.parametrize("ruleset", games.rulesets())
def test_turn_bytes_match_a_plain_conversion_of_the_data_for_seats_and_spectators(ruleset):
    """Record observations are read from their value tuple, not from ``data``: the bytes must be
    those of the plain conversion of ``data`` (and of the same view given as a plain mapping)."""
    players = games.ruleset_info(ruleset).min_players
    names = [f"bot{i}" for i in range(players)]
    rng = random.Random(ruleset + "/bytes")
    state = games.new_game(ruleset, players=players, seed=rng.randrange(2**31))
    for _ in range(80):
        if state.is_over:
            break
        legal = tuple(state.legal_actions())
        for seat in (state.current, None):
            observation = state.observation(seat)
            built = convert.turn_message("g-1", 7, observation, legal, 900, 4000, names).SerializeToString()
            assert built == _reference_turn(observation, legal, names)
            plain = convert.turn_message("g-1", 7, dict(observation.data), legal, 900, 4000, names)
            assert plain.SerializeToString() == built
        state.apply(rng.choice(legal))


def test_a_record_observation_is_converted_without_building_its_data_dict():
    from arena.games.base import RecordObservation

    class Record(RecordObservation.record_type(("ruleset", "seat", "seat_count", "hand", "extra"))):
        __slots__ = ()

        @property
        def data(self):
            raise AssertionError("the record's values are read directly")

    record = Record.of(("toy", 1, 2, ["7h"], {"a": 1}))
    fields = convert._observation_fields(record, ["x", "y"])
    assert (fields["ruleset"], fields["seat"], fields["current"], fields["hand"]) == ("toy", 1, -1, ["7h"])
    assert fields["details_json"] == '{"extra":{"a":1}}' and len(fields["seats"]) == 2
