"""`BotSession`: one admitted bot, its terms and its seats, outliving the stream it came on.

A session lasts while its bot is connected or still has games: a bot whose stream drops resumes it
with the session id and the resume secret from its Welcome (`arena.server.sessions.Hub.admit`), and
finds its games and its last results (sent again: any may have been lost with the stream).  It routes
the bot's answers to the seats that asked (`route_answer`), and cuts off a stream that floods it with
answers to no open request (`MAX_STALE_ANSWERS`).  Its token is kept as a digest only, compared in
constant time, as is the resume secret.  `SessionInfo` is its snapshot for schedulers and dashboards.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Optional

from arena.messages import error_to_pb
from arena.server.connection import Connection, Timed
from arena.server.hello import HelloTerms
from mau_arena_sdk.wire import pb

if TYPE_CHECKING:
    from arena.server.seat import RemoteSeat
    from arena.server.sessions import Hub

#: Answers beyond one per request that a session may send before its stream is cut off as flooding
#: (`BotSession.route_answer`): late answers, repeats, answers naming another game or no open request.
MAX_STALE_ANSWERS = 1000
#: Recent results kept per session to send again on a resume (a bot plays at most `max_games` at once).
MAX_KEPT_RESULTS = 64


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
        #: When its last stream ended (`Hub.detach`, on the games' clock `Hub.now`), None while connected: the
        #: runner excuses only a drop that happened in a stall of the arena (`arena.match.timekeeping.GameStalls`).
        self.detached_at: Optional[float] = None
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
