"""The JSON API: every endpoint, bad ids and bad parameters answered with a clear 4xx, nothing hidden served."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("starlette", reason="the web view needs starlette (pip install -e '.[test]')")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2 (pip install -e '.[test]')")
from starlette.testclient import TestClient  # noqa: E402

from arena.games import new_game  # noqa: E402
from arena.ladder.store import LadderStore, SeatRecord  # noqa: E402
from arena.server.peers import address_key  # noqa: E402
from arena.replay import ReplayWriter  # noqa: E402
from arena.web import WebSource, create_app  # noqa: E402

BOTS = ["greedy", "tactician", "<script>alert(1)</script>"]
SEED = 424242


def play(store: LadderStore, replays, game_id: str, ruleset: str, bots: list[str], seed: int) -> None:
    """One random game, recorded as the ladder records it (row, replay, result)."""
    state = new_game(ruleset, len(bots), seed)
    store.game_started(game_id, ruleset, dict(state.options), seed, "set-" + game_id, 0, bots,
                       versions=[VERSIONS.get((b, game_id), "1") for b in bots])
    writer = ReplayWriter.create(replays, {"game_id": game_id, "ruleset": ruleset, "players": len(bots),
                                           "seed": seed, "options": dict(state.options),
                                           "seats": [{"name": b, "version": "1"} for b in bots]})
    chooser = random.Random(seed)
    decisions = 0
    while not state.is_over:
        seat = state.current
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        decisions += 1
        writer.decision(seat, str(action), 1, False, False, state.state_hash())
    result = state.result()
    path = writer.finish(result)
    store.game_ended(game_id, "finished",
                     [SeatRecord(seat=i, bot=b, placement=result.placements[i], points=int(result.points[i]),
                                 errors=2 if b == "greedy" else 0)
                      for i, b in enumerate(bots)], replay_path=str(path), decisions=decisions)


#: greedy's games g0, g2, g3 were played as version "1", g5 (its last) as "2-beta".
VERSIONS = {("greedy", "g5"): "2-beta"}


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    root = tmp_path_factory.mktemp("ladder")
    store = LadderStore.open(root / "arena.db")
    for n in range(6):
        play(store, root / "replays", f"g{n}", "maumau", [BOTS[n % 3], BOTS[(n + 1) % 3]], SEED + n)
    store.game_started("running-1", "maumau", {}, SEED + 99, "s", 0, BOTS[:2])
    store.register_bot("greedy", "its-token", owner="gail")
    store.close()
    source = WebSource(root / "arena.db", root / "replays")
    with TestClient(create_app(source)) as client:
        yield client
    source.close()


def test_index_rulesets_standings_and_games(ladder):
    assert "/api/v1/rulesets" in ladder.get("/api/v1").json()["endpoints"]
    assert ladder.get("/api/v1/rulesets").json()["rulesets"] == [{"name": "maumau", "title": "Mau-Mau"}]
    rows = ladder.get("/api/v1/standings/maumau").json()["standings"]
    assert {r["bot"] for r in rows} == set(BOTS) and sum(r["games"] for r in rows) == 12
    assert all(r["ci_low"] <= r["rating"] <= r["ci_high"] for r in rows)
    games = ladder.get("/api/v1/games?status=finished").json()["games"]
    assert len(games) == 6 and all(g["status"] == "finished" for g in games)
    assert all("seed" not in g for g in games)  # the seed deals every hidden card: never served
    mine = ladder.get("/api/v1/games", params={"bot": BOTS[2], "limit": 2, "offset": 1}).json()["games"]
    assert len(mine) == 2 and all(BOTS[2] in [s["bot"] for s in g["seats"]] for g in mine)
    assert [g["game_id"] for g in ladder.get("/api/v1/live").json()["games"]] == ["running-1"]


def test_a_finished_replay_from_every_view(ladder):
    spectator = ladder.get("/api/v1/games/g1/replay").json()
    assert spectator["view"] == "spectator" and len(spectator["frames"]) >= 2
    assert all(s["cards"] is None for f in spectator["frames"] for s in f["seats"])
    seat = ladder.get("/api/v1/games/g1/replay?view=seat:0").json()
    for frame in seat["frames"]:
        assert frame["seats"][0]["cards"] is not None and frame["seats"][1]["cards"] is None
    everything = ladder.get("/api/v1/games/g1/replay?view=omniscient").json()
    assert all(s["cards"] is not None for s in everything["frames"][0]["seats"])
    last = everything["frames"][-1]
    assert last["status"].splitlines()[-1].startswith("game over: ")
    assert "{" not in "".join(text for _, text in last["facts"])  # the game's own terms, never raw dicts


def test_bot_page_and_rating_history(ladder):
    bot = ladder.get("/api/v1/bots/greedy").json()
    assert bot["rulesets"]["maumau"]["finished"] == 4 and not bot["connected"]
    assert bot["registered"] and bot["owner"] == "gail"
    assert ladder.get("/api/v1/bots/tactician").json()["owner"] is None
    assert bot["rulesets"]["maumau"]["errors"] == 8  # 2 per game: errors in the bot's own code
    standings = {row["bot"]: row for row in ladder.get("/api/v1/standings/maumau").json()["standings"]}
    versions = bot["versions"]
    versions = [v for v in versions if v["games"]]  # not the running game (declared no version)
    assert [v["version"] for v in versions] == ["1", "2-beta"] and [v["games"] for v in versions] == [3, 1]
    assert versions[0]["first_seen"] <= versions[0]["last_seen"] <= versions[1]["first_seen"]
    assert all(0 <= v["score"] <= 1 and v["wins"] <= v["games"] for v in versions)
    assert standings["greedy"]["errors"] == 8 and all(row["errors"] == 0 for b, row in standings.items() if b != "greedy")
    points = ladder.get("/api/v1/bots/greedy/ratings", params={"ruleset": "maumau"}).json()["points"]
    assert len(points) == 4 and all(isinstance(p["rating"], float) for p in points)


@pytest.mark.parametrize("path, status, message", [
    ("/api/v1/standings/nosuch", 404, "unknown ruleset 'nosuch'"),
    ("/api/v1/games?limit=x", 400, "limit must be a whole number"),
    ("/api/v1/games?limit=0", 400, "limit must be 1.."),
    ("/api/v1/games?offset=-1", 400, "offset must be 0 or more"),
    ("/api/v1/games?status=lost", 400, "status must be running, finished or aborted"),
    ("/api/v1/games?ruleset=klondike", 404, "unknown ruleset"),
    ("/api/v1/games/nope", 404, "no game 'nope'"),
    ("/api/v1/games/nope/replay", 404, "no game 'nope'"),
    ("/api/v1/games/g1/replay?view=seat:7", 400, "view must be spectator, omniscient or seat:0..seat:1"),
    ("/api/v1/games/g1/replay?view=god", 400, "view must be"),
    ("/api/v1/games/running-1/replay?view=seat:0", 409, "still running"),
    ("/api/v1/games/running-1/replay", 409, "still running"),
    ("/api/v1/games/g1/events", 404, "no live game"),
    ("/api/v1/bots/nobody", 404, "no bot 'nobody'"),
    ("/api/v1/bots/greedy/ratings", 400, "ruleset is required"),
    ("/api/v1/bots/greedy/ratings?ruleset=nosuch", 404, "unknown ruleset"),
    ("/api/v2/standings", 404, "no such endpoint"),
])
def test_bad_ids_and_parameters_get_a_clear_4xx(ladder, path, status, message):
    response = ladder.get(path)
    assert response.status_code == status
    assert message in response.json()["error"] and "Traceback" not in response.text


def test_pages_are_served_without_anything_from_outside(ladder):
    page = ladder.get("/")
    assert page.status_code == 200 and "<script src=\"/static/app.js\">" in page.text
    for asset in ("/static/app.js", "/static/style.css"):
        text = ladder.get(asset).text
        assert "http://" not in text and "https://" not in text  # no CDN, no external font


def _cli(argv, capsys) -> tuple[int, str]:
    """`arena ARGV` in this process (a usage error needs no server process): exit status and stderr.  An
    uncaught exception (what a user would see as a traceback) fails the test."""
    from arena.cli import main

    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's own usage errors
        status = exit_.code
    return status, capsys.readouterr().err


def test_arena_web_refuses_what_it_cannot_serve_in_one_line(tmp_path, capsys):
    import socket
    import subprocess
    import sys

    status, err = _cli(["web", "--db", str(tmp_path / "none.db")], capsys)
    assert status == 2 and "no ladder database at" in err
    status, err = _cli(["web", "--db", str(tmp_path / "none.db"), "--proxy-hops", "-1"], capsys)
    assert status == 2 and "--proxy-hops must be 0 or more" in err
    status, err = _cli(["serve", "--port", "0", "--web-proxy-hops", "1", "--db", str(tmp_path / "c.db"),
                        "--replays", str(tmp_path / "r"), "--plain"], capsys)
    assert status == 2 and "--web-proxy-hops needs --web" in err
    assert not (tmp_path / "c.db").exists()  # refused before anything was created
    # Two real `arena serve` processes, started together (each start costs its imports): one whose web
    # port is taken, one bounded by --duration whose web server must stop with it.
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    busy = bounded = None
    try:
        busy = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--port", "0", "--web", str(port),
                                 "--db", str(tmp_path / "a.db"), "--replays", str(tmp_path / "r"), "--plain"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        bounded = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--port", "0", "--web", "0",
                                    "--duration", "1", "--db", str(tmp_path / "b.db"), "--replays", str(tmp_path / "r"),
                                    "--plain"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        busy_out, busy_err = busy.communicate(timeout=60)
    except BaseException:
        for process in (busy, bounded):
            if process is not None and process.poll() is None:
                process.kill()
                process.communicate()
        raise
    finally:
        taken.close()
    assert busy.returncode == 1 and f"the web view cannot listen on 127.0.0.1:{port}" in busy_err  # runtime, not usage
    assert "Traceback" not in busy_err
    assert not (tmp_path / "a.db").exists()  # the web port is bound before the ladder's database is made
    status, err = _cli(["web", "--db", str(tmp_path / "a.db"), "--listen", "x:y"], capsys)
    # a malformed flag is named first, before whether the database it names is there
    assert status == 2 and "expected PORT or HOST:PORT" in err and "creates one" not in err, err
    bounded_out, bounded_err = bounded.communicate(timeout=60)
    assert bounded.returncode == 0, bounded_err  # the web server stops with the ladder, cleanly
    assert "web view on http://127.0.0.1:" in bounded_out


def test_one_address_gets_only_its_share_of_the_rebuilds_and_behind_a_proxy_each_reader_is_counted(tmp_path):
    """The attack from one address: it asks for many different ended games.  It holds its share of
    the budget; another reader is still admitted.  Behind a proxy (``proxy_hops=1``) the share is
    counted per X-Forwarded-For address; without it the header is the client's word and is ignored."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from arena.rebuilds import Rebuilds

    store = LadderStore.open(tmp_path / "arena.db")
    play(store, tmp_path / "replays", "g0", "maumau", BOTS[:2], SEED)
    play(store, tmp_path / "replays", "g1", "maumau", BOTS[:2], SEED + 1)
    store.close()
    rebuilds = Rebuilds(running=1, waiting=3, per_reader=2)
    source = WebSource(tmp_path / "arena.db", tmp_path / "replays", rebuilds=rebuilds)
    held = threading.Event()
    flooder = "198.51.100.1"
    # The flooder's two rebuilds, under the key the app counts its address by (arena.server.peers).
    taken = [rebuilds.submit(("frames", f"old-{i}"), lambda: held.wait(30), reader=address_key(flooder)) for i in range(2)]
    proxied = {"X-Forwarded-For": flooder}
    with TestClient(create_app(source, proxy_hops=1)) as client:
        refused = client.get("/api/v1/games/g0/replay", headers=proxied)
        with ThreadPoolExecutor(1) as pool:
            honest = pool.submit(client.get, "/api/v1/games/g0/replay", headers={"X-Forwarded-For": "192.0.2.5"})
            admitted = rebuilds.wait_in_flight(3, timeout=20)  # the honest reader's rebuild, behind the flooder's two
            held.set()
            served = honest.result(30)
    mine = threading.Event()
    with TestClient(create_app(source)) as client:  # no proxy configured: the header is the client's word
        busy = [rebuilds.submit(("frames", f"mine-{i}"), lambda: mine.wait(30), reader="testclient") for i in range(2)]
        spoofed = client.get("/api/v1/games/g1/replay", headers={"X-Forwarded-For": "192.0.2.9"})
        mine.set()
        assert [f.result(30) for f in busy] == [True, True]
        after = client.get("/api/v1/games/g1/replay", headers={"X-Forwarded-For": "192.0.2.9"})
    source.close()
    rebuilds.close()
    assert [f.result(30) for f in taken] == [True, True]
    assert refused.status_code == 503 and "from your address" in refused.json()["error"]
    assert admitted == 3 and served.status_code == 200 and len(served.json()["frames"]) >= 2
    assert spoofed.status_code == 503 and "from your address" in spoofed.json()["error"]
    assert after.status_code == 200


def test_a_replay_request_beyond_the_rebuild_budget_is_a_503_with_retry_after(tmp_path):
    """The pages' share of the Spectate flood: re-simulating a game is refused at once, not queued
    without bound, while the process's rebuild budget (shared with Spectate) is taken."""
    import threading

    from arena.rebuilds import Rebuilds

    store = LadderStore.open(tmp_path / "arena.db")
    play(store, tmp_path / "replays", "g0", "maumau", BOTS[:2], SEED)
    store.close()
    rebuilds = Rebuilds(running=1, waiting=0)
    source = WebSource(tmp_path / "arena.db", tmp_path / "replays", rebuilds=rebuilds)
    held = threading.Event()
    elsewhere = rebuilds.submit(("spectate", "another-game"), lambda: held.wait(30))
    with TestClient(create_app(source)) as client:
        busy = client.get("/api/v1/games/g0/replay")
        held.set()
        assert elsewhere.result(30) is True
        served = client.get("/api/v1/games/g0/replay")
        built = rebuilds.built
        histories = [client.get(f"/api/v1/bots/{bot}/ratings", params={"ruleset": "maumau"}).json()["points"]
                     for bot in BOTS[:2] * 3]
        built = rebuilds.built - built
    source.close()
    rebuilds.close()
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "2"
    assert "try again" in busy.json()["error"]
    assert served.status_code == 200 and len(served.json()["frames"]) >= 2
    assert built == 1  # six readers of two bots' histories: one pass over the results
    assert [len(points) for points in histories] == [1] * 6 and histories[0] == histories[2]


def test_the_live_event_streams_share_the_arenas_watching_budget_and_give_their_place_back(tmp_path):
    """The pages' share of the watching flood (tests/server/test_spectator_flood.py): a live game's events
    are written on the games' loop, so an address holding its share of the arena's watching streams (here
    one, taken by a Spectate call) gets a 503 with Retry-After; once it is given back the events are
    served, and the place is given back after them."""
    from arena.server.live import LiveGames, Spectators
    from arena.web.source import LiveFeed

    live = LiveGames(spectators=Spectators(total=8, per_address=1))
    state = new_game("maumau", 2, SEED)
    game = live.start("live-1", "maumau", BOTS[:2])
    live.record(game, 0, None, "", state)
    source = WebSource(tmp_path / "arena.db", tmp_path / "replays", live=LiveFeed(live))
    with TestClient(create_app(source)) as client:
        live.spectators.enter("testclient")  # a stream of this address already watches
        busy = client.get("/api/v1/games/live-1/events")
        live.spectators.leave("testclient")
        served = client.get("/api/v1/games/live-1/events")
        held_after = live.spectators.held
        live.finish(game)
        followed = client.get("/api/v1/games/live-1/events", params={"follow": "1"})
    source.close()
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "2"
    assert "already watches 1 games" in busy.json()["error"]
    assert served.status_code == 200 and [e["index"] for e in served.json()["events"]] == [0]
    assert followed.status_code == 200 and "event: end" in followed.text
    assert held_after == 0 and live.spectators.held == 0


def test_every_time_is_one_form_and_live_lists_the_documented_shape(ladder):
    """`/live` and `/games` gave one game's start in two forms (``…26Z`` and ``…26.487+00:00``), and
    `arena web`'s `/live` whole game objects instead of the documented summary."""
    import re

    utc = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
    [running] = ladder.get("/api/v1/live").json()["games"]
    assert set(running) == {"game_id", "ruleset", "players", "status", "started_at", "decisions", "live", "running_on"}
    assert running["players"] == BOTS[:2] and running["live"] is False and running["decisions"] is None
    listed = {g["game_id"]: g for g in ladder.get("/api/v1/games").json()["games"]}
    assert utc.fullmatch(running["started_at"]) and running["started_at"] == listed["running-1"]["started_at"]
    assert all(utc.fullmatch(g["started_at"]) for g in listed.values())
    assert all(utc.fullmatch(g["ended_at"]) for g in listed.values() if g["status"] == "finished")
    bot = ladder.get("/api/v1/bots/greedy").json()
    assert utc.fullmatch(bot["first_seen"] or "2000-01-01T00:00:00.000Z")
    assert all(utc.fullmatch(v["first_seen"]) and utc.fullmatch(v["last_seen"]) for v in bot["versions"])
    points = ladder.get("/api/v1/bots/greedy/ratings?ruleset=maumau").json()["points"]
    assert points and all(utc.fullmatch(p["at"]) for p in points)
