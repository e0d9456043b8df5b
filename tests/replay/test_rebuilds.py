"""The readers' rebuild budget: bounded, refused at once beyond its line, one build per game, remembered."""

from __future__ import annotations

import asyncio
import threading

import pytest

from arena.rebuilds import Busy, Rebuilds, Stopped


class Gate:
    """A build that waits for the test to open it, counting how many run at once."""

    def __init__(self):
        self.open = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.calls = []

    def build(self, key):
        def run():
            with self.lock:
                self.running += 1
                self.most = max(self.most, self.running)
                self.calls.append(key)
            assert self.open.wait(10)
            with self.lock:
                self.running -= 1
            return f"built {key}"
        return run


def test_beyond_running_plus_waiting_a_request_is_refused_at_once_and_nothing_runs_in_parallel():
    rebuilds = Rebuilds(running=1, waiting=2, kept=4)
    gate = Gate()
    admitted = [rebuilds.submit(key, gate.build(key)) for key in ("a", "b", "c")]
    for key in ("d", "e"):
        with pytest.raises(Busy):
            rebuilds.submit(key, gate.build(key))
    assert rebuilds.refused == 2 and rebuilds.in_flight() == 3
    gate.open.set()
    assert [f.result(10) for f in admitted] == ["built a", "built b", "built c"]
    assert gate.most == 1 and gate.calls == ["a", "b", "c"]
    assert rebuilds.in_flight() == 0
    assert rebuilds.submit("d", gate.build("d")).result(10) == "built d"  # room again once they are done
    rebuilds.close()


def test_many_readers_of_one_game_share_one_build_and_later_ones_are_answered_from_memory():
    rebuilds = Rebuilds(running=1, waiting=0, kept=2)
    gate = Gate()
    first = rebuilds.submit("g", gate.build("g"))
    together = [rebuilds.submit("g", gate.build("g")) for _ in range(50)]  # no slot taken: no Busy
    assert all(f is first for f in together)
    gate.open.set()
    assert first.result(10) == "built g"
    assert rebuilds.submit("g", gate.build("g")).result(0) == "built g"
    assert gate.calls == ["g"] and rebuilds.built == 1 and rebuilds.remembered == 1
    for key in ("h", "i"):  # kept=2: the oldest is forgotten
        rebuilds.submit(key, gate.build(key)).result(10)
    rebuilds.submit("g", gate.build("g")).result(10)
    assert gate.calls == ["g", "h", "i", "g"]
    rebuilds.close()


def test_a_failed_or_empty_build_is_not_remembered():
    rebuilds = Rebuilds(running=1, waiting=1)
    calls = []

    def broken():
        calls.append("broken")
        raise OSError("the database is away")

    with pytest.raises(OSError):
        rebuilds.submit("x", broken).result(10)
    with pytest.raises(OSError):
        rebuilds.submit("x", broken).result(10)
    assert rebuilds.submit("y", lambda: calls.append("none")).result(10) is None
    assert rebuilds.submit("y", lambda: calls.append("none")).result(10) is None
    assert calls == ["broken", "broken", "none", "none"] and rebuilds.in_flight() == 0
    rebuilds.close()


def test_one_reader_holds_only_its_share_and_the_others_keep_the_rest_of_the_line():
    rebuilds = Rebuilds(running=1, waiting=5, per_reader=2)
    gate = Gate()
    flood = [rebuilds.submit(f"f{i}", gate.build(f"f{i}"), reader="10.0.0.9") for i in range(2)]
    for i in range(2, 6):
        with pytest.raises(Busy, match="from your address"):
            rebuilds.submit(f"f{i}", gate.build(f"f{i}"), reader="10.0.0.9")
    # joining a rebuild under way costs no share: the flooder's own game is still served to it
    assert rebuilds.submit("f0", gate.build("f0"), reader="10.0.0.9") is flood[0]
    others = [rebuilds.submit(f"o{i}", gate.build(f"o{i}"), reader=f"10.0.1.{i}") for i in range(4)]
    with pytest.raises(Busy, match="being rebuilt or waiting"):  # the line itself is full now
        rebuilds.submit("late", gate.build("late"), reader="10.0.2.1")
    assert rebuilds.refused == 5 and rebuilds.in_flight() == 6
    gate.open.set()
    assert [f.result(10) for f in flood + others] == [f"built {k}" for k in ("f0", "f1", "o0", "o1", "o2", "o3")]
    # its rebuilds done, the address has its share back (failures give it back too)
    with pytest.raises(OSError):
        rebuilds.submit("bad", lambda: (_ for _ in ()).throw(OSError("gone")), reader="10.0.0.9").result(10)
    again = [rebuilds.submit(f"g{i}", gate.build(f"g{i}"), reader="10.0.0.9") for i in range(2)]
    assert [f.result(10) for f in again] == ["built g0", "built g1"]
    rebuilds.close()


def test_wait_in_flight_wakes_when_another_thread_is_admitted_and_reports_the_count_after_a_timeout():
    """A waiter learns that a request reached the budget from the budget itself, not by polling."""
    rebuilds = Rebuilds(running=1, waiting=2)
    gate = Gate()
    rebuilds.submit("a", gate.build("a"))
    assert rebuilds.wait_in_flight(2, timeout=0.05) == 1  # nobody else came: the count when the wait gave up
    late = threading.Thread(target=lambda: rebuilds.submit("b", gate.build("b")))
    late.start()
    assert rebuilds.wait_in_flight(2, timeout=10) == 2
    late.join(10)
    gate.open.set()
    rebuilds.close()


def test_readers_that_stop_waiting_give_their_places_back_and_later_readers_get_the_rebuild():
    """The attack (red team, session 23): Spectates of ended games cancelled while in line.  grpc.aio cancels
    the handler, and asyncio's wrap_future cancels the future it waits on; that was the budget's own, so the
    rebuild never ran, never gave its place back, and later readers of the game got the cancelled future.
    Eight such from three addresses (within their share each) refused every reader until a restart."""
    rebuilds = Rebuilds(running=1, waiting=8, per_reader=3)
    gate = Gate()

    async def cancel_while_in_line(key, reader):
        waiter = asyncio.ensure_future(asyncio.wrap_future(rebuilds.submit(key, gate.build(key), reader=reader)))
        await asyncio.sleep(0)  # the waiter is waiting
        waiter.cancel()  # what grpc.aio does to a Spectate whose client cancelled
        with pytest.raises(asyncio.CancelledError):
            await waiter

    async def attack():
        for reader, count in (("10.0.0.1", 3), ("10.0.0.2", 3), ("10.0.0.3", 2)):
            for i in range(count):
                await cancel_while_in_line(f"{reader}/{i}", reader)

    blocker = rebuilds.submit("long", gate.build("long"), reader="10.0.9.9")  # the one running
    asyncio.run(attack())
    # While they wait their turn the line is full: the bound still holds for what was asked.
    with pytest.raises(Busy):
        rebuilds.submit("late", gate.build("late"), reader="10.0.9.8")
    gate.open.set()
    assert blocker.result(10) == "built long"
    keys = [f"10.0.0.{a}/{i}" for a, count in ((1, 3), (2, 3), (3, 2)) for i in range(count)]
    # Each cancelled request's rebuild ran, and a later reader of that game gets it (not a cancelled future).
    assert [rebuilds.submit(key, gate.build(key)).result(10) for key in keys] == [f"built {key}" for key in keys]
    assert gate.calls == ["long"] + keys and rebuilds.in_flight() == 0
    # Every place is free again: the attackers' addresses and anyone else's are served.
    for reader in ("10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.5.5"):
        key = f"fresh {reader} {rebuilds.built}"
        assert rebuilds.submit(key, gate.build(key), reader=reader).result(10) == f"built {key}"
    rebuilds.close()


def test_a_reader_cannot_cancel_the_future_other_readers_share():
    rebuilds = Rebuilds(running=1, waiting=2)
    gate = Gate()
    rebuilds.submit("a", gate.build("a"))
    shared = rebuilds.submit("b", gate.build("b"))
    assert not shared.cancel()  # in line: its readers may go, the rebuild stays
    gate.open.set()
    assert rebuilds.submit("b", gate.build("b")).result(10) == "built b"
    rebuilds.close()


def test_closing_fails_the_rebuilds_still_in_line_and_gives_their_places_back():
    rebuilds = Rebuilds(running=1, waiting=2)
    gate = Gate()
    running = rebuilds.submit("a", gate.build("a"), reader="10.0.0.1")
    queued = rebuilds.submit("b", gate.build("b"), reader="10.0.0.1")
    rebuilds.close()
    with pytest.raises(Stopped):
        queued.result(0)
    gate.open.set()
    assert running.result(10) == "built a"
    assert rebuilds.in_flight() == 0 and gate.calls == ["a"]
