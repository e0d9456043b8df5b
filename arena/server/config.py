"""What an arena server is told at start-up, and the checks that refuse an unsafe one."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

#: ``authenticator(name, token, peer)`` returns None (or True) to admit the bot,
#: or a text saying why not (sent to the bot as AUTH_FAILED).
Authenticator = Callable[[str, str, str], Union[None, bool, str]]
#: More gRPC servers on one port than this would only cost memory: each adds one stream accepted at a time.
MAX_ACCEPTORS = 64


class ConfigError(ValueError):
    """The server configuration is unsafe or inconsistent; raised before anything listens.

    ``field`` names the one setting at fault when there is one, and ``rule`` says what it must be (the
    message is ``f"{field} {rule}"``), so a command line can name its own flag instead (`arena serve`)."""

    def __init__(self, message: str, field: Optional[str] = None, rule: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.rule = rule


def _refuse(field: str, rule: str) -> ConfigError:
    return ConfigError(f"{field} {rule}", field, rule)


def is_loopback(host: str) -> bool:
    """True when ``host`` names only this machine (127.0.0.0/8, ::1, localhost)."""
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


@dataclass
class ServerConfig:
    """How the arena listens and whom it admits.

    Open registration (any well-formed name, no token) is for loopback only:
    on another interface it needs ``allow_open_registration_on_network`` as a
    deliberate opt-in, otherwise `validate` refuses to start.  An
    ``authenticator``, when given, is asked about every Hello either way.
    """

    host: str = "127.0.0.1"
    port: int = 0                          # 0: any free port (see Handle.port)
    tls_cert: Optional[Path] = None        # PEM certificate chain
    tls_key: Optional[Path] = None         # PEM private key
    open_registration: bool = True
    allow_open_registration_on_network: bool = False
    authenticator: Optional[Authenticator] = None
    #: A shared ladder's rule of one program per bot name across its hosts (`arena.ladder.name_holds.NameHolds`), None:
    #: the arena is its ladder's one host.  ``claim(name, instance)`` is asked on a worker thread for every Hello whose
    #: token passed, before the session is admitted: (ticket, None), or (None, why: refused DUPLICATE_SESSION); it may
    #: raise (the database away: the Hello is refused, try again).  ``release(name, ticket)`` when that stream has ended
    #: (or the hub refused it after all), on a worker thread too.
    names: Optional[Any] = None
    #: What this arena schedules (the ladder's --game selection); None: every known ruleset.
    #: Welcome.rulesets and GetStandings report these, within what each bot plays.
    rulesets: Optional[Sequence[str]] = None
    max_connections: int = 256             # admitted sessions (connected, or waiting for a resume)
    max_pending_hellos: int = 64           # streams that have not said Hello yet; the oldest makes room
    max_games_per_bot: int = 64            # upper bound for Hello.max_games
    max_message_bytes: int = 64 * 1024     # per message, both directions
    hello_timeout_s: float = 3.0           # a stream must say Hello within this
    #: gRPC servers sharing the port (SO_REUSEPORT, Linux): grpc.aio takes one new stream at a time per
    #: server, each after a round of cross-thread wake-ups, so a busy server admits a few logins a second
    #: whatever its other limits; the kernel spreads connections over the acceptors.  See arena/server/README.md.
    acceptors: int = 1
    #: Token checks (an authenticator may hash on purpose slowly: scrypt, ~40 ms and 16 MiB each)
    #: run on this many dedicated threads; at most `auth_queue` more Hellos wait for one.
    auth_workers: int = 1
    auth_queue: int = 16
    #: Refused tokens allowed per peer address and per bot name within `auth_failure_window_s`;
    #: beyond that, Hellos from that address (or for that name) are refused without a check,
    #: unless their token is one the authenticator accepted before (see arena/server/authgate.py).
    auth_failures_per_address: int = 10
    auth_failures_per_name: int = 10
    auth_failure_window_s: float = 60.0
    #: Logins per name within that window with a token accepted before (which skip the limits above):
    #: beyond this, each waits `auth_refusal_delay_s` before its check, so the holder of a token cannot
    #: repeat Hellos (each answered at once) as fast as the server sets streams up.
    auth_logins_per_name: int = 20
    #: A name over its limit still gets one check per this many seconds for a Hello from an address with
    #: no refused token in the window, so flooding a name from elsewhere cannot lock its owner out.
    auth_name_trickle_s: float = 2.0
    #: Those refusals (made without a check) are answered after this delay, at most this many at once.
    auth_refusal_delay_s: float = 5.0
    auth_refusals_held: int = 256
    #: A session away when its last game ended stays resumable this long, to be told the results.
    resume_keep_s: float = 60.0
    #: A game that ends while its bot still owes the answer to the request it was last sent (its time ran
    #: out, the arena played the default and maybe forfeited the seat) keeps that bot's game slot until the
    #: answer comes (late, dropped as stale), so a bot still busy with a finished game's call is not seated
    #: in a new one it cannot read (a one-game client reads nothing while its code runs); at most this long,
    #: after which a hung bot is seated again (`arena.server.owed_answers`).
    owed_answer_hold_s: float = 60.0
    shutdown_grace_s: float = 2.0          # gRPC grace period at stop
    #: What the health service says from the moment the port opens.  False: NOT_SERVING until the director
    #: calls `Handle.set_serving(True)`; `arena serve` starts so, and its ladder says SERVING once it schedules
    #: games and a SIGTERM would drain it (before that, a load balancer or a deploy script that stops the
    #: process as soon as it looks ready would kill it outright).  True (the default): SERVING at once, for
    #: directors that never change it.
    serving_at_start: bool = True
    finished_games_kept: int = 500         # finished games ListGames still shows
    spectate_finished_kept: int = 50       # finished games whose events are kept (older: rebuilt from the replay)
    #: Watching streams (Spectate, the web view's live events) at once, in all and per peer address:
    #: each costs the games' loop a write per event of the game it watches (arena/server/live.py).
    max_spectators: int = 64
    spectators_per_address: int = 4
    #: Health ``Watch`` streams at once, in all and per peer address (they need no login, and each holds
    #: memory and keeps its connection from counting as idle; arena/server/health.py).
    max_health_watchers: int = 64
    health_watchers_per_address: int = 4
    #: Health ``Check`` calls per peer address: this many at once, then this many a second; one beyond waits
    #: for its turn, or is refused at once (RESOURCE_EXHAUSTED) when that is more than `health_checks_max_wait_s`
    #: away.  A probe asks every few seconds and never meets it; a flood of Checks from one address lagged
    #: the games' loop (arena/server/health.py).
    health_checks_burst: int = 20
    health_checks_per_second: float = 10.0
    health_checks_max_wait_s: float = 5.0
    #: Play streams whose Hello is refused before any token check (BAD_HELLO, UNSUPPORTED_VERSION, a first
    #: message that is not a Hello or not a message, a stream ended before its Hello) per peer address: this
    #: many, then this many a second.  While an address is beyond it, its new Play streams are held before their
    #: Hello is read until one refusal's worth has come back, at most `refused_hellos_held_per_address` of one
    #: address and `refused_hellos_held` in all; one beyond is refused at once (RESOURCE_EXHAUSTED), unread
    #: (arena/server/hellopace.py).
    refused_hellos_burst: int = 20
    refused_hellos_per_second: float = 1.0
    refused_hellos_held: int = 256
    refused_hellos_held_per_address: int = 16
    #: A connection with no call open for this long is closed (gRPC's ``max_connection_idle``: a GOAWAY, so a
    #: client's channel simply connects again at its next call).  A connected bot always has its Play stream
    #: open, between games and while it waits for a seat too, so it is never idle; what this closes is a
    #: connection that holds a file descriptor and does nothing.  Unbounded, 1,100 such connections under a
    #: soft limit of 1,024 open files locked every new login and every resume out (arena/server/README.md).
    connection_idle_s: float = 20.0
    #: A new connection must finish its handshake (TLS, and HTTP/2's preface and SETTINGS) within this, or it
    #: is closed (gRPC's own default: 120 s, during which a socket that never speaks holds a descriptor).
    handshake_timeout_s: float = 10.0
    #: GetStandings and ListGames per peer address: this many at once, then this many a second; a call
    #: beyond waits for its turn, or is refused at once when that is more than `reads_max_wait_s` away
    #: (arena/server/readpace.py).
    reads_per_second: float = 10.0
    reads_burst: int = 40
    reads_max_wait_s: float = 5.0
    #: Collect once, then move every object alive at start-up (modules, classes, grpc and trio
    #: internals: ~35k) to the permanent generation, so that a full GC pass walks only what the
    #: server allocated since.  Measured: full passes of 29-37 ms -> 0.4-0.7 ms; every deadline
    #: in flight during one of those overshot by that much.  See arena/server/README.md.
    freeze_gc: bool = True
    #: The server's clock: trio's (every game's deadline), the answers' arrival stamps and the match
    #: runner's.  None: real time without the time the process could not run (`arena.match.stalls.ArenaClock`:
    #: a stopped or starved host charges no bot for its stop).  A test passes a
    #: `trio.testing.MockClock` (rate 0) and moves time itself with ``clock.jump(seconds)`` from the
    #: director, so a timeout happens when the test says and never because the machine is slow.
    #: Only the games' time runs on it: login limits (Hello timeout, token checks) stay on real time.
    clock: Optional[Any] = None
    #: The collector's generation thresholds while the server runs (`gc.set_threshold`; None: Python's
    #: 700/10/10), restored when `run` returns.  A young collection walks every live object made since
    #: the last one, and a server keeps thousands alive between two (the games' suspended coroutines,
    #: their requests): at 700 allocations a collection came every ~70 decisions and garbage collection
    #: took 47-68 µs of a decision's 500-650 on both the ladder and the bare match path (about 10%).  At
    #: 10,000: 7-13 µs, the same peak memory within 2 MiB (`scripts/ladder_cpu_accounting.py`,
    #: arena/server/README.md "Garbage collection thresholds").  The one place both the ladder (`arena
    #: serve`) and the bare match path (`bench_ladder.py --compare-arena`) take it from.
    gc_threshold: tuple[int, int, int] | None = (10_000, 10, 10)

    def validate(self, *, authenticator_pending: bool = False) -> None:
        """Raise `ConfigError` for the first setting that cannot work.

        authenticator_pending: the authenticator is set after this check, so its absence is not refused
        here (`arena serve` checks its flags before it opens the ladder's database, whose authenticator it
        then sets; `run` checks the whole config again before it serves).
        """
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"port must be 0-65535, not {self.port}")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ConfigError("TLS needs both --tls-cert and --tls-key")
        for path in (self.tls_cert, self.tls_key):
            if path is not None and not Path(path).is_file():
                raise ConfigError(f"TLS file not found: {path}")
        if not self.open_registration and self.authenticator is None and not authenticator_pending:
            raise ConfigError("open registration is off but no authenticator is set: no bot could connect")
        if self.open_registration and not is_loopback(self.host) and not self.allow_open_registration_on_network:
            raise ConfigError(
                f"refusing open registration on {self.host}, which is not loopback: register bots "
                "and use tokens, or opt in explicitly (allow_open_registration_on_network)"
            )
        for name in ("max_connections", "max_pending_hellos", "max_games_per_bot", "max_message_bytes",
                     "auth_workers", "auth_failures_per_address", "auth_failures_per_name", "auth_logins_per_name",
                     "acceptors", "max_spectators", "spectators_per_address", "reads_burst",
                     "max_health_watchers", "health_watchers_per_address", "health_checks_burst",
                     "refused_hellos_burst", "refused_hellos_held",
                     "refused_hellos_held_per_address"):
            if getattr(self, name) < 1:
                raise _refuse(name, f"must be at least 1, not {getattr(self, name)}")
        if self.acceptors > MAX_ACCEPTORS:
            raise _refuse("acceptors", f"must be at most {MAX_ACCEPTORS}, not {self.acceptors}")
        for name in ("reads_per_second", "health_checks_per_second", "refused_hellos_per_second"):
            if not getattr(self, name) > 0:  # NaN too
                raise _refuse(name, f"must be more than 0, not {getattr(self, name)}")
        for name in ("connection_idle_s", "handshake_timeout_s"):  # gRPC takes whole milliseconds: inf overflows
            if not 0 < getattr(self, name) < float("inf"):
                raise _refuse(name, f"must be more than 0 and finite, not {getattr(self, name)}")
        if not 0 <= self.owed_answer_hold_s < float("inf"):  # NaN and inf reached the loop's timer (`Hub.release`)
            raise _refuse("owed_answer_hold_s", f"must be 0 or more and finite, not {self.owed_answer_hold_s}")
        for name in ("reads_max_wait_s", "health_checks_max_wait_s"):
            if not getattr(self, name) >= 0:  # NaN too
                raise _refuse(name, f"must be 0 or more, not {getattr(self, name)}")
        if self.auth_queue < 0:
            raise _refuse("auth_queue", f"must be 0 or more, not {self.auth_queue}")
        if self.rulesets is not None and not self.rulesets:
            raise ConfigError("rulesets is empty: the arena would schedule nothing (None means every ruleset)")
        if self.max_message_bytes < 1024:
            raise ConfigError(f"max_message_bytes must be at least 1024, not {self.max_message_bytes}")
        if self.gc_threshold is not None and (len(self.gc_threshold) != 3 or any(
                not isinstance(n, int) or n < 1 for n in self.gc_threshold)):
            raise ConfigError(f"gc_threshold must be three whole numbers of 1 or more, not {self.gc_threshold!r}")

    @property
    def uses_tls(self) -> bool:
        return self.tls_cert is not None
