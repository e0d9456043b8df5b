"""The protocol as the .proto states it, checked against a real server with raw gRPC clients.

A bot in another language has only arena.proto and the docs; these tests hold the server to what
that file says: the protocol version in Hello, the Answer rule (the index decides, the text is
optional and checked), the structured legal actions, GameEnded's status, and every Error code's
tag ("ends the stream" or "notice").
"""

from __future__ import annotations

import re
from pathlib import Path

import trio

from arena.match.timecontrol import TimeControl
from arena.server.errors import ENDS_STREAM, NOTICE, STREAM_EFFECT
from server_helpers import RawBot, answer_for, blocking, serve
from mau_arena_sdk.wire import pb

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto" / "mauarena" / "v1" / "arena.proto"
Code = pb.Error.Code
CONTROL = TimeControl(move_ms=2000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=9)


def raw_hello(name: str, **fields) -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(name=name, **fields))


def test_every_error_code_is_tagged_in_the_proto_as_the_server_table_says():
    tags = {}
    for line in PROTO.read_text().splitlines():
        found = re.match(r"\s*([A-Z_]+) = \d+;\s*//(.*)", line)
        if found and found.group(1) in Code.keys():
            tags[found.group(1)] = {tag for tag in (ENDS_STREAM, NOTICE) if f"[{tag}]" in found.group(2)}
    assert set(tags) == set(Code.keys()) == set(STREAM_EFFECT)
    assert tags == {code: set(effect) for code, effect in STREAM_EFFECT.items()}


def test_a_client_that_names_the_protocol_needs_no_sdk_version_and_an_unknown_protocol_ends_the_stream():
    async def director(handle):
        other_language = await blocking(lambda: RawBot(handle.port, raw_hello("js", protocol=pb.PROTOCOL_V1,
                                                                              sdk_version="")))
        welcome = await blocking(other_language.recv_kind, "welcome")
        future = await blocking(lambda: RawBot(handle.port, raw_hello("future", protocol=7, sdk_version="9.0.0")))
        refused = await blocking(future.ended)
        legacy = await blocking(lambda: RawBot(handle.port, raw_hello("legacy", sdk_version="0.1.0")))
        legacy_welcome = await blocking(legacy.recv_kind, "welcome")
        nameless = await blocking(lambda: RawBot(handle.port, raw_hello("nameless", sdk_version="")))
        unversioned = await blocking(nameless.ended)
        for bot in (other_language, future, legacy, nameless):
            bot.close()
        return welcome, refused, legacy_welcome, unversioned

    welcome, refused, legacy_welcome, unversioned = serve(director)
    assert welcome.welcome.protocol == pb.PROTOCOL_V1 and legacy_welcome.welcome.protocol == pb.PROTOCOL_V1
    assert [m.error.code for m in refused] == [Code.UNSUPPORTED_VERSION]           # [ends the stream]
    assert "protocol 7 is not spoken here" in refused[0].error.message and "PROTOCOL_V1" in refused[0].error.message
    assert [m.error.code for m in unversioned] == [Code.UNSUPPORTED_VERSION]       # no protocol: the SDK rule
    assert "Hello.protocol = PROTOCOL_V1" in unversioned[0].error.message


def test_index_only_answers_structured_actions_notices_that_keep_the_stream_and_the_game_status(toy):
    """One game against a raw client that answers with the index alone, sends a second Hello and an
    empty message on the way (each a notice: the game goes on), and reads the structured actions."""

    async def director(handle):
        bot = await blocking(lambda: RawBot(handle.port, raw_hello("raw", protocol=pb.PROTOCOL_V1)))
        other = await blocking(lambda: RawBot(handle.port, raw_hello("other", protocol=pb.PROTOCOL_V1)))
        await handle.wait_for_sessions(["raw", "other"], timeout_s=10)
        seen = {"turns": [], "notices": [], "ended": None}

        def play(client, record):
            first = True
            while (message := client.recv(30)) is not None:
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    turn = message.turn
                    if record:
                        seen["turns"].append(turn)
                        if first:  # a second Hello and an empty message: notices, nothing more
                            client.send(raw_hello("raw", protocol=pb.PROTOCOL_V1))
                            client.send(pb.BotMessage())
                            first = False
                        client.send(pb.BotMessage(answer=pb.Answer(game_id=turn.game_id, request_id=turn.request_id,
                                                                   action_index=len(turn.legal) - 1)))
                    else:
                        client.send(answer_for(turn))
                elif kind == "error" and record:
                    seen["notices"].append(message.error)
                elif kind == "game_ended":
                    if record:
                        seen["ended"] = message.game_ended
                    return

        async with trio.open_nursery() as nursery:
            nursery.start_soon(blocking, play, bot, True)
            nursery.start_soon(blocking, play, other, False)
            outcome = await handle.play_game(toy, {"hand": 3}, 5, ["raw", "other"], CONTROL, game_id="contract-1")
        bot.close()
        other.close()
        return seen, outcome

    seen, outcome = serve(director)
    raw = outcome.seats[0]
    assert outcome.status == "finished" and raw.strikes == 0 and raw.decisions == len(seen["turns"]) > 1
    assert sorted(n.code for n in seen["notices"]) == [Code.BAD_HELLO, Code.MALFORMED]  # [notice]: the game went on
    for turn in seen["turns"]:
        assert [a.text for a in turn.legal_actions] == list(turn.legal)
        for action in turn.legal_actions:
            assert " ".join([action.verb, *action.args]) == action.text
            assert set(action.cards) <= set(action.args)
    assert any(action.cards for turn in seen["turns"] for action in turn.legal_actions)
    assert seen["ended"].status == pb.GameEnded.FINISHED and seen["ended"].game_id == "contract-1"


def test_the_sdk_reads_the_game_status_and_sends_the_protocol_version():
    from mau_arena_sdk import ClientOptions
    from mau_arena_sdk.client import Client
    from mau_arena_sdk.turn import GameResult

    assert GameResult.from_pb(pb.GameEnded(game_id="g", status=pb.GameEnded.ABORTED)).status == "aborted"
    assert GameResult.from_pb(pb.GameEnded(game_id="g", status=pb.GameEnded.FINISHED)).status == "finished"
    assert GameResult.from_pb(pb.GameEnded(game_id="g")).status == ""  # an older arena: read the reason
    hello = Client(object(), ClientOptions(arena="127.0.0.1:1", name="b"))._hello().hello
    assert hello.protocol == pb.PROTOCOL_V1
