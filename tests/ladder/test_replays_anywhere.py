"""Any host of a PostgreSQL ladder, and `arena replay GAME_ID --db URL` anywhere, serve any game's replay.

Two real `arena serve` hosts on one real PostgreSQL, each with its own replay
folder and its own web view, real bot processes.  A game played on host A is
served by host B's web view and by `arena replay GAME_ID --db URL --verify` run
in a folder with no replay files, and the database's copy is byte for byte host
A's sealed file.  Host A is then killed with ``kill -9`` mid-game: B aborts its
games, and when A starts again its recovery seals their replays and stores them,
so B serves those too.  Every wait is a bounded poll, never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from test_cluster import LEASE, rows, start_bot
from test_serve_e2e import SERVE, Server, poll

from arena.ladder.store import LadderStore

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")
pytest.importorskip("hypercorn", reason="the web view needs hypercorn (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[2]
#: `arena ...` in a process that knows the test ruleset (what SERVE runs, without its "serve").
ARENA = SERVE[:-1]


def start_host(tmp_path: Path, name: str, url: str) -> tuple[Server, str]:
    """A host with its own replay folder (tmp_path/NAME/replays) and web view; returns it and the web URL."""
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    server = Server(folder, "--host-name", name, "--host-lease", LEASE, "--concurrency", "3", "--drain", "20",
                    "--web", "127.0.0.1:0", db=url)
    joined = web = None
    deadline = time.monotonic() + 30
    while (joined is None or web is None) and time.monotonic() < deadline:
        line = server.read_line(timeout=deadline - time.monotonic())
        joined = joined or (f"joined the ladder as host {name}" in line or None)
        found = re.search(r"web view on (http://\S+)", line)
        web = web or (found.group(1) if found else None)
    assert joined and web, server.rest()
    return server, web.rstrip("/") + "/"


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.load(response)


def games_on(url: str, host: str, status: str) -> set[str]:
    return {g for (g,) in rows(url, "SELECT DISTINCT c.game_id FROM seat_claims c JOIN games g ON g.id = c.game_id "
                                    "WHERE c.host = %s AND g.status = %s", host, status)}


def file_of(folder: Path, game_id: str) -> Path | None:
    return next((folder / "replays").glob(f"*/{game_id}.jsonl"), None)


def spectate(port: int, game_id: str) -> list:
    """Every event the host's Spectate call sends for a game (gRPC, as a tool would call it)."""
    import grpc

    from mau_arena_sdk.wire import pb, rpc

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        return list(rpc.ArenaStub(channel).Spectate(pb.SpectateRequest(game_id=game_id), timeout=30))


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*ARENA, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_any_host_and_any_machine_serve_any_replay(tmp_path, postgres_db):
    url = postgres_db
    hosts: dict[str, Server] = {}
    bots: list[subprocess.Popen] = []
    try:
        hosts["A"], _web_a = start_host(tmp_path, "A", url)
        hosts["B"], web_b = start_host(tmp_path, "B", url)
        for name in ("a0", "a1", "b0", "b1"):  # two enter through each host; the SDK connects to both
            port = hosts[name[0].upper()].port
            bots.append(start_bot(name, port, tmp_path / f"{name}.log"))
        finished_on_a = poll(lambda: games_on(url, "A", "finished"), 60, "a game finished on host A")
        game = sorted(finished_on_a)[0]
        on_a = poll(lambda: file_of(tmp_path / "A", game), 30, "its replay sealed (renamed after the commit)")
        assert file_of(tmp_path / "B", game) is None  # only host A has the file

        # the database holds host A's sealed file, byte for byte, committed with the result
        store = LadderStore.open(url, recover=False)
        try:
            assert store.replay_text(game) == on_a.read_bytes()
        finally:
            store.close()

        # host B's web view serves it, from every view, as many frames as the file has decisions + 1
        decisions = sum(1 for line in on_a.read_text().splitlines() if '"type":"decision"' in line)
        for view in ("omniscient", "spectator", "seat:1"):
            served = get(f"{web_b}api/v1/games/{game}/replay?view={view}")
            assert served["status"] == "finished" and len(served["frames"]) == decisions + 1, view
        # and host B's gRPC Spectate: the public view after each decision, then the result
        from mau_arena_sdk.wire import pb

        events = spectate(hosts["B"].port, game)
        assert [e.index for e in events] == list(range(decisions + 2))
        assert events[-1].ended.status == pb.GameEnded.FINISHED
        placements = dict(rows(url, "SELECT bot, placement FROM seats WHERE game_id = %s", game))
        assert {r.name: r.placement for r in events[-1].ended.results} == placements
        assert all(e.HasField("view") for e in events[:-1])
        live = spectate(hosts["A"].port, game)  # host A remembers its recent games: what it sent live
        assert events[:-1] == live[:-1]
        for result in (*events[-1].ended.results, *live[-1].ended.results):
            result.think_ms = 0  # the replay keeps each decision's rounded time, the outcome their exact sum
        assert events[-1] == live[-1]

        # kill -9 host A mid-game: B aborts its games; A's restart seals and stores their replays
        def running_on_a() -> set[str]:
            return {g for (g,) in rows(url, "SELECT DISTINCT c.game_id FROM seat_claims c JOIN games g "
                                            "ON g.id = c.game_id WHERE c.host = 'A' AND g.status = 'running'")}

        def parts_on_a(lines: int) -> set[str]:  # unsealed replays with at least this many whole lines
            found = set()
            for part in (tmp_path / "A" / "replays").rglob("*.jsonl.part"):
                try:
                    if part.read_bytes().count(b"\n") >= lines:
                        found.add(part.name[: -len(".jsonl.part")])
                except FileNotFoundError:  # sealed (renamed) between the listing and the read: not under way
                    pass
            return found

        # a game under way on A (its replay has a decision line), so the kill cuts one off mid-game;
        # if every game seen under way ended between the look and the kill (a loaded machine), A is
        # started again and the kill repeated: the race is the test's, not the arena's
        for _attempt in range(3):
            poll(lambda: running_on_a() & parts_on_a(2), 30, "a game under way on A")
            os.kill(hosts["A"].process.pid, signal.SIGKILL)
            hosts["A"].process.wait(10)
            cut = running_on_a()
            recorded = cut & parts_on_a(1)  # a game killed before its replay's header line has no replay at all
            if recorded:
                break
            hosts["A"], _web_a = start_host(tmp_path, "A", url)
        assert recorded
        poll(lambda: games_on(url, "A", "aborted") >= cut, 30, "B to abort A's games")
        assert not rows(url, "SELECT 1 FROM replays WHERE game_id = ANY(%s)", list(cut))  # on A's disk only
        hosts["A"], _web_a = start_host(tmp_path, "A", url)
        stored_cut = {g for (g,) in rows(url, "SELECT game_id FROM replays WHERE game_id = ANY(%s)", list(cut))}
        assert stored_cut == recorded  # stored by A's recovery before it joined the ladder again
        aborted = sorted(recorded)[0]
        sealed = file_of(tmp_path / "A", aborted)
        assert sealed is not None
        served = get(f"{web_b}api/v1/games/{aborted}/replay?view=omniscient")
        assert served["status"] == "aborted"
        assert spectate(hosts["B"].port, aborted)[-1].ended.status == pb.GameEnded.ABORTED
    finally:
        # the hosts first, with their bots still there: a drain then only waits for the games under
        # way to end (a second or so); with the bots gone first it waited out their resume windows
        for host in hosts.values():
            if host.process.poll() is None:
                host.process.send_signal(signal.SIGTERM)
        for host in hosts.values():
            try:
                host.wait(60)
            except subprocess.TimeoutExpired:
                host.kill()
        for process in bots:
            process.terminate()
        for process in bots:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()

    # from a machine with no replay files: a folder with nothing in it, the database's URL only
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    for game_id, file in ((game, on_a), (aborted, sealed)):
        checked = arena("replay", game_id, "--db", url, "--verify", cwd=empty)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert checked.stdout.startswith("OK ") and f"{game_id}.jsonl" in checked.stdout, checked.stdout
        step = "1" if game_id == game else "0"  # a game cut off by the kill may have no decision yet
        shown = arena("replay", game_id, "--db", url, "--step", step, "--width", "100", cwd=empty)
        assert shown.returncode == 0 and shown.stdout.strip(), shown.stderr
    assert list(empty.iterdir()) == []  # nothing left behind: the copy lived in a temporary folder

    listed = arena("replays", "--db", url, "--json", cwd=empty)
    assert listed.returncode == 0, listed.stderr
    by_id = {row["game_id"]: row for row in json.loads(listed.stdout)}
    assert by_id[game]["status"] == "finished" and by_id[game]["bytes"] == on_a.stat().st_size
    assert by_id[aborted]["status"] == "aborted" and by_id[aborted]["bytes"] == sealed.stat().st_size
    assert 0 < by_id[game]["stored_bytes"] < by_id[game]["bytes"]
    # every ended game's replay is in the database: finished ones by their commit, the cut ones by recovery
    assert {g for (g,) in rows(url, "SELECT id FROM games WHERE status = 'finished'")} <= set(by_id)
