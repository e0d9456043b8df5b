"""The web view holds each address to a pace (arena/web/pace.py): the red team's flood of the JSON API from one
address (16 clients on /api/v1/games?limit=500 cut a ladder's games by four fifths) is held, then refused with
429 and Retry-After; another address is not slowed, and the pages' own polling never waits.

The pace's clock is frozen here (``clock=lambda: 0.0``): nothing refills while a test runs, so which request
waits, how long (its ``Server-Timing: pace;dur=MS``) and which is refused are exact, not a matter of timing.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette", reason="the web view needs starlette (pip install -e '.[test]')")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2 (pip install -e '.[test]')")
from starlette.testclient import TestClient  # noqa: E402

from arena.ladder.store import LadderStore  # noqa: E402
from arena.server.readpace import ReadPace  # noqa: E402
from arena.web import WebSource, create_app  # noqa: E402
from arena.web.pace import WebPace  # noqa: E402

from .test_web_api import BOTS, SEED, play  # noqa: E402

FLOODER, HONEST = "198.51.100.7", "192.0.2.5"


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    root = tmp_path_factory.mktemp("paced")
    store = LadderStore.open(root / "arena.db")
    for n in range(3):
        play(store, root / "replays", f"g{n}", "maumau", BOTS[:2], SEED + n)
    store.close()
    source = WebSource(root / "arena.db", root / "replays")
    yield source
    source.close()


def held_ms(response) -> int | None:
    """How long the answer was held for its address's pace (its Server-Timing), None if it was not."""
    found = re.fullmatch(r"pace;dur=(\d+)", response.headers.get("server-timing", ""))
    return int(found.group(1)) if found else None


def test_one_address_asking_beyond_its_burst_is_held_then_refused_and_another_address_is_not(source):
    pace = ReadPace(per_second=100, burst=4, max_wait_s=0.05, clock=lambda: 0.0)
    web = WebPace(pace, refusal_delay_s=0.01, refusals_held=2)
    flooder, honest = {"X-Forwarded-For": FLOODER}, {"X-Forwarded-For": HONEST}
    with TestClient(create_app(source, proxy_hops=1, pace=web)) as client:
        flood = [client.get("/api/v1/standings/maumau", headers=flooder) for _ in range(10)]
        # every kind of request takes a turn: the live event streams (SSE) and the page too
        events = client.get("/api/v1/games/g0/events", params={"follow": "1"}, headers=flooder)
        page = client.get("/", headers=flooder)
        other = [client.get("/api/v1/standings/maumau", headers=honest) for _ in range(4)]
    answered = [r for r in flood if r.status_code == 200]
    # the burst at once, then one turn every 10 ms (100 a second), each answer saying how long it waited
    assert [held_ms(r) for r in answered] == [None] * 4 + [10, 20, 30, 40, 50]
    assert all(r.json()["standings"] for r in answered)
    refused = [flood[-1], events, page]  # their turns are more than 50 ms away: refused at once
    assert [r.status_code for r in refused] == [429, 429, 429]
    assert {r.headers["Retry-After"] for r in refused} == {"1"}  # 60 ms until an answer without waiting: 1 s
    assert "too many requests from this address" in flood[-1].json()["error"]
    assert (pace.held, pace.refused) == (5, 3)
    # a refusal is answered late too (a client that waits for it cannot ask hundreds of times a second),
    # while few enough wait; no one waits now
    assert (web.late, web.holding) == (3, 0)
    assert [(r.status_code, held_ms(r)) for r in other] == [(200, None)] * 4  # another address: its own burst


def test_without_a_proxy_x_forwarded_for_buys_no_fresh_budget(source):
    """Unless the app is told it is behind a proxy, the header is the client's word: every request below
    counts against the one connecting address, whatever address it claims."""
    pace = ReadPace(per_second=100, burst=3, max_wait_s=0, clock=lambda: 0.0)
    with TestClient(create_app(source, pace=WebPace(pace, refusals_held=0))) as client:  # refused at once
        answers = [client.get("/api/v1/rulesets", headers={"X-Forwarded-For": f"203.0.113.{n}"}) for n in range(5)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429, 429]


def test_a_long_list_of_games_costs_a_turn_per_fifty_games(source):
    """The flood's own request, 500 games, is 50-60 ms of the arena's loop: it takes ten turns; the pages'
    lists (10, 50, 100 games) one or two."""
    pace = ReadPace(per_second=100, burst=30, max_wait_s=0, clock=lambda: 0.0)
    long = {"X-Forwarded-For": FLOODER}
    with TestClient(create_app(source, proxy_hops=1, pace=WebPace(pace, refusal_delay_s=0))) as client:
        lists = [client.get("/api/v1/games", params={"limit": 500}, headers=long) for _ in range(4)]
        after = client.get("/api/v1/games", params={"limit": 10}, headers=long)
        pages = [client.get("/api/v1/games", params={"limit": 50, "bot": BOTS[0]}, headers={"X-Forwarded-For": HONEST})
                 for _ in range(31)]
    assert [r.status_code for r in lists] == [200, 200, 200, 429] and len(lists[0].json()["games"]) == 3
    assert after.status_code == 429
    assert [r.status_code for r in pages] == [200] * 30 + [429]


def test_the_pages_own_polling_and_a_walk_through_every_page_are_never_held(tmp_path):
    """A real browser on `arena web` with the default pace: the leaderboard refreshing (three requests every
    2 s), a bot's page (a rating history per ruleset), the games list, a replay and its seat view, and back.
    Not one of its requests waits for its address's turn, none is refused."""
    from .test_web_live import _browser
    from .web_process import new_page, serve_web, stop

    playwright, chromium = _browser()
    store = LadderStore.open(tmp_path / "arena.db")
    for n, ruleset in enumerate(["maumau", "moumou", "mose", "maumau"]):
        play(store, tmp_path / "replays", f"g{n}", ruleset, BOTS[:2], SEED + n)
    store.close()
    web, url = serve_web(tmp_path / "arena.db", tmp_path, "--replays", str(tmp_path / "replays"))
    seen: list[tuple[str, int, str]] = []
    try:
        with playwright.sync_playwright() as driver:
            browser, page, errors = new_page(driver, chromium)
            page.on("response", lambda r: seen.append((r.url, r.status, r.headers.get("server-timing", ""))))
            page.goto(url)
            page.wait_for_selector("#standings table.standings", timeout=30_000)
            for _ in range(3):  # three of its refreshes
                updated = page.get_attribute("#standings", "data-updated")
                page.wait_for_function(f"document.querySelector('#standings').dataset.updated !== '{updated}'",
                                       timeout=15_000)
            page.goto(f"{url}#/bot/{BOTS[0]}")
            page.wait_for_selector("#plots h2", timeout=15_000)
            assert page.locator("#plots h2").count() == 3  # one rating history per ruleset, asked together
            page.goto(f"{url}#/games")
            page.locator("#list a[href^='#/game/']").first.click()
            page.wait_for_selector("#next", timeout=15_000)
            page.select_option("#view", "seat:1")
            page.wait_for_function("document.querySelector('#main').dataset.view === 'seat:1'", timeout=15_000)
            page.goto(url)
            page.wait_for_selector("#standings table.standings", timeout=15_000)
            updated = page.get_attribute("#standings", "data-updated")
            page.wait_for_function(f"document.querySelector('#standings').dataset.updated !== '{updated}'",
                                   timeout=15_000)
            browser.close()
    finally:
        stop(web)
    api = [(u, status, timing) for u, status, timing in seen if "/api/v1/" in u]
    assert len(api) >= 25, api  # the page really asked, again and again
    assert [(u, status, timing) for u, status, timing in seen if status == 429 or "pace" in timing] == []
    assert not errors, errors


def test_arena_web_takes_its_pace_from_the_command_line(tmp_path):
    """`arena web --reads-per-second R --reads-burst N`: the pace a page read by many people behind one address
    (a school's NAT) needs raised, here lowered so that a third request is over it.  Before, the pace was a
    module constant: the flags were refused as unknown."""
    import json
    import urllib.error
    import urllib.request

    from .web_process import serve_web, stop

    store = LadderStore.open(tmp_path / "arena.db")
    store.close()
    web, url = serve_web(tmp_path / "arena.db", tmp_path, "--reads-per-second", "0.01", "--reads-burst", "2")
    answers = []
    try:
        for _ in range(3):  # a turn refills in 100 s: the third is refused (its turn more than 5 s away)
            try:
                with urllib.request.urlopen(f"{url}api/v1/rulesets", timeout=30) as answer:
                    answers.append((answer.status, None, None))
            except urllib.error.HTTPError as refused:
                answers.append((refused.code, refused.headers["Retry-After"], json.loads(refused.read())["error"]))
    finally:
        stop(web)
    assert answers[:2] == [(200, None, None)] * 2
    status, retry, error = answers[2]
    # Retry-After: the turn's 100 s, less the 2 s the refusal itself is held (the default pace would say 1 s)
    assert (status, int(retry) > 50) == (429, True), answers
    assert "(at most 0.01 a second, 2 at once)" in error


@pytest.mark.parametrize("flags, refusal", [
    (["--reads-per-second", "0"], "--reads-per-second must be more than 0, not 0.0"),
    (["--reads-per-second", "nan"], "--reads-per-second must be more than 0, not nan"),
    (["--reads-burst", "0"], "--reads-burst must be at least 1, not 0"),
])
def test_arena_web_refuses_a_pace_that_cannot_work_in_one_line(tmp_path, flags, refusal, capsys):
    from arena.cli import main

    assert main(["web", "--db", str(tmp_path / "none.db"), *flags]) == 2  # named before the missing database
    assert capsys.readouterr().err == f"arena: error: {refusal}\n"
