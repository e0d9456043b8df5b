"""`arena serve` as a real process with real bot processes: kill -9 safety, restart, drain, refusals.

The server runs the test-only ruleset (tests/ladder/toy_ladder_game.py) so
these tests do not depend on the real rulesets' speed; the bots are
`arena.ladder.loadbot` processes.  Every wait is a bounded poll of the
database or of the process's output, never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import toy_ladder_game
from arena.ladder.store import SCHEMA_VERSION, LadderStore

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RULESET = toy_ladder_game.NAME
#: How long a test server may take to say it is listening (or has joined its ladder): a bound, not a timing.
START_S = 120
SERVE = [
    sys.executable, "-c",
    f"import sys; sys.path.insert(0, {str(HERE)!r}); import toy_ladder_game; toy_ladder_game.register(); "
    "from arena.cli import main; sys.exit(main(sys.argv[1:]))",
    "serve",
]


class Server:
    def __init__(self, tmp: Path, *extra: str, db: "str | Path | None" = None, preexec_fn=None) -> None:
        self.db = tmp / "ladder.db" if db is None else db
        self.replays = tmp / "replays"
        self.process = subprocess.Popen(
            self.command(tmp, self.db, *extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            cwd=str(ROOT), preexec_fn=preexec_fn,
        )
        self.output: list[str] = []
        # A thread reads the output line by line into a queue: a selector on the buffered pipe would
        # miss lines already read into Python's buffer (they looked like a silent server).
        self._lines: "queue.Queue[str | None]" = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()
        # Bounded, not timed: a start takes 1-2 s, but 30 s ran out at a load of 15-20 on two cores (a
        # failure of the machine, not of the server), and a generous bound costs nothing when it passes.
        deadline = time.monotonic() + START_S
        line = ""
        while ("listening on" not in line or line.startswith("{")) and time.monotonic() < deadline:  # not a JSON log
            line = self.read_line(timeout=deadline - time.monotonic())
            if not line and self.process.poll() is not None:
                break
        if "listening on" not in line:
            self.kill()  # not left running behind the failure (a slow start on a loaded machine)
            raise AssertionError(f"server did not start: {self.rest()}")
        self.port = int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])

    @staticmethod
    def command(tmp: Path, db: "str | Path", *extra: str) -> list[str]:
        """`arena serve` on the test ruleset, a free port, replays in ``tmp/replays``."""
        return SERVE + ["--port", "0", "--db", str(db), "--replays", str(tmp / "replays"), "--game", RULESET,
                        "--plain", "--summary-every", "1000", "--concurrency", "4", *extra]

    def _pump(self) -> None:
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def read_line(self, timeout: float) -> str:
        """The next line of output, or "" if none came within ``timeout`` (or the output has ended)."""
        try:
            line = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return ""
        if line is None:
            self._lines.put(None)  # the end stays the end for later calls
            return ""
        self.output.append(line)
        return line

    def rest(self) -> str:
        while True:  # what has arrived so far, without waiting
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                break
            if line is None:
                self._lines.put(None)
                break
            self.output.append(line)
        return "".join(self.output)

    def wait(self, timeout: float = 30) -> int:
        self.process.wait(timeout=timeout)
        self._reader.join(timeout)
        self.rest()
        return self.process.returncode

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def start_bots(port: int, names: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.ladder.loadbot", "--arena", f"127.0.0.1:{port}", "--names", names, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(ROOT),
    )


def stop_bots(bots: subprocess.Popen) -> dict:
    if bots.poll() is None:
        bots.terminate()
    out, _ = bots.communicate(timeout=20)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def counts(db: Path) -> dict[str, int]:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return dict(connection.execute("SELECT status, COUNT(*) FROM games GROUP BY status").fetchall())
    except sqlite3.OperationalError:  # not created yet
        return {}
    finally:
        connection.close()


def get_standings(port: int):
    """The server's GetStandings RPC (fed from the ladder's last fit)."""
    import grpc

    from mau_arena_sdk.wire import pb, rpc

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = rpc.ArenaStub(channel).GetStandings(pb.StandingsRequest(ruleset=RULESET), timeout=10)
    return list(reply.standings)


def stored_replay(store, game_id: str):
    """A ladder game's replay, as the database keeps it (committed with its result)."""
    from arena.replay.reader import parse

    text = store.replay_text(game_id)
    assert text is not None, f"game {game_id} has no replay in {store.path}"
    return parse(text, f"{game_id}.jsonl")


def poll(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture
def cleanup():
    processes: list = []
    yield processes
    for item in processes:
        if isinstance(item, Server):
            item.kill()
        elif item.poll() is None:
            item.kill()
            item.wait(10)


def test_registered_ladder_refuses_bad_tokens_survives_kill_9_and_drains_on_sigterm(tmp_path, cleanup):
    """One registered-only ladder (server starts are slow on a busy machine, so one test does it all):
    token refusals, GetStandings, kill -9 mid-ladder, restart, SIGTERM drain."""
    from arena.cli import main

    db = tmp_path / "ladder.db"
    assert main(["bots", "add", "a", "--db", str(db)]) == 0
    store = LadderStore.open(db, recover=False)
    for name in "abcd":
        store.add_bot(name, "team-token")  # a token the test knows (the printed one is random)
    store.close()
    server = Server(tmp_path, "--registered-only")
    cleanup.append(server)
    wrong = start_bots(server.port, "a", "--token", "not-it", "--duration", "20")
    stranger = start_bots(server.port, "stranger", "--duration", "20")
    # Slow bots (30 ms a decision) so that games are in flight when the server dies.
    bots = start_bots(server.port, "a,b,c,d", "--token", "team-token", "--style", "slow", "--slow-ms", "30",
                      "--max-games", "2")
    cleanup.extend([wrong, stranger, bots])
    # Refused sessions end at once, so those processes exit by themselves.
    assert stop_bots_when_done(wrong).get("error:AUTH_FAILED") == 1
    assert stop_bots_when_done(stranger).get("error:AUTH_FAILED") == 1
    poll(lambda: counts(server.db).get("finished", 0) >= 4 and counts(server.db).get("running", 0) >= 1,
         30, "finished and running games")
    seen = {bot["name"]: bot for bot in LadderStore.open(db, recover=False).list_bots()}
    assert seen["a"]["registered"] and seen["a"]["first_seen"] and seen["a"]["version"] == "loadbot-slow"
    assert "stranger" not in seen  # refused bots leave no trace
    standings = poll(lambda: get_standings(server.port), 20, "GetStandings rows")
    assert {row.name for row in standings} <= {"a", "b", "c", "d"}
    assert all(row.ci_low < row.rating < row.ci_high and row.games > 0 for row in standings)
    os.kill(server.process.pid, signal.SIGKILL)
    server.process.wait(10)
    stop_bots(bots)

    store = LadderStore.open(server.db, recover=False)
    finished = {g.id: g for g in store.games(status="finished")}
    running = {g.id for g in store.games(status="running")}
    assert len(finished) >= 4 and running
    store.close()

    # Restart on the same database: the cut-off games are aborted and never rated.
    restarted = Server(tmp_path, "--drain", "20", "--registered-only")
    cleanup.append(restarted)
    assert f"{len(running)} games cut off by the last shutdown were marked aborted" in restarted.rest()
    store = LadderStore.open(server.db, recover=False)
    assert store.schema_version() == SCHEMA_VERSION
    after = {g.id: g for g in store.games()}
    assert {after[g].status for g in running} == {"aborted"}
    assert all(after[g].reason == "server restarted" for g in running)
    for game_id in running:  # their replays were in the killed process's memory: lost, as documented
        assert after[game_id].replay_path is None and store.replay_text(game_id) is None
    assert not list(server.replays.rglob("*.jsonl*"))  # a ladder game writes no replay file
    assert {g for g in finished if after[g].status == "finished"} == set(finished)
    # Each finished game's replay was committed with its result: in the database, whatever the kill.
    for game in finished.values():
        replay = stored_replay(store, game.id)
        assert replay.status == "finished" and replay.header.game_id == game.id
        assert len(replay.decisions) == game.decisions == 6  # two seats, three cards each
        assert [s.placement for s in game.seats] == list(replay.result["placements"])
    rated = store.rated_games(RULESET)
    assert len(rated) == len(finished)
    store.close()

    # The ladder carries on, then SIGTERM drains the running games and exits cleanly.
    bots = start_bots(restarted.port, "a,b,c,d", "--token", "team-token", "--style", "slow", "--slow-ms", "5",
                      "--max-games", "2")
    cleanup.append(bots)
    poll(lambda: counts(server.db).get("finished", 0) >= len(finished) + 4, 30, "games after the restart")
    restarted.process.send_signal(signal.SIGTERM)
    assert restarted.wait() == 0, restarted.rest()
    assert "stopped (SIGTERM" in restarted.rest()
    stop_bots(bots)
    final = counts(server.db)
    assert "running" not in final
    assert final["aborted"] == len(running)  # the drain let every running game finish


def stop_bots_when_done(bots: subprocess.Popen) -> dict:
    """A refused session ends at once, so the process exits by itself."""
    out, _ = bots.communicate(timeout=20)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


#: Put on a process's PYTHONPATH, this holds the demo's sample bot named in $ARENA_TEST_HOLD_BOT, before it
#: runs, until something is written to the FIFO $ARENA_TEST_HOLD_FIFO (a blocking read: no polling).
HOLD_BACK = """
import os, sys
_name = os.environ.get("ARENA_TEST_HOLD_BOT")
if _name and "--name" in sys.argv and sys.argv[sys.argv.index("--name") + 1:][:1] == [_name]:
    with open(os.environ["ARENA_TEST_HOLD_FIFO"], "rb") as _fifo:
        _fifo.read()
"""


def holding_back(tmp_path: Path, bot: str) -> tuple[dict, Path]:
    """An environment for `arena serve --demo` that holds the demo's sample bot `bot` before its program runs
    (`HOLD_BACK`), and the FIFO that `release` lets it go by."""
    hold = tmp_path / "hold"
    hold.mkdir()
    (hold / "sitecustomize.py").write_text(HOLD_BACK)
    fifo = tmp_path / f"{bot}.go"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(hold), os.environ.get("PYTHONPATH")])),
           "ARENA_TEST_HOLD_BOT": bot, "ARENA_TEST_HOLD_FIFO": str(fifo)}
    return env, fifo


def release(fifo: Path) -> bool:
    """Let the held-back bot go: True once it was waiting at the FIFO and has been told (else False: not yet)."""
    try:
        end = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO while no reader has it open
    except OSError:
        return False
    os.write(end, b"go")
    os.close(end)
    return True


#: Where the demo test's games end (`decision_limit`): a third of a whole game, the searcher's turns among them.
DEMO_DECISIONS = 30


def test_demo_starts_the_sample_bots_and_rates_them(tmp_path):
    """The README's first command, bounded: real sample bots (SDK) as processes, a real ruleset.

    Online Mau-Mau needs four seats: the demo starts enough bots for every ruleset's table.  One sample bot,
    random-2, is held back (before its program runs) until the other four have connected: the first planning
    round would seat those four in all four games and leave it out, unless the demo waits for its own bots
    (`DEMO_CONNECT_S`) as it should.

    Its games end at 30 decisions (the ruleset's `decision_limit`, scored as they stand): whole games of Online
    Mau-Mau with the searcher at a table take 100 decisions and 12-25 s, and nothing checked here depends on how a
    game ends.  The demo's games played to their natural end, from the installed wheels, are
    tests/packaging/test_distributions.py::test_the_demo_runs_from_the_installed_wheels_outside_the_checkout.
    """
    env, fifo = holding_back(tmp_path, "random-2")
    demo = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--demo", "--port", "0", "--game", "maumau-online", "--max-games", "4",
         "--option", f"maumau-online:decision_limit={DEMO_DECISIONS}",
         "--db", str(tmp_path / "demo.db"), "--replays", str(tmp_path / "replays"), "--plain"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp_path), env=env,
    )
    try:
        log = tmp_path / "replays" / "demo-bots.log"
        others = ("random", "greedy", "tactician", "searcher")

        def others_connected() -> bool:
            text = log.read_text(errors="replace") if log.exists() else ""
            return all(f"as {name!r} (server" in text for name in others) and "as 'random-2'" not in text

        poll(others_connected, 60, f"{', '.join(others)} to connect (random-2 held back)")
        poll(lambda: release(fifo), 30, "random-2 to wait for its release")
        stdout, stderr = demo.communicate(timeout=90)
    finally:
        release(fifo)  # a held-back bot never left waiting (it finds no arena and exits)
        if demo.poll() is None:  # SIGTERM: the demo stops its bots (a kill would leave them running)
            demo.terminate()
            try:
                demo.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                demo.kill()
                demo.communicate()
    assert demo.returncode == 0, stdout + stderr
    assert "stopped (--max-games 4 reached): 4 games finished" in stdout, stdout
    assert f"maumau-online is played with decision_limit={DEMO_DECISIONS}" in stdout, stdout
    board = stdout.split("Bradley-Terry ratings", 1)[1]
    assert all(name in board for name in ("random", "greedy", "tactician", "random-2")), stdout
    store = LadderStore.open(tmp_path / "demo.db", recover=False)
    try:
        finished = store.games(status="finished")
        assert len(finished) >= 4 and all(stored_replay(store, g.id).status == "finished" for g in finished)
        # the held-back bot played: the demo waited for it before planning its games
        assert any("random-2" in {seat.bot for seat in g.seats} for g in finished), [
            [seat.bot for seat in g.seats] for g in finished]
    finally:
        store.close()


def processes_marked(mark: str) -> list[int]:
    """The live processes whose environment holds ARENA_TEST_MARK=`mark` (this test's bots: they inherit it)."""
    found = []
    needle = f"ARENA_TEST_MARK={mark}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc to find the demo's bots (Linux)")
def test_sigterm_while_the_demo_starts_stops_the_server_and_its_bots(tmp_path):
    """A SIGTERM before the ladder runs (here: while the demo waits for a bot held back before its program runs)
    ends `arena serve` cleanly, status 0, with no game, and stops the demo's bots, each in a session of its own.

    Before, the ladder opened its signal receiver only once it ran: the signal's default action killed the
    server (status -15) and left every demo bot running until it gave up reconnecting."""
    env, fifo = holding_back(tmp_path, "random-2")  # held until the test ends: the server is still starting
    mark = env["ARENA_TEST_MARK"] = str(tmp_path)
    demo = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--demo", "--port", "0", "--game", "maumau-online",
         "--db", str(tmp_path / "demo.db"), "--replays", str(tmp_path / "replays"), "--plain"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path), env=env,
    )
    try:
        log = tmp_path / "replays" / "demo-bots.log"
        poll(lambda: log.exists() and "as 'random' (server" in log.read_text(errors="replace"), 60,
             "a demo bot to connect (random-2 held back: the demo is still starting)")
        assert len(processes_marked(mark)) >= 5  # the server and the demo's bots, random-2 still held
        demo.send_signal(signal.SIGTERM)
        out, _ = demo.communicate(timeout=30)
        left = processes_marked(mark)  # the server waited for its bots to exit before it did
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.communicate()
        for pid in processes_marked(mark):  # nothing outlives the test, whatever happened
            os.kill(pid, signal.SIGKILL)
    assert demo.returncode == 0, out
    assert "stopped (SIGTERM during start-up, before any game): 0 games finished" in out, out
    assert left == [], f"still running after the server exited: {left}"
    store = LadderStore.open(tmp_path / "demo.db", recover=False)
    try:
        assert store.games() == []
    finally:
        store.close()


def test_an_owners_bots_never_meet_on_a_registered_ladder(tmp_path, cleanup):
    """Two registered bots of one owner (the attack: an author's bots meet, one throws its games to feed the
    other rating) run beside two others on a real `arena serve`: the owner, set by `arena bots add --owner`
    for one and `arena bots owner` for the other, reaches the scheduler through each bot's login, so the
    pair never shares a table while each of them plays the others.  (Without owners the scheduler seats such a
    pair as often as any other: `tests/ladder/test_scheduler.py::test_bots_of_one_owner_never_share_a_table`.)"""
    from arena.cli import main

    db = tmp_path / "ladder.db"
    assert main(["bots", "add", "ann-1", "--owner", "ann", "--db", str(db)]) == 0
    assert main(["bots", "add", "ann-2", "--db", str(db)]) == 0
    assert main(["bots", "owner", "ann-2", "ann", "--db", str(db)]) == 0
    store = LadderStore.open(db, recover=False)
    for name in ("ann-1", "ann-2", "bo", "cy"):
        store.add_bot(name, "team-token")  # a token the test knows; a new token keeps the owner
    assert {bot["name"]: bot["owner"] for bot in store.list_bots()} == {
        "ann-1": "ann", "ann-2": "ann", "bo": None, "cy": None}
    store.close()
    server = Server(tmp_path, "--registered-only", "--max-games", "30")
    cleanup.append(server)
    bots = start_bots(server.port, "ann-1,ann-2,bo,cy", "--token", "team-token")
    cleanup.append(bots)
    assert server.wait(120) == 0, server.rest()
    stop_bots(bots)
    store = LadderStore.open(db, recover=False)
    try:
        tables = [frozenset(seat.bot for seat in game.seats) for game in store.games(status="finished")]
    finally:
        store.close()
    assert len(tables) >= 30
    assert frozenset({"ann-1", "ann-2"}) not in tables
    # Each of ann's bots meets both others.  (bo and cy meet more rarely, as each of ann's bots can only
    # play them: whenever all four are free, ann's bots are the ones with a table to play.)
    met = set(tables)
    assert {frozenset(pair) for pair in (("ann-1", "bo"), ("ann-1", "cy"), ("ann-2", "bo"), ("ann-2", "cy"))} <= met, met


def open_files_limits(pid: int) -> tuple[str, str]:
    """A process's soft and hard limits of open files, as the kernel shows them."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return soft, hard
    raise AssertionError(f"no open files line in /proc/{pid}/limits")


def _soft_limit_1024() -> None:
    """In the child before exec: systemd's default soft limit for a service."""
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads the limits from Linux's /proc")
def test_serve_raises_its_soft_open_files_limit_to_the_hard_limit(tmp_path, cleanup):
    """Under a soft limit of 1,024 open files, 1,100 idle connections locked every new bot out; the hard
    limit is what the process may take, and `arena serve` takes it at start (arena/server/filelimit.py)."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard <= 1024:
        pytest.skip(f"the hard limit here is {hard}: there is nothing above 1,024 to raise to")
    server = Server(tmp_path, "--log-level", "info", preexec_fn=_soft_limit_1024)
    cleanup.append(server)
    soft_now, hard_now = open_files_limits(server.process.pid)  # it listens: the limit was raised before
    server.kill()
    expected = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
    assert hard_now == expected and soft_now == hard_now, (soft_now, hard_now)
    assert f"soft limit raised from 1024 to {soft_now}" in server.rest(), server.rest()
