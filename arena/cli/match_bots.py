"""The BOT arguments of `arena match`: how each bot is started, the name it plays under, its time control."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from arena.cli import CommandError, RunFailure
from arena.match.timecontrol import TimeControl

_NAME_OK = re.compile(r"[^A-Za-z0-9_.\-]+")


@dataclass
class BotSpec:
    """One BOT argument: how to start it and the name it plays under."""

    source: str
    argv: list[str]
    name: str
    path: Path | None = None  # the .py file, if it is one
    named: bool = False  # the user chose the name (NAME=CMD or --name)


def split_name(text: str) -> tuple[str | None, str]:
    """``new=v2/bot.py`` -> ("new", "v2/bot.py"); a BOT without ``NAME=`` -> (None, text).

    The part before the first ``=`` is a name only when it holds no space or
    path separator and the whole text is not an existing file, so
    ``python bot.py --depth=3`` and a file called ``a=b.py`` stay commands.
    """
    head, sep, command = text.partition("=")
    if not sep or not head or any(c.isspace() or c in "/\\" for c in head) or Path(text).exists():
        return None, text
    return head, command


def check_name(name: str) -> str:
    """The arena's bot-name rule, as a one-line error."""
    from arena.server.hello import BOT_NAME

    if not BOT_NAME.match(name):
        raise CommandError(f"bad bot name {name[:40]!r}: use 1-32 letters, digits, '_', '.' or '-', "
                           "starting with a letter or digit")
    return name


def parse_bot(text: str) -> BotSpec:
    """``[NAME=]BOT``: a ``.py`` file runs with the current interpreter; anything else is a command line."""
    name, text = split_name(text)
    spec = _parse_command(text)
    if name is not None:
        spec.name, spec.named = check_name(name), True
    return spec


def _parse_command(text: str) -> BotSpec:
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
        raise CommandError(f"bot command {text!r}: {_why_not_runnable(argv[0], text)}")
    return BotSpec(text, argv, _clean_name(_command_stem(argv)))


#: Scripts by extension, and the interpreter that runs one (what a non-executable script is told to use).
INTERPRETERS = {".py": "python3", ".js": "node", ".mjs": "node", ".cjs": "node", ".rb": "ruby", ".pl": "perl",
                ".sh": "sh", ".lua": "lua", ".php": "php", ".jar": "java -jar"}


def _why_not_runnable(program: str, text: str) -> str:
    """Why the first word of a bot command cannot be run, and what to give instead."""
    path = Path(program)
    if path.is_dir():
        return f"{program} is a folder, not a program"
    if not path.is_file():
        return f"{program} is not a file or a program on PATH"
    if path.parent == Path(".") and not program.startswith("."):
        if os.access(path, os.X_OK):  # a shell too runs only PATH's programs by a bare name
            return f"{program} is a file here but not a program on PATH: give it as ./{text}"
    interpreter = INTERPRETERS.get(path.suffix.lower())
    run_it = f'give its interpreter, e.g. "{interpreter} {text}", or ' if interpreter else "give its interpreter first, or "
    return f"{program} exists but is not executable: {run_it}make it executable (chmod +x {program})"


def _command_stem(argv: Sequence[str]) -> str:
    """What a command's bot is named after: its script (``node js/mybot.js``, ``python bot.py --flag``: mybot,
    bot), else the program (``./mybot``)."""
    scripts = [arg for arg in argv if Path(arg).suffix.lower() in INTERPRETERS]
    if not scripts:  # an interpreter and a script of no known extension: the first argument that is a file
        scripts = [arg for arg in argv[1:] if not arg.startswith("-") and Path(arg).is_file()]
    return Path(scripts[0]).stem if scripts else Path(argv[0]).name


def _clean_name(stem: str) -> str:
    name = _NAME_OK.sub("-", stem).strip("-._") or "bot"
    return name[:28]


def name_bots(specs: Sequence[BotSpec], names: Sequence[str] = ()) -> list[BotSpec]:
    """Give the bots their names: ``--name`` values in order, then ``NAME=``, then unique automatic ones.

    A name chosen twice is an error; an automatic name that is taken gets the
    next free ``-2``, ``-3``... suffix (the arena allows one session per name).
    """
    if len(names) > len(specs):
        raise CommandError(f"{len(names)} --name values for {len(specs)} bots")
    for spec, name in zip(specs, names):
        if spec.named:
            raise CommandError(f"bot {spec.source!r} is named twice: {spec.name}= and --name {name}")
        spec.name, spec.named = check_name(name), True
    chosen: set[str] = set()
    for spec in specs:
        if spec.named:
            if spec.name in chosen:
                raise CommandError(f"the name {spec.name!r} is given to two bots; names must be unique")
            chosen.add(spec.name)
    taken = set(chosen)
    for spec in specs:
        if spec.named:
            continue
        name, count = spec.name, 1
        while name in taken:
            count += 1
            name = f"{spec.name}-{count}"
        spec.name = name
        taken.add(name)
    return list(specs)


def unique_names(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """The same bot twice plays as ``name`` and ``name-2``."""
    return name_bots(specs)


#: ``--tc`` keys: the TimeControl fields, also without their ``_ms`` suffix; ``strikes`` for max_strikes.
_TC_KEYS = {f.name: f.name for f in fields(TimeControl)}
_TC_KEYS.update({name.removesuffix("_ms"): name for name in list(_TC_KEYS)}, strikes="max_strikes")


def time_controls(specs: Sequence[BotSpec], base: TimeControl, texts: Sequence[str]) -> dict[str, TimeControl]:
    """Each bot's time control: ``base``, changed by every ``--tc [NAME:]KEY=VALUE,...`` for it (or for all)."""
    names = [spec.name for spec in specs]
    changes: dict[str, dict[str, int]] = {name: {} for name in names}
    for text in texts:
        target, sep, settings = text.partition(":") if ":" in text.partition("=")[0] else ("", "", text)
        if sep and target not in changes:
            raise CommandError(f"--tc {text!r}: no bot is named {target!r} (bots: {', '.join(names)})")
        parsed = _parse_tc_settings(text, settings)
        for name in [target] if sep else names:
            changes[name].update(parsed)
    controls = {}
    for name in names:
        try:
            controls[name] = replace(base, **changes[name])
        except TypeError as error:  # pragma: no cover - keys are checked above
            raise CommandError(f"--tc: {error}") from None
    return controls


def _parse_tc_settings(text: str, settings: str) -> dict[str, int]:
    parsed: dict[str, int] = {}
    for item in settings.split(","):
        key, sep, value = item.partition("=")
        field_name = _TC_KEYS.get(key.strip())
        if not sep or field_name is None:
            keys = ", ".join(f.name for f in fields(TimeControl))
            raise CommandError(f"--tc {text!r}: expected [NAME:]KEY=VALUE,... with KEY one of {keys}")
        try:
            number = int(value.strip())
        except ValueError:
            raise CommandError(f"--tc {text!r}: {key.strip()} must be a whole number of "
                               f"{'strikes' if field_name == 'max_strikes' else 'milliseconds'}") from None
        low = 1 if field_name in ("move_ms", "max_strikes") else 0
        if number < low:
            raise CommandError(f"--tc {text!r}: {key.strip()} must be at least {low}")
        parsed[field_name] = number
    return parsed


class _RunAtImport(BaseException):
    """Raised by ``mau_arena_sdk.run`` while ``--local`` imports a bot file (a BaseException: a bot's own
    ``except Exception`` must not swallow it)."""


def _refuse_run(*args: Any, **kwargs: Any) -> int:
    raise _RunAtImport()


def load_local_bot(spec: BotSpec) -> Callable[[], Any]:
    """For ``--local``: the Bot subclass a ``.py`` file defines, as a factory (one instance per game).

    The file is imported as a module, not run as a script: a ``run()`` it calls as it is imported
    would parse arena's own command line and connect to an arena, so while it loads, ``run`` raises
    and the user is told to guard the call.  The class must be constructible without arguments.
    """
    import inspect

    import mau_arena_sdk
    from arena.match.local import describe_exit
    from mau_arena_sdk import Bot

    if spec.path is None:
        raise CommandError(f"--local needs .py bot files; {spec.source!r} is a command")
    folder = str(spec.path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # so the bot's own helper modules import as when it runs as a script
    module_spec = importlib.util.spec_from_file_location(f"arena_match_bot_{spec.name}", spec.path)
    module = importlib.util.module_from_spec(module_spec)
    real_run, mau_arena_sdk.run = mau_arena_sdk.run, _refuse_run
    try:
        module_spec.loader.exec_module(module)
    except _RunAtImport:
        raise CommandError(f"cannot load bot {spec.source}: it calls run() as it is imported; --local imports "
                           'the file as a module, so guard the call with `if __name__ == "__main__":`') from None
    except SystemExit as exit_:
        raise RunFailure(f"cannot load bot {spec.source}: it exited while loading, with {describe_exit(exit_.code)}") from None
    except Exception as error:
        raise RunFailure(f"cannot load bot {spec.source}: {type(error).__name__}: {error}") from None
    finally:
        mau_arena_sdk.run = real_run
    classes = [
        value for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Bot) and value is not Bot and value.__module__ == module.__name__
    ]
    if not classes:
        raise CommandError(f"{spec.source} defines no subclass of mau_arena_sdk.Bot")
    chosen = classes[-1]
    try:
        inspect.signature(chosen).bind()
    except TypeError as error:
        raise CommandError(f"--local makes a fresh {chosen.__name__}() for every game, so its class must be "
                           f"constructible without arguments ({error}); give them defaults, or play {spec.source} "
                           "without --local") from None
    except ValueError:  # no signature to inspect (a C-level __init__): let the call tell
        pass
    return chosen

