"""Recovery after a crash at each point of a game's ending: result line fsynced, committed, sealed."""

from __future__ import annotations

from pathlib import Path

import pytest

import toy_ladder_game
from toy_games_played import crash, finished_result, play
from arena.ladder.recovery import recover_replays
from arena.ladder.store import LadderStore
from arena.replay import ReplayWriter, load, verify

RULESET = toy_ladder_game.NAME


@pytest.fixture(autouse=True)
def ruleset():
    with toy_ladder_game.registered() as name:
        yield name


def test_each_crash_point_is_closed_by_the_status_the_store_committed(tmp_path):
    replays = tmp_path / "replays"
    store = LadderStore.open(tmp_path / "ladder.db")
    # 1. crash after the commit, before the rename: the bots may have been told; the game stands
    told, state = play(store, replays, "committed")
    result, seats = finished_result(state)
    told.write_result(result)
    store.game_ended("committed", "finished", seats, replay_path=str(told.path))
    crash(told)
    # 2. crash after the result line's fsync, before the commit: nobody was told; the game is aborted
    prepared, state = play(store, replays, "prepared")
    prepared.write_result(finished_result(state)[0])
    crash(prepared)
    # 3. crash mid-game
    cut, _ = play(store, replays, "cut", decisions=3)
    crash(cut)
    # 4. the store refused the result: the runner wrote an abort, committed it, then the process died
    refused, state = play(store, replays, "refused")
    refused.write_result(finished_result(state)[0])
    refused.write_abort("the result could not be stored (server error); the game is aborted")
    store.game_ended("refused", "aborted", [], replay_path=str(refused.path))
    crash(refused)
    # 5. killed between creating the replay file and writing its header line
    store.game_started("empty", RULESET, {}, 1, "set-empty", 0, ["a", "b"])
    empty = replays / "2026-11-24" / "empty.jsonl.part"
    empty.write_text('{"type":"header","ga')
    store.set_replay_path("empty", str(empty))
    # 6. a .part no game row names (not the ladder's): left alone
    stranger = ReplayWriter.create(replays, {"game_id": "stranger", "ruleset": RULESET, "players": 2, "seed": 1,
                                             "started_at": "2026-11-24T10:00:00Z"})
    crash(stranger)
    store.close()

    store = LadderStore.open(tmp_path / "ladder.db")
    assert sorted(game_id for game_id, _ in store.recovered) == ["cut", "empty", "prepared"]
    report = recover_replays(store, replays)
    assert (report.renamed, report.aborted) == (1, 3)
    assert len(report.problems) == 1 and "stranger" in report.problems[0]
    rows = {g.id: g for g in store.games()}
    assert {g: rows[g].status for g in rows} == {
        "committed": "finished", "prepared": "aborted", "cut": "aborted", "refused": "aborted", "empty": "aborted"}
    assert rows["empty"].replay_path is None and not empty.exists()
    assert [list(g.placements) for g in store.rated_games(RULESET)] == [["a", "b"]]  # only the committed game
    for game_id, status, decisions in (("committed", "finished", 6), ("prepared", "aborted", 6),
                                       ("cut", "aborted", 3), ("refused", "aborted", 6)):
        path = rows[game_id].replay_path
        assert path.endswith(".jsonl"), (game_id, path)
        replay = load(path)
        assert (replay.status, len(replay.decisions)) == (status, decisions), game_id
        assert verify(path).ok
    assert load(rows["prepared"].replay_path).result["reason"] == "server restarted"
    assert [p.name for p in replays.rglob("*.part")] == ["stranger.jsonl.part"]
    # a recovery killed after writing a sealed copy but before removing the .part: the copy stands
    leftover = Path(rows["cut"].replay_path).with_suffix(".jsonl.part")
    leftover.write_text("whatever the crash left")
    assert all("stranger" in line for line in recover_replays(store, replays).problems) and not leftover.exists()
    assert load(rows["cut"].replay_path).status == "aborted"
    # a second start finds nothing more to do
    store.close()
    store = LadderStore.open(tmp_path / "ladder.db")
    again = recover_replays(store, replays)
    assert (again.renamed, again.aborted, store.recovered) == (0, 0, [])
    store.close()
