"""A SQLite ladder commits a game's start without its own fsync, and every result with one.

A start records nothing a bot is told, so its group commit (`Call.durable=False`) runs at
``synchronous=NORMAL``: its frames are in the WAL when the commit returns, and on disk with the next
durable commit.  What must hold: a result's commit is always FULL (even right after a start's), a
killed process keeps a start it committed, and a group commit with any result in it is durable.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import textwrap

from arena.ladder.store import LadderStore, SeatRecord
from arena.ladder.store.ladder_store import Call

NORMAL, FULL = 1, 2


def _start(store: LadderStore, game_id: str, durable: bool) -> Call:
    return Call(functools.partial(store.game_started_steps, game_id, "moumou", {}, 1, game_id, 0, ["a", "b"]),
                durable=durable)


def _synchronous_inside(store: LadderStore, seen: list[int]) -> Call:
    """A write that notes the transaction's ``synchronous`` level from inside it."""
    return Call(lambda: seen.append(store.backend.rows("PRAGMA synchronous")[0][0]))


def test_starts_alone_commit_without_an_fsync_and_results_always_with_one(tmp_path):
    store = LadderStore.open(tmp_path / "ladder.db")
    try:
        seen: list[int] = []
        store.run_together([_start(store, "g1", durable=False), _synchronous_inside(store, seen)])
        assert seen == [FULL]  # a write that asks for nothing less is durable: the whole group commit is
        seen.clear()
        probe = _synchronous_inside(store, seen)
        probe.durable = False
        store.run_together([_start(store, "g2", durable=False), probe])
        assert seen == [NORMAL]  # starts (and writes like them) alone: no fsync
        seats = [SeatRecord(0, "a", placement=1, points=0), SeatRecord(1, "b", placement=2, points=0)]
        seen.clear()
        store.run_together([Call(lambda: store.game_ended_steps("g2", "finished", seats)),
                            _synchronous_inside(store, seen)])
        assert seen == [FULL]  # the result right after them is durable, and with it the starts' frames
        seen.clear()
        store.game_ended("g1", "aborted", [])  # a write of its own: durable
        store.run_together([_synchronous_inside(store, seen)])
        assert seen == [FULL]
        assert {g.id: g.status for g in store.games()} == {"g1": "aborted", "g2": "finished"}
    finally:
        store.close()


def test_a_killed_process_keeps_the_start_it_committed_without_an_fsync(tmp_path):
    db = tmp_path / "ladder.db"
    child = textwrap.dedent(f"""
        import functools, os, signal
        from arena.ladder.store import LadderStore
        from arena.ladder.store.ladder_store import Call
        store = LadderStore.open({str(db)!r})
        call = Call(functools.partial(store.game_started_steps, "g1", "moumou", {{}}, 1, "g1", 0, ["a", "b"]),
                    durable=False)
        store.run_together([call])
        assert call.error is None and call.result, call.error
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    process = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert process.returncode == -signal.SIGKILL, process.stderr
    store = LadderStore.open(db)  # its start aborts what the killed process left running
    try:
        assert [(g.id, g.status) for g in store.games()] == [("g1", "aborted")]
    finally:
        store.close()
