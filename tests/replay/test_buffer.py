"""`ReplayBuffer`: the ladder's in-memory replay is byte for byte what `ReplayWriter` writes to a file."""

from __future__ import annotations

import random

import pytest

from arena.games import new_game
from arena.replay import ReplayWriter, ReplayWriterError, load, verify
from arena.replay import format as replay_format
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
def test_the_buffer_holds_the_bytes_the_file_writer_writes(tmp_path, toy_ruleset, hash_every, monkeypatch):
    # One clock reading for both: each result line stamps its own `ended_at`, to the second, and on a loaded
    # machine the two writes below fell on either side of a second's change (a fresh-clone CI run, 2026-11-29).
    monkeypatch.setattr(replay_format, "utc_now", lambda: "2026-11-22T04:05:00Z")
    writer = ReplayWriter.create(tmp_path, _header(toy_ruleset, 11), hash_every=hash_every)
    buffer = ReplayBuffer(_header(toy_ruleset, 11), hash_every=hash_every)
    result = _play_into([writer, buffer], toy_ruleset, 11)
    assert load(writer.part_path).decisions and not buffer.complete
    assert buffer.text() == writer.part_path.read_bytes()  # partial: no result line yet, in both
    writer.write_result(result)
    buffer.write_result(result)
    assert b'"ended_at":"2026-11-22T04:05:00Z"' in buffer.text()  # the one clock reading
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


@pytest.mark.parametrize("seed", range(4))
def test_lines_written_at_the_end_are_the_lines_written_one_at_a_time(seed):
    """`decision_lines` (the buffer's one pass at the end, through msgspec) gives, decision for decision, exactly
    what `decision_text` gives at once, for awkward texts and loosely typed values as well (`decision_text`
    converts them: a float think time, truthy non-bools, an int-like seat), and lines written at once kept
    in their places."""
    from arena.replay.writer import decision_lines, decision_text, usual_decision

    chooser = random.Random(seed)
    texts = ["draw", "play 7h", 'say "mau"\\', "über ♠ 🂡", "tab\there\nnewline", "\x00\x1f\x7f", "\u2028\u2029", ""]
    decisions, expected = [], []
    for i in range(1, 400):
        seat = chooser.choice([0, 1, 2, True, 3.0])
        action = chooser.choice(texts)
        think_ms = chooser.choice([0, None, 12, 31.5, 32.5, 1e3 / 3, 99999.49])
        timeout, strike = chooser.choice([False, True, 0, 1, "", "x"]), chooser.choice([False, True, None, 2])
        state_hash = chooser.choice([None, None, "0123456789abcdef", "ü\"x"])
        bot_error = chooser.choice([""] * 8 + ["ValueError: boom\n\tat line 3"])
        line = decision_text(i, seat, action, think_ms, timeout, strike, state_hash, bot_error)
        expected.append(line)
        decisions.extend((seat, action, think_ms, timeout, strike, state_hash)
                         if usual_decision(state_hash, bot_error) else (None, line, 0, False, False, None))
    assert decision_lines(1, decisions) == "".join(expected).encode()
    # a text msgspec refuses (a lone surrogate) goes the standard way, and fails as a file's text of it does
    with pytest.raises(UnicodeEncodeError):
        decision_text(7, 0, "x\ud800", 3).encode()
    with pytest.raises(UnicodeEncodeError):
        decision_lines(7, [0, "x\ud800", 3, False, False, None])


def test_text_taken_twice_and_after_more_decisions(toy_ruleset):
    """The lines kept as parts are written when the text is taken, and again with the decisions that came after."""
    writer_lines = ReplayBuffer(_header(toy_ruleset, 5), hash_every=16)
    buffer = ReplayBuffer(_header(toy_ruleset, 5), hash_every=16)
    buffer.decision(0, "draw", 3.4)
    buffer.decision(1, "draw", 2, bot_error="KeyError: 'x'")
    first = buffer.text()
    assert buffer.text() == first and first.count(b"\n") == 3
    buffer.decision(0, "draw", 7, state_hash="00ff")
    for seat, think_ms, error, digest in [(0, 3.4, "", None), (1, 2, "KeyError: 'x'", None), (0, 7, "", "00ff")]:
        writer_lines.decision(seat, "draw", think_ms, bot_error=error, state_hash=digest)
    assert buffer.text().startswith(first) and buffer.text() == writer_lines.text()
    buffer.write_result({"placements": [1, 2], "points": [0, 0], "reason": ""})
    assert parse(buffer.text(), "g1.jsonl").status == "finished"


def test_a_decision_keeps_no_object_the_garbage_collector_counts(toy_ruleset):
    """Every container kept per decision until the game's end counts towards the collector's young generation:
    one a decision made a ladder's young collections come twice as often.  The buffer keeps plain values."""
    import gc

    buffer = ReplayBuffer(_header(toy_ruleset, 2), hash_every=16)
    buffer.decision(0, "draw", 1.5)  # the list's first growth
    was = gc.isenabled()
    gc.disable()
    try:
        before = gc.get_count()[0]
        for i in range(500):
            buffer.decision(i % 2, "draw", 31.7, False, False, None if i % 16 else "0123456789abcdef")
        assert gc.get_count()[0] - before <= 5  # a list's growth, nothing a decision
    finally:
        if was:
            gc.enable()
