"""scripts/stall_audit.py: stalling seats' games, how long they last and how they end; bad arguments refused."""

from __future__ import annotations

import pytest

from tests.scripts_loaded import load_script


def test_a_stalled_game_is_reported_at_its_bound_and_past_the_abort_when_there_is_none(monkeypatch, capsys):
    audit = load_script(monkeypatch, "stall_audit")
    assert audit.main(["--rulesets", "mose", "--players", "2", "--policy", "staller",
                       "--options", '{"decision_limit": 40}']) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith('mose, 2 players, staller, {"decision_limit": 40}: 40 decisions; ')
    assert "decision_limit ended the game in round 1" in line
    assert audit.main(["--rulesets", "mose", "--players", "10", "--policy", "staller", "--cap", "50000",
                       "--options", '{"decision_limit": 0, "decks": 2, "turn_limit": 0}']) == 0
    assert "50000 decisions (past the runner's abort); still running at 50000" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["--options", "{oops"], "--options is not JSON"),
    (["--options", "[1]"], "--options must be a JSON object"),
    (["--rulesets", "nosuch"], "unknown ruleset 'nosuch'"),
    (["--cap", "0"], "--cap must be positive"),
    (["--players", "two"], "--players takes whole numbers"),
])
def test_bad_arguments_are_one_line_errors(monkeypatch, capsys, args, message):
    audit = load_script(monkeypatch, "stall_audit")
    with pytest.raises(SystemExit) as exit_:
        audit.main(args)
    assert exit_.value.code == 2 and message in capsys.readouterr().err
