"""A host alone plans on events (a game's end, a bot that came or went), not every second.

On a trio `MockClock` that jumps ahead whenever every task waits, so a minute of the director's
time passes at once and the count of rounds does not depend on the machine's speed.
"""

from __future__ import annotations

import trio
import trio.testing

from test_deals import FakeHandle

from arena.ladder.director import LadderDirector, LadderSettings
from arena.ladder.store import LadderStore


def test_a_host_alone_with_nothing_to_seat_plans_seldom(tmp_path):
    store = LadderStore.open(":memory:")
    try:
        director = LadderDirector(store, LadderSettings(
            players={"duo": 2}, replays=tmp_path / "replays", handle_signals=False, duration_s=60.0))
        # One bot for a two-seat game: no event can seat a table, so nothing should wake the scheduler.
        trio.run(director, FakeHandle(["alone"]), clock=trio.testing.MockClock(autojump_threshold=0))
        # a round every second before (about 60); now the first one and one per `_IDLE_ROUND_S` (10 s)
        assert 1 <= director.gaps.rounds <= 7
        assert director.stop_reason.startswith("--duration")
    finally:
        store.close()
