"""Whole games through the gRPC path: privacy of what a bot receives, spectators, stale answers, resume."""

from __future__ import annotations

import json
import struct

import grpc
import pytest
import trio
from google.protobuf.json_format import MessageToDict

from arena import games
from arena.match.timecontrol import TimeControl
from arena.messages import observation_to_pb, public_event_to_pb
from server_helpers import HANG_GUARD_S, AutoBot, RawBot, answer_for, blocking, hello, serve, virtual_clock
from mau_arena_sdk.wire import pb, rpc

SEED = 7_777_777_777_123
FAST = TimeControl(move_ms=2000, bank_ms=2000, increment_ms=0, first_move_ms=2000, max_strikes=3, reconnect_ms=3000)


class ListRecorder:
    """Collects the runner's decisions (seat, action text) to re-simulate the game."""

    def __init__(self):
        self.decisions = []
        self.finished = None

    def decision(self, seat, action_text, think_ms, timeout, strike, state_hash, bot_error=""):
        self.decisions.append((seat, action_text))

    def finish(self, record):
        self.finished = record

    def abort(self, reason):
        self.finished = {"aborted": reason}


def strings_in(message: pb.ArenaMessage) -> set[str]:
    """Every word of every string in a message (the JSON details decoded and searched too)."""
    data = MessageToDict(message)
    view = data.get("turn", {}).get("observation", {})
    if view.get("detailsJson"):
        view["detailsJson"] = json.loads(view["detailsJson"])
    return words_in(data)


def words_in(data) -> set[str]:
    """Every word of every string (and key) in nested JSON-like data."""
    words: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                words.update(str(key).split())
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            words.update(value.split())

    walk(data)
    return words


def seed_encodings(seed: int) -> list[bytes]:
    varint, n = bytearray(), seed
    while True:
        byte, n = n & 0x7F, n >> 7
        varint.append(byte | (0x80 if n else 0))
        if not n:
            break
    return [str(seed).encode(), bytes(varint), struct.pack("<q", seed), struct.pack(">q", seed),
            format(seed, "x").encode(), json.dumps(float(seed)).encode()]


def assert_nothing_hidden_reached(bot: RawBot, seat: int, ruleset: str, options: dict, recorder: ListRecorder,
                                  players: int) -> int:
    """Re-simulate the game; at each TurnRequest the others' hands (minus what this seat may see) must not appear.

    A request's public events name cards played earlier, which may be back in a hand by now (a recycled
    pile): they must be exactly the engine's public events since the seat's previous request (which the
    property tests check for hidden cards, tests/games/test_properties.py), and the rest of the message
    must name no card hidden at its moment."""
    state = games.new_game(ruleset, players, SEED, **options)
    try:
        log = state.record_events()
    except NotImplementedError:  # an engine without public events: its requests carry none
        log = []
    sent = 0

    def hidden_now() -> set[str]:
        visible = words_in(state.observation(seat).to_dict())  # a second deck's twin of a card is not a leak
        others = set()
        for other in range(players):
            if other != seat:
                others.update(state.observation(other)["hand"] or [])
        return others - visible

    hidden_at_start = hidden_now()
    hidden_at_turns, expected_turns = [], []
    for decision_seat, action in recorder.decisions:
        if decision_seat == seat:
            hidden_at_turns.append(hidden_now())
            expected_turns.append((state.observation(seat), [str(a) for a in state.legal_actions()], log[sent:]))
            sent = len(log)
        state.apply(action)
    hidden_at_end = hidden_now()
    checked = 0
    turns, expected = iter(hidden_at_turns), iter(expected_turns)
    hidden = hidden_at_start  # cards move (recycled piles), so "hidden" is judged at each message's moment
    for data in bot.received_bytes:
        for encoding in seed_encodings(SEED):
            assert encoding not in data, f"the seed ({encoding!r}) reached {seat}"
        message = pb.ArenaMessage.FromString(data)
        kind = message.WhichOneof("kind")
        if kind == "turn":
            hidden = next(turns)
            observation, legal, events = next(expected)  # exactly the engine's view for this seat, nothing added
            names = [view.name for view in message.turn.observation.seats]
            assert message.turn.observation == observation_to_pb(observation, names)
            assert list(message.turn.legal) == legal
            assert list(message.turn.events) == [public_event_to_pb(event) for event in events]
            del message.turn.events[:]
            # DD MAU: `declare LM` names the power an MM stands for, whose code is also a card's (as the property
            # tests' declare events): not a card, so those legal actions (exactly the engine's, above) are not read.
            kept = [a for a in message.turn.legal_actions if a.verb != "declare"]
            del message.turn.legal_actions[:]
            message.turn.legal_actions.extend(kept)
            kept_texts = [t for t in message.turn.legal if not t.startswith("declare ")]
            del message.turn.legal[:]
            message.turn.legal.extend(kept_texts)
        elif kind == "game_ended":
            hidden = hidden_at_end
        elif kind == "game_started":
            # The facts name the whole deck: they must be exactly the engine's pure function of (ruleset,
            # players, options), the same for every deal, so they carry nothing about this one.
            facts = json.loads(message.game_started.facts_json)
            assert facts == games.ruleset_facts(ruleset, players, **options)
            message.game_started.facts_json = ""
        leaked = strings_in(message) & hidden
        assert not leaked, f"hidden cards {leaked} reached seat {seat} in {message}"
        checked += 1
    assert next(turns, None) is None
    return checked


def play_with_autobots(ruleset: str, options: dict, names=("alice", "bob"), **runner_options):
    recorder = ListRecorder()

    async def director(handle):
        bots = [AutoBot(handle.port, name, seed=i) for i, name in enumerate(names)]
        await handle.wait_for_sessions(list(names), timeout_s=10)
        outcome = await handle.play_game(ruleset, options, SEED, list(names), FAST, recorder=recorder,
                                         **runner_options)
        listed = handle.games()
        for bot in bots:
            await blocking(bot.wait)
        return outcome, bots, listed

    outcome, bots, listed = serve(director)
    return outcome, bots, listed, recorder


def test_a_whole_game_reaches_each_bot_without_hidden_cards_or_the_seed(toy):
    options = {"hand": 8}
    outcome, bots, listed, recorder = play_with_autobots(toy, options)
    assert outcome.status == "finished" and recorder.finished is not None
    assert sorted(s.placement for s in outcome.seats) == [1, 2]
    assert all(s.strikes == 0 for s in outcome.seats)
    for seat, bot in enumerate(bots):
        kinds = [m.WhichOneof("kind") for m in bot.log]
        assert kinds[0] == "welcome" and kinds[1] == "game_started" and kinds[-1] == "game_ended"
        assert kinds.count("turn") == sum(1 for s, _ in recorder.decisions if s == seat)
        assert assert_nothing_hidden_reached(bot, seat, toy, options, recorder, 2) == len(bot.received_bytes)
    ended = bots[0].log[-1].game_ended
    assert [r.name for r in ended.results] == ["alice", "bob"] and ended.reason
    (summary,) = listed
    assert summary.status == "finished" and summary.players == ["alice", "bob"]


REAL_RULESETS = [name for name in games.rulesets() if not name.startswith("test-")]


@pytest.mark.skipif(not REAL_RULESETS, reason="no real ruleset is registered yet (arena/games/)")
@pytest.mark.parametrize("ruleset", REAL_RULESETS)
def test_real_ruleset_games_leak_nothing_either(ruleset):
    """Up to 200 decisions of every real ruleset, three seats where the ruleset allows."""
    info = games.ruleset_info(ruleset)
    players = min(max(3, info.min_players), info.max_players)
    names = ("alice", "bob", "carol", "dave", "erin", "frank")[:players]
    outcome, bots, listed, recorder = play_with_autobots(ruleset, {}, names, max_decisions=200)
    assert outcome.status == "finished" or "max_decisions" in outcome.reason, outcome.reason
    for seat, bot in enumerate(bots):
        assert assert_nothing_hidden_reached(bot, seat, ruleset, {}, recorder, players) > 2


def test_a_turn_request_carries_the_engine_observation_and_the_time_left(toy):
    async def director(handle):
        bot = RawBot(handle.port, hello("solo"))
        other = AutoBot(handle.port, "other")
        await handle.wait_for_sessions(["solo", "other"], timeout_s=10)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handle.play_game, toy, {"hand": 3}, SEED, ["solo", "other"], FAST)
            started = (await blocking(bot.recv_kind, "game_started")).game_started
            turn = (await blocking(bot.recv_kind, "turn")).turn
            nursery.cancel_scope.cancel()
        bot.close()
        other.close()
        return started, turn

    started, turn = serve(director)
    assert started.ruleset == toy and started.players == ["solo", "other"] and started.seat == 0
    assert started.options == {"hand": "3"} and started.time_control.move_ms == 2000
    expected = games.new_game(toy, 2, SEED, hand=3).observation(0).to_dict()
    view = turn.observation
    assert list(view.hand) == expected["hand"] and view.seat == 0 and view.current == 0
    assert [s.hand_size for s in view.seats] == [3, 3] and [s.name for s in view.seats] == ["solo", "other"]
    assert json.loads(view.details_json) == {"round": 1}
    assert list(turn.legal) == [f"play {c}" for c in expected["hand"]]
    assert turn.time.move_ms == 4000 and turn.time.bank_ms == 2000  # first-move allowance included


def test_spectators_list_games_and_standings_answer(toy):
    async def director(handle):
        handle.standings_provider = lambda ruleset: [
            {"name": "alice", "rating": 1510.5, "ci_low": 1400, "ci_high": 1600, "games": 3, "wins": 2},
            {"name": "ghost", "rating": 1490.0, "games": 1},
        ]
        bots = [AutoBot(handle.port, name, seed=i, delay_s=0.002) for i, name in enumerate(("alice", "bob"))]
        await handle.wait_for_sessions(["alice", "bob"], timeout_s=10)
        channel = grpc.insecure_channel(f"127.0.0.1:{handle.port}")
        stub = rpc.ArenaStub(channel)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handle.play_game, toy, {"hand": 6}, SEED, ["alice", "bob"], FAST, None, "game-1")
            while not handle.games(live_only=True):
                await trio.sleep(0.001)  # the game registers on its first step
            live = await blocking(stub.ListGames, pb.ListGamesRequest(live_only=True))
            standings = await blocking(stub.GetStandings, pb.StandingsRequest(ruleset=toy))
            events = await blocking(lambda: list(stub.Spectate(pb.SpectateRequest(game_id="game-1"), timeout=20)))
        finished = await blocking(stub.ListGames, pb.ListGamesRequest())
        late_events = await blocking(lambda: list(stub.Spectate(pb.SpectateRequest(game_id="game-1"), timeout=20)))
        with pytest.raises(grpc.RpcError) as missing:
            await blocking(lambda: list(stub.Spectate(pb.SpectateRequest(game_id="nope"), timeout=5)))
        channel.close()
        for bot in bots:
            await blocking(bot.wait)
        return live, events, standings, finished, late_events, missing.value.code()

    live, events, standings, finished, late_events, missing = serve(director)
    assert [g.game_id for g in live.games] == ["game-1"] and live.games[0].status == "running"
    assert events[0].index == 0 and events[0].seat == -1
    assert [e.index for e in events] == list(range(len(events)))
    assert all(e.view.seat == -1 and not e.view.hand for e in events[:-1])
    assert events[-1].ended.results and events[-1].ended.game_id == "game-1"
    assert late_events == events  # a late spectator gets the whole game
    assert standings.ruleset == toy
    assert [(s.name, s.rating, s.games, s.connected) for s in standings.standings] == [
        ("alice", 1510.5, 3, True), ("ghost", 1490.0, 1, False)]
    assert finished.games[0].status == "finished" and finished.games[0].decisions == len(events) - 2
    assert missing == grpc.StatusCode.NOT_FOUND


def test_late_and_repeated_answers_are_dropped_as_stale_and_a_timeout_is_reported(toy):
    """On a virtual clock: the first turn times out when the test moves time past it, and no other
    answer can be late however slow the machine (no time passes while the bots answer)."""
    control = TimeControl(move_ms=150, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=5, reconnect_ms=500)
    clock = virtual_clock()

    async def director(handle):
        bot = RawBot(handle.port, hello("slow"))
        other = AutoBot(handle.port, "other")
        await handle.wait_for_sessions(["slow", "other"], timeout_s=10)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handle.play_game, toy, {"hand": 3}, SEED, ["slow", "other"], control)
            first = (await blocking(bot.recv_kind, "turn")).turn
            clock.jump(1.0)                                                 # past the limit and the late grace
            timeout = (await blocking(bot.recv_kind, "error")).error       # no answer: the default is played
            bot.send(answer_for(first))                                     # too late
            second = (await blocking(bot.recv_kind, "turn")).turn
            bot.send(answer_for(second))
            bot.send(answer_for(second))                                    # the same answer twice
            bot.send(pb.BotMessage(answer=pb.Answer(game_id=second.game_id, request_id=999_999)))
            errors, seen = [], []
            while len(errors) < 3:
                try:
                    message = await blocking(bot.recv, HANG_GUARD_S)
                except Exception:
                    raise AssertionError(f"{first} {timeout} {second} {seen}")
                seen.append(message)
                assert message is not None, seen
                if message.WhichOneof("kind") == "error":
                    errors.append(message.error)
                if message.WhichOneof("kind") == "turn":
                    bot.send(answer_for(message.turn))
            nursery.cancel_scope.cancel()
        bot.close()
        other.close()
        return first, timeout, second, errors

    first, timeout, second, errors = serve(director, clock=clock)
    assert timeout.code == pb.Error.TIMEOUT and timeout.request_id == first.request_id
    assert second.request_id > first.request_id
    codes = sorted((e.code, e.request_id) for e in errors)
    assert codes == sorted([(pb.Error.STALE_REQUEST, first.request_id), (pb.Error.STALE_REQUEST, second.request_id),
                            (pb.Error.STALE_REQUEST, 999_999)])


def test_a_bot_that_drops_resumes_its_session_and_finishes_the_game(toy):
    async def director(handle):
        bot = RawBot(handle.port, hello("phoenix"))
        first = (await blocking(bot.recv_kind, "welcome")).welcome
        session_id = first.session_id
        other = AutoBot(handle.port, "other")
        await handle.wait_for_sessions(["phoenix", "other"], timeout_s=10)
        async with trio.open_nursery() as nursery:
            results = []

            async def play():
                results.append(await handle.play_game(toy, {"hand": 3}, SEED, ["phoenix", "other"], FAST))

            nursery.start_soon(play)
            turn = (await blocking(bot.recv_kind, "turn")).turn
            bot.close()                                       # the bot drops mid-decision
            while "phoenix" in [s.name for s in handle.sessions()]:
                await handle.session_event()
            back = RawBot(handle.port, hello("phoenix", resume_session=session_id, resume_secret=first.resume_secret))
            welcome = (await blocking(back.recv_kind, "welcome")).welcome
            again = (await blocking(back.recv_kind, "game_started")).game_started
            while True:
                message = await blocking(back.recv)
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    back.send(answer_for(message.turn))
                if kind == "game_ended":
                    break
        back.close()
        await blocking(other.wait)
        return session_id, welcome, again, turn, results[0]

    session_id, welcome, again, turn, outcome = serve(director)
    assert welcome.session_id == session_id and again.game_id == turn.game_id
    assert outcome.status == "finished"
    phoenix = outcome.seats[0]
    assert phoenix.disconnects == 1 and phoenix.strikes == 0


def test_old_finished_games_keep_only_their_final_event():
    from arena.match.outcome import GameOutcome, SeatOutcome
    from arena.server.live import LiveGames

    class State:
        def observation(self, seat):
            return {"ruleset": "toy", "seat": None, "seat_count": 2, "hand": None}

    live = LiveGames(finished_kept=3, replayable_kept=1)
    for number in range(5):
        game = live.start(f"g{number}", "toy", ["a", "b"])
        for index in range(4):
            live.record(game, index, index % 2 - 1 if index else -1, "play 7h" if index else "", State())
        live.finish(game, GameOutcome(f"g{number}", "toy", {}, 1, "finished",
                                      [SeatOutcome(0, "a", 1), SeatOutcome(1, "b", 2)], decisions=3))
    assert [g.game_id for g in live.summaries()] == ["g4", "g3", "g2"]
    assert [len(live.get(g).events) for g in ("g2", "g3", "g4")] == [1, 1, 5]
    (last,) = live.get("g3").backlog()
    assert last.ended.game_id == "g3" and [r.placement for r in last.ended.results] == [1, 2]


def test_finished_games_are_forgotten_in_the_order_they_finished_and_running_ones_never():
    """Games finish out of start order while others still run: exactly ``finished_kept`` finished
    games stay listed (the latest to finish), the latest ``replayable_kept`` of them keep every
    event, and no running game is dropped, however many games come and go."""
    from arena.server.live import LiveGames

    class State:
        def observation(self, seat):
            return {"ruleset": "toy", "seat": None, "seat_count": 2, "hand": None}

    live = LiveGames(finished_kept=4, replayable_kept=2)
    running = {}
    finished_order = []
    for number in range(300):
        game = running[number] = live.start(f"g{number}", "toy", ["a", "b"])
        live.record(game, 0, -1, "", State())
        live.record(game, 1, 0, "play 7h", State())
        if number % 3 == 2:  # finish the two oldest running games, newest first
            for old in sorted(running)[:2][::-1]:
                live.finish(running.pop(old), status="aborted")
                finished_order.append(f"g{old}")
        listed = {g.game_id for g in live.summaries(limit=10_000)}
        kept = finished_order[-4:]
        assert listed == {f"g{n}" for n in running} | set(kept)
        assert [len(live.get(g).events) for g in kept] == [1] * (len(kept) - 2) + [3, 3][:len(kept)]

    latest = LiveGames(finished_kept=1, replayable_kept=1)
    first, second = latest.start("first", "toy", ["a", "b"]), latest.start("second", "toy", ["a", "b"])
    latest.finish(second, status="aborted")
    latest.finish(first, status="aborted")
    assert [g.game_id for g in latest.summaries()] == ["first"]  # the last to finish, not the last to start


def test_a_very_long_game_keeps_its_start_and_latest_events_only(monkeypatch):
    from arena.server import live as live_module

    class State:
        def observation(self, seat):
            return {"ruleset": "toy", "seat": None, "seat_count": 2, "hand": None}

    monkeypatch.setattr(live_module, "MAX_EVENTS_KEPT", 10)
    games = live_module.LiveGames()
    game = games.start("long", "toy", ["a", "b"])
    for index in range(25):
        games.record(game, index, 0, "x", State())
    indexes = [event.index for event in game.backlog()]
    assert indexes[0] == 0 and indexes[-1] == 24 and len(indexes) <= 10
    assert indexes == sorted(indexes)


def test_a_spectator_sees_the_public_events_and_never_a_face_down_card():
    """The attack: watch a Blind game over Spectate (a raw gRPC client on a real server) and look for
    the real card of a face-down play.  The action text was the seat's own (``blind Kd 7h``) until
    0.2; now it is the public form (``blind ?? 7h``), and each event carries the engine's public
    events of that decision, exactly."""
    names = ("alice", "bob", "carol")
    recorder = ListRecorder()

    async def director(handle):
        bots = [AutoBot(handle.port, name, seed=i) for i, name in enumerate(names)]
        await handle.wait_for_sessions(list(names), timeout_s=10)
        await handle.play_game("maumau", {"blind": True}, SEED, list(names), FAST, recorder, "blind-1",
                               max_decisions=300)
        channel = grpc.insecure_channel(f"127.0.0.1:{handle.port}")
        watched = await blocking(lambda: list(rpc.ArenaStub(channel).Spectate(
            pb.SpectateRequest(game_id="blind-1"), timeout=20)))
        channel.close()
        for bot in bots:
            await blocking(bot.wait)
        return watched

    watched = serve(director)
    state = games.new_game("maumau", 3, SEED, blind=True)
    log = state.record_events()
    assert list(watched[0].events) == [public_event_to_pb(e) for e in log]
    blind_plays = 0
    for event, (seat, action) in zip(watched[1:], recorder.decisions):
        before = len(log)
        state.apply(action)
        assert event.seat == seat and list(event.events) == [public_event_to_pb(e) for e in log[before:]]
        verb, *args = action.split()
        if verb == "blind":
            blind_plays += 1
            real, claim = args
            assert event.action == f"blind ?? {claim}"
            if real != claim:
                assert real not in strings_in(event), f"the face-down {real} reached a spectator: {event}"
        else:
            assert event.action == action
    assert blind_plays > 0
