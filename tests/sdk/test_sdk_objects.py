"""The SDK's typed objects built from protocol messages, and the bot command-line flags."""

from __future__ import annotations

import pytest

from mau_arena_sdk import Action, ActionParseError, ClientOptions, GameInfo, GameResult, Observation, Turn
from mau_arena_sdk.flags import parse_flags
from mau_arena_sdk.wire import pb
from sdk_fake_arena import game_ended, game_started, turn


def test_every_engine_card_code_is_a_card_to_the_sdk():
    """DD MAU plays once had no cards in the SDK: bots that prefer plays by their cards drew for ever."""
    from arena import games
    from arena.games.cards import is_card_code as engine_says
    from mau_arena_sdk.actions import is_card_code as sdk_says

    assert Action.parse("play PT-r R12 JTT").cards == ("PT-r", "R12", "JTT")
    assert Action.parse("declare PT").cards == () and Action.parse("color r").cards == ()
    for ruleset in games.rulesets():
        info = games.ruleset_info(ruleset)
        state = games.new_game(ruleset, players=info.min_players, seed=1)
        position = state.to_position()
        cards = [c for hand in position["hands"] for c in hand] + list(position["discard"]) + list(position["stock"])
        codes = {c for c in cards if isinstance(c, str)}
        assert codes and all(sdk_says(c) == engine_says(c) == True for c in codes), ruleset  # noqa: E712


def test_action_text_round_trip_and_cards():
    action = Action.parse("  PLAY 7h Td X1 ")
    assert action == Action("play", ("7h", "Td", "X1"))
    assert str(action) == action.text == "play 7h Td X1"
    assert action.cards == ("7h", "Td", "X1")
    assert Action.parse("accuse 2").cards == () and Action.parse("suit h").cards == ()
    assert Action.parse("meld Tc 2h:Jc Qc").cards == ("Tc", "2h", "Qc")  # a wild counts as its own card
    assert Action.parse(action) is action
    with pytest.raises(AttributeError):
        action.verb = "draw"  # immutable
    for bad in ("", "7h", "play 7h;"):
        with pytest.raises(ActionParseError):
            Action.parse(bad)


def test_turn_from_a_turn_request():
    message = turn("g7", 12, ["play 7h", "play Kc", "draw"], hand=("7h", "Kc", "9s"), discard=("8h", "9h"),
                   details={"active_suit": "h", "pending": {"kind": "draw", "amount": 2}, "seen": [1, 2.5]}).turn
    t = Turn.from_pb(message)
    assert (t.game_id, t.request_id, t.seat, t.ruleset) == ("g7", 12, 0, "moumou")
    assert t.legal == (Action.parse("play 7h"), Action.parse("play Kc"), Action("draw"))
    assert (t.time_left_ms, t.bank_ms) == (900, 4000)
    assert t.legal_with("play") == [Action.parse("play 7h"), Action.parse("play Kc")]
    obs = t.observation
    assert obs.hand == ("7h", "Kc", "9s") and obs.top == "9h" and obs["discard"] == ("8h", "9h")
    assert obs.active_suit == "h" and obs["active_suit"] == "h" and obs.get("nothing", 3) == 3
    assert obs.pending["amount"] == 2 and isinstance(obs.pending["amount"], int)  # Struct doubles -> int
    assert obs.seen == (1, 2.5)
    assert obs.names == ("me", "other") and obs.seat_count == 2 and obs.hand_sizes == (3, 4)
    assert obs.seats[1].name == "other" and obs.seats[1].hand_size == 4
    assert obs.current == 0 and obs.decision == "turn" and obs.stock_size == 20
    assert obs.to_dict()["pending"] == {"kind": "draw", "amount": 2}
    assert obs.to_dict()["seats"][0] == {"seat": 0, "name": "me", "hand_size": 3, "score": 0, "status": "active"}
    with pytest.raises(AttributeError, match="has no 'nothing'"):
        obs.nothing
    with pytest.raises(AttributeError):
        obs.hand = ()


def test_spectator_and_game_over_seats_are_none():
    obs = Observation.from_pb(pb.Observation(ruleset="moumou", seat=-1, current=-1))
    assert obs.seat is None and obs.current is None and obs.top is None and obs.hand == ()


def test_index_of_accepts_action_text_or_index_and_explains_refusals():
    t = Turn.from_pb(turn("g", 1, ["draw", "play 7h"]).turn)
    assert t.index_of(Action.parse("play 7h")) == 1 and t.index_of("play 7h") == 1 and t.index_of(0) == 0
    with pytest.raises(ValueError, match="'play 9s', which is not legal here; legal: draw, play 7h"):
        t.index_of("play 9s")
    with pytest.raises(ValueError, match="index 5"):
        t.index_of(5)
    with pytest.raises(ValueError, match="NoneType"):
        t.index_of(None)


def test_game_info_and_result():
    info = GameInfo.from_pb(game_started("g1", seat=1).game_started)
    assert info.seat == 1 and info.players == ("me", "other") and info.time_control.move_ms == 1000
    result = GameResult.from_pb(game_ended("g1", placements=(2, 1)).game_ended, seat=1)
    assert result.won and result.placement == 1 and result.mine.name == "other" and result.seats[0].points == 10


def test_flags_override_code_defaults(monkeypatch):
    monkeypatch.delenv("MAU_ARENA_TOKEN", raising=False)
    defaults = ClientOptions(name="coded", arena="10.0.0.1:1", max_games=1)
    options, level = parse_flags(
        ["--arena", "127.0.0.1:6000", "--games", "moumou, maumau", "--parallel", "4", "--games-limit", "2",
         "--log-level", "debug"],
        defaults,
    )
    assert (options.arena, options.name, options.games, options.max_games, options.games_limit) == (
        "127.0.0.1:6000", "coded", ["moumou", "maumau"], 4, 2)
    assert level == "DEBUG"
    assert defaults.arena == "10.0.0.1:1"  # the defaults object is not changed
    monkeypatch.setenv("MAU_ARENA_TOKEN", "s3cret")
    assert parse_flags([], defaults)[0].token == "s3cret"


def test_help_names_the_arena_address_used_without_the_flag(capsys):
    """--help shows where the bot connects when --arena is not given: the SDK's default, or the bot's own."""
    for defaults, address in ((ClientOptions(name="x"), "127.0.0.1:50051"),
                              (ClientOptions(name="x", arena="10.0.0.1:7000"), "10.0.0.1:7000")):
        with pytest.raises(SystemExit) as caught:
            parse_flags(["--help"], defaults, prog="mybot.py")
        assert caught.value.code == 0
        assert f"the arena's address (default {address})" in " ".join(capsys.readouterr().out.split())


def test_the_old_max_games_flag_still_sets_games_at_once_with_a_warning(capsys):
    options, _ = parse_flags(["--max-games", "3"], ClientOptions(name="x"))
    assert options.max_games == 3
    assert "--max-games is deprecated, use --parallel 3" in capsys.readouterr().err
    options, _ = parse_flags(["--parallel", "5"], ClientOptions(name="x"))
    assert options.max_games == 5 and capsys.readouterr().err == ""


@pytest.mark.parametrize("argv", [["--arena", "nohost"], ["--parallel", "0"], ["--max-games", "0"],
                                  ["--arena", "h:99999"]])
def test_bad_flags_are_refused_by_argparse(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        parse_flags(argv, ClientOptions(name="x"))
    assert caught.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize("argv, said", [
    (["--parallel", "abc"], "argument --parallel: expected a positive whole number, not 'abc'"),
    (["--max-reconnects", "x"], "argument --max-reconnects: expected a whole number, 0 or more, not 'x'"),
    (["--connect-timeout", "-1"], "argument --connect-timeout: must be 0 or more, not -1"),
    (["--connect-timeout", "nan"], "argument --connect-timeout: must be 0 or more, not nan"),
    (["--connect-timeout", "soon"], "argument --connect-timeout: expected a number of seconds, not 'soon'"),
])
def test_a_flag_that_is_no_number_or_out_of_range_says_what_is_expected(argv, said, capsys):
    with pytest.raises(SystemExit) as caught:
        parse_flags(argv, ClientOptions(name="x"), prog="bot.py")
    assert caught.value.code == 2
    assert capsys.readouterr().err.endswith(f"bot.py: error: {said}\n")


def test_legal_texts_the_sdk_cannot_parse_strictly_are_kept_not_dropped():
    t = Turn.from_pb(turn("g", 1, ["combo 7h/7d", "draw"]).turn)
    assert t.legal[0].verb == "combo" and t.legal[0].args == ("7h/7d",)
    assert t.index_of(t.legal[0]) == 0


def test_turn_decodes_its_observation_on_first_use_only(monkeypatch):
    """A bot deciding from ``legal`` alone (the random bot) never pays for the JSON details."""
    import mau_arena_sdk.turn as turn_module

    decoded = []
    real = turn_module.Observation.from_pb
    monkeypatch.setattr(turn_module.Observation, "from_pb", lambda message: decoded.append(1) or real(message))
    message = turn("g", 3, ["play 7h", "draw"], details={"active_suit": "h"}).turn
    t = Turn.from_pb(message)
    assert (t.seat, t.ruleset, t.legal[1], t.index_of("draw")) == (0, "moumou", Action("draw"), 1)
    assert decoded == []
    assert t.observation.active_suit == "h" and t.observation is t.observation
    assert decoded == [1]
    assert t == Turn.from_pb(message) and "active_suit" in repr(t)
    with pytest.raises(AttributeError):
        t.legal = ()


def test_index_of_finds_the_very_action_object_and_equal_ones():
    t = Turn.from_pb(turn("g", 1, ["draw", "play 7h", "play Kc"]).turn)
    assert [t.index_of(action) for action in t.legal] == [0, 1, 2]  # the objects themselves
    equal = Action("play", ("Kc",))
    assert equal is not t.legal[2] and t.index_of(equal) == 2  # an equal action found by value


def test_the_sdk_readme_lists_each_received_object_once_and_gameinfo_with_its_real_fields():
    """sdk/README.md's 'What a bot receives' table: one row per object; GameInfo's row names its dataclass fields."""
    import dataclasses
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "sdk" / "README.md").read_text()
    table = readme.split("## What a bot receives", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    objects = [re.match(r"\| `(\w+)`", row).group(1) for row in rows]
    assert len(objects) == len(set(objects)), objects
    info = next(row for row in rows if row.startswith("| `GameInfo`"))
    listed = set(re.findall(r"`(\w+)`", info.split("|")[2]))
    assert {f.name for f in dataclasses.fields(GameInfo)} <= listed, info
    assert "typed values" in info, info
