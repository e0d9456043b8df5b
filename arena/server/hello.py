"""Checking a bot's Hello: everything a session needs before it is welcomed.

A refused Hello becomes a typed `HelloRefused` (code + text for the bot);
nothing here touches the network, so the rules are easy to test and reuse.

Every text a bot sends is checked whole (``fullmatch``; ``$`` would let a
trailing newline through, so ``"regbot\n"`` passed as ``regbot``), with a
length limit, and free texts (``bot_version``, ``token``) must be printable
(`str.isprintable`: no control, format or separator characters such as
terminal escapes or bidirectional overrides), so nothing a bot sends is
stored, shown or logged raw.  Refusals quote what the bot sent only with
``repr`` (escaped) and cut short.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from arena import __version__ as ARENA_VERSION
from mau_arena_sdk.wire import pb

#: Bot names: a letter or digit, then letters, digits, ``_ . -``; at most 32 characters.
#: Anchored with ``\A``/``\Z`` (never ``$``, which also matches before a final newline), so
#: ``match`` and ``fullmatch`` agree; use ``fullmatch``.
BOT_NAME = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_.\-]{0,31}\Z")
#: The SDK major version this arena speaks (semantic versioning: a new major breaks the protocol).
SDK_MAJOR = int(ARENA_VERSION.split(".")[0])
_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.\d+)?(?:[-+.][0-9A-Za-z.\-+]*)?")
#: A session id as `BotSession` makes them (lower-case hex); empty in a first Hello.
_SESSION_ID = re.compile(r"[0-9a-f]{0,64}")
#: A client instance (Hello.instance): empty, or 8-64 of these characters.
_INSTANCE = re.compile(r"[A-Za-z0-9_\-]{8,64}")
#: The protocol versions this arena speaks (Hello.protocol; 0 is the SDK-version rule).
PROTOCOLS = (1,)
MAX_BOT_VERSION = 64
MAX_TOKEN = 256
MAX_SDK_VERSION = 32
MAX_GAMES_LISTED = 64
MAX_RULESET_NAME = 64
MAX_RESUME_SECRET = 128


class HelloRefused(Exception):
    """A Hello the arena will not accept; ``code`` is an ``Error.Code`` name."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class HelloTerms:
    """What a valid Hello asks for, normalised."""

    name: str
    token: str
    sdk_version: str
    bot_version: str
    games: tuple[str, ...]      # the rulesets this session will be offered (within the arena's selection)
    capacity: int               # games at once
    resume_session: str
    resume_secret: str = ""
    #: The client process's id (Hello.instance), "" none given: a shared ladder's hosts admit a name from one at a time.
    instance: str = ""


def _bad(message: str) -> HelloRefused:
    return HelloRefused("BAD_HELLO", message)


def check_hello(hello, known_rulesets: Sequence[str], max_games_per_bot: int,
                scheduled: Optional[Sequence[str]] = None) -> HelloTerms:
    """Validate a ``pb.Hello``; raise `HelloRefused` with a message a bot author can act on.

    ``known_rulesets`` are the rulesets this arena knows (a name outside them is a typo);
    ``scheduled`` the ones it actually schedules (default: all known).  The session is
    offered the bot's games within ``scheduled``; a bot with none of them is refused,
    rather than welcomed to wait for a game that never comes.
    """
    name = hello.name
    if not BOT_NAME.fullmatch(name):
        raise _bad(f"bad bot name {name[:40]!r}: use 1-32 letters, digits, '_', '.' or '-', "
                   "starting with a letter or digit (nothing else, not even a newline)")
    sdk_version = hello.sdk_version
    protocol = hello.protocol
    if protocol:  # the client says which protocol it speaks: that alone decides
        if protocol not in PROTOCOLS:
            raise HelloRefused(
                "UNSUPPORTED_VERSION",
                f"protocol {protocol} is not spoken here: this arena speaks protocol "
                f"{', '.join(f'{v} ({pb.Protocol.Name(v)})' for v in PROTOCOLS)} of mauarena.v1",
            )
        if len(sdk_version) > MAX_SDK_VERSION or not sdk_version.isprintable():
            raise _bad(f"sdk_version must be at most {MAX_SDK_VERSION} printable characters (it is informative)")
        match = None
    else:  # PROTOCOL_UNSPECIFIED: the Python SDK 0.x, from before the field, judged by its version
        match = _VERSION.fullmatch(sdk_version) if len(sdk_version) <= MAX_SDK_VERSION else None
    if not protocol and not match:
        raise HelloRefused(
            "UNSUPPORTED_VERSION",
            f"sdk_version {sdk_version[:40]!r} is not a version like {ARENA_VERSION}; this arena speaks SDK {SDK_MAJOR}.x "
            "(a client in another language: set Hello.protocol = PROTOCOL_V1 instead)",
        )
    if match and int(match.group(1)) != SDK_MAJOR:
        raise HelloRefused(
            "UNSUPPORTED_VERSION",
            f"SDK {sdk_version} is not supported: this arena speaks SDK {SDK_MAJOR}.x (protocol mauarena.v1)",
        )
    if len(hello.token) > MAX_TOKEN or not hello.token.isprintable():
        raise _bad(f"token must be at most {MAX_TOKEN} printable characters")
    if len(hello.bot_version) > MAX_BOT_VERSION:
        raise _bad(f"bot_version is longer than {MAX_BOT_VERSION} characters")
    if not hello.bot_version.isprintable():
        raise _bad(f"bot_version {hello.bot_version[:40]!r} has control or other unprintable characters")
    if not _SESSION_ID.fullmatch(hello.resume_session):
        raise _bad(f"resume_session {hello.resume_session[:40]!r} is not a session id from a Welcome")
    if len(hello.resume_secret) > MAX_RESUME_SECRET or not hello.resume_secret.isprintable():
        raise _bad("resume_secret is not a secret from a Welcome")
    if hello.instance and not _INSTANCE.fullmatch(hello.instance):
        raise _bad(f"instance {hello.instance[:40]!r} must be 8-64 of A-Z a-z 0-9 _ - (an id this client process "
                   "sends to every host), or empty")
    if len(hello.games) > MAX_GAMES_LISTED:
        raise _bad(f"games lists {len(hello.games)} rulesets; at most {MAX_GAMES_LISTED}")
    asked = list(dict.fromkeys(hello.games))
    unknown = [g for g in asked if len(g) > MAX_RULESET_NAME or g not in known_rulesets]
    if unknown:
        raise _bad(f"unknown ruleset {', '.join(repr(g[:40]) for g in unknown[:5])}; "
                   f"this arena plays: {', '.join(scheduled if scheduled is not None else known_rulesets) or 'none'}")
    offered = list(scheduled) if scheduled is not None else list(known_rulesets)
    games = tuple(g for g in asked if g in offered) if asked else tuple(offered)
    if not games:
        raise _bad(f"this arena schedules only {', '.join(offered) or 'nothing'}; this bot plays "
                   f"{', '.join(asked)}: it would never get a game here")
    capacity = hello.max_games or 1
    if capacity > max_games_per_bot:
        raise _bad(f"max_games {capacity} is above this arena's limit of {max_games_per_bot} games at once per bot")
    return HelloTerms(
        name=name,
        token=hello.token,
        sdk_version=sdk_version,
        bot_version=hello.bot_version,
        games=games,
        capacity=capacity,
        resume_session=hello.resume_session,
        resume_secret=hello.resume_secret,
        instance=hello.instance,
    )
