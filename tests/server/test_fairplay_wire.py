"""Fair play on the wire (issue 12, items 8, 9 and 10), attacked with raw gRPC clients.

* Streams that never say Hello have their own small budget: hundreds of them cannot lock
  out a bot that speaks, new or resuming.
* An answer is bound to its game: the right request id with another game's id is stale.
* Notices name the bot's own request ids; Welcome and GetStandings say what this arena
  schedules, and a bot with nothing to play here is told so.

(An undecodable message's MALFORMED Error and non-OK status: test_server_robustness.py,
``test_garbage_on_the_socket_and_undecodable_messages_do_not_hurt_the_server``.)
"""

from __future__ import annotations

import asyncio
import re
import selectors
import subprocess
import sys
import threading
from pathlib import Path

import grpc
import pytest
import trio

from arena.match.timecontrol import TimeControl
from server_helpers import HANG_GUARD_S, PLAY, AutoBot, RawBot, answer_for, blocking, hello, serve, virtual_clock
from mau_arena_sdk.wire import pb, rpc

Code = pb.Error.Code
SILENT = 500
ROOT = Path(__file__).resolve().parents[2]


class SilentStreams:
    """``count`` Play streams that never send a byte, on grpc.aio in a thread of their own.

    Each stream's first message (an eviction notice, SHUTTING_DOWN...) or final status is kept.
    """

    def __init__(self, port: int, count: int, channels: int = 5, answers_awaited: int = 0) -> None:
        self.port = port
        self.count = count
        self.channels = channels
        self.first: list = []
        self.opened = threading.Event()
        self.answers_awaited = answers_awaited
        self.enough_answered = threading.Event()    # set once that many streams got their first message
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._thread.start()

    async def _main(self) -> None:
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{self.port}") for _ in range(self.channels)]
        calls = []
        for i in range(self.count):
            play = channels[i % self.channels].stream_stream(
                PLAY, request_serializer=lambda m: m.SerializeToString(),
                response_deserializer=pb.ArenaMessage.FromString)
            calls.append(play())
        self.opened.set()

        async def first(call):
            try:
                message = await call.read()
                self.first.append(message if message is not grpc.aio.EOF else None)
            except grpc.RpcError as error:
                self.first.append(error.code())
            if self.answers_awaited and len(self.first) >= self.answers_awaited:
                self.enough_answered.set()

        await asyncio.gather(*(first(call) for call in calls))
        for channel in channels:
            await channel.close()

    def evicted(self) -> int:
        return sum(1 for m in self.first if isinstance(m, pb.ArenaMessage) and "need the room" in m.error.message)

    def join(self, timeout: float = 20.0) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "silent streams did not all end"


def test_hundreds_of_silent_streams_cannot_lock_out_a_new_or_a_resuming_bot(toy):
    async def director(handle):
        resumer = RawBot(handle.port, hello("resumer"))
        welcome = (await blocking(resumer.recv_kind, "welcome")).welcome
        seat = handle.seat("resumer", toy, "g1")            # a game running: it will want its seat back
        resumer.close()
        while handle.sessions():
            await handle.session_event()
        # Wait until the server has answered the streams beyond what it could ever hold (evicted, or
        # refused as over capacity before): the flood is really there.
        silent = SilentStreams(handle.port, SILENT, answers_awaited=SILENT - 256)
        assert await blocking(silent.enough_answered.wait, 20)
        newcomer = RawBot(handle.port, hello("newcomer"))
        new_welcome = await blocking(newcomer.recv_kind, "welcome", 5)
        back = RawBot(handle.port, hello("resumer", resume_session=welcome.session_id,
                                         resume_secret=welcome.resume_secret))
        resumed = (await blocking(back.recv_kind, "welcome", 5)).welcome
        names = sorted(s.name for s in handle.sessions())
        seat.release()
        newcomer.close()
        back.close()
        return new_welcome, resumed.session_id == welcome.session_id, names, silent

    # hello_timeout_s is long here: the bots get in because silent streams make room, not by timing out.
    new_welcome, same_session, names, silent = serve(director, hello_timeout_s=60, max_connections=16)
    silent.join()
    assert new_welcome.welcome.session_id and same_session
    assert names == ["newcomer", "resumer"]
    assert silent.evicted() >= SILENT - 64
    assert all(isinstance(m, pb.ArenaMessage) and m.error.code in (Code.BAD_HELLO, Code.SHUTTING_DOWN)
               for m in silent.first)


def test_a_silent_stream_is_dropped_after_the_hello_timeout_with_a_clear_error():
    async def director(handle):
        silent = SilentStreams(handle.port, 1, channels=1)
        await blocking(silent.join)
        return silent.first

    (first,) = serve(director, hello_timeout_s=0.3)
    assert first.error.code == Code.BAD_HELLO and "no Hello within 0.3 s" in first.error.message


def test_an_answer_naming_another_game_is_stale_and_never_applied(toy):
    """On a virtual clock, moved only once both games wait on their crossed answer: those two time out,
    and every other answer is in time however slow the machine."""
    control = TimeControl(move_ms=300, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=9, reconnect_ms=500)
    clock = virtual_clock()

    async def director(handle):
        bot = RawBot(handle.port, hello("x", max_games=2))
        others = [AutoBot(handle.port, "a", seed=1), AutoBot(handle.port, "b", seed=2)]
        await handle.wait_for_sessions(["x", "a", "b"], timeout_s=10)
        outcomes = {}

        async def play(opponent, game_id, seed):
            outcomes[game_id] = await handle.play_game(toy, {"hand": 3}, seed, ["x", opponent], control,
                                                       game_id=game_id)

        crossed, notices, ended, jumped = {}, [], 0, False
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, "a", "game-a", 1)
            nursery.start_soon(play, "b", "game-b", 2)
            while ended < 2:
                message = await blocking(bot.recv, HANG_GUARD_S)
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    turn = message.turn
                    reply = answer_for(turn)
                    if turn.game_id not in crossed:  # the first turn of each game: the other game's id
                        crossed[turn.game_id] = turn.request_id
                        reply.answer.game_id = "game-b" if turn.game_id == "game-a" else "game-a"
                    bot.send(reply)
                elif kind == "error":
                    notices.append(message.error)
                    if not jumped and sum(n.code == Code.STALE_REQUEST for n in notices) == 2:
                        # Both crossed answers were dropped, so both games wait on x's crossed turn:
                        # move past its limit and grace, once.
                        jumped = True
                        clock.jump(1.0)
                elif kind == "game_ended":
                    ended += 1
        bot.close()
        for other in others:
            await blocking(other.wait)
        return crossed, notices, outcomes

    crossed, notices, outcomes = serve(director, clock=clock)
    assert sorted(crossed) == ["game-a", "game-b"]
    for game_id, outcome in outcomes.items():
        x = outcome.seats[0]
        assert outcome.status == "finished"
        assert (x.timeouts, x.strikes, x.stale) == (1, 1, 1), (game_id, x)   # never applied: timed out
        codes = [(n.code, n.request_id) for n in notices if n.game_id == game_id]
        assert (Code.STALE_REQUEST, crossed[game_id]) in codes and (Code.TIMEOUT, crossed[game_id]) in codes


def _junk(turn: pb.TurnRequest) -> pb.BotMessage:
    """An answer to the bot's own open request, bound to a game that is not its: stale every time."""
    message = answer_for(turn)
    message.answer.game_id = "elsewhere"
    return message


def test_a_flood_of_answers_to_its_own_request_is_cut_off_and_a_resume_does_not_reset_it(toy):
    """The attack (found by a red-team run, Session 19): an admitted bot in a game sends answer after
    answer naming its own open request with another game's id.  Each one is stale, and each cost the
    games' loop a wake-up and a notice, with no limit: 3,800 a second from one Python client cut a
    ladder's other games to about half.  Beyond `MAX_STALE_ANSWERS` more than the requests it was sent
    the stream is cut off (MALFORMED); the count belongs to the session, so after a resume the next
    junk answer cuts it again; the other game plays to its end meanwhile."""
    from arena.server.bot_session import MAX_STALE_ANSWERS

    control = TimeControl(move_ms=300, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=9, reconnect_ms=500)
    clock = virtual_clock()  # no time passes while the flood is read: nobody times out

    async def director(handle):
        flooder = RawBot(handle.port, hello("x"))
        others = [AutoBot(handle.port, name, seed=i) for i, name in enumerate("acd")]
        await handle.wait_for_sessions(["x", "a", "c", "d"], timeout_s=10)
        welcome = (await blocking(flooder.recv_kind, "welcome")).welcome
        bystanders = {}

        async def bystanders_game():
            bystanders["outcome"] = await handle.play_game(toy, {"hand": 3}, 7, ["c", "d"], control, game_id="cd")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(handle.play_game, toy, {"hand": 3}, 5, ["x", "a"], control)
            turn = (await blocking(flooder.recv_kind, "turn")).turn
            for _ in range(MAX_STALE_ANSWERS + 100):
                flooder.send(_junk(turn))
            cut = await blocking(flooder.ended, HANG_GUARD_S)
            flooder.close()
            again = RawBot(handle.port, hello("x", resume_session=welcome.session_id,
                                              resume_secret=welcome.resume_secret))
            resumed = (await blocking(again.recv_kind, "welcome")).welcome
            again.send(_junk(turn))
            cut_again = await blocking(again.ended, HANG_GUARD_S)
            again.close()
            nursery.start_soon(bystanders_game)
            while "outcome" not in bystanders:
                await trio.sleep(0)  # the virtual clock stands still: this only lets the game's tasks run
            nursery.cancel_scope.cancel()
        for other in others[1:]:
            await blocking(other.wait)
        others[0].close()
        return welcome, cut, resumed, cut_again, bystanders["outcome"]

    welcome, cut, resumed, cut_again, outcome = serve(director, clock=clock)
    assert cut and cut[-1].error.code == Code.MALFORMED and "too many answers" in cut[-1].error.message
    assert resumed.session_id == welcome.session_id  # the same session, with its count
    errors = [m.error for m in cut_again if m.WhichOneof("kind") == "error"]
    assert errors and errors[-1].code == Code.MALFORMED and "too many answers" in errors[-1].message
    assert outcome.status == "finished"


def test_an_honest_bots_late_or_repeated_answers_one_a_request_are_never_cut_off(toy, monkeypatch):
    """The flood budget grows by one with every request sent: a bot that answers every request twice
    (the repeat is stale) plays its game to the end with no allowance at all, and one answer more is
    cut off."""
    import arena.server.bot_session

    monkeypatch.setattr(arena.server.bot_session, "MAX_STALE_ANSWERS", 0)
    control = TimeControl(move_ms=300, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=9, reconnect_ms=500)

    async def director(handle):
        bot = RawBot(handle.port, hello("twice"))
        other = AutoBot(handle.port, "a")
        await handle.wait_for_sessions(["twice", "a"], timeout_s=10)
        turns = stale = 0
        last = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handle.play_game, toy, {"hand": 3}, 3, ["twice", "a"], control)
            while True:
                message = await blocking(bot.recv, HANG_GUARD_S)
                assert message is not None, "cut off while answering once more per request only"
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    turns += 1
                    last = message.turn
                    bot.send(answer_for(last))
                    bot.send(answer_for(last))  # the same answer again: stale
                elif kind == "error" and message.error.code == Code.STALE_REQUEST:
                    stale += 1
                elif kind == "game_ended":
                    break
        bot.send(_junk(last))  # one more than the requests it was sent
        rest = await blocking(bot.ended, HANG_GUARD_S)
        bot.close()
        await blocking(other.wait)
        return turns, stale, rest

    turns, stale, rest = serve(director, clock=virtual_clock())
    assert turns >= 2 and stale >= 1
    assert rest and rest[-1].error.code == Code.MALFORMED and "too many answers" in rest[-1].error.message


def test_stale_notices_name_the_bots_own_request_ids_and_nothing_internal(toy):
    async def director(handle):
        # An earlier game moves the arena's internal decision count well past this bot's ids.
        warmers = [AutoBot(handle.port, name, seed=i) for i, name in enumerate(("p", "q"))]
        await handle.wait_for_sessions(["p", "q"], timeout_s=10)
        await handle.play_game(toy, {"hand": 8}, 3, ["p", "q"], FAST)
        for bot in warmers:
            await blocking(bot.wait)
        bot = RawBot(handle.port, hello("s"))
        other = AutoBot(handle.port, "other")
        await handle.wait_for_sessions(["s", "other"], timeout_s=10)
        seen_ids, stale = [], None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handle.play_game, toy, {"hand": 3}, 4, ["s", "other"], FAST)
            while True:
                message = await blocking(bot.recv)
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    seen_ids.append(message.turn.request_id)
                    bot.send(answer_for(message.turn))
                    if stale is None:
                        bot.send(answer_for(message.turn))      # the same answer again: stale
                elif kind == "error" and message.error.code == Code.STALE_REQUEST and stale is None:
                    stale = (message.error, list(seen_ids))
                elif kind == "game_ended":
                    break
        bot.close()
        await blocking(other.wait)
        return stale

    (notice, ids_so_far) = serve(director)
    numbers = {int(n) for n in re.findall(r"\d+", notice.message.replace(notice.game_id, ""))}
    assert notice.request_id == ids_so_far[0] and ids_so_far[0] in numbers
    assert numbers <= set(ids_so_far), notice.message


FAST = TimeControl(move_ms=2000, bank_ms=2000, increment_ms=0, first_move_ms=2000, max_strikes=3, reconnect_ms=3000)


def test_welcome_and_standings_report_what_the_arena_schedules_and_a_bot_with_nothing_to_play_is_told(toy):
    async def director(handle):
        handle.standings_provider = lambda ruleset: [{"name": "all", "rating": 1500.0}]
        every = RawBot(handle.port, hello("all"))                           # "every ruleset"
        both = RawBot(handle.port, hello("both", games=[toy, "moumou"]))
        other = RawBot(handle.port, hello("other", games=["moumou"]))       # known, but not scheduled here
        welcomes = [(await blocking(b.recv_kind, "welcome")).welcome for b in (every, both)]
        refused = (await blocking(other.recv_kind, "error")).error
        channel = grpc.insecure_channel(f"127.0.0.1:{handle.port}")
        stub = rpc.ArenaStub(channel)
        default = await blocking(stub.GetStandings, pb.StandingsRequest())
        with pytest.raises(grpc.RpcError) as unscheduled:
            await blocking(stub.GetStandings, pb.StandingsRequest(ruleset="moumou"))
        channel.close()
        for bot in (every, both, other):
            bot.close()
        return welcomes, refused, default, unscheduled.value, handle.rulesets

    welcomes, refused, default, unscheduled, rulesets = serve(director, rulesets=[toy])
    assert rulesets == [toy]
    assert [list(w.rulesets) for w in welcomes] == [[toy], [toy]]
    assert refused.code == Code.BAD_HELLO and f"schedules only {toy}" in refused.message
    assert "never get a game" in refused.message
    assert default.ruleset == toy and [s.name for s in default.standings] == ["all"]
    assert unscheduled.code() == grpc.StatusCode.NOT_FOUND and toy in unscheduled.details()


def test_arena_serve_tells_bots_its_game_selection_and_refuses_a_bot_with_nothing_to_play(tmp_path):
    """Through the CLI: `arena serve --game moumou` (a real ruleset) schedules moumou only."""
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--db", str(tmp_path / "ladder.db"),
         "--replays", str(tmp_path / "replays"), "--game", "moumou", "--plain", "--summary-every", "1000"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
    )
    try:
        line = ""
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while "listening on" not in line:
                assert selector.select(30), "arena serve did not say where it listens within 30 s"
                line = process.stdout.readline()
                assert line, "arena serve ended before listening"
        port = int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])
        every = RawBot(port, hello("every"))
        welcome = every.recv_kind("welcome").welcome
        lost = RawBot(port, hello("lost", games=["prsi"]))
        refused = lost.recv_kind("error").error
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            standings = rpc.ArenaStub(channel).GetStandings(pb.StandingsRequest(), timeout=10)
        for bot in (every, lost):
            bot.close()
    finally:
        process.kill()
        process.wait(10)
    assert list(welcome.rulesets) == ["moumou"]
    assert refused.code == Code.BAD_HELLO and "schedules only moumou" in refused.message
    assert standings.ruleset == "moumou"



def test_read_only_calls_from_one_address_are_held_to_a_pace_and_a_crowd_beyond_it_is_refused():
    """The attack: GetStandings and ListGames asked back to back (no Hello, no token needed), each answered on
    the games' loop: 16 clients doing it from one address halved a demo ladder's games.  A client that
    waits for its answers is now held to its address's pace (a burst, then so many a second); calls whose
    turn is too far away are refused at once, saying so."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    def ask(stub, n):
        try:
            if n % 2:
                stub.GetStandings(pb.StandingsRequest(), timeout=30)
            else:
                stub.ListGames(pb.ListGamesRequest(), timeout=30)
            return "ok", ""
        except grpc.RpcError as error:
            return error.code(), error.details()

    def one_by_one(port):
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = rpc.ArenaStub(channel)
            began = time.monotonic()
            return [ask(stub, n) for n in range(25)], time.monotonic() - began

    def crowd(port):
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel, ThreadPoolExecutor(30) as pool:
            stub = rpc.ArenaStub(channel)
            return list(pool.map(lambda n: ask(stub, n), range(30)))

    def attack(flood):
        async def director(handle):
            return await blocking(flood, handle.port)

        return serve(director, reads_per_second=10.0, reads_burst=5, reads_max_wait_s=1.0)

    (one_by_one, paced_s), crowd = attack(one_by_one), attack(crowd)
    assert [code for code, _ in one_by_one] == ["ok"] * 25  # waited for its turns: every call answered ...
    assert paced_s >= (25 - 5) / 10.0 * 0.95                 # ... at the pace, after the burst
    refused = [details for code, details in crowd if code == grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert len(refused) >= 30 - (5 + 10 + 5) and len(refused) + sum(code == "ok" for code, _ in crowd) == 30
    assert all("too many read-only calls from this address" in details for details in refused)


def test_the_read_pace_is_a_bucket_per_address_that_refills():
    from arena.server.readpace import ReadPace

    now = [0.0]
    pace = ReadPace(per_second=10, burst=3, max_wait_s=0.25, clock=lambda: now[0])
    turns = [pace.turn_s("a") for _ in range(7)]
    other = pace.turn_s("b")
    now[0] += 1.0
    refilled = pace.turn_s("a")
    polling = []
    for _ in range(20):  # a dashboard asking every second never waits
        now[0] += 1.0
        polling.append(pace.turn_s("a"))
    assert turns[:3] == [0, 0, 0] and turns[3:5] == [pytest.approx(0.1), pytest.approx(0.2)]
    assert turns[5:] == [None, None]  # too far away: refused, and nothing taken
    assert other == 0 and refilled == 0 and set(polling) == {0} and (pace.held, pace.refused) == (2, 2)


def test_a_list_of_many_games_costs_its_address_a_read_turn_per_fifty_games():
    """ListGames of 1,000 games took one turn of the address's read pace, as a list of one did (the web's
    /api/v1/games already cost a turn per 50 games): a reader could ask for 40,000 games' summaries at once."""
    burst = 40

    def left_after(limit: int, port: int) -> int:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = rpc.ArenaStub(channel)
            stub.ListGames(pb.ListGamesRequest(limit=limit), timeout=HANG_GUARD_S)
            for count in range(burst + 1):
                try:
                    stub.ListGames(pb.ListGamesRequest(limit=1), timeout=HANG_GUARD_S)
                except grpc.RpcError as error:
                    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
                    return count
        return burst + 1

    left = {}
    for limit in (1, 1000):
        async def director(handle):
            return await blocking(left_after, limit, handle.port)

        left[limit] = serve(director, reads_per_second=1e-6, reads_burst=burst, reads_max_wait_s=0)
    assert left == {1: burst - 1, 1000: burst - 20}
