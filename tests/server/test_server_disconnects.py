"""Disconnects cost the seat its own clock: a bot that drops and resumes over and over is struck and forfeits.

The attack runs against a real server on 127.0.0.1:0 with a raw grpcio bot
that, on every turn it is sent, drops its stream, stays away for longer than
the decision allows, and resumes its session (it never answers).  Before the
clock kept running while a seat was away, such a bot stalled every decision
by up to three reconnect windows without a strike.
"""

from __future__ import annotations

import trio

from arena.match.runner import max_seat_wait_ms
from arena.match.timecontrol import TimeControl
from server_helpers import AutoBot, RawBot, blocking, hello

SEED = 4_242
# A long reconnect window: the old rule (clock paused while away) let a bot stay away this long per resume.
CONTROL = TimeControl(move_ms=300, bank_ms=600, increment_ms=0, first_move_ms=0, max_strikes=3, reconnect_ms=3000)
AWAY_S = 0.5  # longer than move_ms, well inside reconnect_ms


def resume_hello(name: str, welcome) -> "object":
    """How a dropped bot resumes its session (the only place this test depends on the handshake)."""
    return hello(name, resume_session=welcome.session_id, resume_secret=welcome.resume_secret)


def test_a_bot_that_keeps_dropping_and_resuming_is_struck_forfeits_and_the_game_ends_within_the_bound(toy):
    from server_helpers import serve

    async def director(handle):
        bot = RawBot(handle.port, hello("flapper"))
        welcome = (await blocking(bot.recv_kind, "welcome")).welcome
        other = AutoBot(handle.port, "other")
        await handle.wait_for_sessions(["flapper", "other"], timeout_s=10)
        result: list = []
        drops = 0

        async def play():
            began = trio.current_time()
            outcome = await handle.play_game(toy, {"hand": 3}, SEED, ["flapper", "other"], CONTROL)
            result.extend([outcome, trio.current_time() - began])

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play)
            with trio.fail_after(30):
                while not result:
                    message = await blocking(bot.recv, 0.2)  # bounded: the game may end while we are away
                    if message is None or message.WhichOneof("kind") != "turn":
                        continue
                    bot.close()  # drop mid-decision, without answering
                    drops += 1
                    while "flapper" in [s.name for s in handle.sessions()]:
                        await handle.session_event()
                    await trio.sleep(AWAY_S)  # the bot's own behaviour: stay away, then come back
                    bot = RawBot(handle.port, resume_hello("flapper", welcome))
                    await blocking(bot.recv_kind, "welcome")
        bot.close()
        await blocking(other.wait)
        return result[0], result[1], drops

    outcome, elapsed, drops = serve(director)
    flapper, other = outcome.seats
    assert outcome.status == "finished"
    assert flapper.forfeited and flapper.strikes == CONTROL.max_strikes
    assert set(flapper.strike_reasons) == {"disconnected"} and flapper.disconnects == drops >= CONTROL.max_strikes
    assert flapper.decisions == CONTROL.max_strikes and flapper.placement == 2 and other.placement == 1
    # the documented bound: the flapper's share plus the other bot's (it answers at once, a few ms each)
    bound_s = (max_seat_wait_ms(CONTROL, flapper.decisions) + max_seat_wait_ms(CONTROL, other.decisions)) / 1000
    assert elapsed <= bound_s, (elapsed, bound_s)


def test_a_bot_away_when_its_game_ends_is_told_the_result_when_it_resumes(toy):
    """The game ends while the bot is away (it forfeits on its clock); resuming, it still learns the result."""
    from server_helpers import serve

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
        back = RawBot(handle.port, resume_hello("leaver", welcome))
        messages = [await blocking(back.recv_kind, "welcome"), await blocking(back.recv_kind, "game_ended", 5)]
        back.close()
        await blocking(other.wait)
        return outcome[0], messages

    outcome, (welcomed, ended) = serve(director)
    assert outcome.status == "finished" and outcome.seats[0].forfeited
    assert welcomed.welcome.session_id  # the session was resumed, not a new one refused
    assert ended.game_ended.game_id == "g-away"
    assert [r.name for r in ended.game_ended.results if r.placement == 1] == ["other"]
