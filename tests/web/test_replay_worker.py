"""A replay's work (re-simulation, the view's frames, the JSON) runs in the rebuild budget's worker process, not in
the server's: the attack (one address asking for many ended games' replays) is refused beyond the budget, costs
the server's own process little CPU, pays its pace in proportion to the games' length; a (game, view) is built
once; a killed worker costs one clear error; no worker outlives its server."""

from __future__ import annotations

import os
import signal
import urllib.error
import urllib.request
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web view needs starlette (pip install -e '.[test]')")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2 (pip install -e '.[test]')")
from starlette.testclient import TestClient  # noqa: E402

from arena.ladder.store import LadderStore, SeatRecord  # noqa: E402
from arena.rebuilds import PER_READER  # noqa: E402
from arena.server.readpace import ReadPace  # noqa: E402
from arena.web import WebSource, create_app  # noqa: E402
from arena.web.pace import BURST, WebPace  # noqa: E402
from tests.replay.conftest import record_random_game  # noqa: E402
from tests.web.web_process import serve_web, stop  # noqa: E402

HANG_GUARD_S = 120


def turns(decisions: int) -> int:
    """What a replay costs its address's pace (docs/web-api.md): a turn per 50 decisions, at least one."""
    return max(1, -(-decisions // 50))


def record(store: LadderStore, replays: Path, game_id: str, ruleset: str, players: int, seed: int,
           decisions: int) -> int:
    """A random game of at most ``decisions`` decisions, as the ladder records an ended one (row and replay file):
    its decisions."""
    path = record_random_game(replays, ruleset, players=players, seed=seed, game_id=game_id,
                              max_decisions=decisions, names=[f"bot{i}" for i in range(players)])
    played = sum(1 for line in path.read_bytes().splitlines() if line.startswith(b'{"type":"decision"'))
    assert played > 0
    store.game_started(game_id, ruleset, {}, seed, "set-" + game_id, 0, [f"bot{i}" for i in range(players)])
    store.game_ended(game_id, "aborted", [SeatRecord(seat=i, bot=f"bot{i}") for i in range(players)],
                     replay_path=str(path), decisions=played)
    return played


def cpu_s(pid: int) -> float:
    """A process's user + system CPU seconds so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def workers_of(pid: int) -> list[int]:
    """The reader-work processes ``pid`` started (spawned Python children; not multiprocessing's resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid and b"spawn_main" in command:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def get(url: str) -> tuple[int, bytes, Any]:
    try:
        with urllib.request.urlopen(url, timeout=HANG_GUARD_S) as answer:
            return answer.status, answer.read(), answer.headers
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read(), refused.headers


def test_a_replay_flood_from_one_address_runs_in_the_worker_process_and_beyond_the_budget_is_refused_at_once(tmp_path):
    """The attack against a real `arena web`: one address asks for many different ended games at once.  The work
    runs in a worker process (another pid, which does the CPU work: the server's own CPU stays a small part of
    it), and the requests beyond the address's share of the budget are answered 503 at once while the admitted
    ones are still waiting for the (stopped) worker: refused, not queued."""
    flood = PER_READER + 5
    store = LadderStore.open(tmp_path / "arena.db")
    lengths = [record(store, tmp_path / "replays", f"m{n}", "mose", 4, n, 150) for n in range(flood + 1)]
    store.close()
    assert sum(turns(n) for n in lengths) <= BURST  # the flood is within its pace: the budget refuses
    web, url = serve_web(tmp_path / "arena.db", tmp_path, "--replays", str(tmp_path / "replays"))
    url = url.rstrip("/")
    try:
        first = get(f"{url}/api/v1/games/m{flood}/replay?view=omniscient")
        assert first[0] == 200, first
        (worker,) = workers_of(web.pid)
        assert worker != web.pid
        server_before, worker_before = cpu_s(web.pid), cpu_s(worker)
        os.kill(worker, signal.SIGSTOP)  # the admitted rebuilds wait for it: the rest of the flood must not
        try:
            with ThreadPoolExecutor(flood) as pool:
                asked = [pool.submit(get, f"{url}/api/v1/games/m{n}/replay?view=omniscient") for n in range(flood)]
                answered: set = set()
                while len(answered) < flood - PER_READER:
                    done, _ = wait(set(asked) - answered, timeout=HANG_GUARD_S, return_when=FIRST_COMPLETED)
                    assert done, "the requests beyond the budget were not answered while the worker was stopped"
                    answered |= done
                refused = [f.result() for f in answered]
                held = [f for f in asked if f not in answered]
                assert not any(f.done() for f in held)  # (the worker is stopped: nothing admitted can finish)
                os.kill(worker, signal.SIGCONT)
                served = [f.result(HANG_GUARD_S) for f in held]
        finally:
            os.kill(worker, signal.SIGCONT)
        server_cpu, worker_cpu = cpu_s(web.pid) - server_before, cpu_s(worker) - worker_before
    finally:
        stop(web)
    assert len(refused) == flood - PER_READER
    assert {status for status, _, _ in refused} == {503}
    assert all(headers["Retry-After"] == "2" and b"from your address" in body for _, body, headers in refused)
    assert [status for status, _, _ in served] == [200] * PER_READER
    assert all(b'"frames":[' in body and len(body) > 50_000 for _, body, _ in served)
    # The three rebuilds' CPU went to the worker; the server only read rows, and sent what the worker encoded.
    # (0.2 s of the worker's CPU before the frames' seat marks became linear; 0.18 after: the floor only says
    # the worker did the rebuilds, the ratio below says where the work went)
    assert worker_cpu > 0.05, (worker_cpu, server_cpu)
    assert server_cpu < worker_cpu / 3, (server_cpu, worker_cpu)
    assert web.returncode in (0, 130) and not alive(worker)  # Ctrl-C stopped the server, and its worker with it


def test_a_game_and_view_asked_twice_is_built_once_in_the_worker(tmp_path):
    store = LadderStore.open(tmp_path / "arena.db")
    record(store, tmp_path / "replays", "g0", "maumau", 2, 3, 400)
    store.close()
    source = WebSource(tmp_path / "arena.db", tmp_path / "replays")
    try:
        with TestClient(create_app(source)) as client:
            first = client.get("/api/v1/games/g0/replay", params={"view": "seat:1"})
            again = client.get("/api/v1/games/g0/replay", params={"view": "seat:1"})
            jobs = source.rebuilds.workers.jobs
            other = client.get("/api/v1/games/g0/replay", params={"view": "spectator"})
            other_jobs = source.rebuilds.workers.jobs
        pids = source.rebuilds.workers.pids()
    finally:
        source.close()
    assert first.status_code == again.status_code == other.status_code == 200
    assert first.content == again.content and first.json()["view"] == "seat 1"
    assert jobs == 1 and other_jobs == 2  # the second ask was answered from memory; another view is its own build
    assert pids and os.getpid() not in pids
    assert not any(alive(pid) for pid in pids)  # closing the source ends its worker


def test_a_killed_worker_fails_its_request_with_one_clear_error_and_the_next_request_gets_a_fresh_worker(tmp_path):
    store = LadderStore.open(tmp_path / "arena.db")
    for n in range(2):
        record(store, tmp_path / "replays", f"g{n}", "maumau", 2, 3 + n, 400)
    store.close()
    source = WebSource(tmp_path / "arena.db", tmp_path / "replays")
    workers = source.rebuilds.workers
    try:
        with TestClient(create_app(source)) as client:
            assert client.get("/api/v1/games/g0/replay").status_code == 200
            (first,) = workers.pids()
            os.kill(first, signal.SIGSTOP)  # the next job waits in it until the test kills it
            with ThreadPoolExecutor(1) as pool:
                lost = pool.submit(client.get, "/api/v1/games/g1/replay")
                assert workers.wait_jobs(2, timeout=HANG_GUARD_S) == 2
                os.kill(first, signal.SIGKILL)
                lost = lost.result(HANG_GUARD_S)
            after = client.get("/api/v1/games/g1/replay")
            (second,) = workers.pids()
    finally:
        source.close()
    assert lost.status_code == 503 and lost.headers["Retry-After"] == "2"
    assert lost.json()["error"].startswith("the replay worker process was killed by signal 9 while building")
    assert after.status_code == 200 and after.json()["game_id"] == "g1"
    assert second != first and workers.lost == 1 and workers.started == 2


def test_the_pace_charges_a_long_replay_more_turns_than_a_short_one(tmp_path):
    """An address that asks for a long replay has fewer requests left than one that asked for a short one."""
    store = LadderStore.open(tmp_path / "arena.db")
    short = record(store, tmp_path / "replays", "short", "maumau", 2, 3, 40)
    long = record(store, tmp_path / "replays", "long", "mose", 4, 1, 400)
    store.close()
    assert turns(short) == 1 and turns(long) == 8
    source = WebSource(tmp_path / "arena.db", tmp_path / "replays")
    left = {}
    try:
        for game in ("short", "long"):
            # a pace that refills no turn while the test runs and holds nothing: each turn taken shows
            pace = WebPace(ReadPace(per_second=1e-6, burst=BURST, max_wait_s=0), refusal_delay_s=0)
            with TestClient(create_app(source, pace=pace)) as client:
                assert client.get(f"/api/v1/games/{game}/replay").status_code == 200
                left[game] = 0
                while client.get("/api/v1/rulesets").status_code == 200 and left[game] <= BURST:
                    left[game] += 1
                refused = client.get(f"/api/v1/games/{game}/replay")
    finally:
        source.close()
    assert left == {"short": BURST - 1, "long": BURST - 8}
    assert refused.status_code == 429 and "too many requests" in refused.json()["error"]


def test_a_view_spelled_another_way_is_refused_not_rebuilt(tmp_path):
    """One spelling a view: "seat:01" or a non-ASCII digit was a rebuild of its own past the cache (one address kept
    the worker busy asking for one game again and again), and "seat:²" passed isdigit() and failed int(): a 500."""
    store = LadderStore.open(tmp_path / "arena.db")
    record(store, tmp_path / "replays", "g0", "maumau", 2, 3, 60)
    store.close()
    source = WebSource(tmp_path / "arena.db", tmp_path / "replays")
    try:
        with TestClient(create_app(source)) as client:
            assert client.get("/api/v1/games/g0/replay", params={"view": "seat:0"}).status_code == 200
            others = [client.get("/api/v1/games/g0/replay", params={"view": view})
                      for view in ("seat:00", "seat:01", "seat:\u0660", "seat:\u00b2", "seat:+0", "seat: 0")]
            jobs = source.rebuilds.workers.jobs
    finally:
        source.close()
    assert [answer.status_code for answer in others] == [400] * 6, [answer.text for answer in others]
    assert all("view must be spectator, omniscient or seat:0..seat:1" in answer.json()["error"] for answer in others)
    assert jobs == 1


def test_a_replay_longer_than_the_burst_leaves_the_rest_of_its_cost_as_a_debt(tmp_path):
    """A replay costs a turn per 50 decisions; the part beyond the burst was forgiven (the turns were capped at the
    burst), so a game of any length cost at most the burst.  Now the rest is owed: the next request waits for it."""
    store = LadderStore.open(tmp_path / "arena.db")
    long = record(store, tmp_path / "replays", "long", "mose", 4, 1, 400)
    store.close()
    assert turns(long) == 8
    source = WebSource(tmp_path / "arena.db", tmp_path / "replays")
    try:
        # a turn in 100 s: the seconds the replay takes to build refill next to nothing
        pace = WebPace(ReadPace(per_second=0.01, burst=5, max_wait_s=0), refusal_delay_s=0)
        with TestClient(create_app(source, pace=pace)) as client:
            assert client.get("/api/v1/games/long/replay").status_code == 200  # 5 turns now, 3 owed
            refused = client.get("/api/v1/rulesets")
    finally:
        source.close()
    # 3 turns owed and 1 for this request: about 400 s (without the debt: 100 s)
    assert refused.status_code == 429 and 300 < int(refused.headers["Retry-After"]) <= 400, refused.headers
