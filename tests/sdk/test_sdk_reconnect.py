"""A real arena, real SDK bot processes, and a connection cut in the middle of a game.

Bot "wanderer" reaches the arena through a TCP proxy that the test cuts after
some traffic; the SDK must reconnect, resume its session, and finish the game
without a forfeit.  The last three tests cut before the bot has read its
Welcome (so it has no secret to resume with): at both ends, at the arena's
end only, at the bot's end only; the bot's token takes its session over.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import trio

from arena.match.timecontrol import TimeControl
from arena.server import ServerConfig, run

ROOT = Path(__file__).resolve().parents[2]
BOT = str(ROOT / "sample_bots" / "greedy_bot.py")


async def start_bot(name: str, port: int, out, *extra: str) -> trio.Process:
    """The sample bot as its own process, its log unbuffered (a bot killed at the end loses no line) and with
    faulthandler on, so that `stop_bot` can have a bot that hangs print every thread's stack into its log."""
    return await trio.lowlevel.open_process(
        [sys.executable, "-X", "faulthandler", BOT, "--arena", f"127.0.0.1:{port}", "--name", name, "--games-limit", "1",
         *extra],
        stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


async def stop_bot(process: trio.Process) -> None:
    """A bot still running when the test ends: SIGABRT first (faulthandler writes each thread's stack to the log:
    where it hangs is the one thing a failure here must tell), then SIGKILL."""
    if process.returncode is not None:
        return
    process.send_signal(signal.SIGABRT)
    with trio.move_on_after(10) as scope:
        scope.shield = True  # the test may be on its way out after a cancellation: the dump still gets its time
        await process.wait()
    if process.returncode is None:
        process.kill()


async def bots_done(bots: dict, timeout_s: float = 30.0) -> dict:
    """Each bot's exit status once it has ended by itself (None for one still running after ``timeout_s``: its
    log below shows where it stands)."""
    with trio.move_on_after(timeout_s):
        for process in bots.values():
            await process.wait()
    return {name: process.returncode for name, process in bots.items()}


async def wind_up(proxy: "CuttableProxy", bots: dict) -> None:
    """The end of every test here: the proxy closed and its journal printed (pytest shows it when the test
    fails), every bot still running stopped with its threads' stacks in its log."""
    proxy.close()
    print("proxy:", *proxy.journal, sep="\n  ")
    for process in bots.values():
        await stop_bot(process)


async def welcomed(log_path: Path, timeout_s: float = 30.0) -> None:
    """Until the bot's own log says it read its Welcome (a bounded poll of another process's output).

    The server counts a session from the Hello; the bot knows its session (and the secret that resumes it) only
    once it has read the Welcome.  A cut between the two leaves the bot nothing to resume with: it connects again
    as a new session, rightly not seated in the old session's game, and waits for a game that never comes.  Under
    load (a bot process slow to read its socket) the game's first messages followed the Welcome into the bot's
    buffer unread, the cut fell there, and this test hung about once in three long runs."""
    with trio.fail_after(timeout_s):
        while b"connected to" not in log_path.read_bytes():
            await trio.sleep(0.01)


class CuttableProxy:
    """Forwards 127.0.0.1:port to the arena; `cut()` drops every live connection, as a network failure would."""

    def __init__(self, target_port: int, cut_after_bytes: int, silent: bool = False, hold_after: bytes = b""):
        self.target = ("127.0.0.1", target_port)
        # silent: instead of closing the connections, stop forwarding on them and keep them open, as a
        # network that drops packets without a word would; only new connections are forwarded again.
        self.silent = silent
        # hold_after: once these bytes (the bot's name, in its Hello) have gone to the arena on a connection, until
        # the first cut, what the arena sends back on it is kept back (counted in `held`), never delivered: the
        # Hello reaches the arena, the Welcome never reaches the bot.  (Held from the start, grpc's handshake
        # would never finish and the Hello never be sent.)
        self.hold_after = hold_after
        self.holding: set[socket.socket] = set()  # upstream sockets whose replies are kept back
        self.held = 0
        self.muted: set[socket.socket] = set()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.cut_after = cut_after_bytes
        self.armed = False  # bytes count only once armed: the cut must fall inside the game, not the hello
        self.downstream_bytes = 0
        self.cuts = 0
        self.live: list[socket.socket] = []
        self.lock = threading.Lock()
        self.journal: list[str] = []  # what the proxy did, with times: shown when a test fails
        threading.Thread(target=self._accept, daemon=True).start()

    def note(self, what: str) -> None:
        now = time.time()
        self.journal.append(f"{time.strftime('%H:%M:%S', time.localtime(now))}.{int(now * 1000) % 1000:03d} {what}")

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.live += [client, upstream]
            self.note(f"accepted {client.getpeername()} -> upstream {upstream.getsockname()}")
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, source, sink, downstream):
        try:
            while data := source.recv(65536):
                if source in self.muted:
                    continue  # swallowed: nothing reaches the other side, nobody is told
                if downstream and source in self.holding and not self.cuts:
                    with self.lock:
                        self.held += len(data)
                    continue  # kept back until the cut (and then lost with the connection)
                if not downstream and self.hold_after and self.hold_after in data and not self.cuts:
                    self.holding.add(sink)  # before the Hello goes on: its answer must not slip through
                    self.note(f"the bot's Hello goes to the arena ({len(data)} bytes); its answers are held back")
                sink.sendall(data)
                if downstream and self.armed:
                    with self.lock:
                        self.downstream_bytes += len(data)
                        due = self.cuts == 0 and self.downstream_bytes >= self.cut_after
                    if due:
                        self.cut()
        except OSError:
            pass

    def cut(self, side: str = "both"):
        """Drop every live connection, as a network failure would: at both ends (or, `silent`, keep them open
        and forward nothing), or only the end towards the "arena" or towards the "bot", the other end left open
        and silent (what comes in on it is swallowed), so that only that side learns of it at once."""
        with self.lock:
            self.cuts += 1
            live, self.live = self.live, []
            self.note(f"cut {self.cuts} ({side}): {len(live) // 2} connections, {self.downstream_bytes} bytes downstream")
            if self.silent or side != "both":
                self.muted.update(live)
            if self.silent:
                return
        # each connection is (client, upstream)
        for sock in live if side == "both" else live[1::2] if side == "arena" else live[0::2]:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError as error:
                self.note(f"shutdown of {sock}: {error}")
            sock.close()

    def close(self):
        self.listener.close()
        self.cut()


# This test hung about once in 20 runs (Sessions 7-15; in this session three long slow-suite runs in a row) and was
# kept out of the default suite for it: the bot logged one "connected to" and nothing more.  The proxy's journal and
# the server's log (both printed on failure now) showed why: the cut fell 50 ms after the first connection was
# accepted, before the bot had read its Welcome, and that line was its second connection's, a new session (see
# `welcomed`); stopping the bot (SIGSTOP) until the cut reproduces it every time.  The cut is armed only
# once the bot has read it.  Along the way (Session 7): a connection gone silent was noticed only after 60 s (grpc's
# flow-control ping held the keepalive back); every ping now waits 5 s at most (KEEPALIVE in
# mau_arena_sdk/client.py; the test below).
def test_a_dropped_connection_is_resumed_and_the_game_finishes(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="arena")  # the server's view of the sessions, shown on failure
    logs = {}

    async def director(handle):
        proxy = CuttableProxy(handle.port, cut_after_bytes=1200)
        bots = {}
        try:
            for name, port in (("wanderer", proxy.port), ("anchor", handle.port)):
                logs[name] = open(tmp_path / f"{name}.log", "wb")
                bots[name] = await start_bot(name, port, logs[name])
            await handle.wait_for_sessions(["wanderer", "anchor"], 30)
            # A silent connection is noticed within ~15 s (keepalive): a pending turn and the away seat wait that.
            time_control = TimeControl(move_ms=5000, bank_ms=20_000, first_move_ms=5000, reconnect_ms=30_000)
            # Armed only once the bot has read its Welcome: a cut before it would leave the bot no session to resume.
            await welcomed(tmp_path / "wanderer.log")
            proxy.armed = True
            outcome = await handle.play_game("moumou", {}, 4, ["wanderer", "anchor"], time_control)
            return outcome, proxy.cuts, await bots_done(bots, 60)
        finally:
            await wind_up(proxy, bots)

    outcome, cuts, codes = run(ServerConfig(port=0), director)
    for log in logs.values():
        log.close()
    wanderer_log = (tmp_path / "wanderer.log").read_text()
    both_logs = wanderer_log + "\n--- anchor ---\n" + (tmp_path / "anchor.log").read_text()
    assert cuts == 1, "the proxy never cut: the game was shorter than expected"
    assert outcome.status == "finished", outcome.reason
    # (the bots' exit codes are checked before the forfeits: a bot that never learnt of the end hangs)
    assert codes == {"wanderer": 0, "anchor": 0}, both_logs
    assert not any(seat.forfeited for seat in outcome.seats), both_logs
    assert "reconnecting" in wanderer_log and "resumed" in wanderer_log, both_logs


def test_a_connection_gone_silent_is_noticed_by_the_keepalive_and_resumed(tmp_path, caplog):
    """The connection stays open but nothing passes any more (no FIN, no RST): only the SDK's pings can
    tell, within ~15 s (it took 60 s before the pings were bounded); the bot then connects again,
    resumes its session and finishes the game without a strike."""
    caplog.set_level(logging.INFO, logger="arena")  # the server's view of the sessions, shown on failure
    log_path = tmp_path / "wanderer.log"

    async def director(handle):
        proxy = CuttableProxy(handle.port, cut_after_bytes=1200, silent=True)
        bots = {}
        log = open(log_path, "wb")
        try:
            for name, port in (("wanderer", proxy.port), ("anchor", handle.port)):
                bots[name] = await start_bot(name, port, log if name == "wanderer" else subprocess.DEVNULL)
            await handle.wait_for_sessions(["wanderer", "anchor"], 30)
            # A turn may wait out the silence: 30 s per decision, and 30 s to come back.
            time_control = TimeControl(move_ms=30_000, bank_ms=0, first_move_ms=30_000, reconnect_ms=30_000)
            await welcomed(log_path)  # as above: a silence before the Welcome would leave nothing to resume
            proxy.armed = True
            outcome = await handle.play_game("moumou", {}, 4, ["wanderer", "anchor"], time_control)
            return outcome, proxy.cuts, await bots_done(bots)
        finally:
            await wind_up(proxy, bots)
            log.close()

    outcome, cuts, codes = run(ServerConfig(port=0), director)
    wanderer_log = log_path.read_text()
    assert cuts == 1, "the proxy never went silent: the game was shorter than expected"
    assert outcome.status == "finished", outcome.reason
    assert codes == {"wanderer": 0, "anchor": 0}, wanderer_log
    assert not any(seat.forfeited or seat.strikes for seat in outcome.seats), wanderer_log
    assert "reconnecting" in wanderer_log and "resumed" in wanderer_log, wanderer_log


def cut_before_welcome(tmp_path: Path, how: str, time_control: TimeControl) -> tuple:
    """A game the bot never heard of: the arena admits "wanderer" (token "wanderer-secret") through a proxy that
    lets its Hello through and keeps every reply back (`hold_after`), the game seats the session, and the
    connection is cut at ``how`` ("both" ends, or the "arena" or the "bot" end only: `CuttableProxy.cut`).  The bot can only
    connect again as new.  Returns the game's outcome, each bot's exit status, and the wanderer's log; the
    test asserts what it needs and that the arena's takeover by token was logged (``caplog`` at INFO)."""
    log_path = tmp_path / "wanderer.log"

    async def director(handle):
        proxy = CuttableProxy(handle.port, cut_after_bytes=0, hold_after=b"wanderer")
        bots = {}
        log = open(log_path, "wb")
        try:
            bots["wanderer"] = await start_bot("wanderer", proxy.port, log, "--token", "wanderer-secret")
            bots["anchor"] = await start_bot("anchor", handle.port, subprocess.DEVNULL)
            await handle.wait_for_sessions(["wanderer", "anchor"], 30)  # admitted; its Welcome held back
            async with trio.open_nursery() as nursery:
                played = []

                async def play():
                    played.append(await handle.play_game("moumou", {}, 4, ["wanderer", "anchor"], time_control))

                nursery.start_soon(play)
                with trio.fail_after(30):  # a bounded poll: until the game has seated the session the bot never heard of
                    while not [s for s in handle.sessions() if s.name == "wanderer" and s.busy]:
                        await trio.sleep(0.01)
                proxy.note(f"seated; {proxy.held} bytes held back, none delivered")
                assert proxy.held > 0  # the Welcome was sent, and kept from the bot
                proxy.cut(how)
            return played[0], await bots_done(bots, 60)
        finally:
            await wind_up(proxy, bots)
            log.close()

    outcome, codes = run(ServerConfig(port=0), director)
    return outcome, codes, log_path.read_text()


def assert_game_taken_over(outcome, codes: dict, wanderer_log: str, caplog) -> None:
    assert outcome.status == "finished", outcome.reason
    assert codes == {"wanderer": 0, "anchor": 0}, wanderer_log  # its one game: it learnt how it ended
    assert not any(seat.forfeited or seat.strikes for seat in outcome.seats), wanderer_log
    assert "takes its away session over" in caplog.text


def test_a_cut_before_the_bot_read_its_welcome_is_taken_over_by_its_token(tmp_path, caplog):
    """The drop `welcomed` keeps out of the tests above, on purpose: the arena admits the bot and seats it in a
    game, but the Welcome (with the session's resume secret) and everything after it never reach the bot, and
    the connection is cut.  The bot can only connect again as new; its token (the same, not empty) takes the
    away session over, so the game it was seated in goes on and finishes without a strike.  Before, the bot
    got a new session and the old one's game waited out its reconnection windows: strikes, then a forfeit,
    and the bot (one game to play) waited for a game that never came."""
    caplog.set_level(logging.INFO, logger="arena")  # the server's view of the sessions, shown on failure
    time_control = TimeControl(move_ms=5000, bank_ms=20_000, first_move_ms=5000, reconnect_ms=2000, max_strikes=2)
    assert_game_taken_over(*cut_before_welcome(tmp_path, "both", time_control), caplog)


@pytest.mark.slow(reason="it waits out the SDK's keepalive (about 15 s, a fixed 10 s + 5 s: KEEPALIVE); the default run "
                         "checks each part fast: the fresh connect timeout after a Hello lost past it, in "
                         "tests/sdk/test_sdk_client.py::test_a_stream_lost_after_its_hello_past_the_connect_timeout_is_"
                         "tried_again_not_taken_as_unreachable; the takeover by token after a lost Welcome, in "
                         "test_a_cut_before_the_bot_read_its_welcome_is_taken_over_by_its_token; the keepalive noticing "
                         "a silent connection, in test_a_connection_gone_silent_is_noticed_by_the_keepalive_and_resumed")
def test_a_connection_lost_silently_before_the_welcome_is_tried_again_past_the_connect_timeout(tmp_path, caplog):
    """As above, but only the arena's side of the connection is closed: the arena sees its stream end, the bot
    sees nothing until its keepalive gives the connection up (about 15 s), past the 10 s it allows for reaching
    an arena at the start.  It had reached this one (its Hello went out), so it tries again instead of saying
    it cannot reach it, and its token takes its session and game over.  Before, it exited at that point with
    "cannot reach the arena" and its game forfeited."""
    caplog.set_level(logging.INFO, logger="arena")
    # The bot is away until its keepalive gives up: 30 s for its decisions and for coming back.
    time_control = TimeControl(move_ms=30_000, bank_ms=0, first_move_ms=30_000, reconnect_ms=30_000)
    outcome, codes, wanderer_log = cut_before_welcome(tmp_path, "arena", time_control)
    assert_game_taken_over(outcome, codes, wanderer_log, caplog)
    assert "cannot reach" not in wanderer_log


@pytest.mark.slow(reason="it waits for the arena to give the silent stream up (its pings unanswered: 10-30 s)")
def test_a_bot_refused_its_own_name_after_a_lost_welcome_waits_until_the_arena_lets_the_old_stream_go(tmp_path, caplog):
    """As above, but only the bot's side of the connection is closed: the bot sees its stream end at once and
    connects again, while the arena still holds the old stream (open, silent) and refuses the fresh Hello
    DUPLICATE_SESSION.  The bot, whose Hello had gone out on that stream, tries again (rather than taking its
    name as taken, which is right only for a bot that never reached the arena) until the arena's unanswered
    pings let the old stream go, and its token then takes its session and game over."""
    caplog.set_level(logging.INFO, logger="arena")
    time_control = TimeControl(move_ms=60_000, bank_ms=0, first_move_ms=60_000, reconnect_ms=60_000)
    outcome, codes, wanderer_log = cut_before_welcome(tmp_path, "bot", time_control)
    assert_game_taken_over(outcome, codes, wanderer_log, caplog)
    assert "still holds our earlier connection" in wanderer_log  # it was refused, and waited
