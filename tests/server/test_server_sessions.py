"""Sessions over a real server: Hello checks, authentication, one connection per name, capacity."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arena.server import ConfigError, ServerConfig, SeatUnavailable
from server_helpers import RawBot, blocking, hello, serve
from mau_arena_sdk.wire import pb

Code = pb.Error.Code


def refusal(bot: RawBot) -> pb.Error:
    """The single Error a refused stream gets before it ends."""
    messages = bot.ended()
    assert [m.WhichOneof("kind") for m in messages] == ["error"], messages
    return messages[0].error


def test_hello_gets_a_welcome_and_a_listed_session(toy):
    async def director(handle):
        bot = RawBot(handle.port, hello("alice", max_games=3, games=[toy], bot_version="v7"))
        welcome = (await blocking(bot.recv_kind, "welcome")).welcome
        infos = await handle.wait_for_sessions(["alice"], timeout_s=10)
        bot.close()
        return welcome, infos

    welcome, infos = serve(director)
    assert welcome.session_id and welcome.rulesets == [toy]
    assert welcome.max_message_bytes == ServerConfig().max_message_bytes
    (info,) = infos
    assert (info.name, info.capacity, info.busy, info.version, info.games) == ("alice", 3, 0, "v7", (toy,))
    assert info.connected_at.endswith("Z")


@pytest.mark.parametrize(
    "first, code, words",
    [
        (hello("bad name!"), Code.BAD_HELLO, "bad bot name"),
        (hello(""), Code.BAD_HELLO, "bad bot name"),
        (hello("bob", sdk_version="9.0.0"), Code.UNSUPPORTED_VERSION, "9.0.0"),
        (hello("bob", sdk_version="latest"), Code.UNSUPPORTED_VERSION, "not a version"),
        (hello("bob", games=["no-such-game"]), Code.BAD_HELLO, "unknown ruleset"),
        (hello("bob", max_games=10_000), Code.BAD_HELLO, "max_games 10000"),
        (pb.BotMessage(answer=pb.Answer(request_id=1)), Code.BAD_HELLO, "first message must be a Hello"),
    ],
)
def test_a_bad_hello_gets_a_typed_error_and_the_stream_ends(first, code, words):
    async def director(handle):
        bot = RawBot(handle.port, first)
        error = await blocking(refusal, bot)
        bot.close()
        return error, handle.sessions()

    error, sessions = serve(director, max_games_per_bot=8)
    assert error.code == code and words in error.message
    assert sessions == []


def test_the_authenticator_decides_and_its_reason_reaches_the_bot():
    seen = []

    def authenticator(name, token, peer):
        seen.append((name, token, peer.split(":")[0]))
        return None if token == "s3cret" else f"wrong token for {name}"

    async def director(handle):
        refused = RawBot(handle.port, hello("carol", token="guess"))
        error = await blocking(refusal, refused)
        admitted = RawBot(handle.port, hello("carol", token="s3cret"))
        await blocking(admitted.recv_kind, "welcome")
        refused.close()
        admitted.close()
        return error

    error = serve(director, open_registration=False, authenticator=authenticator)
    assert error.code == Code.AUTH_FAILED and error.message == "wrong token for carol"
    assert seen == [("carol", "guess", "ipv4"), ("carol", "s3cret", "ipv4")]


def test_an_authenticator_that_crashes_refuses_without_hurting_the_server():
    def authenticator(name, token, peer):
        if name == "crash":
            raise RuntimeError("database is locked")

    async def director(handle):
        crashing = RawBot(handle.port, hello("crash"))
        error = await blocking(refusal, crashing)
        fine = RawBot(handle.port, hello("fine"))
        await blocking(fine.recv_kind, "welcome")
        crashing.close()
        fine.close()
        return error

    assert serve(director, authenticator=authenticator).code == Code.AUTH_FAILED


def test_one_connection_per_name():
    async def director(handle):
        first = RawBot(handle.port, hello("dave"))
        await blocking(first.recv_kind, "welcome")
        second = RawBot(handle.port, hello("dave"))
        error = await blocking(refusal, second)
        still = [s.name for s in handle.sessions()]
        first.close()
        second.close()
        return error, still

    error, still = serve(director)
    assert error.code == Code.DUPLICATE_SESSION and "already connected" in error.message
    assert still == ["dave"]


def test_connections_are_capped():
    async def director(handle):
        first = RawBot(handle.port, hello("one"))
        await blocking(first.recv_kind, "welcome")
        second = RawBot(handle.port, hello("two"))
        error = await blocking(refusal, second)
        first.close()
        second.close()
        return error

    assert serve(director, max_connections=1).code == Code.CAPACITY


def test_a_name_leaving_frees_it_and_the_scheduler_hears_of_it():
    async def director(handle):
        first = RawBot(handle.port, hello("erin"))
        await handle.wait_for_sessions(1, timeout_s=10)
        first.close()
        while handle.sessions():
            await handle.session_event()
        again = RawBot(handle.port, hello("erin"))
        await blocking(again.recv_kind, "welcome")
        again.close()
        return True

    assert serve(director)


def test_capacity_is_reserved_per_game_and_given_back(toy):
    async def director(handle):
        bot = RawBot(handle.port, hello("frank", max_games=2))
        await handle.wait_for_sessions(["frank"], timeout_s=10)
        seats = [handle.seat("frank", toy, f"g{i}") for i in range(2)]
        busy = handle.sessions()[0].busy
        with pytest.raises(SeatUnavailable, match="busy"):
            handle.seat("frank", toy, "g3")
        with pytest.raises(SeatUnavailable, match="not connected"):
            handle.seat("nobody", toy, "g3")
        seats[0].release()
        seats[0].release()  # idempotent
        after = handle.sessions()[0].busy
        bot.close()
        return busy, after

    assert serve(director) == (2, 1)


def test_the_roster_event_is_arrivals_and_departures_not_freed_slots(toy):
    """A ladder's session watcher waits on `roster_event`: a seat's release wakes `session_event`
    only (a game's end wakes the scheduler anyway), a departure wakes both."""
    async def director(handle):
        bot = RawBot(handle.port, hello("gina", max_games=2))
        await handle.wait_for_sessions(["gina"], timeout_s=10)
        seat = handle.seat("gina", toy, "g1")
        woken = {"roster": trio.Event(), "session": trio.Event()}

        async def watch(wait, name):
            await wait()
            woken[name].set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch, handle.roster_event, "roster")
            nursery.start_soon(watch, handle.session_event, "session")
            await trio.testing.wait_all_tasks_blocked()
            seat.release()
            with trio.fail_after(10):
                await woken["session"].wait()
            await trio.testing.wait_all_tasks_blocked()
            after_release = woken["roster"].is_set()
            bot.close()
            with trio.fail_after(10):
                await woken["roster"].wait()
        return after_release

    assert serve(director) is False


def test_wait_for_sessions_times_out_with_a_clear_message():
    async def director(handle):
        with pytest.raises(TimeoutError, match="ghost"):
            await handle.wait_for_sessions(["ghost"], timeout_s=0.05)
        return True

    assert serve(director)


def test_open_registration_is_refused_on_a_network_address_unless_asked_for():
    with pytest.raises(ConfigError, match="not loopback"):
        ServerConfig(host="0.0.0.0").validate()
    ServerConfig(host="0.0.0.0", allow_open_registration_on_network=True).validate()
    ServerConfig(host="0.0.0.0", open_registration=False, authenticator=lambda *a: None).validate()
    with pytest.raises(ConfigError, match="no authenticator"):
        ServerConfig(open_registration=False).validate()
    # `arena serve` checks its flags before the database whose authenticator it sets is open; the rest still counts
    ServerConfig(open_registration=False).validate(authenticator_pending=True)
    with pytest.raises(ConfigError, match="port"):
        ServerConfig(port=70000, open_registration=False).validate(authenticator_pending=True)
    with pytest.raises(ConfigError, match="both"):
        ServerConfig(tls_cert="cert.pem").validate()


def test_the_new_timing_fields_refuse_nonsense():
    """NaN passes every `<` check written the other way round: each field is checked so that it fails."""
    for field, value in (("owed_answer_hold_s", float("nan")), ("owed_answer_hold_s", float("inf")),
                         ("owed_answer_hold_s", -1.0), ("connection_idle_s", float("nan")),
                         ("connection_idle_s", 0.0), ("handshake_timeout_s", -5.0),
                         ("handshake_timeout_s", float("inf"))):
        with pytest.raises(ConfigError, match=f"{field} must be"):
            ServerConfig(**{field: value}).validate()
    ServerConfig(owed_answer_hold_s=0.0).validate()  # 0: no hold, a valid choice


def test_the_director_result_and_error_come_back_from_run():
    async def failing(handle):
        raise ValueError("director broke")

    with pytest.raises(ValueError, match="director broke"):
        serve(failing)


def test_resuming_needs_the_same_name_and_token_and_replaces_a_stale_stream():
    async def director(handle):
        first = RawBot(handle.port, hello("gina", token="t1"))
        welcome = (await blocking(first.recv_kind, "welcome")).welcome
        session_id, secret = welcome.session_id, welcome.resume_secret
        thief = RawBot(handle.port, hello("gina", token="t2", resume_session=session_id, resume_secret=secret))
        stolen = await blocking(refusal, thief)
        again = RawBot(handle.port, hello("gina", token="t1", resume_session=session_id, resume_secret=secret))
        resumed = (await blocking(again.recv_kind, "welcome")).welcome
        replaced = await blocking(first.ended)
        names = [(s.name, s.session_id) for s in handle.sessions()]
        for bot in (first, thief, again):
            bot.close()
        return session_id, stolen, resumed, replaced, names

    session_id, stolen, resumed, replaced, names = serve(director)
    assert stolen.code == Code.AUTH_FAILED and session_id not in stolen.message
    assert resumed.session_id == session_id
    assert [m.error.code for m in replaced] == [Code.DUPLICATE_SESSION]
    assert names == [("gina", session_id)]


def test_a_slow_authenticator_does_not_stall_running_games(toy):
    """Token checks hash slowly on purpose; they must not hold up the loop that serves the games."""
    import threading
    import time

    from arena.match.timecontrol import TimeControl
    from server_helpers import AutoBot

    release = threading.Event()

    def authenticator(name, token, peer):
        if name == "slowpoke":
            release.wait(60)  # a token check that takes "forever": a stalled loop would take this long
        return None

    async def director(handle):
        bots = [AutoBot(handle.port, name, seed=i) for i, name in enumerate(("alice", "bob"))]
        await handle.wait_for_sessions(["alice", "bob"], timeout_s=10)
        waiting = RawBot(handle.port, hello("slowpoke"))
        started = time.monotonic()
        outcome = await handle.play_game(toy, {"hand": 8}, 5, ["alice", "bob"], TimeControl(move_ms=2000))
        took = time.monotonic() - started
        release.set()
        await blocking(waiting.recv_kind, "welcome")
        waiting.close()
        for bot in bots:
            await blocking(bot.wait)
        return outcome, took

    outcome, took = serve(director, authenticator=authenticator)
    assert outcome.status == "finished" and took < 30  # far from the 60 s of a stall, whatever the load


def test_cut_stream_ends_the_bots_call_with_an_error_status_and_the_bot_can_come_back():
    """`Handle.cut_stream` (used by `arena check-bot`) acts as a failed network: the bot sees its call end."""
    import grpc
    import trio

    async def director(handle):
        bot = RawBot(handle.port, hello("cut"))
        welcome = (await blocking(bot.recv_kind, "welcome")).welcome
        bystander = RawBot(handle.port, hello("bystander"))
        await blocking(bystander.recv_kind, "welcome")
        assert handle.cut_stream("nobody") is False
        assert handle.cut_stream("cut") is True
        rest = await blocking(bot.ended)
        with trio.fail_after(10):
            while "cut" in [s.name for s in handle.sessions()]:
                await handle.session_event()
        left = sorted(s.name for s in handle.sessions())
        cut_again = handle.cut_stream("cut")  # not connected now
        back = RawBot(handle.port, hello("cut", resume_session=welcome.session_id, resume_secret=welcome.resume_secret))
        await blocking(back.recv_kind, "welcome")  # the name is free again: the bot comes back
        names = sorted(s.name for s in handle.sessions())
        for each in (bot, bystander, back):
            each.close()
        return rest, bot.status, left, cut_again, names

    rest, status, left, cut_again, names = serve(director)
    assert rest == [] and status == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert left == ["bystander"] and cut_again is False and names == ["bystander", "cut"]
