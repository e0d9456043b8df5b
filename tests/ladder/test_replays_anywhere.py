"""Any host of a PostgreSQL ladder, and `arena replay GAME_ID --db URL` anywhere, serve any game's replay.

Two real `arena serve` hosts on one real PostgreSQL, each with its own web view,
real bot processes.  A game played on host A is committed with its replay (no
file on either host), served by host B's web view and gRPC Spectate (the same
events A sent live) and by `arena replay GAME_ID --db URL --verify` / ``--save``
run in a folder with no replay files.  Host A is then killed with ``kill -9``
mid-game: B aborts its games, unrated; their replays were in A's memory and are
lost (the documented trade), and every reader says so in one line.  Every wait is
a bounded poll, never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import toy_ladder_game
from host_freeze import backends, cut_off, running_on
from test_cluster import LEASE, rows, start_bot
from test_serve_e2e import Server, poll

from arena.ladder.store import LadderStore

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")
pytest.importorskip("uvicorn", reason="the web view needs uvicorn (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.fixture
def arena(capsys, monkeypatch):
    """`arena ARGS` in ``cwd`` run in this process (`arena.cli.main`, the test ruleset registered for it), as
    tests/cli's `arena_here` does: what it prints and its status.  A process each cost a Python start-up and the
    arena's imports, 3-5 s a command on a loaded 2-core machine (five commands: more than the hosts' starts);
    what the commands are checked for is what they read from the database URL in an empty folder."""
    from arena.cli import main

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
        capsys.readouterr()  # what came before is not this command's
        with monkeypatch.context() as patch, toy_ladder_game.registered():
            patch.chdir(cwd)
            try:
                status = main(list(args))
            except SystemExit as exit_:  # argparse's own usage errors
                status = exit_.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), status, out, err)

    return run


def test_any_host_and_any_machine_serve_any_replay(tmp_path, postgres_db, arena):
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
        assert file_of(tmp_path / "A", game) is None and file_of(tmp_path / "B", game) is None  # no files

        # the database holds the replay, committed with the result
        store = LadderStore.open(url, recover=False)
        try:
            text = store.replay_text(game)
        finally:
            store.close()
        assert text is not None and b'"status":"finished"' in text.splitlines()[-1]

        # host B's web view serves it, from every view, as many frames as the replay has decisions + 1
        decisions = sum(1 for line in text.decode().splitlines() if '"type":"decision"' in line)
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

        # kill -9 host A mid-game: B aborts its games, and their replays died with A's memory
        # a game under way on A, so the kill cuts one off; if every game seen under way ended between
        # the look and the kill (a loaded machine), A is started again and the kill repeated.  The cut
        # games are read once A's sessions are over: an end it sent just before may still commit.
        for _attempt in range(3):
            seen = poll(lambda: running_on(url, "A"), 30, "a game under way on A")
            killed = hosts["A"].process.pid
            os.kill(killed, signal.SIGKILL)
            hosts["A"].process.wait(10)
            poll(lambda: not backends(url, "A", killed), 30, "the killed host A's sessions to end")
            cut = cut_off(url, "A", seen)
            if cut:
                break
            hosts["A"], _web_a = start_host(tmp_path, "A", url)
        assert cut
        poll(lambda: games_on(url, "A", "aborted") >= cut, 30, "B to abort A's games")
        hosts["A"], _web_a = start_host(tmp_path, "A", url)  # an upgrade's .part files aside, nothing to recover
        assert not rows(url, "SELECT 1 FROM replays WHERE game_id = ANY(%s)", list(cut))
        assert not list((tmp_path / "A" / "replays").rglob("*.jsonl*"))
        aborted = sorted(cut)[0]
        with pytest.raises(urllib.error.HTTPError) as refused:
            get(f"{web_b}api/v1/games/{aborted}/replay?view=omniscient")
        assert refused.value.code == 404
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
    checked = arena("replay", game, "--db", url, "--verify", cwd=empty)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("OK ") and f"{game}.jsonl" in checked.stdout, checked.stdout
    shown = arena("replay", game, "--db", url, "--step", "1", "--width", "100", cwd=empty)
    assert shown.returncode == 0 and shown.stdout.strip(), shown.stderr
    assert list(empty.iterdir()) == []  # nothing left behind: the copy lived in a temporary folder
    saved = arena("replay", game, "--db", url, "--save", "copy.jsonl", cwd=empty)
    assert saved.returncode == 0, saved.stderr
    assert (empty / "copy.jsonl").read_bytes() == text
    lost = arena("replay", aborted, "--db", url, "--verify", cwd=empty)
    assert lost.returncode == 1 and "no replay" in lost.stderr and lost.stderr.count("\n") == 1, lost.stderr

    listed = arena("replays", "--db", url, "--json", cwd=empty)
    assert listed.returncode == 0, listed.stderr
    by_id = {row["game_id"]: row for row in json.loads(listed.stdout)}
    assert by_id[game]["status"] == "finished" and by_id[game]["bytes"] == len(text)
    # the dead host's game is listed, as having no replay, with the reason it was aborted
    assert by_id[aborted]["status"] == "aborted" and not by_id[aborted]["has_replay"], by_id[aborted]
    assert by_id[aborted]["bytes"] is None and by_id[aborted]["outcome"], by_id[aborted]
    assert 0 < by_id[game]["stored_bytes"] < by_id[game]["bytes"]
    # every finished game's replay is in the database, committed with its result
    assert {g for (g,) in rows(url, "SELECT id FROM games WHERE status = 'finished'")} <= set(by_id)
