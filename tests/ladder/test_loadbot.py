"""The multiplexed load bot: many sessions on one event loop play real ladder games, and say what the arena told them.

One `arena serve` process (the toy ruleset, port 0) and one `arena.ladder.loadbot`
process holding 50 sessions: they log in a few at a time, play until the process
was told 30 games had ended (after all 50 were welcomed), and report zero timeouts, both as the arena's notices
to the bots and in the database, which must agree with what the bots counted.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import threading
from collections import Counter

import grpc

from mau_arena_sdk.wire import pb
from test_serve_e2e import ROOT, Server, cleanup  # noqa: F401 (cleanup: a fixture)

SESSIONS = 50
GAMES = 30


def test_fifty_sessions_in_one_process_finish_games_without_timeouts(tmp_path, cleanup):
    server = Server(tmp_path, "--concurrency", "16", "--max-connections", str(SESSIONS + 4))
    cleanup.append(server)
    bots = subprocess.run(
        [sys.executable, "-m", "arena.ladder.loadbot", "--arena", f"127.0.0.1:{server.port}", "--count", str(SESSIONS),
         "--prefix", "m", "--style", "first", "--until-games", str(GAMES), "--duration", "60"],
        capture_output=True, text=True, cwd=str(ROOT), timeout=90,
    )
    assert bots.returncode == 0, bots.stderr
    totals = json.loads(bots.stdout.strip().splitlines()[-1])
    assert totals["sessions"] == SESSIONS and totals["welcomed"] == SESSIONS  # every session got in, none twice
    assert totals["games"] >= GAMES and totals["turns"] > totals["games"]
    # Nothing the arena reports as late: no TIMEOUT notice, no stale answer, no seat timeout in any GameEnded.
    assert totals.get("error:TIMEOUT", 0) == 0 and totals.get("error:STALE_REQUEST", 0) == 0
    assert totals["seat_timeouts"] == 0 and totals["seat_strikes"] == 0
    assert not [key for key in totals if key.startswith("error:") and key != "error:rpc:CANCELLED"], totals
    # The process's own health figures are there for a reader to judge who was slow.
    assert totals["cpu_s"] > 0 and totals["wall_s"] > 0 and totals["loop_lag_ms_max"] >= 0
    assert 0 < totals["think_ms_p50"] <= totals["think_ms_max"]

    connection = sqlite3.connect(f"file:{server.db}?mode=ro", uri=True, timeout=5)
    try:
        finished, timeouts = connection.execute(
            "SELECT COUNT(DISTINCT g.id), COALESCE(SUM(s.timeouts), 0) FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.status = 'finished'").fetchone()
        assert timeouts == 0
        assert finished >= GAMES // 2  # two seats a game: the 30 endings the bots were told are at least 15 games
    finally:
        connection.close()


class SilentArena:
    """A gRPC peer on loopback that reads each Hello and answers only a name's ``answer_from``-th try (1-based;
    0: never), then holds the stream open: an arena whose logins stall, as the load bot must be able to tell."""

    def __init__(self, answer_from: int) -> None:
        self.answer_from = answer_from
        self.tries: Counter = Counter()
        self.port = 0
        self._ready = threading.Event()
        self._loop = None
        self._stop = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._thread.start()
        assert self._ready.wait(10)

    async def _play(self, request_iterator, context) -> None:
        first = await context.read()
        name = first.hello.name
        self.tries[name] += 1
        if self.answer_from and self.tries[name] >= self.answer_from:
            await context.write(pb.ArenaMessage(welcome=pb.Welcome(session_id=f"s{self.tries[name]}")))
        while await context.read() is not grpc.aio.EOF:
            pass

    async def _main(self) -> None:
        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler("mauarena.v1.Arena", {"Play": grpc.stream_stream_rpc_method_handler(
            self._play, request_deserializer=pb.BotMessage.FromString,
            response_serializer=pb.ArenaMessage.SerializeToString)})
        server.add_generic_rpc_handlers((handler,))
        self.port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        self._ready.set()
        await self._stop.wait()
        await server.stop(None)

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)


def run_loadbot(port: int, *flags: str) -> tuple[dict, str]:
    ran = subprocess.run(
        [sys.executable, "-m", "arena.ladder.loadbot", "--arena", f"127.0.0.1:{port}", "--prefix", "s", *flags],
        capture_output=True, text=True, cwd=str(ROOT), timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout.strip().splitlines()[-1]), ran.stderr


def run_loadbot_until(port: int, done, *flags: str) -> tuple[dict, str]:
    """The load bot with a progress line every 50 ms, stopped with SIGTERM (its ordinary stop) once a progress
    line satisfies ``done``: the test waits on what the bot itself counted, not on a guessed ``--duration``."""
    bot = subprocess.Popen(
        [sys.executable, "-m", "arena.ladder.loadbot", "--arena", f"127.0.0.1:{port}", "--prefix", "s",
         "--progress-every", "0.05", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(ROOT),
    )
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.extend(bot.stderr), daemon=True)  # a full pipe would block it
    reader.start()
    try:
        last = None
        for line in bot.stdout:  # ends when the process does: then the assertion below says why
            line = json.loads(line)
            if not line.get("progress"):
                last = line
                break
            if done(line):
                bot.send_signal(signal.SIGTERM)
                last = json.loads(bot.stdout.read().strip().splitlines()[-1])
                break
        assert bot.wait(60) == 0 and last is not None and not last.get("progress"), (last, "".join(errors))
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait(10)
        reader.join(10)
    return last, "".join(errors)


def test_a_hello_never_answered_times_out_is_logged_and_tried_again():
    arena = SilentArena(answer_from=2)  # every name's first Hello is left unanswered, its second welcomed
    try:
        # No --duration: the bot plays until every name was welcomed (after its retry's jittered backoff,
        # however long a loaded machine takes), then is stopped.
        totals, log = run_loadbot_until(arena.port, lambda progress: progress["welcomed"] == 3,
                                        "--count", "3", "--hello-timeout", "0.5", "--retries", "3")
    finally:
        arena.close()
    assert totals["welcomed"] == 3 and totals["hello_timeouts"] == 3 and totals["retried"] == 3
    # Written and not answered: the arena's stall, told apart from a stream that never took the Hello.
    assert totals["hello_timeouts_waiting"] == 3 and "hello_timeouts_opening" not in totals
    assert log.count("no answer to its Hello within 0.5 s (written, not answered)") == 3
    assert totals.get("gave_up", 0) == 0 and arena.tries == {"s000": 2, "s001": 2, "s002": 2}


def test_sessions_give_up_after_their_retries_and_the_process_ends():
    arena = SilentArena(answer_from=0)  # never answers
    try:
        totals, log = run_loadbot(arena.port, "--count", "2", "--hello-timeout", "0.3", "--retries", "1",
                                  "--duration", "600")
    finally:
        arena.close()
    assert totals["gave_up"] == 2 and totals["hello_timeouts"] == 4 and totals.get("welcomed", 0) == 0
    # every session gave up (after about 2 s): the process did not wait for --duration, however loaded the machine
    assert totals["wall_s"] < 100
    assert log.count("gave up after 2 logins") == 2
