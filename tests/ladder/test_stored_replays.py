"""Replays kept in the ladder database (arena.ladder.store.replays), on both backends, and recovery storing them.

The store tests run on SQLite and on a real PostgreSQL (the table is the same in
both, and `arena serve` writes it on both).  The recovery tests crash a game of an
older version (a replay file) at each point of its ending, as
tests/ladder/test_recovery.py does, and check that every replay recovery seals
ends up in the database, byte for byte the file: an upgrade loses nothing.
"""

from __future__ import annotations

import pytest

import toy_ladder_game
from toy_games_played import crash, finished_result, play
from arena.ladder.recovery import recover_replays
from arena.ladder.store import SCHEMA_VERSION, LadderStore, PackedReplay, StoredReplayError
from arena.replay import load, verify
from arena.replay.reader import parse

RULESET = toy_ladder_game.NAME


@pytest.fixture(autouse=True)
def ruleset():
    with toy_ladder_game.registered() as name:
        yield name


def _with_result_line(store: LadderStore, tmp_path, game_id: str):
    """A game played into a replay file whose result line is written (the runner's first step): (writer, seats)."""
    writer, state = play(store, tmp_path / "replays", game_id)
    result, seats = finished_result(state)
    writer.write_result(result)  # the runner's order: result line fsynced, commit, seal
    return writer, seats


def test_the_replay_committed_with_the_result_is_the_sealed_file_byte_for_byte(db, tmp_path):
    store = LadderStore.open(db)
    try:
        assert store.schema_version() == SCHEMA_VERSION >= 5
        writer, seats = _with_result_line(store, tmp_path, "g1")
        packed = PackedReplay.read(writer.part_path)
        store.game_ended("g1", "finished", seats, replay_path=str(writer.path), replay=packed)
        sealed = writer.seal()
        text = store.replay_text("g1")
        assert text == sealed.read_bytes()
        assert verify(sealed).ok and load(sealed).status == "finished"
        assert parse(text, "g1.jsonl").result == load(sealed).result
        assert store.stored_replays(["g1", "nope"]) == {"g1"}
        size, stored = store.stored_replay_sizes(["g1"])["g1"]
        assert size == len(text) and 0 < stored < size  # zlib-packed
        assert [g.id for g in store.games(stored_replay=True)] == ["g1"]
    finally:
        store.close()


def test_an_abort_commits_its_replay_and_a_later_store_keeps_the_committed_one(db, tmp_path):
    store = LadderStore.open(db)
    try:
        writer, _ = play(store, tmp_path / "replays", "g2", decisions=2)
        writer.write_abort("server shutting down")  # the runner's abort: its line fsynced, then the commit
        store.game_ended("g2", "aborted", [], reason="server shutting down", replay=PackedReplay.read(writer.part_path))
        assert parse(store.replay_text("g2"), "g2.jsonl").status == "aborted"
        assert store.replay_text("g2") == writer.seal().read_bytes()
        other = PackedReplay.of(b"not this one\n")
        assert store.store_replay("g2", other) is False  # replace=False (recovery, --import): the committed one stays
        assert parse(store.replay_text("g2"), "g2.jsonl").status == "aborted"
        assert store.store_replay("no-such-game", other) is False  # a replay needs its game's row
    finally:
        store.close()


def test_a_fenced_hosts_abort_keeps_its_replay_on_the_row_another_host_aborted(db, tmp_path):
    store = LadderStore.open(db)
    try:
        writer, state = play(store, tmp_path / "replays", "g4", decisions=2)
        store.game_ended("g4", "aborted", [], reason="host A died (not rated)")  # the sweep, by another host
        writer.write_abort("host A died (not rated)")  # this host learns it (GameClosed) and aborts
        store.game_ended("g4", "aborted", [], reason="x", replay=PackedReplay.read(writer.part_path))
        assert store.game("g4").reason == "host A died (not rated)"  # the row stays as the sweep left it
        assert store.replay_text("g4") == writer.seal().read_bytes()
    finally:
        store.close()


def test_a_damaged_stored_replay_is_a_clear_error_not_a_wrong_game(db, tmp_path):
    store = LadderStore.open(db)
    try:
        writer, seats = _with_result_line(store, tmp_path, "g3")
        good = PackedReplay.read(writer.part_path)
        forged = PackedReplay.of(writer.part_path.read_bytes().replace(b'"a"', b'"z"'))
        store.game_ended("g3", "finished", seats,
                         replay=PackedReplay(good.encoding, good.size, good.sha256, forged.data))
        with pytest.raises(StoredReplayError, match="does not match its SHA-256"):
            store.replay_text("g3")
    finally:
        store.close()


def test_recovery_stores_every_replay_it_seals_and_keeps_the_committed_ones(tmp_path, db):
    replays = tmp_path / "replays"
    store = LadderStore.open(db, recover=False)
    # committed with its replay, crashed before the rename: the stored replay is the one sealed by the rename
    committed, state = play(store, replays, "committed")
    result, seats = finished_result(state)
    committed.write_result(result)
    store.game_ended("committed", "finished", seats, replay_path=str(committed.path),
                     replay=PackedReplay.read(committed.part_path))
    crash(committed)
    # cut off mid-game (its host was killed): aborted, sealed at recovery, stored then
    cut, _ = play(store, replays, "cut", decisions=2)
    crash(cut)
    # aborted by another host while this one was dead: the row is aborted, the file still .part
    other, _ = play(store, replays, "other-host-aborted", decisions=1)
    crash(other)
    store.game_ended("other-host-aborted", "aborted", [], reason="host A died (not rated)")
    store.close()

    store = LadderStore.open(db)  # marks 'cut' aborted, as a restarting host does
    try:
        done = recover_replays(store, replays)
        assert not done.problems and done.renamed == 1 and done.aborted == 2 and done.stored == 2
        for game_id in ("committed", "cut", "other-host-aborted"):
            sealed = next(replays.glob(f"*/{game_id}.jsonl"))
            assert store.replay_text(game_id) == sealed.read_bytes(), game_id
            assert verify(sealed).ok
        assert parse(store.replay_text("cut"), "cut.jsonl").status == "aborted"
        again = recover_replays(store, replays)  # nothing left to do, nothing stored twice
        assert (again.renamed, again.aborted, again.stored) == (0, 0, 0)
    finally:
        store.close()


def test_without_keep_in_store_recovery_leaves_the_database_alone(tmp_path):
    replays = tmp_path / "replays"
    store = LadderStore.open(tmp_path / "ladder.db", recover=False)
    cut, _ = play(store, replays, "cut", decisions=2)
    crash(cut)
    store.close()
    store = LadderStore.open(tmp_path / "ladder.db")
    try:
        done = recover_replays(store, replays, keep_in_store=False)
        assert done.aborted == 1 and done.stored == 0 and store.stored_replays(["cut"]) == set()
    finally:
        store.close()


def test_a_replay_packed_at_the_old_level_reads_as_one_packed_now(db, tmp_path):
    """The ladder packs at zlib level 1 since the ninth session (half the CPU); replays stored before at 6 read the same."""
    import zlib

    from arena.ladder.store import replays

    store = LadderStore.open(db)
    try:
        writer, seats = _with_result_line(store, tmp_path, "g1")
        text = writer.part_path.read_bytes()
        now = PackedReplay.of(text)
        assert replays.LEVEL == 1 and now.data == zlib.compress(text, 1)
        old = PackedReplay(now.encoding, now.size, now.sha256, zlib.compress(text, 6))
        assert old.data != now.data and old.unpack("g1") == now.unpack("g1") == text
        store.game_ended("g1", "finished", seats, replay=old)  # as an older version stored it
        assert store.replay_text("g1") == text
    finally:
        store.close()
