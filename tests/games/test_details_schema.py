"""docs/observation-details.schema.json: the details_json keys of every ruleset, for bots in any language.

The schema is generated from the engines (arena.games.details_schema); these tests fail when the
committed file is stale, and validate real observations of other seeds, every table size and
option variants, as they go over the wire (details_json), against it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arena import games, messages
from arena.games.details_schema import SEED, observations
from tests.scripts_loaded import load_script

jsonschema = pytest.importorskip("jsonschema", reason="the schema check needs jsonschema (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "observation-details.schema.json").read_text())


def test_the_committed_schema_is_what_the_engines_generate(monkeypatch, capsys):
    script = load_script(monkeypatch, "gen_details_schema")  # in-process: the script's own --check
    monkeypatch.setattr(sys, "argv", ["gen_details_schema.py", "--check"])
    assert script.main() == 0, capsys.readouterr().err


def test_the_schema_is_valid_and_every_key_is_described():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert set(SCHEMA["$defs"]) == set(games.rulesets())
    for ruleset, definition in SCHEMA["$defs"].items():
        assert definition["additionalProperties"] is False
        assert all(prop.get("description") for prop in definition["properties"].values()), ruleset


#: The only keywords the generated schema uses: whether a value is valid then depends on its `shape` alone.
SHAPE_KEYWORDS = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "items", "properties",
                  "required", "additionalProperties"}


def shape(value):
    """A JSON value with every string, number... replaced by its type: all the schema can check of it."""
    if isinstance(value, dict):
        return "object", tuple(sorted((key, shape(member)) for key, member in value.items()))
    if isinstance(value, list):
        return "array", frozenset(shape(item) for item in value)
    return type(value).__name__  # bool, int, float, str, NoneType: told apart, as "type" tells them apart


def keywords(schema) -> set[str]:
    if isinstance(schema, list):
        return set().union(*map(keywords, schema)) if schema else set()
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        if key in ("properties", "$defs"):
            found |= set().union(*map(keywords, value.values())) if value else set()
        elif key in ("items", "additionalProperties"):
            found |= keywords(value)
    return found


def test_the_schema_checks_nothing_but_the_shape_of_a_value():
    assert keywords(SCHEMA) <= SHAPE_KEYWORDS, keywords(SCHEMA) - SHAPE_KEYWORDS
    validator = jsonschema.Draft202012Validator({**SCHEMA, "$ref": "#/$defs/maumau"})
    assert shape({"a": [1, "x"], "b": None}) == shape({"b": None, "a": ["y", 2, 3]})
    assert shape({"a": 1}) != shape({"a": 1.0}) != shape({"a": True}) != shape({"a": "1"})
    state = games.new_game("maumau", 2, 1)
    details = json.loads(json.dumps({k: v for k, v in state.observation(0).to_dict().items()
                                     if k not in messages.TYPED_KEYS}))
    assert details["drawn"] is False and not list(validator.iter_errors(details))
    assert not list(validator.iter_errors({**details, "drawn": True}))  # the same shape: as valid
    assert list(validator.iter_errors({**details, "drawn": 1}))  # another shape: refused


@pytest.mark.parametrize("ruleset", games.rulesets())
def test_observations_of_other_games_validate_against_the_schema_as_sent_on_the_wire(ruleset):
    validator = jsonschema.Draft202012Validator({**SCHEMA, "$ref": f"#/$defs/{ruleset}"})
    checked, shapes = 0, set()
    for index, data in enumerate(observations(ruleset, SEED + 1, 1)):
        if index % 5:
            continue  # one in five: consecutive observations hold the same keys
        wire = messages.observation_to_pb(games.Observation(data), [f"bot{i}" for i in range(data["seat_count"])])
        details = json.loads(wire.details_json) if wire.details_json else {}
        checked += 1
        if shape(details) in shapes:
            continue  # valid: the schema checks only shapes (the test above), and this one was validated
        shapes.add(shape(details))
        errors = sorted(validator.iter_errors(details), key=str)
        assert not errors, f"{ruleset}: {errors[0].message} at {list(errors[0].absolute_path)}"
    assert checked > 50 and len(shapes) > 1


def test_a_key_the_schema_does_not_list_is_refused():
    validator = jsonschema.Draft202012Validator({**SCHEMA, "$ref": "#/$defs/maumau"})
    state = games.new_game("maumau", 2, 1)
    details = {k: v for k, v in state.observation(0).to_dict().items() if k not in messages.TYPED_KEYS}
    assert not list(validator.iter_errors(json.loads(json.dumps(details))))
    assert list(validator.iter_errors({**json.loads(json.dumps(details)), "secret_stock": ["7h"]}))
