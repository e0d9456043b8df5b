"""Fair play, authentication and names (issue 12, items 6 and 7), attacked with raw gRPC clients.

* A flood of wrong tokens for a registered bot costs the server a bounded number of
  token hashes (the ladder's real scrypt), one at a time, and the bot's owner still gets in.
* Names and every other text of a Hello are checked whole: ``regbot\\n`` is not ``regbot``,
  and no control character a bot sends is stored or logged.

The figures (games per minute of a match during a flood, memory) come from
``scripts/bench_auth_flood.py``, not from here.
"""

from __future__ import annotations

import logging
import threading
import time

import pytest
import trio

from arena.ladder.auth import LadderAuthenticator
from arena.ladder.store import LadderStore
from arena.match.timecontrol import TimeControl
from server_helpers import AutoBot, RawBot, answer_for, blocking, hello, serve
from mau_arena_sdk.wire import pb

Code = pb.Error.Code
FLOOD = 60


def only_error(bot: RawBot) -> pb.Error:
    messages = bot.ended()
    assert [m.WhichOneof("kind") for m in messages] == ["error"], messages
    return messages[0].error


class Counting:
    """Wraps an authenticator: how many calls, and how many ran at once at most."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = 0
        self.running = 0
        self.peak = 0
        self.lock = threading.Lock()

    def __call__(self, name, token, peer):
        with self.lock:
            self.calls += 1
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            return self.inner(name, token, peer)
        finally:
            with self.lock:
                self.running -= 1


@pytest.fixture
def ladder_auth(tmp_path):
    store = LadderStore.open(tmp_path / "ladder.db")
    store.add_bot("regbot", "the-right-token")
    yield LadderAuthenticator(store, open_registration=False)
    store.close()


def test_a_flood_of_wrong_tokens_costs_a_few_hashes_one_at_a_time_and_the_owner_still_gets_in(ladder_auth):
    auth = Counting(ladder_auth)

    async def director(handle):
        owner = RawBot(handle.port, hello("regbot", token="the-right-token"))
        await blocking(owner.recv_kind, "welcome")
        owner.close()
        while handle.sessions():
            await handle.session_event()
        calls_before = auth.calls
        flood = [RawBot(handle.port, hello("regbot", token=f"wrong-{i}")) for i in range(FLOOD)]
        errors = [await blocking(only_error, bot) for bot in flood]
        flood_calls = auth.calls - calls_before
        back = RawBot(handle.port, hello("regbot", token="the-right-token"))      # during the lock-out
        await blocking(back.recv_kind, "welcome")
        stranger = RawBot(handle.port, hello("regbot2", token="anything"))       # same address, unverified
        turned_away = await blocking(only_error, stranger)
        for bot in (*flood, back, stranger):
            bot.close()
        return errors, flood_calls, turned_away

    errors, flood_calls, turned_away = serve(director, open_registration=False, authenticator=auth,
                                             auth_refusal_delay_s=0.1)
    assert auth.peak == 1                      # one hash at a time, never on the event loop
    assert flood_calls <= 10                   # the per-address / per-name limit, not one hash per Hello
    assert {e.code for e in errors} == {Code.AUTH_FAILED}
    assert sum("wrong token" in e.message for e in errors) == flood_calls
    assert sum("too many unverified tokens" in e.message for e in errors) == FLOOD - flood_calls
    assert turned_away.code == Code.AUTH_FAILED and "try again in" in turned_away.message


def test_many_honest_bots_behind_one_address_starting_at_once_all_get_in():
    """A lab behind NAT, or every bot after a restart: more first logins from one address at once than the
    per-address limit of unverified tokens.  They wait for the checks ahead of them instead of being
    refused ("too many unverified tokens ... try again in 60 s" for all but ten, before this fix), and a
    wrong token among them is still refused."""
    count = 40

    def authenticator(name, token, peer):
        time.sleep(0.02)  # stands for the ladder's slow hash: the Hellos pile up behind the running check
        return token == f"right-{name}" or "wrong token"

    auth = Counting(authenticator)

    async def director(handle):
        bots = [RawBot(handle.port, hello(f"lab{i}", token=f"right-lab{i}")) for i in range(count)]
        intruder = RawBot(handle.port, hello("lab0", token="guess"))
        kinds = [await blocking(bot.recv_kind, "welcome") for bot in bots]
        refusal = await blocking(only_error, intruder)
        for bot in (*bots, intruder):
            bot.close()
        return kinds, refusal

    kinds, refusal = serve(director, authenticator=auth, auth_refusal_delay_s=0.1)
    assert len(kinds) == count          # every one welcomed (recv_kind fails on anything else)
    assert auth.calls == count + 1 and auth.peak == 1
    assert refusal.code == Code.AUTH_FAILED


def test_hellos_beyond_the_check_queue_are_refused_at_once_with_capacity():
    release = threading.Event()
    auth = Counting(lambda name, token, peer: release.wait(10) and "no")

    async def director(handle):
        # Different names, so only the queue bound stops them: 1 checked + 2 waiting, 5 refused at once.
        flood = [RawBot(handle.port, hello(f"bot{i}", token="t")) for i in range(8)]
        errors = []
        five_refused = trio.Event()

        async def first_error(bot):
            errors.append((await blocking(bot.recv, 15)).error)
            if sum(e.code == Code.CAPACITY for e in errors) == 5:
                five_refused.set()

        async with trio.open_nursery() as nursery:
            for bot in flood:
                nursery.start_soon(first_error, bot)
            with trio.fail_after(10):
                await five_refused.wait()
            release.set()
        for bot in flood:
            bot.close()
        return errors

    errors = serve(director, authenticator=auth, auth_queue=2, auth_failures_per_address=100)
    assert sorted(e.code for e in errors) == [Code.AUTH_FAILED] * 3 + [Code.CAPACITY] * 5
    assert all("too many logins" in e.message for e in errors if e.code == Code.CAPACITY)
    assert auth.calls == 3 and auth.peak == 1


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"name": "regbot\n", "token": ""}, "bad bot name"),          # used to pass as the registered regbot
        ({"name": "regbot\r"}, "bad bot name"),
        ({"name": "\u202eregbot"}, "bad bot name"),
        ({"name": "ok", "bot_version": "v1\x1b[2J\x1b[31mred"}, "bot_version"),
        ({"name": "ok", "bot_version": "v1\u202egnp.exe"}, "bot_version"),
        ({"name": "ok", "bot_version": "v1\n2"}, "bot_version"),
        ({"name": "ok", "token": "t\x00ken"}, "token"),
        ({"name": "ok", "resume_session": "abc\n"}, "resume_session"),
        ({"name": "ok", "resume_session": "0" * 24, "resume_secret": "s\x1bx"}, "resume_secret"),
        ({"name": "ok", "games": ["\x1b[2Jtoy"]}, "unknown ruleset"),
        ({"name": "ok", "games": ["toy"] * 65}, "at most 64"),
        ({"name": "ok", "instance": "short"}, "instance 'short' must be 8-64"),  # (a shared ladder's client id)
        ({"name": "ok", "instance": "abcdefgh\x1b[2J"}, "instance"),
        ({"name": "ok", "instance": "x" * 65}, "instance"),
    ],
)
def test_hello_texts_are_checked_whole_and_control_characters_never_stored_or_logged(fields, words, caplog):
    caplog.set_level(logging.DEBUG, logger="arena.server")
    seen = []

    def authenticator(name, token, peer):
        seen.append(name)
        return "registered: needs its token" if name == "regbot" and token != "the-right-token" else None

    async def director(handle):
        bot = RawBot(handle.port, hello(**fields))
        error = await blocking(only_error, bot)
        bot.close()
        return error, handle.sessions()

    error, sessions = serve(director, authenticator=authenticator)
    assert error.code == Code.BAD_HELLO and words in error.message
    assert sessions == [] and seen == []       # refused before anyone looked it up
    assert error.message.isprintable()
    for record in caplog.records:
        assert record.getMessage().isprintable(), record.getMessage()


def test_sdk_version_is_checked_whole():
    async def director(handle):
        bot = RawBot(handle.port, hello("ok", sdk_version="0.2.0\n"))
        error = await blocking(only_error, bot)
        bot.close()
        return error

    assert serve(director).code == Code.UNSUPPORTED_VERSION


def test_answer_texts_with_terminal_escapes_are_never_echoed_raw(toy, caplog):
    caplog.set_level(logging.DEBUG)
    control = TimeControl(move_ms=2000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=9, reconnect_ms=500)

    async def director(handle):
        bot = RawBot(handle.port, hello("escaper"))
        other = AutoBot(handle.port, "other")
        await handle.wait_for_sessions(["escaper", "other"], timeout_s=10)
        notices = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handle.play_game, toy, {"hand": 3}, 5, ["escaper", "other"], control)
            while True:
                message = await blocking(bot.recv)
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    bad = answer_for(message.turn)
                    bad.answer.action_text = "\x1b[2J\x1b[31m" + bad.answer.action_text
                    bot.send(bad)
                elif kind == "error":
                    notices.append(message.error)
                elif kind == "game_ended":
                    break
        bot.close()
        await blocking(other.wait)
        return notices

    notices = serve(director)
    assert notices and all(n.message.isprintable() for n in notices)
    assert all(r.getMessage().isprintable() for r in caplog.records if r.name.startswith("arena"))


def test_a_name_flooded_from_elsewhere_still_admits_its_owner_from_a_clean_address_right_after_a_start():
    """No token of the owner is remembered yet (a fresh server): the flood must still not lock it out."""
    import asyncio

    from arena.server.authgate import AuthGate
    from arena.server.config import ServerConfig
    from arena.server.hello import HelloRefused

    auth = Counting(lambda name, token, peer: None if token == "right" else "wrong token")
    now = [0.0]
    gate = AuthGate(ServerConfig(authenticator=auth), clock=lambda: now[0])

    async def attempt(token: str, peer: str) -> str:
        try:
            await gate.check("regbot", token, peer)
            return "admitted"
        except HelloRefused as refused:
            return refused.code

    async def scenario():
        gate.refusal_delay_s = 0  # answer refusals at once in this test (the delay is the server's, not the rule)
        flood = [await attempt("guess", "ipv4:10.0.0.1:4000") for _ in range(30)]
        checked_by_flood = auth.calls
        owner = await attempt("right", "ipv4:10.0.0.2:5000")
        second_fresh = await attempt("guess", "ipv4:10.0.0.3:6000")  # inside the trickle interval
        now[0] += 2.5
        third_fresh = await attempt("guess", "ipv4:10.0.0.4:7000")    # next interval: one more check
        return flood, checked_by_flood, owner, second_fresh, third_fresh

    flood, checked_by_flood, owner, second_fresh, third_fresh = asyncio.run(scenario())
    gate.close()
    assert set(flood) == {"AUTH_FAILED"} and checked_by_flood == 10  # the flood's address is cut off after 10
    assert owner == "admitted"
    assert second_fresh == "AUTH_FAILED" and third_fresh == "AUTH_FAILED"
    assert auth.calls == 10 + 1 + 1  # the owner's check and one trickle check; the second fresh one was not checked


def test_the_holder_of_a_token_cannot_repeat_logins_as_fast_as_the_server_answers_them():
    """The attack: a registered bot's own token, sent in Hello after Hello (each answered at once: the name is
    connected, DUPLICATE_SESSION).  A known token skips the failure limits, so nothing used to slow it: 200
    streams doing it cut a ladder's games in 20 s from 111 to 21.  Beyond `auth_logins_per_name` logins of a
    name within the window, each is now held (`auth_refusal_delay_s`) before its check; the window moves on,
    and neither another name nor someone guessing at this name's token counts against the owner's pace."""
    import asyncio

    from arena.server.authgate import AuthGate
    from arena.server.config import ServerConfig
    from arena.server.hello import HelloRefused

    auth = Counting(lambda name, token, peer: None if token == "right" else "wrong token")
    now = [0.0]
    config = ServerConfig(authenticator=auth)
    gate = AuthGate(config, clock=lambda: now[0])
    limit = config.auth_logins_per_name

    async def attempt(name: str, token: str, peer: str = "ipv4:10.0.0.1:4000") -> str:
        try:
            await gate.check(name, token, peer)
            return "admitted"
        except HelloRefused as refused:
            return refused.code

    async def scenario():
        gate.refusal_delay_s = 0  # the hold is the server's clock, not the rule: count the held logins instead
        first = await attempt("regbot", "right")  # checked as unknown, then remembered
        guesses = [await attempt("regbot", "guess", "ipv4:10.0.0.9:1") for _ in range(5)]  # not the owner's pace
        within = [await attempt("regbot", "right") for _ in range(limit)]
        paced_within = gate.paced
        beyond = [await attempt("regbot", "right") for _ in range(5)]
        paced_beyond = gate.paced
        other = await attempt("otherbot", "right")
        now[0] += config.auth_failure_window_s + 1
        later = await attempt("regbot", "right")
        return first, guesses, within, paced_within, beyond, paced_beyond, other, later, gate.paced

    first, guesses, within, paced_within, beyond, paced_beyond, other, later, paced_end = asyncio.run(scenario())
    gate.close()
    assert first == "admitted" and set(guesses) == {"AUTH_FAILED"}
    assert within == ["admitted"] * limit and paced_within == 0
    assert beyond == ["admitted"] * 5 and paced_beyond == 5  # still admitted, each after the hold
    assert other == "admitted" and later == "admitted" and paced_end == 5
