"""Attacks that are not a seat at a table; each is bounded and returns what it achieved.

* `session_takeover`: grab a victim's name while it is away, drop with a game
  running, let the victim connect, then resume the old session: the
  DUPLICATE_SESSION text names the victim's new session, which is then
  resumed with its id alone.
* `token_flood`: Hellos with wrong tokens for a registered name; the real bot
  connects half-way through.
* `name_tricks`: a registered name plus a newline, control characters in
  ``bot_version``.
* `silent_flood`: hundreds of streams that never say Hello, then an honest
  bot tries to connect.
* `undecodable`: bytes that are not a message, after a Welcome.
* `name_churn`: a new open-registration name per connection.

Every Hello names ``games`` (the attack rulesets) so that no attacker is
ever seated with the control bots.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from mau_arena_sdk.wire import pb

from .players import Player
from .stream import BotStream, Channels, error_name, hello, reply_kind

#: Session ids as the arena writes them (hex); anything this long in an error text is a candidate.
SESSION_ID = re.compile(r"\b[0-9a-f]{16,64}\b")
REPLY_S = 5.0
#: How long the honest bot beside the silent streams waits for its Welcome, per try.
PROBE_REPLY_S = 5.0


async def _hello_once(channels: Channels, message: pb.BotMessage, timeout: float = REPLY_S,
                      keep: bool = False) -> tuple[str, Optional[BotStream]]:
    """Send one Hello on a new stream; what came back (`reply_kind`), and the stream if ``keep``."""
    stream = BotStream(channels.get())
    await stream.send(message)
    kind = reply_kind(await stream.first_reply(timeout), stream)
    if keep:
        return kind, stream
    await stream.close()
    return kind, None


# ---------------------------------------------------------------- 1. session takeover

@dataclass
class TakeoverOutcome:
    attempts: int = 0
    played: int = 0              # rounds that got as far as the victim connecting while we held a seat
    leaked_ids: int = 0          # session ids read from error texts
    successes: int = 0           # Welcomes for a session that was the victim's
    notes: list[str] = field(default_factory=list)


async def session_takeover(address: str, honest: str, victim: Player, games: tuple[str, ...],
                           stop: asyncio.Event, seat_timeout_s: float, outcome: TakeoverOutcome) -> None:
    """One round against ``victim`` (not started yet; it connects to ``honest``); the victim plays on
    afterwards until ``stop``."""
    name = victim.name
    outcome.attempts += 1
    grab = BotStream.open(address)
    try:
        await grab.send(hello(name, games=games))
        reply = await grab.first_reply(REPLY_S)
        if reply_kind(reply) != "welcome":
            outcome.notes.append(f"{name}: could not take the name first ({reply_kind(reply)})")
            return
        own = reply.welcome
        # Wait to be seated: a session with a game running outlives its stream.
        deadline = time.monotonic() + seat_timeout_s
        seated = False
        while not seated and time.monotonic() < deadline:
            try:
                message = await grab.recv(max(0.05, deadline - time.monotonic()))
            except TimeoutError:
                break
            if message is None:
                break
            seated = message.WhichOneof("kind") in ("game_started", "turn")
        if not seated:
            outcome.notes.append(f"{name}: never seated within {seat_timeout_s:g} s; round not played")
            return
    finally:
        await grab.close()
    # The victim connects while the old session waits for its seat to come back.
    victim_task = asyncio.create_task(victim.run(honest, stop))
    try:
        await _steal(address, victim, own, games, outcome)
        await victim_task   # the victim plays on (resuming its own session) until stop
    finally:
        victim_task.cancel()


async def _steal(address: str, victim: Player, own: pb.Welcome, games: tuple[str, ...],
                 outcome: TakeoverOutcome) -> None:
    name = victim.name
    try:
        await asyncio.wait_for(victim.welcomed.wait(), REPLY_S * 2)
    except asyncio.TimeoutError:
        outcome.notes.append(f"{name}: the victim was not admitted ({dict(victim.refused)})")
        return
    outcome.played += 1
    victim_session = victim.session_ids[-1]
    # Resume our own old session: the refusal tells who holds the name now.
    probe = BotStream.open(address)
    try:
        await probe.send(hello(name, games=games, resume=own))
        reply = await probe.first_reply(REPLY_S)
    finally:
        await probe.close()
    text = reply.error.message if reply is not None and reply.WhichOneof("kind") == "error" else ""
    # Whatever looks like a session id, and the victim's own id in whatever form it takes.
    leaked = sorted({s for s in SESSION_ID.findall(text) if s != own.session_id}
                    | ({victim_session} if victim_session and victim_session in text else set()))
    outcome.leaked_ids += len(leaked)
    if not leaked:
        outcome.notes.append(f"{name}: resuming the old session gave {reply_kind(reply)} naming no session")
    for session_id in leaked:
        thief = BotStream.open(address)
        try:
            await thief.send(hello(name, games=games, resume_session=session_id))
            reply = await thief.first_reply(REPLY_S)
            if reply_kind(reply) == "welcome" and reply.welcome.session_id == victim_session:
                outcome.successes += 1
                outcome.notes.append(f"{name}: took over the victim's session {session_id[:8]}...")
            else:
                outcome.notes.append(f"{name}: resuming the leaked id gave {reply_kind(reply)}")
        finally:
            await thief.close()


# ---------------------------------------------------------------- 6. wrong-token flood

@dataclass
class FloodOutcome:
    sent: int = 0
    replies: Counter = field(default_factory=Counter)   # reply kind -> count
    seconds: float = 0.0
    owner_admitted: Optional[bool] = None               # the real bot, connecting half-way through
    owner_wait_s: Optional[float] = None
    owner_refusal: str = ""                             # what the arena told the real bot, if it refused it


async def token_flood(address: str, honest: str, name: str, games: tuple[str, ...], count: int, in_flight: int,
                      owner: Player, owner_after_s: float, stop: asyncio.Event, until: float,
                      outcome: FloodOutcome) -> None:
    """``count`` wrong-token Hellos for ``name`` (``in_flight`` at a time, none after ``until``); the real
    bot, ``owner``, connects to ``honest`` half-way through (half the Hellos sent, or ``owner_after_s``
    seconds in, whichever comes first) and then plays on until ``stop``."""
    channels = Channels(address, 2)
    started = time.monotonic()
    owner_task: Optional[asyncio.Task] = None
    next_index = 0

    def owner_joins() -> None:
        nonlocal owner_task
        if owner_task is None:
            owner_task = asyncio.create_task(_owner_joins(owner, honest, stop, outcome))

    timer = asyncio.get_running_loop().call_later(owner_after_s, owner_joins)

    async def worker() -> None:
        nonlocal next_index
        while next_index < count and time.monotonic() < until:
            next_index += 1
            if next_index >= count // 2:
                owner_joins()
            outcome.sent += 1
            kind, _ = await _hello_once(channels, hello(name, token=secrets.token_urlsafe(24), games=games))
            outcome.replies[kind] += 1

    try:
        try:
            await asyncio.gather(*(worker() for _ in range(in_flight)))
        finally:
            outcome.seconds = time.monotonic() - started
            await channels.close()
        owner_joins()
        await owner_task
    finally:
        timer.cancel()
        if owner_task is not None:
            owner_task.cancel()


async def _owner_joins(owner: Player, address: str, stop: asyncio.Event, outcome: FloodOutcome) -> None:
    began = time.monotonic()
    play = asyncio.create_task(owner.run(address, stop))
    try:
        await asyncio.wait_for(owner.welcomed.wait(), REPLY_S * 2)
        outcome.owner_admitted = True
        outcome.owner_wait_s = time.monotonic() - began
    except asyncio.TimeoutError:
        outcome.owner_admitted = False
        outcome.owner_refusal = f"{_counts_text(owner.refused)}: {owner.refusal_text[:160]}".rstrip(": ")
    await play


def _counts_text(counter: Counter) -> str:
    return ", ".join(f"{k} {v}" for k, v in counter.most_common())


# ---------------------------------------------------------------- 7. name tricks

@dataclass
class TrickOutcome:
    tried: list[str] = field(default_factory=list)
    admitted: list[str] = field(default_factory=list)


async def name_tricks(address: str, registered: str, honest: str, games: tuple[str, ...], outcome: TrickOutcome,
                      hold_s: float = 1.5) -> None:
    """Hellos the name rules should refuse; an admitted one stays a moment so the ladder records it."""
    tricks = [
        (f"registered {registered!r} plus a newline", hello(f"{registered}\n", games=games)),
        (f"connected {honest!r} plus a newline", hello(f"{honest}\n", games=games)),
        ("control characters in bot_version", hello("ctlversion", games=games, bot_version="1.0\x1b[2J\x07\r\x00")),
    ]
    channels = Channels(address)
    try:
        for label, message in tricks:
            outcome.tried.append(label)
            kind, stream = await _hello_once(channels, message, keep=True)
            if kind == "welcome":
                outcome.admitted.append(label)
                await asyncio.sleep(hold_s)
            await stream.close()
    finally:
        await channels.close()


# ---------------------------------------------------------------- 8. silent streams

@dataclass
class SilentOutcome:
    streams: int = 0                  # silent streams opened, re-openings included
    ended_by_server: int = 0
    honest_admitted: Optional[bool] = None
    honest_replies: list[str] = field(default_factory=list)


async def silent_flood(address: str, honest: str, count: int, honest_name: str, games: tuple[str, ...],
                       until: float, outcome: SilentOutcome, probe_tries: int = 3) -> None:
    """Hold ``count`` streams that never say Hello until ``until`` (monotonic), reopening each one the
    arena ends a second later (at most ``3 * count`` reopenings: streams held, not a connection-rate
    flood); meanwhile an honest bot tries up to ``probe_tries`` times, a second apart, to connect to
    ``honest``."""
    channels = Channels(address, max(1, count // 25))
    streams: list[BotStream] = []
    budget = 3 * count

    async def hold() -> None:
        nonlocal budget
        ended_at: dict[int, float] = {}
        while time.monotonic() < until:
            now = time.monotonic()
            for index, stream in enumerate(streams):
                if not stream.ended:
                    continue
                if index not in ended_at:
                    ended_at[index] = now
                    outcome.ended_by_server += 1
                elif now - ended_at[index] >= 1.0 and budget > 0:
                    del ended_at[index]
                    budget -= 1
                    await stream.close()
                    streams[index] = BotStream(channels.get())
                    outcome.streams += 1
            await asyncio.sleep(0.1)

    holder: Optional[asyncio.Task] = None
    try:
        for _ in range(count):
            streams.append(BotStream(channels.get()))
            outcome.streams += 1
        holder = asyncio.create_task(hold())
        await asyncio.sleep(1.0)  # let every stream reach the arena's handler
        probe = Channels(honest)
        try:
            while len(outcome.honest_replies) < probe_tries and until - time.monotonic() > 1.0:
                timeout = min(PROBE_REPLY_S, until - time.monotonic())
                kind, _ = await _hello_once(probe, hello(honest_name, games=games), timeout=timeout)
                outcome.honest_replies.append(kind)
                outcome.honest_admitted = kind == "welcome"
                if outcome.honest_admitted:
                    break
                await asyncio.sleep(1.0)
        finally:
            await probe.close()
        await holder
    finally:
        if holder is not None:
            holder.cancel()
            await asyncio.gather(holder, return_exceptions=True)
        for stream in streams:
            await stream.close()
        await channels.close()


# ---------------------------------------------------------------- 10. undecodable bytes

GARBAGE = b"\xff\xff\xff\xff\x0f not a BotMessage \x00\x01\x02"


@dataclass
class GarbageOutcome:
    sent: int = 0
    replies: Counter = field(default_factory=Counter)   # "MALFORMED", "stream ended (STATUS)", "nothing"


async def undecodable(address: str, name: str, games: tuple[str, ...], tries: int, outcome: GarbageOutcome,
                      stop: asyncio.Event) -> None:
    for _ in range(tries):
        if stop.is_set():
            return
        stream = BotStream.open(address)
        try:
            await stream.send(hello(name, games=games))
            if reply_kind(await stream.first_reply(REPLY_S), stream) != "welcome":
                outcome.replies["not welcomed"] += 1
                continue
            await stream.send(GARBAGE)
            outcome.sent += 1
            verdict = "nothing within 3 s"
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                try:
                    message = await stream.recv(max(0.05, deadline - time.monotonic()))
                except TimeoutError:
                    break
                if message is None:
                    verdict = f"stream ended ({stream.status.name if stream.status else 'OK'})"
                    break
                if message.WhichOneof("kind") == "error":
                    verdict = error_name(message)
                    break
            outcome.replies[verdict] += 1
        finally:
            await stream.close()
        await asyncio.sleep(0.5)


# ---------------------------------------------------------------- 11. name churn

@dataclass
class ChurnOutcome:
    tried: int = 0
    replies: Counter = field(default_factory=Counter)


async def name_churn(address: str, prefix: str, games: tuple[str, ...], count: int, per_second: float,
                     stop: asyncio.Event, outcome: ChurnOutcome) -> None:
    """A new name per connection, ``per_second`` at most, ``count`` in all; each leaves at once."""
    channels = Channels(address, 2)
    try:
        for index in range(count):
            if stop.is_set():
                return
            began = time.monotonic()
            outcome.tried += 1
            kind, _ = await _hello_once(channels, hello(f"{prefix}{index:04d}", games=games))
            outcome.replies[kind] += 1
            await asyncio.sleep(max(0.0, 1 / per_second - (time.monotonic() - began)))
    finally:
        await channels.close()

