"""The hosts of a shared ladder, from any machine: `arena hosts --db URL`, `GET /api/v1/hosts` and the page's section.

An operator running two hosts had no page or command that said which hosts the ladder has, whether they
are live, and how busy each is.  Here a real PostgreSQL holds a host that joined through the real host
registry (it holds its host lock), running one game; one whose lease ran out and whose lock is free (dead,
although no sweep has marked its row yet); one that stopped cleanly; and one a sweep marked dead.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("uvicorn", reason="the web view needs uvicorn (pip install -e '.[test]')")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2 (pip install -e '.[test]')")
psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")
from starlette.testclient import TestClient  # noqa: E402

from arena.ladder.store import LadderStore  # noqa: E402
from arena.ladder.store.hosts import HostRegistry  # noqa: E402
from arena.web import WebSource, create_app  # noqa: E402

from .test_web_api import BOTS, SEED, play  # noqa: E402
from .test_web_live import _browser  # noqa: E402
from .web_process import new_page, serve_web, stop  # noqa: E402

FIELDS = {"name", "address", "state", "since", "since_s", "lease_until", "lease_left_s", "games", "concurrency", "web"}
WEB_A = "https://a.example.org/arena/"  # hostA serves a web view there (`arena serve --web`, `--web-advertise`)


@pytest.fixture
def four_hosts(postgres_db, tmp_path):
    """hostA live (joined through `HostRegistry`, its lease overdue but its lock held) with one running game
    and one finished; hostB's lease lapsed with no lock (dead, unswept); hostC stopped; hostD swept dead; hostE
    stopped two days ago (left out of the listings unless all are asked for)."""
    url = postgres_db
    store = LadderStore.open(url, shared=True)
    store.close()
    with psycopg.connect(url, autocommit=True) as db:
        now = db.execute("SELECT EXTRACT(EPOCH FROM clock_timestamp())").fetchone()[0]
        for name, key, state, started, lease_until in (("hostB", 100, "live", now - 3600, now - 90),
                                                       ("hostC", 101, "stopped", now - 7200, now - 600),
                                                       ("hostD", 102, "dead", now - 9000, now - 5000),
                                                       ("hostE", 103, "stopped", now - 3 * 86400, now - 2 * 86400)):
            db.execute("INSERT INTO hosts (name, address, lock_key, concurrency, started_at, lease_until, state) "
                       "VALUES (%s, %s, %s, 4, %s, %s, %s)", (name, f"{name.lower()}.example.org:50051", key,
                                                               started, lease_until, state))
    registry = HostRegistry(url, "hostA", "a.example.org:50051", concurrency=8, lease_s=30, web=WEB_A)
    registry.join()
    store = LadderStore.open(url, shared=True)
    play(store, tmp_path / "replays", "done-a", "maumau", BOTS[:2], SEED)
    store.game_started("run-a", "maumau", {}, SEED + 1, "run-a", 0, BOTS[:2])
    store.close()
    with psycopg.connect(url, autocommit=True) as db:
        for game, released in (("run-a", None), ("done-a", now)):
            for seat, bot in enumerate(BOTS[:2]):
                db.execute("INSERT INTO seat_claims (game_id, seat, bot, ruleset, host, cap, busy, claimed_at, "
                           "released_at) VALUES (%s, %s, %s, 'maumau', 'hostA', 2, 1, %s, %s)",
                           (game, seat, bot, now, released))
        db.execute("UPDATE hosts SET lease_until = %s WHERE name = 'hostA'", (now - 20,))  # late, not dead
    try:
        yield url
    finally:
        registry.close()


def arena(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def check_listing(listed: dict) -> None:
    assert listed["shared"] is True and listed["not_shown"] == 1  # hostE, stopped two days ago
    hosts = listed["hosts"]
    assert all(set(host) == FIELDS for host in hosts), hosts
    assert [(h["name"], h["state"], h["games"], h["concurrency"]) for h in hosts] == [
        ("hostA", "live", 1, 8), ("hostB", "dead", 0, 4), ("hostC", "stopped", 0, 4), ("hostD", "dead", 0, 4)]
    a, b, c, d = hosts
    assert a["address"] == "a.example.org:50051" and c["address"] == "hostc.example.org:50051"
    # hostA's join wrote where its web view is; the others' rows have none (as a host of an older release leaves it)
    assert [h["web"] for h in hosts] == [WEB_A, None, None, None]
    assert 15 <= -a["lease_left_s"] < 60  # overdue, yet live: its process holds the host lock
    assert 85 <= -b["lease_left_s"] < 150 and 85 <= b["since_s"] < 150  # dead since its lease ran out
    assert 595 <= c["since_s"] < 700  # stopped ten minutes ago
    assert 0 <= a["since_s"] < 60  # joined just now
    assert all(h["since"].endswith("Z") and h["lease_until"].endswith("Z") for h in hosts)


def test_arena_hosts_lists_every_host_its_state_and_its_games_now(four_hosts, tmp_path):
    shown = arena("hosts", "--db", four_hosts, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "1 live of 4" in lines[0]
    rows = {line.split()[1]: line for line in lines[:-1] if line.split()[1:2] and line.split()[1].startswith("host")}
    assert set(rows) == {"hostA", "hostB", "hostC", "hostD"}, shown.stdout
    assert "a.example.org:50051" in rows["hostA"] and " live " in rows["hostA"] and "1/8" in rows["hostA"]
    assert rows["hostA"].rstrip(" │").endswith(f" {WEB_A}") and "http" not in rows["hostB"]
    assert "lapsed" in rows["hostA"]
    assert " dead " in rows["hostB"] and "0/4" in rows["hostB"] and " stopped " in rows["hostC"]
    assert lines[-1] == "1 host stopped or dead for more than a day not shown (--all lists them)", shown.stdout
    as_json = arena("hosts", "--db", four_hosts, "--json", cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    check_listing(json.loads(as_json.stdout))
    every = arena("hosts", "--db", four_hosts, "--all", cwd=tmp_path)
    assert "1 live of 5" in every.stdout.splitlines()[0] and " hostE " in every.stdout and "not shown" not in every.stdout
    every = json.loads(arena("hosts", "--db", four_hosts, "--all", "--json", cwd=tmp_path).stdout)
    assert [h["name"] for h in every["hosts"]][-1] == "hostE" and every["not_shown"] == 0


def test_the_api_lists_the_hosts_in_the_same_fields(four_hosts):
    source = WebSource(four_hosts)
    try:
        with TestClient(create_app(source)) as client:
            check_listing(client.get("/api/v1/hosts").json())
            every = client.get("/api/v1/hosts?all=1").json()
            assert [h["name"] for h in every["hosts"]][-1] == "hostE" and every["not_shown"] == 0
            assert "/api/v1/hosts" in client.get("/api/v1").json()["endpoints"]
            # Many readers share one read (it looks at pg_locks) within HOSTS_FRESH_S.
            before = source.store.stats.statements
            answers = [client.get("/api/v1/hosts").json() for _ in range(20)]
            assert source.store.stats.statements - before <= 1 and all(a == answers[0] for a in answers)
    finally:
        source.close()


def test_a_sqlite_ladder_says_it_has_one_host_in_one_line(tmp_path):
    store = LadderStore.open(tmp_path / "arena.db")
    store.game_started("run-1", "maumau", {}, SEED, "s", 0, BOTS[:2])
    store.close()
    shown = arena("hosts", "--db", str(tmp_path / "arena.db"), cwd=tmp_path)
    assert shown.returncode == 0 and shown.stderr == ""
    assert shown.stdout.splitlines() == [
        f"{tmp_path / 'arena.db'} is a SQLite ladder: it has one host, the `arena serve` that owns the file "
        "(1 game running); hosts are listed on a PostgreSQL ladder"]
    assert json.loads(arena("hosts", "--db", str(tmp_path / "arena.db"), "--json", cwd=tmp_path).stdout) == {
        "shared": False, "hosts": []}
    missing = arena("hosts", "--db", str(tmp_path / "none.db"), cwd=tmp_path)
    assert missing.returncode == 2 and "no ladder database at" in missing.stderr
    source = WebSource(tmp_path / "arena.db")
    try:
        with TestClient(create_app(source)) as client:
            assert client.get("/api/v1/hosts").json() == {"shared": False, "hosts": []}
    finally:
        source.close()


def test_the_leaderboard_page_shows_a_shared_ladders_hosts_and_no_section_on_sqlite(four_hosts, tmp_path):
    playwright, chromium = _browser()
    store = LadderStore.open(tmp_path / "one.db")
    play(store, tmp_path / "replays", "g1", "maumau", BOTS[:2], SEED)
    store.close()
    shared, shared_url = serve_web(four_hosts, tmp_path)
    single, single_url = None, None
    try:
        single, single_url = serve_web(str(tmp_path / "one.db"), tmp_path)
        with playwright.sync_playwright() as driver:
            browser, page, errors = new_page(driver, chromium)
            page.goto(f"{shared_url}#/")
            page.wait_for_selector("#hosts table.hosts", timeout=30_000)
            assert page.locator("#hosts-section").is_visible()
            cells = page.evaluate("""() => [...document.querySelectorAll('#hosts tbody tr')].map(
                row => [...row.cells].map(cell => cell.innerText.trim()))""")
            assert [(row[0], row[1], row[2], row[5], row[6]) for row in cells] == [
                ("hostA", "a.example.org:50051", "live", "1/8", WEB_A),
                ("hostB", "hostb.example.org:50051", "dead", "0/4", ""),
                ("hostC", "hostc.example.org:50051", "stopped", "0/4", ""),
                ("hostD", "hostd.example.org:50051", "dead", "0/4", "")]
            assert page.locator("#hosts tbody tr a").get_attribute("href") == WEB_A
            assert cells[0][4].startswith("lapsed") and cells[2][4] == ""
            assert "1 live of 4" in page.locator("#hosts .legend").inner_text()
            page.screenshot(path=str(tmp_path / "hosts.png"))
            # A SQLite ladder: one host, no section (the page asked, and was told the ladder is not shared).
            page.goto(f"{single_url}#/")
            page.wait_for_selector('#hosts-section[data-shared="false"]', state="attached", timeout=30_000)
            assert not page.locator("#hosts-section").is_visible() and page.locator("#hosts table").count() == 0
            browser.close()
        assert not errors, errors
    finally:
        stop(shared)
        if single is not None:
            stop(single)
