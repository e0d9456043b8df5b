"""`arena watch`: a live game followed from another process through Spectate, public view only."""

from __future__ import annotations

import re
import subprocess
import sys

import trio

from arena.match.timecontrol import TimeControl
from arena.replay.spectator import WatchedGame
from server_helpers import HANG_GUARD_S, AutoBot, blocking, serve

#: Roomy on purpose: the held bot's first turn waits until the watcher has started (a new Python
#: process, slow on a loaded machine); a timeout there would change the game, not fail the test clearly.
ROOMY = TimeControl(move_ms=int(HANG_GUARD_S * 1000), bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=3)
NAMES = ["greedy", "tactician"]
#: The watcher's own wait for the arena (`--timeout`): a loaded machine must not make it give up.
CONNECT = ("--timeout", str(HANG_GUARD_S))
#: A hang guard for a watcher's whole run (a Python start, then a game).
PROCESS_GUARD_S = 2 * HANG_GUARD_S


def watch(port: int, *argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "arena", "watch", "--arena", f"127.0.0.1:{port}", *CONNECT, *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def until_watched(handle, game_id: str, process: subprocess.Popen) -> None:
    """Wait until a spectator stream is subscribed to the game; fail at once if the watcher exits first."""
    with trio.fail_after(PROCESS_GUARD_S):  # a hang guard: the watcher either subscribes or exits
        while not (handle.hub.live.get(game_id) and handle.hub.live.get(game_id).watchers):
            if process.poll() is not None:
                out, err = process.communicate()
                raise AssertionError(f"the watcher exited with {process.returncode} before it subscribed: {err}{out}")
            await trio.sleep(0.01)


def test_watch_follows_a_live_game_by_bot_name_and_names_the_winner():
    async def director(handle):
        held = AutoBot(handle.port, NAMES[0], seed=1, held=True)  # the game stays running until it is let go
        other = AutoBot(handle.port, NAMES[1], seed=2)
        await handle.wait_for_sessions(NAMES, timeout_s=HANG_GUARD_S)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handle.play_game, "maumau", {}, 5, NAMES, ROOMY, None, "game-1")
            while not handle.games(live_only=True):
                await trio.sleep(0)  # the game registers when its task first runs
            process = watch(handle.port)  # no id: the newest running game
            await until_watched(handle, "game-1", process)
            held.may_answer.set()
        out, err = await blocking(lambda: process.communicate(timeout=PROCESS_GUARD_S))
        for bot in (held, other):
            await blocking(bot.wait)
        return process.returncode, out, err, other.log

    code, out, err, log = serve(director)
    assert code == 0, err
    heading, *lines = out.strip().splitlines()
    # which game is followed comes first: --plain (here: output not a terminal) names its ruleset, id and seats
    assert re.fullmatch(r"watching maumau game game-1 on 127\.0\.0\.1:\d+: greedy, tactician", heading), heading
    assert lines[0].startswith("1. greedy: ") or lines[0].startswith("1. tactician: ")
    assert all(line.split(": ")[0].split(". ")[1] in NAMES for line in lines[:-1])
    ended = [m.game_ended for m in log if m.WhichOneof("kind") == "game_ended"][0]
    winner = next(r for r in ended.results if r.placement == 1)
    assert lines[-1].startswith(f"game over: {winner.name} wins with {winner.points} points")
    decisions = [m for m in log if m.WhichOneof("kind") == "turn"]
    assert len(lines) - 1 >= len(decisions)  # every decision of the game, not only the other seat's


def test_watch_says_clearly_what_is_wrong(refused_address):
    async def director(handle):
        missing = watch(handle.port, "no-such-game")
        idle = watch(handle.port)
        return [await blocking(lambda p=p: (p.communicate(timeout=PROCESS_GUARD_S), p.returncode))
                for p in (missing, idle)]

    (missing, idle) = serve(director)
    (_, err), code = missing
    assert code == 2 and "no game 'no-such-game'" in err and "Traceback" not in err
    (_, err), code = idle
    assert code == 1 and "no game is running" in err  # nothing to watch: the work failed, no usage error
    unreachable = subprocess.run([sys.executable, "-m", "arena", "watch", "--arena", refused_address, "--timeout", "1"],
                                 capture_output=True, text=True, timeout=PROCESS_GUARD_S)
    assert unreachable.returncode == 1 and f"cannot reach an arena at {refused_address}" in unreachable.stderr


def test_the_watched_frame_shows_only_the_public_view():
    game = WatchedGame("g1")
    spectator = {"ruleset": "maumau", "seat": None, "current": 1, "decision": "turn", "hand": [],
                 "discard": ["7h"], "stock_size": 20, "direction": 1, "hand_sizes": [5, 4], "scores": [0, 0],
                 "active_suit": None, "pending": {"draw": 2}, "seats": ()}
    game.add(0, -1, "", spectator, NAMES)
    game.add(1, 0, "play 7h", spectator, NAMES)
    from rich.console import Console

    console = Console(width=80, color_system=None)
    with console.capture() as capture:
        console.print(game.frame("127.0.0.1:1"))
    text = capture.get()
    assert "public view" in text and "next: tactician (turn)" in text
    assert "1  greedy  play 7♥" in text or "1 greedy play 7♥" in " ".join(text.split())
    assert "▮▮▮▮▮ 5" in text and "next player draws 2" in text


def test_watch_of_a_game_another_host_runs_says_where_in_one_line(postgres_db, tmp_path):
    """A shared ladder's host B asked for host A's running game: one line naming host A and its address,
    exit 1 (it used to be "no game ... on hostB", a usage error, exit 2)."""
    from arena.ladder.director import LadderDirector, LadderSettings
    from arena.ladder.store import LadderStore
    from tests.web.test_web_elsewhere import HOST_A, running_on_host_a

    running_on_host_a(postgres_db, tmp_path)
    store = LadderStore.open(postgres_db, shared=True)
    ladder = LadderDirector(store, LadderSettings(players={"maumau": 2}))

    async def director(handle):
        handle.replay_provider = ladder.replay_text  # as the ladder's director sets them
        handle.host_provider = ladder.running_elsewhere
        process = watch(handle.port, "run-a")
        return await blocking(lambda: (process.communicate(timeout=PROCESS_GUARD_S), process.returncode))

    try:
        (out, err), code = serve(director)
    finally:
        store.close()
    assert code == 1, (out, err)
    assert err.strip().splitlines() == [f"arena: error: game run-a is running on host hostA ({HOST_A}): watch it "
                                        f"there (arena watch run-a --arena {HOST_A})"]
