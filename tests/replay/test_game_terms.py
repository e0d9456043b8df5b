"""The viewer reads like a game: bot names everywhere, state in the game's own words, no spoilers, fits 80x24."""

from __future__ import annotations

import asyncio
import re

from rich.console import Console

from arena.games import new_game
from arena.replay import load
from arena.replay.facts import describe
from arena.replay.render import FrameBuilder, View
from arena.replay.viewer import ReplayViewer

from .conftest import record_random_game

NAMES = ["greedy", "tactician", "random", "sloth"]


def plain(renderable, width: int = 80) -> str:
    console = Console(width=width, color_system=None, force_terminal=False)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def facts_text(observation, names=NAMES) -> str:
    return "\n".join(f"{label}: {text.plain}" for label, text in describe(observation, names))


def test_the_last_frame_names_the_winner_with_bot_names_and_points(tmp_path):
    replay = load(record_random_game(tmp_path, "maumau", players=3, seed=3, names=NAMES[:3]))
    builder = FrameBuilder(replay)
    result = builder.states[-1].result()
    winner = result.placements.index(1)
    text = plain(builder.frame(builder.last_step, View.omniscient()), width=120)
    assert f"game over: {NAMES[winner]} wins with {result.points[winner]} points" in text
    second = result.placements.index(2)
    assert f"2nd {NAMES[second]} {result.points[second]}" in text
    assert "placements [" not in text


def test_actions_and_the_log_name_bots_not_seat_numbers(tmp_path):
    # seed 0 of 4-seat Online Mau-Mau has accusations under random play
    replay = load(record_random_game(tmp_path, "maumau-online", players=4, seed=0, names=NAMES))
    builder = FrameBuilder(replay)
    record = next(r for r in replay.decisions if r.action.startswith("accuse"))
    accused = NAMES[int(record.action.split()[1])]
    text = plain(builder.frame(record.i, View.spectator()), width=120)
    assert f"{record.i}. {NAMES[record.seat]}: accuse {accused}" in text
    assert re.search(rf"{record.i}\s+{NAMES[record.seat]}\s+accuse {accused}", text)  # the log, by name too
    assert not re.search(r"accuse \d", text)


def test_mose_melds_are_cards_with_their_wild_identities():
    observation = {
        "ruleset": "mose", "discard": ["8d"], "stock_size": 14, "direction": 1, "wild_rank": "2", "round": 1,
        "rounds": 13, "melds": [{"id": 1, "owner": 1, "kind": "set", "tokens": ["3s", "3h", "2s:3"]},
                                {"id": 2, "owner": 3, "kind": "run", "tokens": ["2c", "2d:3c", "4c"]}],
        "last_pickup": {"seat": 0, "source": "pile", "count": 5}, "penalties": [0, 10, 0, 0],
    }
    text = facts_text(observation)
    assert "set 1: tactician: 3♠ 3♥ 2♠→3" in text
    assert "run 2: sloth: 2♣ 2♦→3♣ 4♣" in text
    assert "greedy took 5 from the pile" in text and "tactician 10" in text
    assert not re.search(r"owner|tokens|kind=|[{}=]", text)


def test_ddmau_chain_and_pending_hit_are_told_in_words():
    state = new_game("ddmau", 4, 5)
    observation = state.observation(None).to_dict()
    observation.update(discard=["R7", "JTT", "SK-r"], play_size=2, hit_run=1,
                       effective_top={"index": 0, "kind": "n"}, color="r", number=7,
                       pending_hit={"target": 2, "count": 2, "kind": "jtt", "by": 0}, marks=[None, None, None])
    text = facts_text(observation)
    assert "this play: JTT SK-r" in text
    assert "to match: R7 red · number 7" in text
    assert "hit: random draws 2 (Joker Two Two by greedy; accept or block)" in text
    assert not re.search(r"[{}=]|index|kind", text)


def test_unknown_keys_never_show_raw_dicts():
    text = facts_text({"ruleset": "x", "discard": [], "stock_size": 0,
                       "turn_so_far": {"cards": ["7h", "7s"], "next_seat": 2}})
    assert "turn so far: cards 7♥ 7♠; next seat random" in text


def test_the_omniscient_log_does_not_spoil_what_comes_next_unless_asked(tmp_path):
    replay = load(record_random_game(tmp_path, "maumau", players=2, seed=8, names=NAMES[:2]))
    builder = FrameBuilder(replay)
    step = 5
    later = replay.decisions[step]  # decision step+1, which has not happened yet
    hidden = plain(builder.log(step, View.omniscient()), width=120)
    assert not re.search(rf"^\W*{later.i}\s", hidden, re.M)
    shown = plain(builder.log(step, View.omniscient(), ahead=True), width=120)
    assert re.search(rf"^\W*{later.i}\s", shown, re.M)
    # a seat never gets the moves ahead, asked or not
    assert not re.search(rf"^\W*{later.i}\s", plain(builder.log(step, View.of_seat(0), ahead=True), 120), re.M)


def test_every_field_fits_an_80x24_terminal(tmp_path):
    long_names = ["greedy-bot-v2", "tactician-final", "random", "deep-search"]
    cases = [("mose", 4, 11, {}), ("ddmau", 4, 12, {"max_hands": 1}), ("maumau-online", 4, 0, {})]
    for ruleset, players, seed, options in cases:
        replay = load(record_random_game(tmp_path / ruleset, ruleset, players=players, seed=seed,
                                         names=long_names, options=options, max_decisions=400))

        async def drive():
            app = ReplayViewer(replay)
            async with app.run_test(size=(80, 24)) as pilot:
                for key in ("right",) * 8 + ("end",):
                    await pilot.press(key)
                    await pilot.pause()
                    text = app.frame_text(width=80)
                    assert all(name in text for name in long_names), (ruleset, text)
                    assert "..." not in text and "…" not in text.replace("▮…", ""), (ruleset, text)
                    assert max(len(line) for line in text.splitlines()) <= 80
                    assert app.query_one("#table-scroll").max_scroll_y == 0, (ruleset, app.step, text)
                    assert f"step {app.step}/" in text
        asyncio.run(drive())
