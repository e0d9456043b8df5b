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


class HubHandle(FakeHandle):
    """The stand-in bots, also admitted to a real hub, whose slot views the directors read."""

    def __init__(self, hub, names):
        super().__init__(names)
        self.hub = hub
        self.views = []

    def slot_view(self):
        self.views.append(self.hub.slot_view())
        return self.views[-1]


def test_a_director_that_stops_lets_go_of_its_slot_view(tmp_path):
    """Two directors one after the other on one server: the first one's view is no longer updated once it
    stopped (the hub kept every view it handed out, for as long as the server ran)."""
    from arena.server.config import ServerConfig
    from arena.server.hello import HelloTerms
    from arena.server.connection import Connection
    from arena.server.sessions import Hub

    def admit(hub, name):
        hub.admit(HelloTerms(name, f"token-{name}", "1", "1", ("duo",), 2, ""), Connection("peer"))

    hub = Hub(ServerConfig(), ["duo"])
    names = ["a", "b", "c"]
    for name in names:
        admit(hub, name)
    handle = HubHandle(hub, names)
    store = LadderStore.open(":memory:")
    try:
        for _ in range(2):
            director = LadderDirector(store, LadderSettings(
                players={"duo": 2}, replays=tmp_path / "replays", handle_signals=False, max_games=2))
            trio.run(director, handle)
            assert director.stop_reason.startswith("--max-games")
        first, second = handle.views
        assert set(first.slots) == set(second.slots) == set(names)
        admit(hub, "late")
        assert "late" not in first.slots and "late" not in second.slots
        with hub.slot_view() as kept:  # the hub still keeps the views that are open
            admit(hub, "later")
            assert {"late", "later"} <= set(kept.slots)
    finally:
        store.close()
