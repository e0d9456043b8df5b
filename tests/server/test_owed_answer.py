"""A bot still running its code for a finished game is not seated in a new one until it answers.

The newcomer's case: a one-game bot (``--parallel 1``, the default) whose first ``act`` ran 8 s at
300 ms a move lost that game, and every game the arena started meanwhile (17 of 40): its client reads
nothing while its code runs, so the new games' requests went unread.  The arena now keeps the bot's slot
until the answer the finished game was owed comes (`arena.server.sessions.Hub.release`).  Here the first
``act`` blocks on an event the test releases: exactly the first game is forfeited, the others are played.
"""

from __future__ import annotations

import threading

import trio

from arena.match.timecontrol import TimeControl
from mau_arena_sdk import Bot, Client, ClientOptions
from server_helpers import HANG_GUARD_S, serve

RULESET = "maumau"
GAMES = 4
#: One strike forfeits: the blocked first call costs its game at once, as in the newcomer's run.
TIME_CONTROL = TimeControl(move_ms=300, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=1)


class Stuck(Bot):
    """Its first `act` waits for `release`; every call is counted, as is any overlap of two calls."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.first = True
        self.running = 0
        self.overlapped = False
        self.ended: list[str] = []
        self._lock = threading.Lock()

    def act(self, turn):
        with self._lock:
            self.running += 1
            self.overlapped |= self.running > 1
            first, self.first = self.first, False
        try:
            if first:
                assert self.release.wait(HANG_GUARD_S), "never released"
            return turn.legal[0]
        finally:
            with self._lock:
                self.running -= 1

    def on_game_end(self, game, result):
        self.ended.append(game.game_id)


class First(Bot):
    def act(self, turn):
        return turn.legal[0]


def test_a_call_that_outlives_its_game_costs_that_game_only():
    stuck = Stuck()
    failures: list[BaseException] = []
    outcomes = []

    def connect(name: str, bot: Bot, port: int) -> None:
        try:
            Client(bot, ClientOptions(name=name, arena=f"127.0.0.1:{port}", games=[RULESET], games_limit=GAMES,
                                      connect_timeout_s=30)).serve()
        except BaseException as failure:
            failures.append(failure)

    async def play(handle, seed: int):
        # As `arena match` does: a bot that still owes an answer is waited for, not failed.
        await handle.wait_free(["stuck", "first"])
        outcomes.append(await handle.play_game(RULESET, {}, seed, ["stuck", "first"], TIME_CONTROL))

    async def director(handle):
        threads = [threading.Thread(target=connect, args=(name, bot, handle.port), daemon=True)
                   for name, bot in (("stuck", stuck), ("first", First()))]
        for thread in threads:
            thread.start()
        await handle.wait_for_sessions(["stuck", "first"], timeout_s=HANG_GUARD_S)
        await play(handle, 1)  # its first call blocks: the game is forfeited and ends meanwhile
        assert outcomes[0].seats[0].forfeited, outcomes[0].seats
        # Release the call as soon as the arena will not seat the bot (it still owes game 1's answer);
        # an arena that seats it anyway gets game 2 decided first, as the newcomer's did.
        held = bool(await handle.wait_free(["stuck"], 0))
        with trio.fail_after(HANG_GUARD_S):
            async with trio.open_nursery() as nursery:
                async def rest():
                    for seed in range(2, GAMES + 1):
                        await play(handle, seed)
                nursery.start_soon(rest)
                if not held:
                    while len(outcomes) < 2:
                        await handle.session_event()
                stuck.release.set()
        for thread in threads:  # each client stops by itself after its games (`games_limit`)
            await trio.to_thread.run_sync(thread.join, HANG_GUARD_S)
            assert not thread.is_alive()

    serve(director)
    assert not failures, failures
    assert [o.status for o in outcomes] == ["finished"] * GAMES
    assert [o.seats[0].forfeited for o in outcomes] == [True] + [False] * (GAMES - 1)
    assert [o.seats[0].strikes for o in outcomes[1:]] == [0] * (GAMES - 1)
    assert len(stuck.ended) == GAMES
    assert not stuck.overlapped  # one game at a time: its calls never ran two at once


class Quick(Bot):
    """Answers at once, and says so (`answered`) before the client's pacing holds the answer back."""

    steady = True

    def __init__(self) -> None:
        self.answered = threading.Event()

    def act(self, turn):
        self.answered.set()
        return turn.legal[-1]


def test_a_paced_answer_is_still_sent_when_its_game_ends_meanwhile_so_the_bot_is_free_again():
    """A paced bot (`Bot.steady`) holds each answer back for its pace.  A game that ends meanwhile (aborted here;
    another seat resigning does it too) keeps the bot's slot until that answer comes, so the client must send it
    even though the game is over: it held it back and dropped it, and the bot sat out the whole hold."""
    from arena.match.runner import GameStop
    from mau_arena_sdk.pace import Pacer

    quick = Quick()
    failures: list[BaseException] = []
    control = TimeControl(move_ms=60_000, bank_ms=0, increment_ms=0, first_move_ms=60_000, max_strikes=3)
    clients: list[Client] = []

    def connect(name: str, bot: Bot, port: int) -> None:
        try:
            client = Client(bot, ClientOptions(name=name, arena=f"127.0.0.1:{port}", games=[RULESET],
                                               connect_timeout_s=30))
            if name == "paced":
                client.pacer = Pacer(cold_s=2.0)  # its first answer is held 2 s: the game ends meanwhile
            clients.append(client)
            client.serve()
        except BaseException as failure:
            failures.append(failure)

    async def director(handle):
        threads = [threading.Thread(target=connect, args=(name, bot, handle.port), daemon=True)
                   for name, bot in (("paced", quick), ("first", First()))]
        for thread in threads:
            thread.start()
        await handle.wait_for_sessions(["paced", "first"], timeout_s=HANG_GUARD_S)
        stop = GameStop()
        outcome = []

        async def game():
            outcome.append(await handle.play_game(RULESET, {}, 7, ["paced", "first"], control, stop=stop))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(game)
            # the bot has its answer, and its client holds it back for the pace: end the game now
            assert await trio.to_thread.run_sync(quick.answered.wait, HANG_GUARD_S)
            stop.abort("ended by the test while the paced answer was held")
        assert outcome[0].status == "aborted", outcome
        # Free again once the held answer comes (2 s), long before the arena's own hold would run out.
        assert await handle.wait_free(["paced"], HANG_GUARD_S) == ""
        for client in clients:
            client.stop()
        for thread in threads:
            await trio.to_thread.run_sync(thread.join, HANG_GUARD_S)

    serve(director, owed_answer_hold_s=10 * HANG_GUARD_S)
    assert not failures, failures


def test_a_stall_of_the_arena_lengthens_the_owed_answer_hold_by_as_much():
    """The hold ran on real time: a host stopped for 20 s gave a bot that still owed an answer its slot back 20 s
    early (red team), while its clock, on the games' time, had not run meanwhile."""
    import asyncio
    from types import SimpleNamespace

    from arena.server.config import ServerConfig
    from arena.server.owed_answers import OwedAnswers

    events = []
    totals = iter([0.0, 0.2, 0.2])  # the process's stalls so far: at the release, at the hold's end, and after

    def stalled_s():
        events.append(("stalls read", next(totals)))
        return events[-1][1]

    async def scenario():
        freed = asyncio.Event()

        def slot_freed(session):
            events.append(("slot freed",))
            freed.set()

        owed = OwedAnswers(ServerConfig(owed_answer_hold_s=0.01), lambda fn, *args: fn(*args), slot_freed,
                           lambda session: None, lambda: None, stalled_s)
        class Seat:  # hashable, as a RemoteSeat is
            game_id = "g1"

        seat = Seat()
        session = SimpleNamespace(name="b", seats={seat}, owed={}, requests={7: seat})
        owed.release(session, seat, owed=7)
        await asyncio.wait_for(freed.wait(), HANG_GUARD_S)

    asyncio.run(scenario())
    assert events == [("stalls read", 0.0), ("stalls read", 0.2), ("stalls read", 0.2), ("slot freed",)]


def test_a_hold_that_runs_out_is_told_to_the_director_before_the_slot_comes_back(caplog):
    """`Handle.on_hold_expired`'s callback: `arena match` stops a bot that still owes its answer when the hold
    runs out (it hangs) instead of seating it again.  It hears of it before the slot is free, so no new game can
    seat the bot first, and the warning that it is seated again is left to a director without a callback; an
    answer that comes in time calls nothing."""
    import asyncio
    import logging
    from types import SimpleNamespace

    from arena.server.config import ServerConfig
    from arena.server.owed_answers import OwedAnswers

    events = []

    async def scenario():
        freed = asyncio.Event()

        def slot_freed(session):
            events.append(("slot freed", session.name))
            freed.set()

        owed = OwedAnswers(ServerConfig(owed_answer_hold_s=0.01), lambda fn, *args: fn(*args), slot_freed,
                           lambda session: None, lambda: None)
        owed.on_expired = lambda name, game_id, request: events.append(("expired", name, game_id, request))

        class Seat:  # hashable, as a RemoteSeat is
            game_id = "g1"

        answered, silent = Seat(), Seat()
        quick = SimpleNamespace(name="quick", seats={answered}, owed={}, requests={3: answered})
        owed.release(quick, answered, owed=3)
        owed.settle(quick, answered)  # its answer came
        hung = SimpleNamespace(name="hung", seats={silent}, owed={}, requests={7: silent})
        owed.release(hung, silent, owed=7)
        await asyncio.wait_for(freed.wait(), HANG_GUARD_S)
        while len(events) < 3:  # the silent one's hold: 10 ms
            freed.clear()
            await asyncio.wait_for(freed.wait(), HANG_GUARD_S)

    with caplog.at_level(logging.WARNING, logger="arena.server"):
        asyncio.run(scenario())
    assert events == [("slot freed", "quick"), ("expired", "hung", "g1", 7), ("slot freed", "hung")]
    assert "seating it again" not in caplog.text
