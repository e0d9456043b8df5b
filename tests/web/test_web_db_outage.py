"""The web view while its PostgreSQL is down: every answer the database cannot give is a 503 with
Retry-After and one log line (it was a 500 and a 30-line traceback per request), and the pages are
served again once the database is back."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2 (pip install -e '.[test]')")
from starlette.testclient import TestClient  # noqa: E402

from arena.ladder.store import LadderStore  # noqa: E402
from arena.web import WebSource, create_app  # noqa: E402

from .test_web_api import BOTS, SEED, play  # noqa: E402

PATHS = ["/api/v1/rulesets", "/api/v1/standings/maumau", "/api/v1/live", "/api/v1/games",
         "/api/v1/games/pg0", "/api/v1/games/pg0/events", "/api/v1/bots/greedy"]


def test_a_database_outage_is_a_503_with_retry_after_and_one_log_line(private_postgres, tmp_path, caplog):
    url = private_postgres.url
    store = LadderStore.open(url)
    play(store, tmp_path / "replays", "pg0", "maumau", BOTS[:2], SEED)
    store.close()
    source = WebSource(url)
    try:
        with TestClient(create_app(source)) as client:
            assert all(client.get(path).status_code == 200 for path in PATHS if not path.endswith("/events"))
            private_postgres.stop("fast")
            try:
                caplog.clear()
                with caplog.at_level(logging.INFO, logger="arena.web"):
                    answers = {path: client.get(path) for path in PATHS}
            finally:
                private_postgres.start()
            for path, answer in answers.items():
                assert answer.status_code == 503, (path, answer.status_code, answer.text)
                assert answer.headers["Retry-After"] == "5", path
                assert "database cannot be read right now" in answer.json()["error"], path
            records = [r for r in caplog.records if r.name.startswith("arena.web")]
            assert len(records) == len(PATHS), [r.getMessage() for r in records]  # one a request...
            assert all(r.exc_info is None and r.levelno == logging.WARNING for r in records)  # ...no traceback
            assert all("\n" not in r.getMessage() for r in records)
            # Back: the same source reads again.
            assert client.get("/api/v1/games").status_code == 200
            assert client.get("/api/v1/standings/maumau").json()["standings"]
    finally:
        source.close()


def test_a_page_whose_refresh_fails_says_so_above_what_it_last_showed_and_clears_when_back(private_postgres, tmp_path):
    """The leaderboard refreshes every 2 s; during an outage each refresh is a 503.  The page used to keep the old
    tables without a word (its refresher swallowed the error); it now says it cannot refresh, why, and since when
    its data dates, and takes the line down once a refresh succeeds."""
    from .test_web_live import _browser
    from .web_process import new_page, serve_web, stop

    playwright, chromium = _browser()
    url = private_postgres.url
    store = LadderStore.open(url)
    play(store, tmp_path / "replays", "pg0", "maumau", BOTS[:2], SEED)
    store.close()
    web, page_url = serve_web(url, tmp_path)
    try:
        with playwright.sync_playwright() as driver:
            browser, page, errors = new_page(driver, chromium)
            page.goto(f"{page_url}#/")
            page.wait_for_selector("#standings table.standings", timeout=30_000)
            assert page.locator("#stale").is_hidden()
            private_postgres.stop("fast")
            try:
                page.wait_for_selector("#stale:not([hidden])", timeout=30_000)
                said = page.locator("#stale").inner_text()
                assert said.startswith("cannot refresh: ") and "showing what it said at " in said, said
                assert "unreachable" in said or "database" in said, said  # the server's 503 text, not a bare status
                assert page.locator("#standings table.standings").count() == 1  # the old table stays in view
            finally:
                private_postgres.start()
            page.wait_for_selector("#stale[hidden]", state="attached", timeout=60_000)
            browser.close()
        assert not errors, errors
    finally:
        stop(web)
