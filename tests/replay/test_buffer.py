"""`ReplayBuffer`: the ladder's in-memory replay is byte for byte what `ReplayWriter` writes to a file."""

from __future__ import annotations

import random

import pytest

from arena.games import new_game
from arena.replay import ReplayWriter, ReplayWriterError, load, verify
from arena.replay.buffer import ReplayBuffer
from arena.replay.reader import parse


def _header(ruleset: str, seed: int) -> dict:
    return {"game_id": "g1", "ruleset": ruleset, "players": 2, "seed": seed, "seats": ["a", "b"],
            "time_control": {"move_ms": 1000}, "started_at": "2026-11-22T04:00:00Z", "ladder_set": "g1"}


def _play_into(recorders: list, ruleset: str, seed: int) -> dict:
    """A random game, each decision given to every recorder with the same arguments (hashes as the runner
    gives them: only when the recorder's `hash_due` says so, and on the last decision)."""
    state = new_game(ruleset, 2, seed)
    chooser = random.Random(seed)
    while not state.is_over:
        seat = state.current
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        due = recorders[0].hash_due()
        assert all(r.hash_due() == due for r in recorders)
        digest = state.state_hash() if due or state.is_over else None
        error = "ValueError: boom\n\tat line 3" if chooser.random() < 0.05 else ""  # the other line form too
        think_ms, timeout = chooser.random() * 40, chooser.random() < 0.1
        for recorder in recorders:
            recorder.decision(seat, str(action), think_ms, timeout, False, digest, error)
    result = state.result()
    return {"placements": list(result.placements), "points": list(result.points), "reason": result.reason}


@pytest.mark.parametrize("hash_every", [1, 16])
def test_the_buffer_holds_the_bytes_the_file_writer_writes(tmp_path, toy_ruleset, hash_every):
    writer = ReplayWriter.create(tmp_path, _header(toy_ruleset, 11), hash_every=hash_every)
    buffer = ReplayBuffer(_header(toy_ruleset, 11), hash_every=hash_every)
    result = _play_into([writer, buffer], toy_ruleset, 11)
    assert load(writer.part_path).decisions and not buffer.complete
    assert buffer.text() == writer.part_path.read_bytes()  # partial: no result line yet, in both
    writer.write_result(result)
    buffer.write_result(result)
    assert buffer.text() == writer.part_path.read_bytes()
    writer.write_abort("the store refused the result")  # the result line is replaced, in both
    buffer.write_abort("the store refused the result")
    path = writer.seal()
    assert buffer.text() == path.read_bytes() and buffer.complete
    replay = parse(buffer.text(), "g1.jsonl")
    assert replay.status == "aborted" and replay.result["reason"] == "the store refused the result"
    assert verify(path).ok


def test_no_decision_after_the_result_line(toy_ruleset):
    buffer = ReplayBuffer(_header(toy_ruleset, 3))
    buffer.write_abort("seat unavailable")
    with pytest.raises(ReplayWriterError):
        buffer.decision(0, "draw")
    assert parse(buffer.text(), "g1.jsonl").status == "aborted"
