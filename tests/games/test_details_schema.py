"""docs/observation-details.schema.json: the details_json keys of every ruleset, for bots in any language.

The schema is generated from the engines (arena.games.details_schema); these tests fail when the
committed file is stale, and validate real observations of other seeds, every table size and
option variants, as they go over the wire (details_json), against it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena import games, messages
from arena.games.details_schema import SEED, observations

jsonschema = pytest.importorskip("jsonschema", reason="the schema check needs jsonschema (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "observation-details.schema.json").read_text())


def test_the_committed_schema_is_what_the_engines_generate():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_details_schema.py"), "--check"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr + result.stdout


def test_the_schema_is_valid_and_every_key_is_described():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert set(SCHEMA["$defs"]) == set(games.rulesets())
    for ruleset, definition in SCHEMA["$defs"].items():
        assert definition["additionalProperties"] is False
        assert all(prop.get("description") for prop in definition["properties"].values()), ruleset


@pytest.mark.parametrize("ruleset", games.rulesets())
def test_observations_of_other_games_validate_against_the_schema_as_sent_on_the_wire(ruleset):
    validator = jsonschema.Draft202012Validator({**SCHEMA, "$ref": f"#/$defs/{ruleset}"})
    checked = 0
    for index, data in enumerate(observations(ruleset, SEED + 1, 1)):
        if index % 5:
            continue  # one in five: consecutive observations hold the same keys
        wire = messages.observation_to_pb(games.Observation(data), [f"bot{i}" for i in range(data["seat_count"])])
        details = json.loads(wire.details_json) if wire.details_json else {}
        errors = sorted(validator.iter_errors(details), key=str)
        assert not errors, f"{ruleset}: {errors[0].message} at {list(errors[0].absolute_path)}"
        checked += 1
    assert checked > 50


def test_a_key_the_schema_does_not_list_is_refused():
    validator = jsonschema.Draft202012Validator({**SCHEMA, "$ref": "#/$defs/maumau"})
    state = games.new_game("maumau", 2, 1)
    details = {k: v for k, v in state.observation(0).to_dict().items() if k not in messages.TYPED_KEYS}
    assert not list(validator.iter_errors(json.loads(json.dumps(details))))
    assert list(validator.iter_errors({**json.loads(json.dumps(details)), "secret_stock": ["7h"]}))
