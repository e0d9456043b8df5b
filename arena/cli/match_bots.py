"""The BOT arguments of `arena match`: how each bot is started, the name it plays under, its time control."""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from arena.cli import CommandError, RunFailure

_NAME_OK = re.compile(r"[^A-Za-z0-9_.\-]+")


@dataclass
class BotSpec:
    """One BOT argument: how to start it and the name it plays under."""

    source: str
    argv: list[str]
    name: str
    path: Path | None = None  # the .py file, if it is one


def parse_bot(text: str) -> BotSpec:
    """A ``.py`` file runs with the current interpreter; anything else is a command line."""
    if text.endswith(".py") and " " not in text.strip():
        path = Path(text)
        if not path.is_file():
            raise CommandError(f"bot file {text} does not exist")
        return BotSpec(text, [sys.executable, str(path)], _clean_name(path.stem), path.resolve())
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise CommandError(f"cannot parse the bot command {text!r}: {error}") from None
    if not argv:
        raise CommandError("an empty bot command")
    if shutil.which(argv[0]) is None:
        raise CommandError(f"bot command {text!r}: {argv[0]} is not a file or a program on PATH")
    scripts = [arg for arg in argv if arg.endswith(".py")]  # `python bot.py --flag` is named bot, not python
    stem = Path(scripts[0]).stem if scripts else Path(argv[0]).name
    return BotSpec(text, argv, _clean_name(stem))


def _clean_name(stem: str) -> str:
    name = _NAME_OK.sub("-", stem).strip("-.") or "bot"
    return name[:28]


def unique_names(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """The same bot twice plays as ``name`` and ``name-2`` (the arena allows one session per name)."""
    seen: dict[str, int] = {}
    for spec in specs:
        base = spec.name
        seen[base] = seen.get(base, 0) + 1
        if seen[base] > 1:
            spec.name = f"{base}-{seen[base]}"
    return list(specs)



def load_local_bot(spec: BotSpec) -> Callable[[], Any]:
    """For ``--local``: the Bot subclass a ``.py`` file defines, as a factory (one instance per game)."""
    from sdk import Bot

    if spec.path is None:
        raise CommandError(f"--local needs .py bot files; {spec.source!r} is a command")
    folder = str(spec.path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # so the bot's own helper modules import as when it runs as a script
    module_spec = importlib.util.spec_from_file_location(f"arena_match_bot_{spec.name}", spec.path)
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception as error:
        raise RunFailure(f"cannot load bot {spec.source}: {type(error).__name__}: {error}") from None
    classes = [
        value for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Bot) and value is not Bot and value.__module__ == module.__name__
    ]
    if not classes:
        raise CommandError(f"{spec.source} defines no subclass of sdk.Bot")
    return classes[-1]
