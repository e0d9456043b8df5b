"""Frames: seat views keep secrets, --step prints one frame, the textual viewer answers its keys."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from arena.cli import main
from arena.replay import load
from arena.replay.render import FrameBuilder, View, card
from arena.replay.viewer import ReplayViewer

from .conftest import all_rulesets, players_for, record_random_game


def plain(renderable, width: int = 160) -> str:
    console = Console(width=width, color_system=None, force_terminal=False)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def texts_in(value) -> set[str]:
    """Every string in an observation: whatever it shows, a view may show."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(texts_in(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(texts_in(v) for v in value)) if value else set()
    return set()


def label(code: str) -> str:
    return card(code).plain


def shown(code: str, text: str) -> bool:
    """Is this card in the text?  French cards by their label (``10♥``), other codes as whole words."""
    if len(code) == 2 and (code[1] in "shdc" or code[0] == "X"):
        return re.search(rf"(?<!\d){re.escape(label(code))}", text) is not None
    return re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", text) is not None


@pytest.mark.parametrize("ruleset", all_rulesets())
def test_a_seat_view_never_shows_another_seats_hidden_cards(tmp_path, toy_ruleset, ruleset):
    players = max(3, players_for(ruleset)) if ruleset == toy_ruleset else players_for(ruleset)
    replay = load(record_random_game(tmp_path, ruleset, players=players, seed=31, max_decisions=300))
    builder = FrameBuilder(replay)
    last = builder.last_step
    checked = 0
    for step in sorted({0, 2, last // 3, (2 * last) // 3, last}):
        state = builder.states[step]
        hands = [state.observation(s).to_dict()["hand"] for s in range(players)]
        # cards anyone has seen by now: in the public views so far (the log shows played cards)
        seen = set().union(*(builder.revealed_after[k] for k in range(step + 1)))
        views = [View.of_seat(s) for s in range(players)] + [View.spectator()]
        for view in views:
            observation = state.observation(view.seat).to_dict()
            own = set(hands[view.seat]) if view.kind == "seat" else set()
            allowed = texts_in(observation) | seen | own
            if view.kind == "seat":  # its own past actions
                allowed |= {c for r in replay.decisions[:step] if r.seat == view.seat for c in r.action.split()}
            secret = {c for s, h in enumerate(hands) if s != view.seat for c in h} - allowed
            text = plain(builder.frame(step, view))
            leaked = [code for code in secret if shown(code, text)]
            assert not leaked, f"{view} at step {step} shows {leaked}"
            checked += len(secret)
        omniscient = plain(builder.frame(step, View.omniscient()))
        for h in hands:  # and the omniscient view does show every hand
            assert all(shown(c, omniscient) for c in h)
    assert checked > 0  # the test looked at real secrets


def test_seat_view_is_built_only_from_that_seats_observation(tmp_path, toy_ruleset):
    replay = load(record_random_game(tmp_path, toy_ruleset, players=3, seed=12))
    builder = FrameBuilder(replay)
    state = builder.states[20]
    asked = []
    real = state.observation
    state.observation = lambda seat: asked.append(seat) or real(seat)
    state.to_position = lambda: pytest.fail("a view must not read the full position")
    plain(builder.frame(20, View.of_seat(1)))
    assert set(asked) == {1}
    asked.clear()
    plain(builder.frame(20, View.spectator()))
    assert set(asked) == {None}


def test_extra_observation_keys_and_pending_effects_render(tmp_path, toy_ruleset):
    replay = load(record_random_game(tmp_path, toy_ruleset, players=2, seed=4))
    builder = FrameBuilder(replay)
    step = next(i for i, s in enumerate(builder.states) if s.observation(None).to_dict()["pending"])
    text = plain(builder.frame(step, View.spectator()))
    assert "toy round" in text and f"{step}" in text
    assert re.search(r"pending\s+next player draws \d", text)
    assert "=" not in text and "{" not in text  # engine data is told in words, never as raw dicts


def test_step_prints_one_frame_without_ansi_in_a_pipe(tmp_path, toy_ruleset, capsys, monkeypatch):
    for variable in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(variable, raising=False)
    path = record_random_game(tmp_path, toy_ruleset, players=2, seed=5)
    replay = load(path)
    record = replay.decisions[6]
    assert main(["replay", str(path), "--step", "7", "--seat", "1", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    assert "step 7/" in out and "view: seat 1" in out
    assert f"7. bot{record.seat}: " in out
    assert main(["replay", str(path), "--step", "7", "--color"]) == 0
    assert "\x1b[" in capsys.readouterr().out
    assert main(["replay", str(path), "--step", "0", "--spectator"]) == 0
    out = capsys.readouterr().out
    assert "view: spectator" in out and "the deal" in out


@pytest.mark.parametrize("argv, message", [
    (["--step", "99999"], "has steps 0.."),
    (["--step", "3", "--seat", "7"], "has seats 0..1"),
    ([], "needs a terminal"),
])
def test_replay_command_errors_are_clear(tmp_path, toy_ruleset, capsys, argv, message):
    path = record_random_game(tmp_path, toy_ruleset, players=2)
    assert main(["replay", str(path), *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("width, said", [
    ("0", "must be at least 40 columns, not 0"), ("-5", "must be at least 40 columns, not -5"),
    ("39", "must be at least 40 columns, not 39"), ("wide", "expected a number of columns, not 'wide'"),
])
def test_step_refuses_a_width_too_narrow_to_show_a_frame(tmp_path, toy_ruleset, capsys, width, said):
    path = record_random_game(tmp_path, toy_ruleset, players=2)
    with pytest.raises(SystemExit) as exited:  # argparse's usage error
        main(["replay", str(path), "--step", "3", "--width", width])
    out, err = capsys.readouterr()
    assert exited.value.code == 2 and out == ""
    assert err.endswith(f"arena replay: error: argument --width: {said}\n")
    assert main(["replay", str(path), "--step", "3", "--width", "40"]) == 0


@pytest.mark.parametrize("argv", [[], ["--verify"], ["--seat", "1"], ["--save", "out.jsonl"],
                                  ["--bot", "BOT", "--seat", "0"]])
def test_width_without_step_is_refused_not_ignored(tmp_path, toy_ruleset, capsys, monkeypatch, argv):
    """--width is the width of the frame --step prints; anywhere else (the viewer, --verify, --save, --bot) it was
    silently ignored."""
    path = record_random_game(tmp_path, toy_ruleset, players=2)
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    bot = str(Path(__file__).resolve().parents[1] / "bots" / "random_bot.py")
    assert main(["replay", str(path), "--width", "100", *[bot if arg == "BOT" else arg for arg in argv]]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("arena: error: --width sets the width of the frame --step N prints: give --step N "
                                 "(the viewer takes the terminal's width)\n")
    assert sorted(tmp_path.rglob("*")) == before  # nothing written (--save's out.jsonl)


def test_replay_command_on_a_bad_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "notes.jsonl"
    bad.write_text("just some notes\n")
    assert main(["replay", str(bad), "--step", "0"]) == 2
    assert "not a replay" in capsys.readouterr().err


@pytest.mark.parametrize("change, message", [
    ({"options": {"limit": "abc"}}, "cannot start moumou: option limit: 'abc' is not an int"),
    ({"players": 7}, "cannot start moumou: moumou is for 2 players, not 7"),
])
@pytest.mark.parametrize("argv", [["--step", "8"], []])
def test_a_header_the_ruleset_refuses_is_the_same_one_line_error_as_verify(tmp_path, capsys, change, message, argv):
    path = record_random_game(tmp_path, "moumou", players=2)
    header, rest = path.read_text().split("\n", 1)
    header = json.loads(header)
    header.update({key: {**header[key], **value} if isinstance(value, dict) else value for key, value in change.items()})
    path.write_text(json.dumps(header) + "\n" + rest)
    assert main(["replay", "--verify", str(path)]) == 1
    assert message.replace("cannot start moumou", "cannot start the game (moumou)") in capsys.readouterr().out
    assert main(["replay", str(path), *argv]) == 2  # before the viewer asks for a terminal
    err = capsys.readouterr().err
    assert err == f"arena: error: {path}: {message}\n"
    builder = FrameBuilder(load(path))  # what the viewer builds: no state to show, and no IndexError
    assert builder.states == [] and builder.last_step == 0


def test_viewer_keys_step_jump_play_and_switch_views(tmp_path, toy_ruleset):
    replay = load(record_random_game(tmp_path, toy_ruleset, players=2, seed=21))
    total = len(replay.decisions)

    def shows(app, step):
        assert app.step == step
        text = app.frame_text()
        assert f"step {step}/{total}" in text
        if step:
            record = replay.decisions[step - 1]
            assert f"{step}. bot{record.seat}: " in text
        return text

    async def drive():
        app = ReplayViewer(replay)
        async with app.run_test(size=(120, 32)) as pilot:
            shows(app, 0)
            await pilot.press("right", "n", "n", "left")
            shows(app, 2)
            await pilot.press("p")
            assert app.step == 1
            await pilot.press("end")
            shows(app, total)
            await pilot.press("home")
            assert app.step == 0
            await pilot.press("G")
            assert app.step == total
            await pilot.press("g")
            assert app.step == 0
            await pilot.press("colon", "4", "2", "enter")
            shows(app, 42)
            await pilot.press("j", "7", "enter")
            shows(app, 7)
            await pilot.press("v")
            assert "view: seat 0" in shows(app, 7)
            await pilot.press("v", "v")
            assert "view: spectator" in shows(app, 7)
            await pilot.press("v")
            assert app.view.kind == "omniscient"
            speed = app.speed
            await pilot.press("plus", "minus", "minus")
            assert app.speed == speed - 1
            app.speed = 0  # the slowest, so the clock cannot step before the test pauses it
            await pilot.press("space")
            assert app.playing and app._timer is not None and "playing" in app.sub_title
            app._timer.pause()  # tick by hand: the test must not race the clock
            assert app.step == 7
            app._tick()
            shows(app, 8)
            await pilot.press("space")
            assert not app.playing
            await pilot.press("q")
        assert app.return_code in (0, None)

    asyncio.run(drive())


def test_viewer_opens_a_cut_off_replay_and_shows_what_was_played(tmp_path, toy_ruleset):
    path = record_random_game(tmp_path, toy_ruleset, players=2, seed=6)
    text = path.read_text()
    cut = path.with_name("cut.jsonl.part")
    cut.write_text(text[: len(text) // 3])
    replay = load(cut)
    assert not replay.complete and replay.decisions

    async def drive():
        app = ReplayViewer(replay)
        async with app.run_test(size=(120, 32)) as pilot:
            await pilot.press("end")
            frame = app.frame_text()
            assert f"step {len(replay.decisions)}/{len(replay.decisions)}" in frame
            assert "PARTIAL" in frame
            await pilot.press("j", "x", "enter")  # not a number: a warning, and the viewer stays put
            assert app.step == len(replay.decisions)
            await pilot.press("j", "3", "escape", "left")  # Esc closes the prompt; keys step again
            assert app.step == len(replay.decisions) - 1

    asyncio.run(drive())


def test_a_replay_of_a_ruleset_this_install_lacks_is_a_clear_error(tmp_path, capsys):
    from arena.replay import ReplayWriter

    path = ReplayWriter.create(tmp_path, {"game_id": "g", "ruleset": "klondike", "players": 2, "seed": 1}).finish({})
    assert main(["replay", str(path), "--step", "0"]) == 2
    assert "unknown ruleset 'klondike'" in capsys.readouterr().err
    assert main(["replay", "--verify", str(path)]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_the_log_shows_other_seats_decisions_as_public_events_and_a_blind_card_face_down(tmp_path):
    """A seat's view and the spectator's show each decision as the engine's public events (the same
    the bots and Spectate get): a Blind play as its claim, a draw as a count; the actor's own view
    and the omniscient one show the real action."""
    blind = FrameBuilder(load(record_random_game(tmp_path, "maumau", players=3, seed=8, options={"blind": True},
                                                 max_decisions=400, game_id="blind")))
    plain_game = FrameBuilder(load(record_random_game(tmp_path, "maumau", players=3, seed=8, max_decisions=400)))
    lies = [r for r in blind.replay.decisions if r.action.startswith("blind ") and len(set(r.action.split()[1:])) == 2]
    draws = [r for r in plain_game.replay.decisions if r.action == "draw"]
    assert lies and draws
    for builder, records in ((blind, lies[:5]), (plain_game, draws[:5])):
        for record in records:
            for view in (View.spectator(), View.of_seat((record.seat + 1) % 3)):
                text = builder.shown_action(record, view).plain
                if record.action.startswith("blind"):
                    real, claim = record.action.split()[1:]
                    assert text.startswith("blind ?? as ") and label(real) not in text, text
                else:
                    assert re.match(r"draw \d+", text), text
            own = builder.shown_action(record, View.of_seat(record.seat)).plain
            assert own.split()[0] == record.action.split()[0] and "??" not in own
