"""A bot's clock starts when its request reaches the wire: the server's slowness to write is not the bot's.

The test plays the far end of two `RemoteSeat`s' streams itself, on trio's
MockClock: it is each stream's writer (`to_write`, what the gRPC handler
does) and the bot behind it.  One stream's writer is held on a trio event the
test controls, as a server loop busy with other games or a flood of other
clients holds it: the request waits in the outbox before it is written.
"""

from __future__ import annotations

import trio
import trio.testing

from arena.match.runner import play_game
from arena.match.timecontrol import TimeControl
from arena.match.timekeeping import DEFAULT_LATE_GRACE_MS, DEFAULT_WRITE_CREDIT_MS, max_seat_wait_ms
from arena.server.config import ServerConfig
from arena.server.hello import HelloTerms
from arena.server.seat import RemoteSeat
from arena.server.connection import Connection, Outbox, to_write
from arena.server.sessions import Hub
from mau_arena_sdk.wire import pb

import toy_ruleset

CONTROL = TimeControl(move_ms=1000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=3, reconnect_ms=2000)


class HeldOutbox(Outbox):
    """The stream's outbox, telling the test's writer (a trio task) that something was queued."""

    def __init__(self) -> None:
        super().__init__()
        self.queued = trio.Event()

    def put_nowait(self, item):
        super().put_nowait(item)
        self.queued.set()


class WireBot:
    """A bot at the far end of a `Connection`, and the stream's writer in front of it.

    Before each TurnRequest is written, the writer waits for ``stall_s`` (the server busy elsewhere:
    the request sits in the outbox) and then for ``writable``, an event the test controls.  The bot
    thinks ``think_s`` from when the request was written and answers; it notes its own think time.
    """

    def __init__(self, hub: Hub, name: str, think_s: float, stall_s: float = 0.0) -> None:
        self.hub = hub
        self.connection = Connection(name)
        self.outbox = self.connection.outbox = HeldOutbox()
        self.session = hub.admit(HelloTerms(name, f"token-{name}", "1", "1", (toy_ruleset.NAME,), 1, ""),
                                 self.connection)
        self.think_s = think_s
        self.stall_s = stall_s
        self.writable = trio.Event()
        self.writable.set()
        self.own_think_ms: list[int] = []   # what the bot measured: request written -> answer sent
        self.requests_written = 0

    def seat(self, game_id: str) -> RemoteSeat:
        return RemoteSeat(self.hub, self.hub.reserve(self.session.name, toy_ruleset.NAME), game_id)

    async def write(self, nursery: trio.Nursery) -> None:
        while True:
            while not self.outbox.qsize():
                self.outbox.queued = trio.Event()
                await self.outbox.queued.wait()
            item = self.outbox.get_nowait()
            if item is Connection.CLOSE:
                return
            is_turn = getattr(item, "message", item).WhichOneof("kind") == "turn"
            if is_turn:
                await trio.sleep(self.stall_s)   # virtual time: the loop is busy with someone else
                await self.writable.wait()
            message = to_write(item, self.hub.now)
            if is_turn:
                self.requests_written += 1
                nursery.start_soon(self.answer, message.turn)

    async def answer(self, turn: pb.TurnRequest) -> None:
        got = self.hub.now()
        await trio.sleep(self.think_s)   # virtual time: the bot thinking
        self.own_think_ms.append(round((self.hub.now() - got) * 1000))
        answer = pb.Answer(game_id=turn.game_id, request_id=turn.request_id, action_index=0)
        self.session.route_answer(answer, self.hub.now())   # what the stream's reader does on arrival


def play(slow: WireBot, other: WireBot, hub: Hub, clock: trio.testing.MockClock):
    async def main():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(slow.write, nursery)
            nursery.start_soon(other.write, nursery)
            began = hub.now()
            outcome = await play_game(toy_ruleset.NAME, {"hand": 3}, 5, [slow.seat("g1"), other.seat("g1")],
                                      CONTROL, game_id="g1", clock=hub.now)
            elapsed = hub.now() - began
            nursery.cancel_scope.cancel()
        return outcome, elapsed

    return trio.run(main, clock=clock)


def _arena():
    clock = trio.testing.MockClock(autojump_threshold=0)
    return Hub(ServerConfig(clock=clock), [toy_ruleset.NAME]), clock


def test_a_bot_is_not_charged_for_the_time_its_request_waits_to_be_written():
    """80 ms in the outbox (within the write credit) and 950 ms of thinking against a 1000 ms limit: the
    bot is charged its 950 ms and never struck.  Charged from when the runner made the request, it lost
    every such decision on time."""
    hub, clock = _arena()
    slow = WireBot(hub, "slow", think_s=0.95, stall_s=0.08)
    other = WireBot(hub, "other", think_s=0.01)
    outcome, _ = play(slow, other, hub, clock)
    me = outcome.seats[0]
    assert outcome.status == "finished" and slow.requests_written >= 3
    assert me.strikes == 0 and me.timeouts == 0
    assert set(slow.own_think_ms) == {950}
    assert me.max_think_ms == 950 and me.think_ms == 950 * me.decisions   # what the bot measured itself


def test_a_write_delay_beyond_the_credit_is_the_bots_again():
    """The credit is bounded: 300 ms in the outbox spares the bot 100 ms, so 950 ms of thinking is 1150 ms on
    its clock, a timeout strike on every decision until it forfeits."""
    hub, clock = _arena()
    slow = WireBot(hub, "slow", think_s=0.95, stall_s=0.3)
    other = WireBot(hub, "other", think_s=0.01)
    outcome, _ = play(slow, other, hub, clock)
    me = outcome.seats[0]
    assert me.strike_reasons == ["timeout"] * 3 and me.forfeited


def test_a_request_that_is_never_written_ends_in_a_timeout_strike_within_the_bound():
    """A writer that never writes (the stream stuck) must not stop the clock: each decision is struck at the
    deadline counted from the request plus at most the write credit, and the game ends within the bound."""
    hub, clock = _arena()
    stuck = WireBot(hub, "stuck", think_s=0.01)
    stuck.writable = trio.Event()   # never set
    other = WireBot(hub, "other", think_s=0.01)
    outcome, elapsed = play(stuck, other, hub, clock)
    me, them = outcome.seats
    assert stuck.requests_written == 0
    assert outcome.status == "finished"
    assert me.strike_reasons == ["timeout"] * 3 and me.forfeited and me.decisions == 3
    assert me.think_ms == 3 * CONTROL.move_ms   # each struck decision charged its whole budget
    per_strike_s = (CONTROL.move_ms + DEFAULT_WRITE_CREDIT_MS + DEFAULT_LATE_GRACE_MS) / 1000
    bound_s = (max_seat_wait_ms(CONTROL, me.decisions) + max_seat_wait_ms(CONTROL, them.decisions)) / 1000
    assert 3 * CONTROL.move_ms / 1000 < elapsed <= bound_s
    assert elapsed < 3 * per_strike_s + them.decisions * 0.011 + 0.01
