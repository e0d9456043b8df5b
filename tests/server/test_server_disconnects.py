"""Disconnects cost the seat its own clock: a bot that drops and resumes over and over is struck and forfeits.

The attack runs against a real server on 127.0.0.1:0 with a raw grpcio bot
that, on every turn it is sent, drops its stream, stays away for longer than
the decision allows, and resumes its session (it never answers).  Before the
clock kept running while a seat was away, such a bot stalled every decision
by up to three reconnect windows without a strike.

The server runs on a virtual clock (`server_helpers.virtual_clock`): the bot's
time away is a ``clock.jump``, and the other bot is held while the flapper
resumes, so every decision goes the same way however slow the machine.
"""

from __future__ import annotations

import trio

from arena.match.timecontrol import TimeControl
from arena.match.timekeeping import max_seat_wait_ms
from server_helpers import HANG_GUARD_S, AutoBot, RawBot, blocking, hello, virtual_clock

SEED = 4_242
# A long reconnect window: the old rule (clock paused while away) let a bot stay away this long per resume.
CONTROL = TimeControl(move_ms=300, bank_ms=600, increment_ms=0, first_move_ms=0, max_strikes=3, reconnect_ms=3000)
AWAY_S = 0.5  # longer than move_ms, well inside reconnect_ms


def resume_hello(name: str, welcome) -> "object":
    """How a dropped bot resumes its session (the only place this test depends on the handshake)."""
    return hello(name, resume_session=welcome.session_id, resume_secret=welcome.resume_secret)


def test_a_bot_that_keeps_dropping_and_resuming_is_struck_forfeits_and_the_game_ends_within_the_bound(toy):
    """The flapper is seat 0 of the toy game (turns alternate, 3 cards each), so its decisions go:

    1. 900 ms (move + bank): dropped at 0, back at 0.5 s and asked again with 400 ms left, dropped,
       back at 1.0 s: the clock ran out while it was away, strike 1, the bank is spent;
    2. and 3. 300 ms each: dropped at once, back 0.5 s later: strikes 2 and 3, forfeit.
    """
    from server_helpers import serve

    clock = virtual_clock()

    async def director(handle):
        bot = RawBot(handle.port, hello("flapper"))
        welcome = (await blocking(bot.recv_kind, "welcome")).welcome
        other = AutoBot(handle.port, "other")  # held (may_answer) while the flapper is away
        await handle.wait_for_sessions(["flapper", "other"], timeout_s=10)
        result: list = []
        drops = 0

        async def play():
            began = trio.current_time()
            outcome = await handle.play_game(toy, {"hand": 3}, SEED, ["flapper", "other"], CONTROL)
            result.extend([outcome, trio.current_time() - began])

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play)
            while True:
                message = await blocking(bot.recv, HANG_GUARD_S)
                assert message is not None, f"the flapper's stream ended (status {bot.status})"
                kind = message.WhichOneof("kind")
                if kind == "game_ended":
                    break
                if kind != "turn":
                    continue
                other.may_answer.clear()  # the game waits on the flapper until it is back
                bot.close()  # drop mid-decision, without answering
                drops += 1
                while "flapper" in [s.name for s in handle.sessions()]:
                    await handle.session_event()
                clock.jump(AWAY_S)  # the bot's own behaviour: stay away, then come back
                bot = RawBot(handle.port, resume_hello("flapper", welcome))
                await blocking(bot.recv_kind, "welcome")
                other.may_answer.set()
        bot.close()
        await blocking(other.wait)
        return result[0], result[1], drops

    outcome, elapsed, drops = serve(director, clock=clock)
    flapper, other = outcome.seats
    assert outcome.status == "finished"
    assert flapper.forfeited and flapper.strikes == CONTROL.max_strikes
    assert flapper.strike_reasons == ["disconnected"] * 3 and flapper.decisions == 3
    assert flapper.placement == 2 and other.placement == 1
    assert drops == 4 and flapper.think_ms == 900 + 300 + 300
    # An absence lasts from when the runner finds the seat away until the seat is back
    # (`SeatClock.away_since`), even when its clock ran out meanwhile: every drop is its own.
    assert flapper.disconnects == drops
    # the documented bound: the flapper's share plus the other bot's (no time passes while it answers)
    bound_s = (max_seat_wait_ms(CONTROL, flapper.decisions) + max_seat_wait_ms(CONTROL, other.decisions)) / 1000
    assert elapsed == AWAY_S * drops <= bound_s, (elapsed, bound_s)


def test_a_bot_away_when_its_game_ends_is_told_the_result_when_it_resumes(toy):
    """The game ends while the bot is away (it forfeits on its clock); resuming, it still learns the result."""
    from server_helpers import serve

    clock = virtual_clock()
    quick = TimeControl(move_ms=200, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=1, reconnect_ms=3000)

    async def director(handle):
        bot = RawBot(handle.port, hello("leaver"))
        welcome = (await blocking(bot.recv_kind, "welcome")).welcome
        other = AutoBot(handle.port, "other")
        await handle.wait_for_sessions(["leaver", "other"], timeout_s=10)
        async with trio.open_nursery() as nursery:
            outcome: list = []

            async def play():
                outcome.append(await handle.play_game(toy, {"hand": 3}, SEED, ["leaver", "other"], quick,
                                                      game_id="g-away"))

            nursery.start_soon(play)
            await blocking(bot.recv_kind, "game_started")
            bot.close()  # away before its first decision, and it stays away until the game is over
            while "leaver" in [s.name for s in handle.sessions()]:
                await handle.session_event()
            clock.jump(1.0)  # its first decision's 200 ms run out while it is away
        back = RawBot(handle.port, resume_hello("leaver", welcome))
        messages = [await blocking(back.recv_kind, "welcome"), await blocking(back.recv_kind, "game_ended")]
        back.close()
        await blocking(other.wait)
        return outcome[0], messages

    outcome, (welcomed, ended) = serve(director, clock=clock)
    assert outcome.status == "finished" and outcome.seats[0].forfeited
    assert outcome.seats[0].strike_reasons == ["disconnected"]
    assert welcomed.welcome.session_id  # the session was resumed, not a new one refused
    assert ended.game_ended.game_id == "g-away"
    assert [r.name for r in ended.game_ended.results if r.placement == 1] == ["other"]
