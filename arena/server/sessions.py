"""Bot sessions: who is connected, what they play, how many games they have room for.

One `BotSession` per admitted bot name.  It outlives its stream (`Connection`)
while it still has games, so a bot that drops can resume with the session id
from its Welcome.  Everything here runs on the one server thread: the gRPC
handlers (asyncio) and the games (trio, as a guest on the same loop) call
these plain methods directly; a call that must wake a trio task goes through
`Hub.to_trio`: on the server thread it runs at once (trio is between two
ticks there, so rescheduling a task is safe) after `guestloop.wake` has ended
trio's wait on the loop; from another thread, or when trio does not wait on
the loop, the trio token's ``run_sync_soon`` carries it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
import threading
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

import trio

from arena import __version__ as ARENA_VERSION
from arena.messages import error_to_pb
from arena.server.config import ConfigError, ServerConfig
from arena.server.hello import HelloRefused, HelloTerms
from arena.server.slot_view import SlotView
from mau_arena_sdk.wire import pb

if TYPE_CHECKING:
    from arena.server.seat import RemoteSeat

log = logging.getLogger("arena.server")

#: Answers beyond one per request that a session may send before its stream is cut off as flooding
#: (`BotSession.route_answer`): late answers, repeats, answers naming another game or no open request.
MAX_STALE_ANSWERS = 1000
#: Messages waiting for a bot that does not read them; beyond this its stream is cut off.
MAX_OUTBOX = 2000
#: Protocol violations (a second Hello, empty messages) a stream may commit before it is cut off.
MAX_VIOLATIONS = 100


class SeatUnavailable(Exception):
    """A game asked for a bot that is not connected, does not play the ruleset, or has no free capacity."""


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class SessionInfo:
    """A snapshot of one connected bot, for schedulers and dashboards."""

    name: str
    session_id: str
    version: str
    sdk_version: str
    games: tuple[str, ...]
    capacity: int
    busy: int
    connected_at: str
    peer: str

    @property
    def free(self) -> int:
        return max(0, self.capacity - self.busy)


class Outbox:
    """The messages waiting for one stream's writer: a deque and, while the writer waits, its future.

    What ``asyncio.Queue`` did here for one producer side and one consumer, without its
    bookkeeping per message (unfinished-task count, an Event cleared on every put, getters
    deque); measured with the rest of this change in the server README.
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque = deque()
        self._waiter: Optional[asyncio.Future] = None

    def qsize(self) -> int:
        return len(self._items)

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def get_nowait(self) -> Any:
        """The next item at once (IndexError when there is none): for a writer outside asyncio (tests)."""
        return self._items.popleft()

    async def get(self) -> Any:
        while not self._items:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return self._items.popleft()


class Timed:
    """An outgoing message whose writer records when it hands it to the transport (``written_at``).

    A seat's TurnRequest goes out as one: the bot's clock starts at ``written_at`` (the games' clock,
    `Hub.now`), so time the request spent in the outbox (a busy loop, a writer behind other messages)
    is not the bot's.  Only the first write counts: a copy sent again on a resume keeps the first stamp.
    """

    __slots__ = ("message", "written_at")

    def __init__(self, message: pb.ArenaMessage) -> None:
        self.message = message
        self.written_at: Optional[float] = None


def to_write(item: Any, now: Callable[[], float]) -> Any:
    """The message a stream's writer hands to the transport for an outbox item, stamping a `Timed` one
    (``now()``, the moment before the write) the first time it is written."""
    if item.__class__ is Timed:
        if item.written_at is None:
            item.written_at = now()
        return item.message
    return item


#: Recent results kept per session to send again on a resume (a bot plays at most `max_games` at once).
MAX_KEPT_RESULTS = 64


class Connection:
    """One Play stream's outgoing side: a queue the gRPC handler drains in order."""

    CLOSE = object()

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.outbox = Outbox()
        self.closed = False
        self.violations = 0
        self.undecodable = False   # ended by a message that could not be parsed
        self.aborted = False       # cut off by the server (abort)
        self.handler: Optional[asyncio.Task] = None   # the Play handler serving this stream

    def send(self, message: "pb.ArenaMessage | Timed") -> bool:
        if self.closed:
            return False
        if self.outbox.qsize() >= MAX_OUTBOX:
            log.info("%s does not read its messages (%d queued): cutting it off", self.peer, MAX_OUTBOX)
            self.abort()
            return False
        self.outbox.put_nowait(message)
        return True

    def abort(self) -> None:
        """End the stream now, without draining the outbox (the peer is not reading it).

        The handler is cancelled (it may be stuck in a write the peer never reads) and ends the
        call with a non-OK status (`aborted`): a handler that just died of the cancellation left
        the call open, and the bot never learnt that its stream was gone.
        """
        self.closed = True
        self.aborted = True
        if self.handler is not None:
            self.handler.cancel()

    def close(self, final: Optional[pb.ArenaMessage] = None) -> None:
        """End the stream after the messages already queued (and ``final``, if given)."""
        if self.closed:
            return
        if final is not None:
            self.outbox.put_nowait(final)
        self.closed = True
        self.outbox.put_nowait(self.CLOSE)


class BotSession:
    """One admitted bot: its terms, its current stream, its seats in running games."""

    def __init__(self, hub: "Hub", terms: HelloTerms, connection: Connection) -> None:
        self.hub = hub
        self.id = secrets.token_hex(12)
        # Proof for a resume, sent only in this session's Welcome: the id alone shows up in logs and
        # the director's SessionInfo, so it must never be enough to take the session over.
        self._resume_secret = secrets.token_urlsafe(24)
        self.name = terms.name
        self.version = terms.bot_version
        self.sdk_version = terms.sdk_version
        self.games = terms.games
        self.capacity = terms.capacity
        self._token_digest = _digest(terms.token)
        self.connected_at = utc_now()
        self.connection: Optional[Connection] = connection
        self.busy = 0
        self.seats: set["RemoteSeat"] = set()
        self.requests: dict[int, "RemoteSeat"] = {}   # open wire request id -> seat
        #: Seats of finished games whose last request the bot has not answered yet, each with that request's
        #: wire id and when the game ended: each still counts in `busy` (`Hub.release`, `Hub.settle`).
        self.owed: dict["RemoteSeat", tuple[int, float]] = {}
        self._last_wire_id = 0
        #: Answers that answered no open request (`route_answer`): kept over resumes, so that a cut-off
        #: flooder cannot start afresh by resuming.
        self.stale_answers = 0
        #: The GameEnded messages of its last games, (kept until, message), sent again when the bot
        #: resumes: a result may have gone into a stream that was dying (written, never read) or found
        #: the bot away, and a bot must learn every result it played for.  It ignores those it knows.
        self.recent_results: deque = deque(maxlen=MAX_KEPT_RESULTS)

    @property
    def connected(self) -> bool:
        return self.connection is not None

    def token_matches(self, token: str) -> bool:
        return hmac.compare_digest(self._token_digest, _digest(token))

    @property
    def resume_secret(self) -> str:
        return self._resume_secret

    def proves(self, terms: HelloTerms) -> bool:
        """True when a resuming Hello proves it comes from this session's bot (constant-time compares)."""
        secret_ok = hmac.compare_digest(self._resume_secret.encode(), terms.resume_secret.encode("utf-8", "surrogatepass"))
        token_ok = self.token_matches(terms.token)
        return secret_ok and token_ok and terms.name == self.name

    def next_wire_id(self) -> int:
        """Request ids are unique per session, so an answer names exactly one request ever."""
        self._last_wire_id += 1
        return self._last_wire_id

    def send(self, message: "pb.ArenaMessage | Timed") -> bool:
        """Queue a message (or a `Timed` one) for the bot; False when the bot is not connected (nothing is kept)."""
        connection = self.connection
        if connection is None:
            return False
        return connection.send(message)

    def send_result(self, message: pb.ArenaMessage) -> None:
        """A GameEnded: sent now if the bot is connected, and kept for `resume_keep_s` to be sent again
        on a resume."""
        self.recent_results.append((self.hub.now() + self.hub.config.resume_keep_s, message))
        self.send(message)

    def kept_results(self) -> list[pb.ArenaMessage]:
        now = self.hub.now()
        while self.recent_results and self.recent_results[0][0] <= now:
            self.recent_results.popleft()
        return [message for _, message in self.recent_results]

    def info(self) -> SessionInfo:
        return SessionInfo(
            name=self.name,
            session_id=self.id,
            version=self.version,
            sdk_version=self.sdk_version,
            games=self.games,
            capacity=self.capacity,
            busy=self.busy,
            connected_at=self.connected_at,
            peer=self.connection.peer if self.connection else "",
        )

    # ---- called from trio (via Hub.to_trio) with an answer read off the wire

    def route_answer(self, answer: pb.Answer, received_at: float) -> None:
        """Hand an answer to the seat that asked; answers to no seat's request are dropped here.

        Every answer that is not the one awaited (late, repeated, bound to another game, naming no open
        request) counts against the session: an honest bot sends at most one answer per request, so a
        session may send `MAX_STALE_ANSWERS` more than the requests it was sent, and its stream is cut
        off beyond that.  Each such answer costs the games' loop a wake-up and a notice; unbounded, one
        session's flood of them halved the other games of a ladder (`scripts/bench_answer_flood.py`).
        """
        seat = self.requests.get(answer.request_id)
        taken = seat.accept_answer(answer, received_at) if seat is not None else ""
        if taken == "open":
            return
        self.stale_answers += 1
        if self.stale_answers > MAX_STALE_ANSWERS + self._last_wire_id:
            if self.connection is not None:
                self.connection.close(error_to_pb("MALFORMED", "too many answers to requests that are not open"))
            return
        if taken:
            return  # the seat's runner tells the bot it was stale
        self.send(error_to_pb(
            "STALE_REQUEST",
            f"your request {answer.request_id} is not open (unknown, or its game is over); answer dropped",
            answer.game_id[:64], answer.request_id,
        ))


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class Hub:
    """The registry of sessions and connections, and the bridge between the asyncio and trio sides."""

    def __init__(self, config: ServerConfig, rulesets: list[str]) -> None:
        self.config = config
        #: The games' clock (seconds): ``time.monotonic``, or the test clock of `ServerConfig.clock`.
        #: Answers are stamped with it on arrival and the match runner judges them on it.
        self.now: Callable[[], float] = time.monotonic if config.clock is None else config.clock.current_time
        self.known_rulesets = list(rulesets)
        if config.rulesets is None:
            self.rulesets = list(rulesets)   # what this arena schedules
        else:
            unknown = [r for r in config.rulesets if r not in rulesets]
            if unknown:
                raise ConfigError(f"unknown ruleset {', '.join(unknown)} in the server's selection; "
                                  f"known: {', '.join(rulesets)}")
            self.rulesets = list(dict.fromkeys(config.rulesets))
        self.by_name: dict[str, BotSession] = {}     # connected sessions
        self.by_id: dict[str, BotSession] = {}       # connected, or disconnected with games left
        self.connections: set[Connection] = set()
        #: Streams that have not said Hello yet, oldest first, each with the future that evicts it.
        #: They have their own budget (`ServerConfig.max_pending_hellos`), apart from admitted
        #: sessions, so silent streams can never crowd out a bot that speaks.
        self.pending: dict[Connection, asyncio.Future] = {}
        self.trio_token: Optional[trio.lowlevel.TrioToken] = None
        self._to_trio: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        #: While trio runs as a guest on this thread: (thread id, ``wake()`` ending trio's loop wait);
        #: set and cleared by the host.  None: every call goes through ``run_sync_soon``.
        self.direct: Optional[tuple[int, Callable[[], Any]]] = None
        self.ready = asyncio.Event()                 # set once trio runs: hellos wait for it
        self.shutting_down = False
        #: The live hosts of a shared ladder (their advertised addresses, this one first) for Welcome.hosts.
        self.cluster_hosts: list[str] = []
        self._changed = trio.Event()                 # replaced on every change (trio side)
        self._roster = trio.Event()                  # replaced when a bot connects, resumes or leaves
        self.live = None                             # arena.server.live.LiveGames, set by the host
        #: Views of the connected bots' slots kept up to date here (`slot_view`) until their readers close them:
        #: none unless a director asks.
        self._slot_views: list[SlotView] = []

    # ---- bridge

    def to_trio(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` where it may wake trio tasks (from the asyncio side), in call order.

        On the server thread while the guest run is alive (`direct`), it runs now: asyncio
        callbacks run between trio's ticks, so ``fn`` may set trio events and cancel scopes
        like any non-blocking trio code, and `guestloop.wake` first ends trio's wait on the
        loop so that the woken task runs on the next loop iteration (no wake-up socket, no
        run_sync_soon task: measured in the server README, "Answers handed to trio directly").  Otherwise the
        calls made in one asyncio step are batched into one ``run_sync_soon``.
        """
        if self.trio_token is None:
            return
        direct = self.direct
        if direct is not None and direct[0] == threading.get_ident() and not self._to_trio:
            direct[1]()
            try:
                fn(*args)
            except Exception:  # a bug here must not take the whole trio run down
                log.exception("%s failed", getattr(fn, "__qualname__", fn))
            return
        self._to_trio.append((fn, args))
        if len(self._to_trio) == 1:
            try:
                self.trio_token.run_sync_soon(self._run_to_trio)
            except trio.RunFinishedError:
                self._to_trio.clear()

    def _run_to_trio(self) -> None:
        calls, self._to_trio = self._to_trio, []
        for fn, args in calls:
            try:
                fn(*args)
            except Exception:  # a bug here must not take the whole trio run down
                log.exception("%s failed", getattr(fn, "__qualname__", fn))

    def changed(self) -> None:
        """A bot connected, resumed or left: wake whoever waits in `Handle.session_event` or
        `Handle.roster_event` (callable from either side)."""
        self.to_trio(self._fire_roster)

    def _fire_roster(self) -> None:
        event, self._roster = self._roster, trio.Event()
        event.set()
        self._fire_changed()

    def _fire_changed(self) -> None:
        event, self._changed = self._changed, trio.Event()
        event.set()

    async def wait_changed(self) -> None:
        await self._changed.wait()

    async def wait_roster(self) -> None:
        await self._roster.wait()

    # ---- asyncio side: admission and departure

    def expect_hello(self, connection: Connection) -> asyncio.Future:
        """Count a new stream against the Hello budget; returns a future set (code, text) to evict it.

        When the budget is full the oldest silent stream makes room: a flood of streams that
        never speak only ever evicts itself, while a bot that sends its Hello at once is read.
        """
        while len(self.pending) >= self.config.max_pending_hellos:
            oldest = next(iter(self.pending))
            self._evict(oldest, "BAD_HELLO", "no Hello yet, and newer connections need the room; send Hello first")
        evict = asyncio.get_running_loop().create_future()
        self.pending[connection] = evict
        return evict

    def hello_done(self, connection: Connection) -> None:
        """The stream said Hello (or ended): it no longer counts against the Hello budget."""
        self.pending.pop(connection, None)

    def _evict(self, connection: Connection, code: str, text: str) -> None:
        evict = self.pending.pop(connection, None)
        if evict is not None and not evict.done():
            evict.set_result((code, text))

    def admit(self, terms: HelloTerms, connection: Connection) -> BotSession:
        """Register a welcomed stream (new or resumed session) and queue its Welcome.

        A resume needs the session's secret from its Welcome (and the same name and token); a
        wrong secret is refused.  A Hello naming a session without any secret (an SDK older than
        the secret, or someone who only learned the id) is treated as a new session.  Refusal
        texts never name another session's id.

        A fresh Hello (no secret) whose name and non-empty token are those of an away session with
        games takes that session over (`_orphan`): its stream dropped before the bot read the Welcome
        that held the secret, so the bot could not resume it, and its games would otherwise wait
        out their reconnection windows and forfeit.  The token is the proof: a registered bot's is
        checked by the authenticator before this, and a bot that sends none (open registration) can
        never take a session over.
        """
        if self.shutting_down:
            raise HelloRefused("SHUTTING_DOWN", "the arena is shutting down")
        self._sweep_kept()
        if terms.resume_session and terms.resume_secret:
            old = self.by_id.get(terms.resume_session)
            if old is not None and old.name == terms.name:
                if not old.proves(terms):
                    raise HelloRefused(
                        "AUTH_FAILED",
                        "cannot resume that session: its resume secret (or token) does not match; "
                        "leave resume_session empty to start a new session",
                    )
                current = self.by_name.get(terms.name)
                if current is not None and current is not old and current.connected:
                    raise HelloRefused(
                        "DUPLICATE_SESSION",
                        f"{terms.name!r} has connected again since that session; cannot resume it",
                    )
                return self._resume(old, terms, connection)
        existing = self.by_name.get(terms.name)
        if existing is not None and existing.connected:
            raise HelloRefused(
                "DUPLICATE_SESSION",
                f"a bot named {terms.name!r} is already connected (since {existing.connected_at}); one connection per name",
            )
        orphan = self._orphan(terms)
        if orphan is not None:
            log.info("%s connected again without its resume secret (its Welcome was lost with its stream): "
                     "its token takes its away session over", terms.name)
            return self._resume(orphan, terms, connection)
        if len(self.by_id) >= self.config.max_connections:
            # sessions kept only to repeat their results on a resume give way to a bot that wants to play
            for kept in [s for s in self.by_id.values() if not s.connected and not s.seats]:
                self.by_id.pop(kept.id, None)
        if len(self.by_id) >= self.config.max_connections:
            raise HelloRefused(
                "CAPACITY",
                f"the arena is full ({self.config.max_connections} sessions); try again later",
            )
        session = BotSession(self, terms, connection)
        self.by_name[session.name] = session
        self.by_id[session.id] = session
        self._welcome(session)
        self._slots_changed(session.name)
        log.info("%s (%s) connected: plays %s, %d at once", session.name, connection.peer,
                 ",".join(session.games), session.capacity)
        self.changed()
        return session

    def _orphan(self, terms: HelloTerms) -> Optional[BotSession]:
        """An away session of this bot with games waiting that a fresh Hello may take over (see `admit`):
        the same name and the same token, which must not be empty (constant-time compare)."""
        if not terms.token:
            return None
        for session in self.by_id.values():
            if session.name == terms.name and not session.connected and session.seats and session.token_matches(terms.token):
                return session
        return None

    def _resume(self, session: BotSession, terms: HelloTerms, connection: Connection) -> BotSession:
        previous = session.connection
        session.connection = connection
        if previous is not None:
            previous.close(error_to_pb("DUPLICATE_SESSION", "this session was resumed on another connection"))
        session.capacity = max(session.capacity, terms.capacity)
        self.by_name[session.name] = session
        self._slots_changed(session.name)
        self._welcome(session)
        for message in session.kept_results():  # its recent results again: any may have been lost
            session.send(message)
        for seat in list(session.seats):
            self.to_trio(seat.on_reconnect)
        log.info("%s resumed its session from %s", session.name, connection.peer)
        self.changed()
        return session

    def set_cluster_hosts(self, addresses: Sequence[str]) -> None:
        """The live hosts of a shared ladder: for every Welcome from now on, and, when the list
        changed, a Hosts message to every connected session (call on the server's thread)."""
        addresses = list(addresses)
        if addresses == self.cluster_hosts:
            return
        self.cluster_hosts = addresses
        if not addresses:
            return
        message = pb.ArenaMessage(hosts=pb.Hosts(hosts=addresses))
        for session in list(self.by_name.values()):
            session.send(message)

    def _welcome(self, session: BotSession) -> None:
        session.send(pb.ArenaMessage(welcome=pb.Welcome(
            session_id=session.id,
            server_version=ARENA_VERSION,
            max_message_bytes=self.config.max_message_bytes,
            rulesets=list(session.games),
            resume_secret=session.resume_secret,
            protocol=pb.PROTOCOL_V1,
            hosts=self.cluster_hosts,
        )))

    def detach(self, session: BotSession, connection: Connection) -> None:
        """The stream ended; the session waits for a resume while it still has games."""
        if session.connection is not connection:
            return  # already replaced by a resumed connection
        session.connection = None
        if self.by_name.get(session.name) is session:
            del self.by_name[session.name]
            self._slots_changed(session.name)
        if not session.seats and not self._keeps(session):
            self.by_id.pop(session.id, None)
        for seat in list(session.seats):
            self.to_trio(seat.on_disconnect)
        log.info("%s disconnected", session.name)
        self.changed()

    # ---- trio side: capacity

    def reserve(self, name: str, ruleset: str) -> BotSession:
        session = self.by_name.get(name)
        if session is None or not session.connected:
            raise SeatUnavailable(f"bot {name!r} is not connected")
        if ruleset not in session.games:
            raise SeatUnavailable(f"bot {name!r} does not play {ruleset} (it plays {', '.join(session.games)})")
        if session.busy >= session.capacity:
            raise SeatUnavailable(f"bot {name!r} is busy ({session.busy} of {session.capacity} games"
                                  f"{self.owed_text(session)})")
        session.busy += 1
        if self._slot_views:
            self._slots_changed(name)
        return session

    def release(self, session: BotSession, seat: "RemoteSeat", owed: int = 0) -> None:
        """A game of ``session`` is over: its slot is free, unless the bot still owes the answer to ``owed``
        (the wire id of the last request the game sent it, unanswered).

        A bot whose time ran out is most likely still running its code for that request, and a client
        that runs one game at a time reads nothing meanwhile: seated in a new game now, it would time out
        there too, and forfeit a game it never saw (one 8 s call cost a one-game bot 17 games in a row).
        So the slot stays taken until the answer comes (late: it is dropped as stale, as before) and is
        given back then (`settle`), as a chess GUI waits for a late engine's ``readyok`` before the next
        game; after `ServerConfig.owed_answer_hold_s` at most, so a hung bot still gets its games (and
        forfeits them one at a time, each after a hold).
        """
        if seat in session.seats:
            session.seats.discard(seat)
            if owed and self.config.owed_answer_hold_s > 0:
                session.owed[seat] = (owed, time.monotonic())
                log.info("%s still owes its answer to request %d of game %s, which is over: no new game for it "
                         "until the answer comes (at most %g s)", session.name, owed, seat.game_id,
                         self.config.owed_answer_hold_s)
                self._expire_later(session, seat, owed)
            else:
                session.busy = max(0, session.busy - 1)
                if self._slot_views:
                    self._slots_changed(session.name)
        for wire_id in [w for w, s in session.requests.items() if s is seat and not (owed and w == owed)]:
            del session.requests[wire_id]
        if not session.connected and not session.seats and not self._keeps(session):
            self.by_id.pop(session.id, None)
        self._fire_changed()

    def settle(self, session: BotSession, seat: "RemoteSeat", wire_id: Optional[int] = None) -> None:
        """The bot answered the request it owed for a finished game (or, with ``wire_id``, the hold on that
        request ran out): its slot is free again."""
        owed = session.owed.get(seat)
        if owed is None or (wire_id is not None and owed[0] != wire_id):
            return
        del session.owed[seat]
        if wire_id is not None:
            log.warning("%s: no answer to request %d of game %s within %g s of the game's end; seating it again",
                        session.name, owed[0], seat.game_id, self.config.owed_answer_hold_s)
        session.busy = max(0, session.busy - 1)
        session.requests.pop(owed[0], None)
        if self._slot_views:
            self._slots_changed(session.name)
        if not session.connected and not session.seats and not session.owed and not self._keeps(session):
            self.by_id.pop(session.id, None)
        self._fire_changed()

    def _expire_later(self, session: BotSession, seat: "RemoteSeat", wire_id: int) -> None:
        try:
            loop = asyncio.get_running_loop()  # the server's loop: trio runs as its guest, on this thread
        except RuntimeError:  # not on the server's thread (a unit test's direct call): the answer alone settles it
            return
        loop.call_later(self.config.owed_answer_hold_s, self.to_trio, self.settle, session, seat, wire_id)

    def owed_text(self, session: BotSession) -> str:
        """``"; it still owes ..."``: the answers a busy bot owes for finished games, for people ('' if none)."""
        if not session.owed:
            return ""
        now = time.monotonic()
        seat, (wire_id, since) = min(session.owed.items(), key=lambda item: item[1][1])  # the oldest
        return (f"; {len(session.owed)} of them over but still waiting for the bot's answer to their last request: "
                f"request {wire_id} of game {seat.game_id}, over {now - since:.1f} s ago, its code still running that call")

    def slot_view(self) -> SlotView:
        """A view of the connected bots' slots that this hub keeps up to date until it is closed
        (`SlotView.close`; every connected bot counts as changed in it at first); call on the server's thread."""
        view = SlotView(on_close=self._slot_views.remove)
        for session in self.by_name.values():
            if session.connected:
                view.set(session.name, (session.capacity, session.busy, session.games))
        self._slot_views.append(view)
        return view

    def _slots_changed(self, name: str) -> None:
        """Bot ``name``'s entry in every slot view again: what `Handle.slots` would say now."""
        if not self._slot_views:
            return
        session = self.by_name.get(name)
        entry = (session.capacity, session.busy, session.games) if session is not None and session.connected else None
        for view in self._slot_views:
            view.set(name, entry)

    def _keeps(self, session: BotSession) -> bool:
        """Whether an away session with no game stays resumable: it holds results not yet delivered.

        Such sessions are forgotten once their window has passed (swept at each admission), so a bot
        that never comes back costs a few messages for `resume_keep_s` at most.
        """
        return bool(session.kept_results()) or bool(session.owed)

    def _sweep_kept(self) -> None:
        for session in [s for s in self.by_id.values() if not s.connected and not s.seats and not self._keeps(s)]:
            self.by_id.pop(session.id, None)

    def sessions(self) -> list[SessionInfo]:
        return [s.info() for s in sorted(self.by_name.values(), key=lambda s: s.name) if s.connected]

    def close_all(self, reason: str = "the arena is shutting down") -> None:
        self.shutting_down = True
        for connection in list(self.pending):
            self._evict(connection, "SHUTTING_DOWN", reason)
        for connection in list(self.connections):
            connection.close(error_to_pb("SHUTTING_DOWN", reason))
