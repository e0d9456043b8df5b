"""The writer as the match runner's recorder: a real `play_game` with in-process seats."""

from __future__ import annotations

import random

import pytest
import trio

from arena.match.local import LocalSeat
from arena.match.runner import play_game
from arena.match.timecontrol import TimeControl
from arena.replay import ReplayHeader, ReplayWriter, ThreadedCloseRecorder, load, verify


class RandomBot:
    def __init__(self, seed: int, blunder_every: int = 0) -> None:
        self.random = random.Random(seed)
        self.blunder_every = blunder_every
        self.turns = 0

    def act(self, turn):
        self.turns += 1
        if self.blunder_every and self.turns % self.blunder_every == 0:
            return "fly away"  # an illegal answer: the SDK's rule plays legal[0] and reports a bot error
        return self.random.choice(list(turn.legal))


@pytest.mark.parametrize("threaded", [False, True], ids=["plain", "threaded-close"])
def test_play_game_records_a_replay_that_verifies(tmp_path, toy_ruleset, threaded):
    seats = [LocalSeat(RandomBot(1), name="steady", version="1.0"), LocalSeat(RandomBot(2, 40), name="sloppy")]
    header = ReplayHeader(game_id="runner-1", ruleset=toy_ruleset, players=2, seed=77, seats=list(seats),
                          options={"hand": 5}, time_control=TimeControl().to_dict())
    writer = ReplayWriter.create(tmp_path, header)
    recorder = ThreadedCloseRecorder(writer) if threaded else writer

    async def main():
        return await play_game(toy_ruleset, {"hand": 5}, 77, seats, TimeControl(max_strikes=50),
                               game_id="runner-1", recorder=recorder)

    outcome = trio.run(main)
    assert outcome.replay_path == str(writer.path) and writer.path.exists()
    replay = load(writer.path)
    assert replay.complete and replay.header.names == ["steady", "sloppy"]
    assert replay.header.seats[0].version == "1.0"
    assert len(replay.decisions) == outcome.decisions
    assert replay.result["placements"] == [s.placement for s in outcome.seats]
    assert replay.result["strikes"] == [s.strikes for s in outcome.seats]
    assert replay.result["errors"] == [s.errors for s in outcome.seats] == [0, outcome.seats[1].errors]
    flagged = [d for d in replay.decisions if d.bot_error]
    assert len(flagged) == outcome.seats[1].errors > 0 and {d.seat for d in flagged} == {1}
    assert "'fly away'" in flagged[0].bot_error and "not legal" in flagged[0].bot_error
    report = verify(writer.path)
    assert report.ok and report.checked == outcome.decisions, report.summary()


@pytest.mark.parametrize("threaded", [False, True], ids=["plain", "threaded-close"])
def test_on_result_finds_the_result_line_on_disk_in_the_part_file_before_the_seal(tmp_path, toy_ruleset, threaded):
    seats = [LocalSeat(RandomBot(1), name="a"), LocalSeat(RandomBot(2), name="b")]
    header = ReplayHeader(game_id="durable-1", ruleset=toy_ruleset, players=2, seed=5, seats=list(seats),
                          options={"hand": 5}, time_control=TimeControl().to_dict())
    writer = ReplayWriter.create(tmp_path, header)
    recorder = ThreadedCloseRecorder(writer) if threaded else writer
    seen = {}

    def on_result(outcome):  # what a store's commit would find
        seen["part"] = load(writer.part_path).status
        seen["sealed"] = writer.path.exists()
        seen["replay_path"] = outcome.replay_path

    async def main():
        return await play_game(toy_ruleset, {"hand": 5}, 5, seats, TimeControl(), game_id="durable-1",
                               recorder=recorder, on_result=on_result)

    outcome = trio.run(main)
    assert seen == {"part": "finished", "sealed": False, "replay_path": str(writer.path)}
    assert outcome.status == "finished" and load(writer.path).status == "finished"
    assert not writer.part_path.exists() and verify(writer.path).ok


def test_a_writer_with_hash_every_gets_the_hash_at_checkpoints_and_on_the_last_decision(tmp_path, toy_ruleset):
    """The ladder's replays (hash_every=16): the runner computes the state hash only where the writer wants
    it and on the game's last decision; every hash written is the real one, and the replay verifies."""
    seats = [LocalSeat(RandomBot(3), name="a"), LocalSeat(RandomBot(4), name="b")]
    header = ReplayHeader(game_id="sparse", ruleset=toy_ruleset, players=2, seed=91, seats=list(seats),
                          options={"hand": 5}, time_control=TimeControl().to_dict())
    writer = ReplayWriter.create(tmp_path, header, hash_every=4)

    async def main():
        return await play_game(toy_ruleset, {"hand": 5}, 91, seats, TimeControl(), game_id="sparse", recorder=writer)

    outcome = trio.run(main)
    replay = load(writer.path)
    assert outcome.status == "finished" and len(replay.decisions) == outcome.decisions > 9
    hashed = [d.i for d in replay.decisions if d.hash is not None]
    last = replay.decisions[-1].i
    assert hashed == sorted({i for i in range(4, last + 1, 4)} | {last})
    states = list(replay.states())
    assert all(d.hash == states[d.i].state_hash() for d in replay.decisions if d.hash is not None)
    report = verify(writer.path)
    assert report.ok and report.checked == len(hashed), report.summary()
