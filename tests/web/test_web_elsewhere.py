"""A game another host of a shared ladder runs: its live events are only there, so every other view says where.

The operator's walk: host B's web view (and `arena web --db`) showed host A's running game as
"waiting for the first move…" for good, its events endpoint a bare 404, and `arena watch ID --arena
hostB` "no game" with a usage error.  The database knows which host runs a game (its seat claims) and
that host's address (the hosts table): the API, the page and `arena watch` say so.
"""

from __future__ import annotations


import pytest

pytest.importorskip("uvicorn", reason="the web view needs uvicorn (pip install -e '.[test]')")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2 (pip install -e '.[test]')")
from starlette.testclient import TestClient  # noqa: E402

from arena.ladder.store import LadderStore  # noqa: E402
from arena.web import WebSource, create_app  # noqa: E402

from .test_web_api import BOTS, SEED, play  # noqa: E402
from .test_web_live import _browser  # noqa: E402
from .web_process import new_page, serve_web, stop  # noqa: E402

HOST_A = "127.0.0.1:34053"
WEB_A = "http://127.0.0.1:34054/"  # hostA's web view (the hosts table's `web`, schema step 16)
FINISHED = 6


def running_on_host_a(url: str, tmp_path) -> None:
    """A PostgreSQL ladder with one finished game and one (``run-a``) that host ``hostA`` runs, as that host's
    join and seat claims leave the rows (arena/ladder/store/hosts.py, game_start.py)."""
    import psycopg

    store = LadderStore.open(url, shared=True)
    play(store, tmp_path / "replays", "done-1", "maumau", BOTS[:2], SEED)
    for n in range(FINISHED):  # the latest results, with ids as the ladder makes them (new_game_id)
        play(store, tmp_path / "replays", f"20261129T2036{n:02d}-d17bfb6{n}", "maumau", [BOTS[n % 3], BOTS[(n + 1) % 3]],
             SEED + 10 + n)
    store.game_started("run-a", "maumau", {}, SEED + 1, "run-a", 0, BOTS[:2])
    store.close()
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("INSERT INTO hosts (name, address, lock_key, concurrency, started_at, lease_until, state, web) "
                   "VALUES ('hostA', %s, 4242, 8, 0, 1e12, 'live', %s)", (HOST_A, WEB_A))
        for seat, bot in enumerate(BOTS[:2]):
            db.execute("INSERT INTO seat_claims (game_id, seat, bot, ruleset, host, cap, busy, claimed_at) "
                       "VALUES ('run-a', %s, %s, 'maumau', 'hostA', 1, 1, 0)", (seat, bot))


def test_the_api_says_which_host_runs_a_game_that_is_not_live_here(postgres_db, tmp_path):
    running_on_host_a(postgres_db, tmp_path)
    source = WebSource(postgres_db)
    try:
        with TestClient(create_app(source)) as client:
            game = client.get("/api/v1/games/run-a").json()
            assert game["status"] == "running" and game["live"] is False
            assert game["running_on"] == {"host": "hostA", "address": HOST_A, "state": "live", "web": WEB_A}
            events = client.get("/api/v1/games/run-a/events?follow=1")
            assert events.status_code == 404
            assert events.json()["error"] == (f"game run-a is running on host hostA ({HOST_A}): watch it there "
                                              f"(arena watch run-a --arena {HOST_A})")
            assert events.json()["running_on"]["address"] == HOST_A
            # The whole ladder's running games, each with the host that runs it, in the documented shape.
            running = client.get("/api/v1/live").json()["games"]
            assert [(g["game_id"], g["live"], g["running_on"]) for g in running] == [
                ("run-a", False, {"host": "hostA", "address": HOST_A, "state": "live", "web": WEB_A})]
            assert set(running[0]) == {"game_id", "ruleset", "players", "status", "started_at", "decisions", "live",
                                       "running_on"}
            # A finished game runs nowhere; an unknown one is unknown.
            assert client.get("/api/v1/games/done-1").json()["running_on"] is None
            assert "no live game 'nope' here" in client.get("/api/v1/games/nope/events").json()["error"]
    finally:
        source.close()


def test_live_beside_an_arena_lists_its_own_games_and_the_other_hosts_in_one_form(postgres_db, tmp_path):
    """`arena serve --web` on a shared ladder: "Running now" is the whole ladder's, this arena's own games
    (live here) and the other hosts' (from the database, with their host), every start in one form."""
    from arena.server.live import LiveGames
    from arena.web.source import LiveFeed
    from arena.web.times import api_time

    running_on_host_a(postgres_db, tmp_path)
    live = LiveGames()
    game = live.start("here-1", "maumau", BOTS[1:])
    game.started_at = "2999-01-01T00:00:00Z"  # as the arena stamps it: to the second (and the newest)
    source = WebSource(postgres_db, live=LiveFeed(live))
    try:
        with TestClient(create_app(source)) as client:
            games = client.get("/api/v1/live").json()["games"]
            started = client.get("/api/v1/games/run-a").json()["started_at"]
    finally:
        source.close()
    assert [(g["game_id"], g["live"], g["running_on"] and g["running_on"]["host"]) for g in games] == [
        ("here-1", True, None), ("run-a", False, "hostA")]
    assert games[0]["started_at"] == "2999-01-01T00:00:00.000Z" and games[1]["started_at"] == started
    assert api_time("2026-11-29T21:36:26.4+01:00") == "2026-11-29T20:36:26.400Z"
    assert api_time(None) is None and api_time("not a time") == "not a time"


def test_a_browser_on_another_host_is_told_where_the_game_runs(postgres_db, tmp_path):
    """`arena web --db` (it runs no game): the live game's page says where to watch it instead of waiting for
    a first move that never comes, and a stream the server refuses is said too (the EventSource's errors)."""
    playwright, chromium = _browser()
    running_on_host_a(postgres_db, tmp_path)
    web, url = serve_web(postgres_db, tmp_path)
    try:
        with playwright.sync_playwright() as driver:
            browser, page, errors = new_page(driver, chromium)
            page.goto(f"{url}#/game/run-a")
            page.wait_for_selector("#status.elsewhere", timeout=30_000)
            assert page.locator("#status").inner_text().startswith(f"running on hostA ({HOST_A}): watch it there")
            # and a link to the game's page on that host's web view
            assert page.locator("#status a").get_attribute("href") == f"{WEB_A}#/game/run-a"
            # The leaderboard: the running game with its host; the latest results' bots and results in view
            # (side by side with the running games they were behind a horizontal scrollbar).
            for width in (1280, 1700):
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(f"{url}#/")
                page.wait_for_selector("#latest table", timeout=30_000)
                page.wait_for_selector("#live td.host", timeout=30_000)
                assert page.locator("#live td.host").inner_text() == "hostA"
                assert "every host" in page.locator("h2").first.inner_text()
                overflow = page.evaluate("""() => [...document.querySelectorAll('#live, #latest')].map(
                    panel => panel.scrollWidth - panel.clientWidth)""")
                assert overflow == [0, 0], (width, overflow)
                page.screenshot(path=str(tmp_path / f"leaderboard-{width}.png"))
            # A game the page believes live whose stream is refused: the EventSource's error is shown.
            page.evaluate("""() => { liveGame({game_id: "nope", ruleset: "maumau", seats: [], live: true}); }""")
            page.wait_for_selector("#status.elsewhere", timeout=30_000)
            assert "no live game 'nope' here" in page.locator("#status").inner_text()
            browser.close()
        assert not errors, errors
    finally:
        stop(web)
