"""The file format, the crash-safe writer and the reader (no re-simulation needed for most)."""

from __future__ import annotations

import json

import pytest

from arena.replay import ReplayFormatError, ReplayHeader, ReplayWriter, ReplayWriterError, load, verify
from arena.replay.format import FORMAT_NAME, FORMAT_VERSION, PART_SUFFIX

from .conftest import record_random_game


def header(game_id: str = "t1", **extra) -> dict:
    return {"game_id": game_id, "ruleset": "toy-replay", "players": 2, "seed": 5,
            "seats": [{"name": "alice", "version": "2"}, {"name": "bob"}],
            "started_at": "2026-11-22T10:00:00Z", **extra}


def test_a_writer_with_flush_s_hands_decisions_over_in_batches_and_the_result_at_once(tmp_path):
    writer = ReplayWriter.create(tmp_path, header(), flush_s=3600)
    writer.decision(0, "draw", state_hash="aa")
    writer.decision(1, "draw", state_hash="bb")
    # within flush_s the lines may wait in the process; the header is on disk, the game opens
    assert load(writer.current_path).decisions == []
    writer.flush()
    assert len(load(writer.current_path).decisions) == 2
    writer.decision(0, "draw", state_hash="cc")
    writer.write_result({"placements": [1, 2], "points": [0, 3], "reason": "out"})
    part = load(writer.current_path)
    assert len(part.decisions) == 3 and part.status == "finished"


def test_writer_writes_part_file_then_renames_atomically_on_finish(tmp_path):
    writer = ReplayWriter.create(tmp_path, header())
    assert writer.current_path.name == "t1" + PART_SUFFIX
    assert writer.path == tmp_path / "2026-11-22" / "t1.jsonl" and not writer.path.exists()
    writer.decision(0, "draw", think_ms=12.4, state_hash="aa")
    # every line is on disk as soon as it is written: a reader sees it mid-game
    assert len(load(writer.current_path).decisions) == 1
    final = writer.finish({"placements": [2, 1], "points": [3, 0], "reason": "out"})
    assert final == tmp_path / "2026-11-22" / "t1.jsonl"
    assert final.exists() and not (tmp_path / "2026-11-22" / ("t1" + PART_SUFFIX)).exists()
    assert writer.path == writer.current_path == final
    lines = [json.loads(line) for line in final.read_text().splitlines()]
    assert lines[0]["format"] == FORMAT_NAME and lines[0]["version"] == FORMAT_VERSION
    assert lines[0]["seats"][0] == {"seat": 0, "name": "alice", "version": "2"}
    assert lines[1] == {"type": "decision", "i": 1, "seat": 0, "action": "draw", "think_ms": 12,
                        "timeout": False, "strike": False, "hash": "aa"}
    assert lines[2]["type"] == "result" and lines[2]["placements"] == [2, 1] and lines[2]["status"] == "finished"
    with pytest.raises(ReplayWriterError):
        writer.decision(1, "draw")


def test_finish_accepts_a_game_outcome_with_per_seat_records(tmp_path):
    from arena.match.outcome import GameOutcome, SeatOutcome

    outcome = GameOutcome("t1", "toy-replay", {}, 5, "finished", reason="out", seats=[
        SeatOutcome(0, "alice", placement=1, points=0, strikes=1),
        SeatOutcome(1, "bob", placement=2, points=7, timeouts=2, forfeited=True)])
    path = ReplayWriter.create(tmp_path, header()).finish(outcome)
    result = load(path).result
    assert result["placements"] == [1, 2] and result["points"] == [0, 7]
    assert result["strikes"] == [1, 0] and result["timeouts"] == [0, 2] and result["forfeits"] == [False, True]


def test_abort_leaves_a_whole_file_marked_aborted(tmp_path):
    writer = ReplayWriter.create(tmp_path, header())
    writer.decision(0, "draw")
    path = writer.abort("server shutdown")
    replay = load(path)
    assert replay.complete and replay.status == "aborted" and replay.result["reason"] == "server shutdown"


def test_context_manager_aborts_when_the_game_raises(tmp_path):
    with pytest.raises(RuntimeError):
        with ReplayWriter.create(tmp_path, header()) as writer:
            raise RuntimeError("runner bug")
    assert load(writer.path).status == "aborted"


def test_existing_replay_is_never_overwritten(tmp_path):
    ReplayWriter.create(tmp_path, header()).finish({})
    with pytest.raises(FileExistsError):
        ReplayWriter.create(tmp_path, header())


@pytest.mark.parametrize("game_id", ["../evil", "a/b", "", ".hidden", "x" * 200])
def test_game_ids_that_are_not_file_names_are_rejected(tmp_path, game_id):
    with pytest.raises(ReplayFormatError):
        ReplayWriter.create(tmp_path, header(game_id))


def test_reader_tolerates_unknown_keys_and_line_types(tmp_path):
    path = tmp_path / "x.jsonl"
    lines = [dict(header(), type="header", format=FORMAT_NAME, version="1.3", shiny=True),
             {"type": "decision", "i": 1, "seat": 0, "action": "draw", "hash": None, "future": [1]},
             {"type": "chat", "text": "gg"},
             {"type": "result", "status": "finished", "placements": [1, 2], "points": [0, 1]}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    replay = load(path)
    assert replay.complete and len(replay.decisions) == 1 and replay.header.extra["shiny"] is True


def test_reader_rejects_another_major_version_clearly(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(dict(header(), type="header", format=FORMAT_NAME, version=2)) + "\n")
    with pytest.raises(ReplayFormatError, match="version 2 is not supported"):
        load(path)


@pytest.mark.parametrize("content, message", [
    ("", "no header"),
    ("hello\nworld\n", "the first line is not JSON"),
    ('{"type": "header", "format": "mau-arena-replay", "game_id": "a", "ruleset": "r", "players": 2, "seed": 1}\n'
     '{"type": "decision", "i": 1, "se\n', ":2: not a JSON object"),
    ('{"type": "header", "format": "mau-arena-rep', "cut off while its header"),
    ('{"type": "decision", "i": 1}\n', "no header"),
    ('{"type": "header", "format": "chess-pgn", "game_id": "a", "ruleset": "r", "players": 2, "seed": 1}\n',
     "not a Mau Arena replay"),
])
def test_reader_names_what_is_wrong_with_a_bad_file(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(ReplayFormatError, match=message):
        load(path)


def test_reader_errors_for_missing_files_and_directories(tmp_path):
    with pytest.raises(ReplayFormatError, match="no such file"):
        load(tmp_path / "none.jsonl")
    with pytest.raises(ReplayFormatError, match="directory"):
        load(tmp_path)


def test_a_crash_mid_line_leaves_a_part_file_that_still_opens(tmp_path, toy_ruleset):
    full = load(record_random_game(tmp_path / "done", toy_ruleset, players=3, seed=11))
    writer = ReplayWriter.create(tmp_path / "crash", ReplayHeader.from_dict(
        {**full.header.to_dict(), "game_id": "crashed"}))
    for record in full.decisions[:30]:
        writer.decision(record.seat, record.action, record.think_ms, record.timeout, record.strike, record.hash)
    part = writer.current_path
    # simulate a kill during the 31st write: half a line, no newline, no rename
    next_line = json.dumps(full.decisions[30].to_dict())
    with open(part, "a") as handle:
        handle.write(next_line[: len(next_line) // 2])
    replay = load(part)
    assert part.name.endswith(PART_SUFFIX)
    assert not replay.complete and replay.status == "partial" and replay.torn_line
    assert [d.action for d in replay.decisions] == [d.action for d in full.decisions[:30]]
    assert replay.state_at(30).state_hash() == full.decisions[29].hash


def test_a_damaged_line_in_the_middle_is_an_error_not_a_silent_drop(tmp_path, toy_ruleset):
    path = record_random_game(tmp_path, toy_ruleset)
    lines = path.read_text().splitlines()
    lines[3] = lines[3][:10]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayFormatError, match=":4: not a JSON object"):
        load(path)


def test_header_from_the_ladder_keeps_extras_resolves_options_and_files_by_utc_date(tmp_path, toy_ruleset):
    ladder_header = {**header(), "ruleset": toy_ruleset, "options": {},
                     "started_at": "2026-11-22T23:30:00.250-02:00", "ladder_set": "ab12", "rotation": 1}
    path = ReplayWriter.create(tmp_path, ladder_header).finish({})
    assert path.parent.name == "2026-11-23"
    replay = load(path)
    assert replay.header.options == {"hand": 5}  # the default, written down
    assert replay.header.extra == {"ladder_set": "ab12", "rotation": 1}


def test_seal_partial_closes_a_crashed_replay_as_aborted(tmp_path, toy_ruleset):
    from arena.replay import seal_partial, verify

    full = load(record_random_game(tmp_path / "done", toy_ruleset, seed=13))
    writer = ReplayWriter.create(tmp_path, {**full.header.to_dict(), "game_id": "lost"})
    for record in full.decisions[:12]:
        writer.decision(record.seat, record.action, record.think_ms, record.timeout, record.strike, record.hash)
    with open(writer.current_path, "a") as handle:
        handle.write('{"type":"decision","i":13,"se')  # the write the crash interrupted
    writer._handle.close()  # the process died
    sealed = seal_partial(writer.current_path, "server restarted")
    assert sealed == writer.path and not writer.current_path.exists()
    replay = load(sealed)
    assert replay.status == "aborted" and replay.result["reason"] == "server restarted"
    assert len(replay.decisions) == 12 and verify(sealed).ok
    with pytest.raises(ReplayFormatError):
        seal_partial(sealed)


def _copy_decisions(writer, full, count=None):
    for record in full.decisions[:count]:
        writer.decision(record.seat, record.action, record.think_ms, record.timeout, record.strike, record.hash)


def test_a_result_line_is_fsynced_as_part_first_and_renamed_only_by_seal(tmp_path, toy_ruleset):
    full = load(record_random_game(tmp_path / "done", toy_ruleset, seed=13))
    writer = ReplayWriter.create(tmp_path, {**full.header.to_dict(), "game_id": "two-step"})
    _copy_decisions(writer, full)
    assert writer.write_result(full.result) == writer.part_path
    assert not writer.path.exists() and load(writer.part_path).status == "finished"
    with pytest.raises(ReplayWriterError):
        writer.decision(0, "play 7h")  # nothing after the result line
    assert writer.seal() == writer.path and not writer.part_path.exists()
    assert load(writer.path).status == "finished" and verify(writer.path).ok


def test_an_uncommitted_result_line_is_replaced_by_an_abort_not_followed(tmp_path, toy_ruleset):
    full = load(record_random_game(tmp_path / "done", toy_ruleset, seed=13))
    writer = ReplayWriter.create(tmp_path, {**full.header.to_dict(), "game_id": "refused"})
    _copy_decisions(writer, full)
    writer.write_result(full.result)
    writer.write_abort("the result could not be stored")
    replay = load(writer.seal())
    assert replay.status == "aborted" and replay.result["reason"] == "the result could not be stored"
    assert len(replay.decisions) == len(full.decisions) and verify(writer.path).ok


def test_after_a_crash_a_committed_part_is_renamed_and_an_uncommitted_result_is_aborted(tmp_path, toy_ruleset):
    from arena.replay import seal_complete, seal_partial

    full = load(record_random_game(tmp_path / "done", toy_ruleset, seed=13))
    parts = {}
    for name in ("committed", "not-committed"):
        writer = ReplayWriter.create(tmp_path, {**full.header.to_dict(), "game_id": name})
        _copy_decisions(writer, full)
        writer.write_result(full.result)
        writer._handle.close()  # the process died before seal()
        parts[name] = writer
    committed = seal_complete(parts["committed"].part_path)
    assert committed == parts["committed"].path and load(committed).status == "finished" and verify(committed).ok
    aborted = seal_partial(parts["not-committed"].part_path, "server restarted")
    replay = load(aborted)
    assert replay.status == "aborted" and replay.result["reason"] == "server restarted"
    assert len(replay.decisions) == len(full.decisions) and verify(aborted).ok
    cut = ReplayWriter.create(tmp_path, {**full.header.to_dict(), "game_id": "cut"})
    _copy_decisions(cut, full, 3)
    cut._handle.close()
    with pytest.raises(ReplayFormatError):
        seal_complete(cut.part_path)  # no result line: only seal_partial may close it


def test_a_cut_at_any_byte_opens_with_the_decisions_before_it(tmp_path, toy_ruleset):
    """Whatever byte a crash stops at, the reader shows every whole decision line before it."""
    path = record_random_game(tmp_path, toy_ruleset, seed=17)
    full = load(path)
    raw = path.read_bytes()
    header_end = raw.index(b"\n") + 1
    cut_file = tmp_path / "cut.jsonl.part"
    for cut in range(0, len(raw), max(1, len(raw) // 150)):
        cut_file.write_bytes(raw[:cut])
        if cut < header_end - 1:  # not even the header survived: a clear error, nothing else
            with pytest.raises(ReplayFormatError):
                load(cut_file)
            continue
        replay = load(cut_file)
        whole_lines = raw[:cut].count(b"\n") - 1
        assert len(replay.decisions) in (min(whole_lines, len(full.decisions)), whole_lines + 1)
        assert replay.decisions == full.decisions[: len(replay.decisions)]


@pytest.mark.parametrize("text", ['a"b\\c', "".join(map(chr, range(32))), "\x7f\u2028\u2029é漢😀", "</script>"])
def test_decision_lines_are_the_standard_encoders_text(text):
    """The writer's fast encoder writes exactly what json.dumps(ensure_ascii=False, compact) wrote."""
    import json

    from arena.replay.format import decision_dict
    from arena.replay.writer import encode_line

    line = decision_dict(3, 1, text, 12, True, False, None, text)
    assert encode_line(line) == json.dumps(line, ensure_ascii=False, separators=(",", ":"))
    assert encode_line({"x": "\ud800"}) == json.dumps({"x": "\ud800"}, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("text", ["play 7h", 'a"b\\c', "".join(map(chr, range(32))), "\x7f\u2028\u2029é漢😀", "</script>"])
@pytest.mark.parametrize("flags", [(False, False, None), (True, False, "0123456789abcdef"), (False, True, 'h"\\')])
def test_a_decision_line_put_together_is_the_standard_encoders_text(text, flags):
    """The writer's usual decision line (no bot error), assembled from parts with the action's JSON kept per
    text, is exactly json.dumps of its `decision_dict`, first time and from the kept text."""
    import json

    from arena.replay.format import decision_dict
    from arena.replay.writer import decision_line

    timeout, strike, state_hash = flags
    for think_ms in (0, 123456):
        line = decision_dict(41, 3, text, think_ms, timeout, strike, state_hash)
        expected = json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
        assert decision_line(41, 3, text, think_ms, timeout, strike, state_hash) == expected

