"""The connection to the arena: one gRPC channel, one bidirectional stream per session.

How it works (see notes/grpc-and-trio.md, "The bot side"): the synchronous
grpcio client reads our messages from a request iterator fed by a queue, and
the main thread loops over the arena's messages.  Every game gets its own
single worker thread, so turns of one game are answered in order while a
slow `act` in one game never holds up another game's answer.  A bot with
room for one game (``max_games=1``) answers on the reading thread itself:
there is no other game to overlap with, and the hand-off would cost two
thread wake-ups per decision.

When the stream drops, the client reconnects with capped, jittered
exponential backoff and sends ``Hello.resume_session``; the arena re-attaches
the session to its running games and re-sends any open turn request.  An
answer computed while the connection was down is kept and re-sent at once
when the same request comes back.
"""

from __future__ import annotations

import logging
import queue
import random
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import grpc

from sdk.bot import Bot
from sdk.errors import ArenaError, ArenaRefused, ArenaUnreachable, ConnectionLost
from sdk.turn import GameInfo, GameResult, Turn
from sdk.wire import pb, rpc

SDK_VERSION = "0.1.0"  # same major as the arena (arena.__version__); the server checks it

#: Hello errors that no retry can fix, with what to tell the user.
_REFUSALS = {
    pb.Error.BAD_HELLO: "the arena rejected the hello",
    pb.Error.AUTH_FAILED: "authentication failed (unknown bot name or wrong token; see `arena bots add NAME`)",
    pb.Error.UNSUPPORTED_VERSION: f"the arena does not support this SDK version ({SDK_VERSION}); upgrade the SDK",
    pb.Error.CAPACITY: "the arena is full (too many connections or sessions)",
    pb.Error.DUPLICATE_SESSION: "this name is taken by a connected bot: pick another with --name",
}

#: In-game notices: the stream stays open, the bot is told what happened.
_NOTICES = {
    pb.Error.TIMEOUT: "answer too late: the default action was applied (strike)",
    pb.Error.ILLEGAL_ACTION: "the arena judged our answer illegal: the default action was applied (strike)",
    pb.Error.STALE_REQUEST: "answer to a request that was no longer open (dropped)",
    pb.Error.FORFEIT: "too many strikes: this seat forfeits the game and plays defaults from now on",
    pb.Error.MALFORMED: "the arena could not understand a message of ours",
    pb.Error.MESSAGE_TOO_LARGE: "a message was too large",
}


@dataclass
class ClientOptions:
    """Everything the client needs; `sdk.flags` fills it from code defaults and the command line."""

    name: str
    arena: str = "127.0.0.1:50051"
    token: str = ""
    games: list[str] = field(default_factory=list)  # empty: every ruleset
    max_games: int = 1
    max_reconnects: int = 8
    games_limit: int | None = None
    connect_timeout_s: float = 10.0
    bot_version: str = ""
    backoff_base_s: float = 0.25
    backoff_cap_s: float = 8.0


def backoff_delay(attempt: int, base_s: float, cap_s: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with a cap and jitter, so a crowd of bots does not reconnect in lockstep."""
    ceiling = min(cap_s, base_s * (2 ** max(0, attempt - 1)))
    return ceiling * (rng or random).uniform(0.5, 1.0)


class _Inline:
    """Runs a game's calls on the reading thread: a bot with room for one game has nothing to overlap,
    and skipping the hand-off to a worker thread saves two thread wake-ups per decision."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        fn(*args)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


class _Worker:
    """One game's thread: runs that game's calls one after another, in order.

    What a one-thread ``ThreadPoolExecutor`` did, without its per-call Future, work item, lock and
    idle-thread bookkeeping (nobody waited on the Futures): a hand-off is one ``SimpleQueue.put``.
    Like the executor's, the thread is not a daemon: calls already handed over (a game's
    ``on_game_end``) still run before the process exits.
    """

    def __init__(self, name: str) -> None:
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._name = name

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self._name)
            self._thread.start()
        self._calls.put((fn, args))

    def _run(self) -> None:
        get = self._calls.get
        while (call := get()) is not None:
            fn, args = call
            try:
                fn(*args)
            except Exception:  # the calls handed over catch their own errors; this is a last resort
                logging.getLogger("sdk").exception("%s failed", getattr(fn, "__qualname__", fn))

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Stop after the calls already handed over (dropped first with ``cancel_futures``)."""
        if cancel_futures:
            while True:
                try:
                    self._calls.get_nowait()
                except queue.Empty:
                    break
        if self._thread is None:
            return
        self._calls.put(None)
        if wait and self._thread is not threading.current_thread():
            self._thread.join()


class _Game:
    """Per-game bookkeeping: its worker thread, its info, its error count, its last answer."""

    def __init__(self, game_id: str, info: GameInfo | None, inline: bool = False):
        self.game_id = game_id
        self.info = info
        self.errors = 0
        self.notices = 0
        self.last_answer: tuple[int, Any] | None = None
        self.worker: Any = _Inline() if inline else _Worker(f"game-{game_id[:12]}")


class _SessionEnd(Exception):
    def __init__(self, how: str):
        super().__init__(how)
        self.how = how  # "stopped", "closed", "lost"


class Client:
    """Runs one bot against one arena until stopped, the games limit, or a fatal error."""

    def __init__(self, bot: Bot, options: ClientOptions, log: logging.Logger | None = None):
        self.bot = bot
        self.options = options
        self.log = log or logging.getLogger("sdk")
        self.session_id = ""
        self.games: dict[str, _Game] = {}
        self.games_done = 0
        self._outbox: queue.SimpleQueue | None = None
        self._call: Any = None
        self._stopping = threading.Event()
        self._last_failure = ""
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ public
    def serve(self) -> int:
        """Connect, play, reconnect as needed; return the process exit code (errors raise ArenaError)."""
        channel = grpc.insecure_channel(
            self.options.arena,
            options=[
                ("grpc.max_receive_message_length", 64 * 1024 * 1024),
                # grpc's own reconnection backoff must not outlast ours (its default starts at 1 s).
                ("grpc.initial_reconnect_backoff_ms", int(self.options.backoff_base_s * 1000) or 1),
                ("grpc.min_reconnect_backoff_ms", int(self.options.backoff_base_s * 1000) or 1),
                ("grpc.max_reconnect_backoff_ms", int(self.options.backoff_cap_s * 1000) or 1),
            ],
        )
        stub = rpc.ArenaStub(channel)
        failures = 0
        welcomed_once = False
        give_up_at = time.monotonic() + self.options.connect_timeout_s
        try:
            while True:
                how = self._session(stub)
                if how in ("stopped", "closed"):
                    return 0
                if how == "welcomed-then-lost":
                    welcomed_once = True
                    failures = 0  # the last session worked: start the backoff afresh
                if not welcomed_once:
                    # Still trying to reach the arena for the first time: retry until the connect timeout.
                    if time.monotonic() >= give_up_at:
                        raise ArenaUnreachable(
                            f"cannot reach the arena at {self.options.arena} "
                            f"(tried for {self.options.connect_timeout_s:g} s: {self._last_failure}); "
                            "is it running? check --arena HOST:PORT"
                        )
                    delay = min(backoff_delay(failures + 1, self.options.backoff_base_s, 1.0),
                                max(0.0, give_up_at - time.monotonic()))
                    failures += 1
                else:
                    failures += 1
                    if failures > self.options.max_reconnects:
                        raise ConnectionLost(
                            f"lost the connection to {self.options.arena} and {self.options.max_reconnects} "
                            f"reconnection attempts failed ({self._last_failure})"
                        )
                    delay = backoff_delay(failures, self.options.backoff_base_s, self.options.backoff_cap_s)
                    self.log.warning(
                        "connection to %s lost; reconnecting in %.1f s (attempt %d of %d)",
                        self.options.arena, delay, failures, self.options.max_reconnects,
                    )
                if self._stopping.wait(delay):
                    return 0
        except KeyboardInterrupt:
            self.log.info("interrupted: closing the connection")
            self.stop()
            return 0
        finally:
            self._close_games()
            channel.close()

    def stop(self) -> None:
        """End the session from any thread (used for Ctrl-C and the games limit)."""
        self._stopping.set()
        with self._lock:
            if self._outbox is not None:
                self._outbox.put(None)
            call = self._call
        if call is not None:
            call.cancel()

    # ------------------------------------------------------------------ session
    def _hello(self) -> Any:
        hello = pb.Hello(
            name=self.options.name,
            token=self.options.token,
            sdk_version=SDK_VERSION,
            games=self.options.games,
            max_games=self.options.max_games,
            bot_version=self.options.bot_version,
            resume_session=self.session_id,
        )
        return pb.BotMessage(hello=hello)

    def _session(self, stub: Any) -> str:
        """One stream: hello, then messages until it ends.  Returns how it ended."""
        outbox: queue.SimpleQueue = queue.SimpleQueue()  # C-level: one lock, no Condition per put
        outbox.put(self._hello())
        resuming = bool(self.session_id)
        with self._lock:
            if self._stopping.is_set():
                return "stopped"
            self._outbox = outbox
            self._call = call = stub.Play(_drain(outbox))
        welcomed = False
        try:
            for message in call:
                kind = message.WhichOneof("kind")
                if kind == "welcome":
                    welcomed = True
                    self._on_welcome(message.welcome, resuming)
                elif kind == "error":
                    self._on_error(message.error, welcomed, resuming)
                elif kind == "game_started":
                    self._on_game_started(message.game_started)
                elif kind == "turn":
                    self._on_turn(message.turn)
                elif kind == "game_ended":
                    self._on_game_ended(message.game_ended)
            how = "stopped" if self._stopping.is_set() else "closed"
            if how == "closed":
                self.log.info("the arena closed the session")
            return how
        except _SessionEnd as end:
            return end.how
        except grpc.RpcError as error:
            if self._stopping.is_set():
                return "stopped"
            code = error.code() if hasattr(error, "code") else None
            details = error.details() if hasattr(error, "details") else ""
            self._last_failure = f"{code.name if code else 'error'}: {details}"
            self.log.debug("stream ended: %s", self._last_failure)
            return "welcomed-then-lost" if welcomed else "lost"
        finally:
            with self._lock:
                self._outbox = None
                self._call = None
            outbox.put(None)
            call.cancel()

    def _send(self, message: Any) -> None:
        with self._lock:
            outbox = self._outbox
        if outbox is not None:
            outbox.put(message)

    # ------------------------------------------------------------------ handlers
    def _on_welcome(self, welcome: Any, resuming: bool) -> None:
        resumed = resuming and welcome.session_id == self.session_id
        if resuming and not resumed:
            self.log.warning("the arena started a new session; games of the old one are lost to us")
            self._close_games()
        self.session_id = welcome.session_id
        self.log.info(
            "%s %s as %r (session %s, server %s)",
            "resumed the session at" if resumed else "connected to",
            self.options.arena, self.options.name, welcome.session_id, welcome.server_version,
        )

    def _on_error(self, error: Any, welcomed: bool, resuming: bool) -> None:
        code_name = pb.Error.Code.Name(error.code)
        detail = f" ({error.message})" if error.message else ""
        if error.code == pb.Error.SHUTTING_DOWN:
            self.log.info("the arena is shutting down%s", detail)
            raise _SessionEnd("closed")
        if not welcomed:
            if resuming and error.code == pb.Error.DUPLICATE_SESSION:
                # The arena may not have noticed our old stream is gone yet: retry later.
                self.log.warning("resume refused for now%s", detail)
                raise _SessionEnd("lost")
            reason = _REFUSALS.get(error.code, "the arena refused the connection")
            raise ArenaRefused(code_name, f"{reason}{detail} [{code_name}]")
        game = self.games.get(error.game_id)
        if game is not None:
            game.notices += 1
        where = f"game {error.game_id} request {error.request_id}: " if error.game_id else ""
        self.log.warning("%s%s%s [%s]", where, _NOTICES.get(error.code, "error from the arena"), detail, code_name)

    def _game(self, game_id: str, info: GameInfo | None = None) -> _Game:
        game = self.games.get(game_id)
        if game is None:
            game = self.games[game_id] = _Game(game_id, info, inline=self.options.max_games <= 1)
        return game

    def _on_game_started(self, message: Any) -> None:
        info = GameInfo.from_pb(message)
        known = self.games.get(info.game_id)
        if known is not None and known.info is not None:
            return  # re-sent after a resume: the bot already knows this game
        game = self._game(info.game_id, info)
        game.info = info
        self.log.info("game %s started: %s, seat %d of %s", info.game_id, info.ruleset, info.seat, ", ".join(info.players))
        game.worker.submit(self._guarded, game, "on_game_start", lambda: self.bot.on_game_start(info))

    def _on_turn(self, message: Any) -> None:
        game = self._game(message.game_id)
        if game.last_answer is not None and game.last_answer[0] == message.request_id:
            self._send(game.last_answer[1])  # re-sent after a resume: we already know our answer
            return
        game.worker.submit(self._answer, game, message)

    def _on_game_ended(self, message: Any) -> None:
        game = self._game(message.game_id)
        game.worker.submit(self._finish, game, message)
        game.worker.shutdown(wait=False)
        del self.games[message.game_id]
        self.games_done += 1
        limit = self.options.games_limit
        if limit is not None and self.games_done >= limit:
            game.worker.shutdown(wait=True)  # let on_game_end run before we leave
            self.log.info("played %d game(s): stopping (--games-limit)", self.games_done)
            self.stop()

    # ------------------------------------------------------------------ worker side
    def _answer(self, game: _Game, message: Any) -> None:
        """Runs on the game's worker thread: ask the bot, fall back to the first legal action on error."""
        index = 0
        try:
            turn = Turn.from_pb(message)
            choice = self.bot.act(turn)
        except Exception:  # any exception, ValueError too: the author needs the traceback
            game.errors += 1
            self.log.exception("game %s request %d: act() raised; answering the first legal action %r",
                               message.game_id, message.request_id, message.legal[0] if message.legal else "")
        else:
            try:
                index = turn.index_of(choice)
            except ValueError as error:  # an illegal or malformed choice: say exactly what was wrong
                game.errors += 1
                self.log.error("game %s request %d: %s; answering %r instead", message.game_id, message.request_id,
                               error, message.legal[0] if message.legal else "")
        text = message.legal[index] if message.legal else ""  # the arena's own text, byte for byte
        answer = pb.BotMessage(
            answer=pb.Answer(game_id=message.game_id, request_id=message.request_id, action_index=index,
                             action_text=text)
        )
        game.last_answer = (message.request_id, answer)
        self._send(answer)

    def _finish(self, game: _Game, message: Any) -> None:
        seat = game.info.seat if game.info else None
        result = GameResult.from_pb(message, seat=seat, errors=game.errors)
        placing = f"placed {result.placement} of {len(result.seats)}" if result.mine else "ended"
        errors = f"; {game.errors} bot error(s) answered with the first legal action" if game.errors else ""
        self.log.info("game %s %s (%s)%s", game.game_id, placing, result.reason or "finished", errors)
        info = game.info or GameInfo(game_id=game.game_id, ruleset="", seat=-1, players=())
        self._guarded(game, "on_game_end", lambda: self.bot.on_game_end(info, result))

    def _guarded(self, game: _Game, what: str, call: Callable[[], None]) -> None:
        try:
            call()
        except Exception:
            game.errors += 1
            self.log.exception("game %s: %s() raised", game.game_id, what)

    def _close_games(self) -> None:
        for game in self.games.values():
            game.worker.shutdown(wait=False, cancel_futures=True)
        self.games.clear()


def _drain(outbox: queue.SimpleQueue) -> Iterator[Any]:
    """The request iterator grpcio reads our messages from; None ends the stream."""
    while True:
        item = outbox.get()
        if item is None:
            return
        yield item


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def install_sigterm_as_interrupt() -> None:
    """SIGTERM (sent by `arena match` and process managers) closes as cleanly as Ctrl-C."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_interrupt)
