"""Fair play, sessions: a hostile client cannot take over another bot's session (issue 12, item 1).

The attacks are performed with raw gRPC clients against a real server on 127.0.0.1:0,
under open registration (no tokens), where a name alone proves nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena.match.timecontrol import TimeControl
from server_helpers import AutoBot, RawBot, answer_for, blocking, hello, serve
from mau_arena_sdk.wire import pb

FAST = TimeControl(move_ms=2000, bank_ms=2000, increment_ms=0, first_move_ms=2000, max_strikes=3, reconnect_ms=3000)

Code = pb.Error.Code


def only_error(bot: RawBot) -> pb.Error:
    messages = bot.ended()
    assert [m.WhichOneof("kind") for m in messages] == ["error"], messages
    return messages[0].error


def test_a_session_cannot_be_taken_over_and_its_id_is_never_shown_to_another_client(toy):
    async def director(handle):
        # The attacker holds an old session of the name: it has a game (a reserved seat) and drops.
        attacker = RawBot(handle.port, hello("victim"))
        old = (await blocking(attacker.recv_kind, "welcome")).welcome
        old_seat = handle.seat("victim", toy, "g-old")      # keeps the old session waiting for a resume
        attacker.close()
        while "victim" in [s.name for s in handle.sessions()]:
            await handle.session_event()
        # The real bot connects under its name (and answers every turn it gets).
        victim = AutoBot(handle.port, "victim", seed=1)
        other = AutoBot(handle.port, "other", seed=2)
        (info,) = await handle.wait_for_sessions(["victim"], timeout_s=10)
        live_id = info.session_id
        probes = [
            # resuming its own old session: the refusal used to say "now <the victim's session id>"
            RawBot(handle.port, hello("victim", resume_session=old.session_id)),
            RawBot(handle.port, hello("victim", resume_session=old.session_id, resume_secret=old.resume_secret)),
            # the victim's session id, learned somehow, without its secret or with a wrong one
            RawBot(handle.port, hello("victim", resume_session=live_id)),
            RawBot(handle.port, hello("victim", resume_session=live_id, resume_secret="guess")),
            RawBot(handle.port, hello("victim", resume_session=live_id, resume_secret=old.resume_secret)),
        ]
        errors = [await blocking(only_error, probe) for probe in probes]
        after = [(s.name, s.session_id) for s in handle.sessions() if s.name == "victim"]
        # The victim still has its stream: it plays a whole game, and nobody else sees a card of it.
        outcome = await handle.play_game(toy, {"hand": 4}, 11, ["victim", "other"], FAST)
        log = await blocking(victim.wait)
        await blocking(other.wait)
        old_seat.release()
        for probe in probes:
            probe.close()
        return live_id, log, probes, errors, after, outcome

    live_id, log, probes, errors, after, outcome = serve(director)
    secret = log[0].welcome.resume_secret
    assert log[0].welcome.session_id == live_id and secret
    assert [e.code for e in errors] == [Code.DUPLICATE_SESSION, Code.DUPLICATE_SESSION, Code.DUPLICATE_SESSION,
                                        Code.AUTH_FAILED, Code.AUTH_FAILED]
    for probe in probes:  # no session id or secret of the victim in anything another client received
        for data in probe.received_bytes:
            assert live_id.encode() not in data and secret.encode() not in data
    assert after == [("victim", live_id)]
    assert outcome.status == "finished" and outcome.seats[0].strikes == 0
    assert not [m for m in log if m.WhichOneof("kind") == "error"]  # never replaced, never struck


def test_resume_needs_the_secret_from_welcome_and_a_wrong_one_is_refused_clearly(toy):
    async def director(handle):
        victim = RawBot(handle.port, hello("victim"))
        welcome = (await blocking(victim.recv_kind, "welcome")).welcome
        seat = handle.seat("victim", toy, "g1")           # a running game: the session outlives its stream
        victim.close()
        while "victim" in [s.name for s in handle.sessions()]:
            await handle.session_event()
        # Anyone who learned the session id (logs, a dashboard) tries to resume it.
        no_secret = RawBot(handle.port, hello("victim", resume_session=welcome.session_id))
        fresh = (await blocking(no_secret.recv_kind, "welcome")).welcome   # a new session, not the victim's
        no_secret.close()
        while "victim" in [s.name for s in handle.sessions()]:
            await handle.session_event()
        wrong = RawBot(handle.port, hello("victim", resume_session=welcome.session_id, resume_secret="x" * 32))
        refused = await blocking(only_error, wrong)
        back = RawBot(handle.port, hello("victim", resume_session=welcome.session_id,
                                         resume_secret=welcome.resume_secret))
        resumed = (await blocking(back.recv_kind, "welcome")).welcome
        seat.release()
        back.close()
        return welcome, fresh, refused, resumed

    welcome, fresh, refused, resumed = serve(director)
    assert len(welcome.resume_secret) >= 32 and welcome.resume_secret != welcome.session_id
    assert fresh.session_id != welcome.session_id and fresh.resume_secret != welcome.resume_secret
    assert refused.code == Code.AUTH_FAILED
    assert "resume secret" in refused.message and welcome.session_id not in refused.message
    assert resumed.session_id == welcome.session_id and resumed.resume_secret == welcome.resume_secret


RANDOM_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "random_bot.py"


@pytest.mark.skipif(not RANDOM_BOT.exists(), reason="needs sample_bots/random_bot.py")
def test_the_sdk_keeps_the_secret_and_resumes_its_own_session_after_a_cut(toy):
    processes = []

    async def director(handle):
        processes.append(subprocess.Popen(
            [sys.executable, str(RANDOM_BOT), "--arena", f"127.0.0.1:{handle.port}", "--name", "sdkbot",
             "--games-limit", "1", "--log-level", "WARNING"],
            cwd=RANDOM_BOT.parents[1], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        ))
        opponent = RawBot(handle.port, hello("opponent"))
        (before,) = await handle.wait_for_sessions(["sdkbot"], timeout_s=60)
        await blocking(opponent.recv_kind, "welcome")
        outcome = []
        async with trio.open_nursery() as nursery:
            async def play():
                outcome.append(await handle.play_game(toy, {"hand": 4}, 9, ["opponent", "sdkbot"], FAST))

            nursery.start_soon(play)
            await blocking(opponent.recv_kind, "game_started")     # sdkbot has its GameStarted too
            cut = handle.hub.by_name["sdkbot"].connection
            cut.abort()                                              # the network cuts its stream

            def resumed():  # on another stream; the SDK may be back before the cut stream's end is seen
                session = handle.hub.by_name.get("sdkbot")
                return session is not None and session.connection not in (None, cut)

            with trio.fail_after(60):
                while not resumed():
                    await handle.session_event()
            after = [s.session_id for s in handle.sessions() if s.name == "sdkbot"]
            while True:
                message = await blocking(opponent.recv)
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    opponent.send(answer_for(message.turn))
                elif kind == "game_ended":
                    break
        code = await blocking(lambda: processes[0].wait(timeout=30))
        opponent.close()
        return before.session_id, after, outcome[0], code

    try:
        before, after, outcome, code = serve(director)
    finally:
        for process in processes:
            process.kill()
            process.wait()
    sdkbot = outcome.seats[1]
    assert outcome.status == "finished" and not sdkbot.forfeited
    assert sdkbot.strikes == 0
    assert after == [before]            # back in the same session, proven by the secret it kept
    assert code == 0, processes[0].stdout.read()


def test_only_the_same_non_empty_token_takes_over_an_away_session_without_its_secret(toy):
    """A bot whose stream dropped before it read its Welcome has no secret to resume with; a fresh Hello with
    its name and its own (non-empty) token takes its away session over, so its games go on.  Another token,
    or none (open registration), only ever gets a new session: the attack of the test above, without the
    secret, against the away session itself."""
    async def director(handle):
        victim = RawBot(handle.port, hello("victim", token="the-victims-token"))
        welcome = (await blocking(victim.recv_kind, "welcome")).welcome
        seat = handle.seat("victim", toy, "g1")  # a running game: the session outlives its stream
        victim.close()
        while "victim" in [s.name for s in handle.sessions()]:
            await handle.session_event()
        sessions = []
        for token in ("a-guess", ""):  # the name, without the token: a new session each, the away one untouched
            probe = RawBot(handle.port, hello("victim", token=token))
            sessions.append((await blocking(probe.recv_kind, "welcome")).welcome)
            probe.close()
            while "victim" in [s.name for s in handle.sessions()]:
                await handle.session_event()
        back = RawBot(handle.port, hello("victim", token="the-victims-token"))  # no session id, no secret
        taken = (await blocking(back.recv_kind, "welcome")).welcome
        seat.release()
        back.close()
        return welcome, sessions, taken

    welcome, sessions, taken = serve(director)
    assert all(s.session_id != welcome.session_id and s.resume_secret != welcome.resume_secret for s in sessions)
    assert taken.session_id == welcome.session_id and taken.resume_secret == welcome.resume_secret
