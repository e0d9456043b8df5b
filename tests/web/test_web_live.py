"""The web view beside a real ladder: live bytes leak nothing hidden; a real browser walks the pages.

One ladder for the module: `arena serve --web 0` with three SDK bots that
think 40 ms a move (so a Mau-Mau game stays live for a few seconds), all
real processes on 127.0.0.1 with port 0.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import urllib.request
import zlib
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the web view needs uvicorn (pip install -e '.[test]')")

from arena.ladder.store import LadderStore  # noqa: E402
from arena.replay.reader import parse  # noqa: E402
from arena.replay.render import FrameBuilder  # noqa: E402
from tests.process_lines import Lines  # noqa: E402
from tests.terminal_signals import sigint_as_at_a_terminal  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][shdc](?![A-Za-z0-9])")
BOT = textwrap.dedent("""
    import random, sys, time
    from mau_arena_sdk import Bot, run

    think = float(sys.argv.pop(sys.argv.index("--think") + 1)); sys.argv.remove("--think")

    class Thinker(Bot):
        def act(self, turn):
            time.sleep(think)  # a bot's think time, so that games stay live long enough to be watched
            return random.choice(turn.legal)

    run(Thinker())
""")


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    root = tmp_path_factory.mktemp("web-ladder")
    bot_file = root / "thinker.py"
    bot_file.write_text(BOT)
    store = LadderStore.open(root / "arena.db")
    store.register_bot("alpha", "alpha-token", owner="team-a")  # a registered bot with an owner; the others open
    store.close()
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--web", "0", "--game", "maumau", "--plain",
         "--summary-every", "3600", "--db", str(root / "arena.db"), "--replays", str(root / "replays"),
         "--move-ms", "2000", "--drain", "0"],  # no waiting at the end for games whose bots are gone
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        preexec_fn=sigint_as_at_a_terminal)
    bots = []
    try:
        lines = Lines(server)
        port = lines.until(r"arena listening on [\d.]+:(\d+)").group(1)
        web = lines.until(r"web view on (http://\S+)").group(1)
        # alpha and beta think 40 ms a move; sloth 300 ms, so its games stay live long enough to be opened
        for name, think in (("alpha", 0.04), ("beta", 0.04), ("sloth", 0.3)):
            token = ["--token", "alpha-token"] if name == "alpha" else []
            bots.append(subprocess.Popen([sys.executable, str(bot_file), "--arena", f"127.0.0.1:{port}", "--name", name,
                                          "--think", str(think), "--bot-version", "thinker-7", *token],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        yield {"web": web, "db": root / "arena.db", "root": root}
    finally:
        for process in [*bots, server]:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT if process is server else signal.SIGTERM)
        for process in [*bots, server]:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=20) as response:
        return json.load(response)


def first_live_game(web: str, bot: str = "") -> str:
    """Wait (bounded) for the scheduler to start a game (``bot``'s, if named), through the API itself."""
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        games = [g for g in get(f"{web}api/v1/live")["games"] if not bot or bot in g["players"]]
        if games:
            return games[0]["game_id"]
        urllib.request.urlopen(f"{web}api/v1/rulesets", timeout=20).read()  # one round trip, then ask again
    raise AssertionError("no game started within 30 s")


def test_every_byte_of_a_live_game_holds_no_hidden_card_and_no_seed(ladder):
    web = ladder["web"]
    game_id = first_live_game(web)
    events = []
    raw = b""
    with urllib.request.urlopen(f"{web}api/v1/games/{game_id}/events?follow=1", timeout=60) as stream:
        for line in stream:
            raw += line
            if line.startswith(b"data: ") and line.strip() != b"data: {}":
                events.append(json.loads(line[6:]))
            if line.startswith(b"event: end"):
                break
    assert events and events[-1].get("ended"), "the stream ends with the result"
    assert all(not e.get("view", {}).get("hand") for e in events if e.get("view"))
    # what really was hidden at each step: every hand, from the finished game's replay
    record = get(f"{web}api/v1/games/{game_id}")
    assert record["status"] == "finished"
    with sqlite3.connect(ladder["db"]) as db:
        seed, = db.execute("SELECT seed FROM games WHERE id = ?", (game_id,)).fetchone()
        packed, = db.execute("SELECT data FROM replays WHERE game_id = ?", (game_id,)).fetchone()  # zlib
    assert str(seed) not in raw.decode()
    builder = FrameBuilder(parse(zlib.decompress(packed), f"{game_id}.jsonl"))
    for event in events:
        if "view" not in event or event.get("ended"):
            continue
        state = builder.states[event.get("index", 0)]
        hidden = {card for seat in range(state.players) for card in state.observation(seat)["hand"]}
        shown = set(CARD.findall(json.dumps(event)))
        assert not shown & hidden, (event.get("index"), shown & hidden)


def _browser():
    playwright = pytest.importorskip("playwright.sync_api", reason="browser tests need playwright (pip install -e '.[test]')")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("browser tests need Debian's chromium (apt-get install chromium)")
    return playwright, chromium


def test_a_browser_sees_the_leaderboard_update_a_live_game_and_a_replay_from_a_seat(ladder, tmp_path):
    playwright, chromium = _browser()
    web = ladder["web"]
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(web)
        page.wait_for_selector("table.standings", timeout=30_000)
        first = page.get_attribute("#standings", "data-updated")
        page.wait_for_function(f"document.querySelector('#standings').dataset.updated !== '{first}'", timeout=15_000)
        assert page.locator("table.standings tbody tr").count() >= 2
        # the ordering rule is on the page, and the rows are in its order (arena/ladder/ranking.py)
        assert "95% low" in page.locator("table.standings thead").inner_text().lower()  # headers are in capitals
        assert "Ranked by 95% low, the lower end of the rating's 95% interval" in page.locator("#standings .legend").inner_text()
        lows = page.locator("table.standings td.rank-score").all_inner_texts()
        known = [float(text) for text in lows if text.strip() != "?"]
        assert known == sorted(known, reverse=True) and lows[:len(known)] == [t for t in lows if t.strip() != "?"], lows
        page.screenshot(path=str(tmp_path / "leaderboard.png"))

        # a live game (one of sloth's, which last ~10 s): its log grows while we watch
        live_id = first_live_game(web, "sloth")
        page.goto(f"{web}#/game/{live_id}")
        page.wait_for_selector("#log", timeout=15_000)
        assert "live" in page.locator("h1").inner_text()
        page.wait_for_function("Number(document.querySelector('#log').dataset.count || 0) >= 2", timeout=30_000)
        assert page.locator(".seat .card.back").count() > 0  # hands face down
        assert page.locator(".seat .card:not(.back)").count() == 0

        # a finished game: step through it and switch to a seat's view
        page.goto(f"{web}#/games?status=finished")
        page.wait_for_selector("#list a[href^='#/game/']", timeout=15_000)
        page.locator("#list a[href^='#/game/']").first.click()
        page.wait_for_selector("#next", timeout=15_000)
        assert "replay" in page.locator("h1").inner_text()
        page.wait_for_function("document.querySelector('#main').dataset.step === '0'", timeout=30_000)  # frames in
        page.click("#next")
        page.click("#next")
        page.wait_for_function("document.querySelector('#main').dataset.step === '2'")
        assert page.locator("#log div").count() == 2
        page.select_option("#view", "seat:1")
        page.wait_for_function("document.querySelector('#main').dataset.view === 'seat:1'")
        seats = page.locator(".seat")
        assert seats.nth(1).locator(".card:not(.back)").count() > 0   # seat 1's own hand, face up
        assert seats.nth(0).locator(".card:not(.back)").count() == 0  # the other hand stays hidden
        page.click("#last")
        assert "game over" in page.locator("#status").inner_text()
        page.screenshot(path=str(tmp_path / "replay.png"))

        # a bot's page: its record per ruleset (with errors) and per declared version
        page.goto(f"{web}#/bot/alpha")
        page.wait_for_selector("#versions table", timeout=15_000)
        assert "errors" in page.locator("#main table").first.inner_text().lower()
        assert "thinker-7" in page.locator("#versions").inner_text()
        assert "owner team-a" in page.locator("#main").inner_text()  # who it belongs to (arena bots add --owner)
        browser.close()
    assert not errors, errors
