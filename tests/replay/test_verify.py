"""Round trips through the writer for every ruleset, and the verifier catching tampering."""

from __future__ import annotations

import json

import pytest

from arena.cli import main
from arena.replay import load, verify

from .conftest import all_rulesets, players_for, record_random_game


@pytest.mark.parametrize("ruleset", all_rulesets())
def test_every_ruleset_round_trips_through_a_replay(tmp_path, toy_ruleset, ruleset):
    players = players_for(ruleset)
    path = record_random_game(tmp_path, ruleset, players=players, seed=2024, max_decisions=1200)
    replay = load(path)
    assert replay.complete and replay.ruleset == ruleset and replay.players == players
    report = verify(path)
    assert report.ok, report.summary()
    assert report.checked == len(replay.decisions) > 0
    states = list(replay.states())
    assert len(states) == len(replay.decisions) + 1
    assert [s.state_hash() for s in states[1:]] == [d.hash for d in replay.decisions]
    if replay.status == "finished":
        assert states[-1].is_over and list(states[-1].result().placements) == replay.result["placements"]


def _rewrite(path, index, **changes):
    """Change decision ``index`` (from 1) in place, as a tamperer or a corrupting tool would."""
    lines = path.read_text().splitlines()
    record = json.loads(lines[index])
    assert record["i"] == index
    record.update(changes)
    lines[index] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def test_a_tampered_hash_fails_at_that_decision(tmp_path, toy_ruleset):
    path = record_random_game(tmp_path, toy_ruleset, players=3, seed=9)
    original = load(path).decisions[24]
    _rewrite(path, 25, hash="0123456789abcdef")
    report = verify(path)
    assert not report.ok
    d = report.divergence
    assert (d.index, d.seat, d.action) == (25, original.seat, original.action)
    assert d.expected == "0123456789abcdef" and d.actual == original.hash
    assert report.checked == 25


def test_a_tampered_but_legal_action_fails_at_that_decision(tmp_path, toy_ruleset):
    path = record_random_game(tmp_path, toy_ruleset, players=2, seed=4)
    replay = load(path)
    index = next(r.i for r in replay.decisions if r.i > 5 and len(replay.state_at(r.i - 1).legal_actions()) > 1)
    recorded = replay.decisions[index - 1].action
    other = next(str(a) for a in replay.state_at(index - 1).legal_actions() if str(a) != recorded)
    _rewrite(path, index, action=other)
    report = verify(path)
    assert not report.ok and report.divergence.index == index and report.divergence.action == other
    assert report.divergence.actual is not None and report.divergence.actual != report.divergence.expected


@pytest.mark.parametrize("change", [{"action": "play Zz"}, {"action": "fly away"}, {"seat": 1}])
def test_an_action_that_no_longer_applies_is_named(tmp_path, toy_ruleset, change):
    path = record_random_game(tmp_path, toy_ruleset, players=2, seed=4)
    if "seat" in change:
        change = {"seat": 1 - load(path).decisions[9].seat}
    _rewrite(path, 10, **change)
    report = verify(path)
    assert not report.ok and report.divergence.index == 10 and report.divergence.actual is None
    assert "decision 10" in report.summary()


def test_verify_command_prints_ok_and_fail_and_exits_nonzero(tmp_path, toy_ruleset, capsys):
    good = record_random_game(tmp_path, toy_ruleset, game_id="good")
    bad = record_random_game(tmp_path, toy_ruleset, game_id="bad", seed=8)
    _rewrite(bad, 3, hash="ffffffffffffffff")
    assert main(["replay", "--verify", str(good)]) == 0
    assert main(["replay", "--verify", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"OK   {good}" in out
    assert f"FAIL {bad}: decision 3" in out and "recorded ffffffffffffffff" in out
    assert "1 OK, 1 FAIL" in out


@pytest.mark.parametrize("argument, refusal", [
    ("missing.jsonl", "{path}: no such file"),
    (".", "{path} is a directory, not a replay file (its replays: {path}/*.jsonl)"),
])
def test_verify_refuses_a_file_argument_that_is_no_file_as_a_usage_error(tmp_path, toy_ruleset, capsys, argument,
                                                                         refusal):
    """The README's rule: a bad file argument is exit 2, as `arena replay missing.jsonl` says; it was a FAIL, exit 1."""
    good = record_random_game(tmp_path, toy_ruleset, game_id="good")
    path = tmp_path / argument if argument != "." else tmp_path
    assert main(["replay", "--verify", str(good), str(path)]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"arena: error: {refusal.format(path=path)}\n")  # refused before any is verified


def test_a_cut_off_replay_verifies_as_far_as_it_goes(tmp_path, toy_ruleset):
    path = record_random_game(tmp_path, toy_ruleset, seed=3)
    text = path.read_text()
    part = path.with_name("cut.jsonl.part")
    part.write_text(text[: len(text) // 2])
    report = verify(part)
    assert report.ok and not report.complete and "partial" in report.summary()


def test_a_divergence_in_a_replay_from_another_engine_version_says_so(tmp_path, toy_ruleset):
    path = record_random_game(tmp_path, toy_ruleset, players=2, seed=5)
    assert load(path).header.engine.startswith("mau-arena ")
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["engine"] = "mau-arena 0.0.1"
    lines[0] = json.dumps(header)
    path.write_text("\n".join(lines) + "\n")
    _rewrite(path, 2, hash="0" * 16)
    report = verify(path)
    assert not report.ok and report.divergence.index == 2
    assert any("recorded with mau-arena 0.0.1" in note for note in report.notes)


def test_a_replay_hashed_at_checkpoints_still_catches_a_changed_action_and_names_the_range(tmp_path, toy_ruleset):
    """Old replays hash every decision; the ladder's every 16th and the last: both verify, and a legal
    action changed between two checkpoints fails at the next one, naming where the game diverged."""
    path = record_random_game(tmp_path, toy_ruleset, players=2, seed=4)
    lines = path.read_text().splitlines()
    for number in range(1, len(lines) - 1):  # keep the hash on every 8th decision and the last, as a hash_every writer
        record = json.loads(lines[number])
        if record["i"] % 8 and number != len(lines) - 2:
            record["hash"] = None
        lines[number] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    report = verify(path)
    assert report.ok and report.checked == len(range(8, len(lines) - 2, 8)) + 1, report.summary()
    replay = load(path)
    original = path.read_text()
    found = False
    for index in range(9, 16):  # a legal change that keeps the later actions legal up to the checkpoint at 16
        before = replay.state_at(index - 1)
        for other in [str(a) for a in before.legal_actions() if str(a) != replay.decisions[index - 1].action]:
            path.write_text(original)
            _rewrite(path, index, action=other)
            report = verify(path)
            if report.divergence is not None and report.divergence.actual is not None:
                found = True
                break
        if found:
            break
    assert found, "no legal change between the checkpoints kept the game going: pick another seed"
    assert not report.ok and report.divergence.index == 16 and report.divergence.matched == 8
    assert "diverged within decisions 9-16" in report.summary()
