"""The hub: the registry of bot sessions and their streams, and the bridge between asyncio and trio.

Who is connected, what they play, how many games they have room for.  The hub admits a stream's Hello
(a new `BotSession`, or a resumed one: `admit`), counts silent streams against their own budget
(`expect_hello`), reserves a bot's slot for a game (`reserve`, else `SeatUnavailable`) and gives it back
when the game ends (`release`, `settle`: `arena.server.owed_answers` holds it while the bot still owes an
answer), keeps the directors' views of the bots' slots up to date (`slot_view`) and tells connected bots
the live hosts of a shared ladder (`set_cluster_hosts`).  A session and its stream are their own modules
(`arena.server.bot_session`, `arena.server.connection`).

Everything here runs on the one server thread: the gRPC handlers (asyncio) and the games (trio, as a
guest on the same loop) call these plain methods directly; a call that must wake a trio task goes
through `Hub.to_trio`: on the server thread it runs at once (trio is between two ticks there, so
rescheduling a task is safe) after `guestloop.wake` has ended trio's wait on the loop; from another
thread, or when trio does not wait on the loop, the trio token's ``run_sync_soon`` carries it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

import trio

from arena import __version__ as ARENA_VERSION
from arena.match.stalls import ArenaClock, StallLedger, process_ledger
from arena.messages import error_to_pb
from arena.server.bot_session import BotSession, SessionInfo
from arena.server.config import ConfigError, ServerConfig
from arena.server.connection import Connection
from arena.server.hello import HelloRefused, HelloTerms
from arena.server.owed_answers import OwedAnswers
from arena.server.slot_view import SlotView
from mau_arena_sdk.wire import pb

if TYPE_CHECKING:
    from arena.server.seat import RemoteSeat

log = logging.getLogger("arena.server")


def _connected_already(existing: BotSession) -> HelloRefused:
    return HelloRefused("DUPLICATE_SESSION", f"a bot named {existing.name!r} is already connected "
                                             f"(since {existing.connected_at}); one connection per name")


class SeatUnavailable(Exception):
    """A game asked for a bot that is not connected, does not play the ruleset, or has no free capacity."""


class Hub:
    """The registry of sessions and connections, and the bridge between the asyncio and trio sides."""

    def __init__(self, config: ServerConfig, rulesets: list[str]) -> None:
        self.config = config
        #: The games' clock: trio's, what answers are stamped with on arrival and what the match runner judges
        #: them on.  Real time without the process's stalls (`arena.match.stalls.ArenaClock`: time the arena
        #: could not run is no bot's), or the test clock of `ServerConfig.clock`.
        #: ``stalls``: the ledger behind it (None with a test clock), which the runner reads to log the stalls
        #: its games went through and to abort those stalled too long.
        if config.clock is None:
            self.stalls: Optional[StallLedger] = process_ledger()
            self.clock: Any = ArenaClock(self.stalls)
        else:
            self.stalls, self.clock = None, config.clock
        self.now: Callable[[], float] = self.clock.current_time
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
        #: Finished games' seats given back, or held while their bot owes an answer (`release`, `settle`).
        self.owed_answers = OwedAnswers(config, self.to_trio, self._slot_freed, self._forget_if_idle, self._fire_changed,
                                        self.stalls.stalled_s if self.stalls is not None else None)

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
            raise _connected_already(existing)
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

    def refuse_if_connected(self, terms: HelloTerms) -> None:
        """Raise the refusal `admit` would give a fresh Hello (no resume: `admit` judges those) for a name connected
        here already (one connection per name): the rule of this host, asked first, before a shared ladder asks its
        other hosts (`ServerConfig.names`), so a bot is told of the rule it meets here."""
        if terms.resume_session and terms.resume_secret:
            return
        existing = self.by_name.get(terms.name)
        if existing is not None and existing.connected:
            raise _connected_already(existing)

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
        session.detached_at = self.now()
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
        (the wire id of the last request the game sent it, unanswered); then the slot stays taken until the
        answer comes (`settle`), for `ServerConfig.owed_answer_hold_s` at most (`arena.server.owed_answers`)."""
        self.owed_answers.release(session, seat, owed)

    def settle(self, session: BotSession, seat: "RemoteSeat", wire_id: Optional[int] = None) -> None:
        """The bot answered the request it owed for a finished game (or, with ``wire_id``, the hold on that
        request ran out): its slot is free again."""
        self.owed_answers.settle(session, seat, wire_id)

    def owed_text(self, session: BotSession) -> str:
        """``"; it still owes ..."``: the answers a busy bot owes for finished games, for people ('' if none)."""
        return self.owed_answers.text(session)

    def _slot_freed(self, session: BotSession) -> None:
        """One of ``session``'s games no longer counts as busy (its game ended, or the answer it owed came)."""
        session.busy = max(0, session.busy - 1)
        if self._slot_views:
            self._slots_changed(session.name)

    def _forget_if_idle(self, session: BotSession) -> None:
        """An away session with no game and nothing to deliver is not resumable any more: forgotten."""
        if not session.connected and not session.seats and not self._keeps(session):
            self.by_id.pop(session.id, None)

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
