"""The hub's slot view (`Hub.slot_view`, `Handle.slot_view`): kept up to date as sessions change, it always
equals `Handle.slots` built afresh, and every bot whose entry moved is among the names it reports changed."""

from __future__ import annotations

import random

import pytest

from arena.server.config import ServerConfig
from arena.server.hello import HelloRefused, HelloTerms
from arena.server.host import Handle
from arena.server.connection import Connection
from arena.server.sessions import Hub, SeatUnavailable
from arena.server.slot_view import SlotView

RULESETS = ["moumou", "mose"]


class Seat:
    """What the hub needs of a game's seat (`RemoteSeat`): it is in the session's seats until released."""

    def on_disconnect(self) -> None:
        pass

    def on_reconnect(self) -> None:
        pass


def hello(name: str, capacity: int, games: tuple[str, ...], resume=None) -> HelloTerms:
    if resume is None:
        return HelloTerms(name, f"token-{name}", "1", "1", games, capacity, "")
    return HelloTerms(name, f"token-{name}", "1", "1", games, capacity, resume.id, resume.resume_secret)


@pytest.mark.parametrize("seed", range(8))
def test_the_view_equals_the_slots_rebuilt_after_random_arrivals_departures_resumes_and_games(seed):
    rng = random.Random(seed)
    hub = Hub(ServerConfig(max_connections=64), RULESETS)
    handle = Handle(hub, 0)
    late = None  # a second view, asked for in the middle: it starts from the sessions as they are then
    view = handle.slot_view()
    seen: dict = {}  # the view's entries when its changes were last taken
    sessions: list = []  # every session admitted (connected or not)
    seats: list = []  # (session, seat) of the games running
    for step in range(600):
        event = rng.random()
        try:
            if event < 0.15:  # a bot arrives (a name may be taken: refused)
                name = f"bot{rng.randrange(12)}"
                games = tuple(rng.sample(RULESETS, rng.randint(1, 2)))
                sessions.append(hub.admit(hello(name, rng.randint(1, 3), games), Connection("peer")))
            elif event < 0.25:  # a stream ends; the session waits for a resume while it has games
                connected = [s for s in sessions if s.connection is not None]
                if connected:
                    session = rng.choice(connected)
                    hub.detach(session, session.connection)
            elif event < 0.35:  # a session resumes, maybe asking for more games at once
                away = [s for s in sessions if s.connection is None and s.id in hub.by_id]
                if away:
                    session = rng.choice(away)
                    hub.admit(hello(session.name, rng.randint(1, 4), session.games, resume=session), Connection("peer"))
            elif event < 0.7:  # a game takes a slot
                connected = [s for s in sessions if s.connection is not None]
                if connected:
                    session = rng.choice(connected)
                    taken = hub.reserve(session.name, rng.choice(session.games))
                    seat = Seat()
                    taken.seats.add(seat)
                    seats.append((taken, seat))
            elif seats:  # a game ends: its slot is given back (also to a session that left meanwhile)
                session, seat = seats.pop(rng.randrange(len(seats)))
                hub.release(session, seat)
        except (HelloRefused, SeatUnavailable):
            pass
        if step == 200:
            late = handle.slot_view()
            assert late.take_changed() == set(late.slots)  # at first every connected bot counts as changed
        rebuilt = handle.slots()
        assert view.slots == rebuilt, step
        if late is not None:
            assert late.slots == rebuilt, step
        if rng.random() < 0.3:  # the reader looks: every name whose entry moved since it last looked is there
            changed = view.take_changed()
            moved = {name for name in set(seen) | set(rebuilt) if seen.get(name) != rebuilt.get(name)}
            assert moved <= changed, step
            seen = dict(rebuilt)
    assert len(sessions) > 20 and hub.by_name


def test_a_hub_without_a_view_keeps_none():
    """The bare match path asks for no view: its games' slots are taken and given back with nothing more to do."""
    hub = Hub(ServerConfig(), RULESETS)
    session = hub.admit(hello("a", 2, ("moumou",)), Connection("peer"))
    hub.reserve("a", "moumou")
    assert hub._slot_views == [] and session.busy == 1


def test_a_view_refreshed_from_a_whole_mapping_reports_what_differs():
    """A director with a stand-in handle (no view of its own) compares `slots` whole every round."""
    view = SlotView()
    view.refresh({"a": (1, 0, ("moumou",)), "b": (2, 1, ("moumou",))})
    assert view.take_changed() == {"a", "b"}
    view.refresh({"a": (1, 1, ("moumou",)), "b": (2, 1, ("moumou",)), "c": (1, 0, ("mose",))})
    assert view.take_changed() == {"a", "c"}
    view.refresh({"c": (1, 0, ("mose",))})
    assert view.take_changed() == {"a", "b"} and view.slots == {"c": (1, 0, ("mose",))}


def test_a_closed_view_is_no_longer_kept_and_the_others_are():
    """A view lives as long as its reader: once closed (by a call or a ``with`` block) the hub stops updating
    it, while a view asked for later keeps being updated."""
    hub = Hub(ServerConfig(), RULESETS)
    hub.admit(hello("a", 2, ("moumou",)), Connection("peer"))
    first = hub.slot_view()
    with hub.slot_view() as second:
        hub.reserve("a", "moumou")
        assert first.slots["a"] == second.slots["a"] == (2, 1, ("moumou",))
    hub.admit(hello("b", 1, ("mose",)), Connection("peer"))
    assert "b" in first.slots and "b" not in second.slots  # the closed one stays as it was
    first.take_changed()
    first.close()
    first.close()  # a second close does nothing
    hub.reserve("a", "moumou")
    hub.admit(hello("c", 1, ("mose",)), Connection("peer"))
    assert first.slots["a"] == (2, 1, ("moumou",)) and "c" not in first.slots and not first.take_changed()
    third = hub.slot_view()
    assert third.slots == Handle(hub, 0).slots()
