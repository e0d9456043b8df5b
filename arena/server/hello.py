"""Checking a bot's Hello: everything a session needs before it is welcomed.

A refused Hello becomes a typed `HelloRefused` (code + text for the bot);
nothing here touches the network, so the rules are easy to test and reuse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena import __version__ as ARENA_VERSION

#: Bot names: a letter or digit, then letters, digits, ``_ . -``; at most 32 characters.
BOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,31}$")
#: The SDK major version this arena speaks (semantic versioning: a new major breaks the protocol).
SDK_MAJOR = int(ARENA_VERSION.split(".")[0])
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?(?:[-+.][0-9A-Za-z.\-+]*)?$")


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
    games: tuple[str, ...]      # the rulesets this session will be offered
    capacity: int               # games at once
    resume_session: str


def check_hello(hello, known_rulesets: list[str], max_games_per_bot: int) -> HelloTerms:
    """Validate a ``pb.Hello``; raise `HelloRefused` with a message a bot author can act on."""
    name = hello.name
    if not BOT_NAME.match(name):
        raise HelloRefused(
            "BAD_HELLO",
            f"bad bot name {name[:40]!r}: use 1-32 letters, digits, '_', '.' or '-', starting with a letter or digit",
        )
    match = _VERSION.match(hello.sdk_version)
    if not match:
        raise HelloRefused(
            "UNSUPPORTED_VERSION",
            f"sdk_version {hello.sdk_version[:40]!r} is not a version like {ARENA_VERSION}; this arena speaks SDK {SDK_MAJOR}.x",
        )
    if int(match.group(1)) != SDK_MAJOR:
        raise HelloRefused(
            "UNSUPPORTED_VERSION",
            f"SDK {hello.sdk_version} is not supported: this arena speaks SDK {SDK_MAJOR}.x (protocol mauarena.v1)",
        )
    asked = list(dict.fromkeys(hello.games))
    unknown = [g for g in asked if g not in known_rulesets]
    if unknown:
        raise HelloRefused(
            "BAD_HELLO",
            f"unknown ruleset {', '.join(repr(g[:40]) for g in unknown[:5])}; this arena plays: {', '.join(known_rulesets) or 'none'}",
        )
    games = tuple(asked) if asked else tuple(known_rulesets)
    capacity = hello.max_games or 1
    if capacity > max_games_per_bot:
        raise HelloRefused(
            "BAD_HELLO",
            f"max_games {capacity} is above this arena's limit of {max_games_per_bot} games at once per bot",
        )
    if len(hello.bot_version) > 64:
        raise HelloRefused("BAD_HELLO", "bot_version is longer than 64 characters")
    return HelloTerms(
        name=name,
        token=hello.token,
        sdk_version=hello.sdk_version,
        bot_version=hello.bot_version,
        games=games,
        capacity=capacity,
        resume_session=hello.resume_session,
    )
