"""The host balance rule (`arena.ladder.host_balance`), driven with made-up counts and times: a host leaves a
game to a host that would be less loaded with it, for at most the hold, and stops holding for a while (longer
each time) when nobody takes its games, until the balance moves or the live hosts change."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
import trio
import trio.testing

from arena.ladder.candidates import CandidatePool
from arena.ladder.host_balance import HostBalance
from arena.ladder.membership import ClusterSettings, Membership
from arena.ladder.scheduler import Scheduler
from arena.ladder.store.claims import ClusterLoad


def test_a_host_with_its_share_defers_only_to_a_host_with_less_than_half_of_its_own():
    a = HostBalance("A", concurrency=3)
    assert a.defers(1, {"A": (3, 1), "B": (3, 0)})  # 2 games: A has its 1, B none
    assert not a.defers(0, {"A": (3, 0), "B": (3, 1)})  # A below its share
    assert not a.defers(0, {"A": (3, 0), "B": (3, 0)})  # the first game: nobody has a share yet
    assert not a.defers(1, {"A": (3, 1), "B": (3, 1)})  # even: each reseats its own
    assert not a.defers(1, {"A": (3, 1)})  # alone
    # shares are in proportion to concurrency: of 4 games B (10 slots) should run 3, A (3 slots) 1
    assert a.defers(2, {"A": (3, 2), "B": (10, 1)})
    assert not a.defers(1, {"A": (3, 1), "B": (10, 2)})  # B has 2 of its 3: over half
    assert not a.defers(2, {"A": (3, 2), "B": (1, 1)})  # a full host is over its share: never deferred to
    # many bots, every host busy: small differences hold nothing back, and no two hosts defer to each other
    busy = {"A": (100, 31), "B": (100, 27), "C": (100, 29)}
    assert not any(HostBalance(name, 100).defers(busy[name][1], busy) for name in busy)
    starved = {"A": (100, 31), "B": (100, 12), "C": (100, 29)}
    assert [name for name in starved if HostBalance(name, 100).defers(starved[name][1], starved)] == ["A", "C"]


def test_a_hold_ends_as_soon_as_the_balance_moves_and_costs_nothing_after():
    a = HostBalance("A", concurrency=3, hold_s=2.0)
    hosts = {"A": (3, 1), "B": (3, 0)}
    assert a.hold_until(1, hosts, now=10.0) == 12.0
    assert a.hold_until(1, hosts, now=11.0) == 12.0  # a second game waiting shares the hold
    hosts = {"A": (3, 1), "B": (3, 1)}  # B took a game
    assert a.hold_until(1, hosts, now=11.5) is None
    assert (a.holds, a.expired) == (1, 0)
    assert a.hold_until(1, {"A": (3, 1), "B": (3, 0)}, now=20.0) == 22.0  # a new hold, a new time
    assert a.hold_until(0, {"A": (3, 0), "B": (3, 0)}, now=20.5) is None  # A's own game ended: even again


def test_holds_that_run_out_are_followed_by_longer_and_longer_quiet_times_until_the_hosts_change():
    a = HostBalance("A", concurrency=3, hold_s=2.0, max_quiet_s=6.0)
    idle = {"A": (3, 1), "B": (3, 0)}  # B never takes a game (its bots cannot reach it)
    assert a.hold_until(1, idle, now=0.0) == 2.0
    assert a.hold_until(1, idle, now=2.0) is None  # ran out: start now
    assert a.hold_until(1, idle, now=3.9) is None  # quiet for 2 s
    assert a.hold_until(1, idle, now=4.0) == 6.0
    assert a.hold_until(1, idle, now=6.0) is None
    assert a.hold_until(1, idle, now=9.9) is None  # quiet for 4 s
    assert a.hold_until(1, idle, now=10.0) == 12.0
    assert a.hold_until(1, idle, now=12.0) is None
    assert a.hold_until(1, idle, now=17.9) is None  # quiet for 6 s (the most)
    assert a.hold_until(1, idle, now=18.0) == 20.0
    assert a.hold_until(1, idle, now=20.0) is None
    assert a.hold_until(1, idle, now=25.9) is None  # still 6 s
    assert (a.holds, a.expired) == (4, 4)
    # a host joins: the others are judged afresh (no quiet time), and a hold that works resets the quiet time
    joined = {**idle, "C": (3, 0)}
    assert a.hold_until(1, joined, now=26.0) == 28.0
    assert a.hold_until(1, {"A": (3, 1), "B": (3, 1), "C": (3, 1)}, now=27.0) is None  # they took games
    assert a.quiet_s == 2.0


def test_no_hold_at_all_when_it_is_turned_off():
    a = HostBalance("A", concurrency=3, hold_s=0.0)
    assert a.hold_until(2, {"A": (3, 2), "B": (3, 0)}, now=0.0) is None and a.holds == 0


def test_a_game_waits_only_for_a_host_that_is_new_or_where_all_its_bots_have_played():
    """Sessions are each host's own: a host counts as able to seat a bot once the bot was claimed there, or
    any bot while it is new (its bots are still hearing of it).  A bot that reached one host only (an old
    SDK, an address it cannot use) is not held back for another."""
    a = HostBalance("A", concurrency=3, hold_s=2.0, new_s=6.0)
    hosts = {"A": (3, 1), "B": (3, 0)}
    a.seen(hosts, {"x": {"A"}, "y": {"A"}}, now=0.0)
    assert a.hold_until(1, hosts, now=1.0, bots=["x", "y"]) == 3.0  # B is new
    assert a.hold_until(1, hosts, now=2.0, bots=["x", "y"]) == 3.0
    a.seen(hosts, {"x": {"B"}}, now=2.5)
    assert a.hold_until(1, hosts, now=3.0, bots=["x", "y"]) is None  # ran out: quiet until 5
    assert a.hold_until(1, hosts, now=6.0, bots=["x", "y"]) is None  # B is not new now and y never played there
    assert a.hold_until(1, hosts, now=6.0, bots=["x"]) == 8.0  # x played on B
    a.seen(hosts, {"y": {"B"}}, now=6.5)
    assert a.hold_until(1, hosts, now=7.0, bots=["x", "y"]) == 8.0
    # B leaves and comes back: new again, for new_s
    a.seen({"A": (3, 1)}, {}, now=10.0)
    a.seen(hosts, {}, now=11.0)
    assert a.first_seen["B"] == 11.0
    assert a.can_seat("B", ["z"], now=16.9) and not a.can_seat("B", ["z"], now=17.0)


class _Claims:
    """The part of `SeatClaims` a host's planning uses, with the cluster's view scripted: every read counted."""

    def __init__(self, view: ClusterLoad, bots: set[str] = set()) -> None:
        self.view = view
        self.known = set(bots)
        self.reads = 0

    def load(self, since: float, bots: list[str]) -> ClusterLoad:
        self.reads += 1
        self.known.update(bots)  # (`SeatClaims.ensure_bots`)
        return ClusterLoad(busy=dict(self.view.busy), hosts=dict(self.view.hosts), slots=self.view.slots)


@pytest.fixture
def inline_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The membership's database calls run inline, not on worker threads: the scripted view costs nothing, and
    trio's mock clock then moves only when every task waits on it (a thread's real time would race it)."""

    async def run_sync(fn, *args, limiter=None, abandon_on_cancel=False):  # noqa: ARG001
        return fn(*args)

    monkeypatch.setattr(trio.to_thread, "run_sync", run_sync)


def _member(claims: _Claims, hold_s: float = 2.0) -> Membership:
    member = Membership(ClusterSettings(url="postgresql://unused", hold_s=hold_s), concurrency=3)
    member.claims = claims  # type: ignore[assignment]
    member.registry = SimpleNamespace(name="A")  # type: ignore[assignment]
    member.balance = HostBalance("A", 3, hold_s=hold_s)
    return member


def test_a_held_game_reads_the_cluster_once_when_its_time_is_up_not_every_few_milliseconds(inline_threads):
    """A game held for a starved host is judged again at the views the planning rounds read anyway; it asks for
    one read of its own, when its time is up, so that it runs out on a view read after its time.  (It used to ask
    for a read every 50 ms while it waited: 40 reads in this hold.)"""
    claims = _Claims(ClusterLoad(hosts={"A": (3, 1), "B": (3, 0)}, slots=6))  # B stays starved: the hold runs out

    async def main() -> None:
        member = _member(claims)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(member.watch, lambda: None)
            await trio.testing.wait_all_tasks_blocked()
            assert member.load is not None  # the first view (asked for when the watch starts)
            began = trio.current_time()
            await member.hold_off(["x", "y"], lambda: 1, trio.Event())
            assert trio.current_time() - began >= 2.0
            nursery.cancel_scope.cancel()
        assert member.balance is not None and (member.balance.holds, member.balance.expired) == (1, 1)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert claims.reads == 2  # the first view, and the one asked for when the hold's time was up


def test_what_the_claims_said_of_bots_is_kept_only_while_they_are_connected():
    """`HostBalance.played_on` (bot -> the hosts it was claimed on) held every bot a long ladder ever had; now a
    bot's entry goes when it leaves this host, and a view read before it left adds nothing after it did."""
    scheduler = Scheduler({"r": 2}, rng=random.Random(1))
    pool = CandidatePool()
    cluster = {"A": (3, 0), "B": (3, 1)}

    async def main() -> None:
        member = _member(_Claims(ClusterLoad(hosts=cluster, slots=6)))
        assert member.claims is not None and member.balance is not None
        connected: dict[str, tuple[int, int, tuple[str, ...]]] = {"stays": (1, 0, ("r",))}
        for i in range(50):
            bot = f"bot{i}"
            member.claims.known.update(connected, [bot])
            connected[bot] = (1, 0, ("r",))
            member.adjust(scheduler, connected, {bot}, {}, 2, 1, pool)  # it arrived
            member.take_view(ClusterLoad(hosts=cluster, slots=6, hosts_of={bot: {"B"}, "stays": {"B"}}))
            assert member.balance.played_on[bot] == {"B"}
            del connected[bot]
            member.adjust(scheduler, connected, {bot}, {}, 2, 1, pool)  # it left
            member.take_view(ClusterLoad(hosts=cluster, slots=6, hosts_of={bot: {"A"}}))  # read before it left
        assert member.balance.played_on == {"stays": {"B"}}
        member.balance.played_on["gone"] = {"B"}
        member.adjust(scheduler, connected, None, {}, 2, 1, pool)  # every bot looked at
        assert set(member.balance.played_on) == {"stays"}

    trio.run(main)


def test_a_host_alone_reads_the_cluster_at_most_every_second_and_at_once_for_a_bot_without_its_row(inline_threads):
    """A host alone (no other live host, no claim of one) has nothing to learn from the cluster's view but new bots'
    rows: rounds every 0.1 s read it at most once a second (it was once a round), a new bot at once."""
    claims = _Claims(ClusterLoad(hosts={"A": (3, 0)}, slots=3))
    scheduler = Scheduler({"r": 2}, rng=random.Random(1))
    pool = CandidatePool()

    async def main() -> None:
        member = _member(claims)
        connected = {"old": (1, 0, ("r",))}
        async with trio.open_nursery() as nursery:
            nursery.start_soon(member.watch, lambda: None)
            for _ in range(30):  # 3 s of planning rounds, each asking for a view
                member.adjust(scheduler, connected, set(), {}, 2, 1, pool)
                await trio.sleep(0.1)
            assert 3 <= claims.reads <= 4
            reads, began = claims.reads, trio.current_time()
            connected["new"] = (1, 0, ("r",))
            member.adjust(scheduler, connected, {"new"}, {}, 2, 1, pool)
            await trio.testing.wait_all_tasks_blocked()
            assert claims.reads == reads + 1 and trio.current_time() == began and "new" in claims.known
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
