"""`find_replay`: the replay file of a game id, for `arena replay GAME_ID`.

A ladder keeps every game's replay in its database (`arena.ladder.store.replays`,
SQLite and PostgreSQL alike); a ladder game from before that names its replay
file in its row, and `arena match --replays DIR` and copied folders have no
database, so the replay folder is searched too (files are named
``<game id>.jsonl``, or ``.jsonl.part`` after a crash of an older version).  A
replay kept in the database is checked against its SHA-256 and written to a
temporary folder removed at exit, so the viewer, ``--verify`` and ``--bot`` read
it like any file.  The short id the dashboard shows (the part
after the last ``-``) is enough when it matches one game only.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from arena.cli import CommandError, RunFailure


def looks_like_game_id(text: str) -> bool:
    """A bare id, not a path: no folder separator and no replay suffix."""
    return "/" not in text and "\\" not in text and not text.endswith((".jsonl", ".part"))


def find_replay(game_id: str, db: "str | Path", folder: Path) -> Path:
    """The one replay of ``game_id`` (or of a unique id ending in it), or an error saying where it looked.

    An id that names no game, or several, is a bad argument (`CommandError`, exit 2, as `arena watch GAME_ID`
    and `arena bots rotate|remove NAME` treat a name they do not know); a game that exists but has no replay (running
    still, or aborted by a crash: a dead host's games keep none) is a well-formed request that cannot be served
    (`RunFailure`, exit 1)."""
    from arena.ladder.store import LadderStore, StoreError, is_postgres_url
    from arena.replay.listing import replay_files

    looked: list[str] = []
    url = is_postgres_url(str(db))
    stored: list[str] = []  # the matching games whose replay the database keeps
    store = None
    without: str = ""  # why the one matching game of the database has no replay
    unreadable: str = ""  # why the database could not be read (then only the folder is searched)
    if url or Path(db).is_file():
        try:
            store = LadderStore.open(db, recover=False, upgrade=False)
        except StoreError as error:
            store = None
            unreadable = str(error) if str(db) in str(error) else f"{db}: {error}"
        if store is not None:
            looked.append(store.path)
        if store is not None:
            try:
                paths = store.replay_paths(game_id)
                stored = sorted(store.stored_replays(list(paths))) if paths else []
            except BaseException:
                store.close()
                raise
            # a relative path is relative to where `arena serve` ran: here, or next to its database
            here = [] if url else [Path(db).parent]
            candidates = [[Path(p), *(parent / p for parent in here)] for p in paths.values() if p]
            found = [next(c for c in pair if c.is_file()) for pair in candidates if any(c.is_file() for c in pair)]
            if len(found) == 1:
                store.close()
                return found[0]
            if game_id in stored:  # the full id, beside others that end in it
                stored = [game_id]
            if len(stored) == 1 and not found:  # played on another host: this machine has no file
                try:
                    return _from_database(store, stored[0])
                finally:
                    store.close()
            if len(paths) == 1 and not found and not stored:
                record = store.game(next(iter(paths)))
                if record is not None and record.status == "running":
                    without = (f"game {record.id} is still running: its replay is stored when it ends "
                               "(watch it live with `arena watch`)")
                elif record is not None:
                    without = (f"game {record.id} ({record.status}: {record.reason or 'no reason given'}) has no "
                               f"replay in {store.path}: a game cut off by a crash keeps none")
            store.close()
            if len(stored) > 1 and not found:
                raise CommandError(f"{game_id!r} matches {len(stored)} games in {store.path} "
                                   f"({', '.join(stored[:5])}{', ...' if len(stored) > 5 else ''}): give the full game id")
    matches: dict[str, Path] = {}
    if folder.is_dir():
        looked.append(f"{folder}/")
        for path in replay_files(folder):
            name = path.name.split(".", 1)[0]
            if name == game_id or name.endswith(f"-{game_id}"):
                # a finished .jsonl wins over the .part it was renamed from
                if name not in matches or path.name.endswith(".jsonl"):
                    matches[name] = path
    if len(matches) == 1:
        return next(iter(matches.values()))
    if len(matches) > 1:
        raise CommandError(f"{game_id!r} matches {len(matches)} games ({', '.join(sorted(matches)[:5])}"
                           f"{', ...' if len(matches) > 5 else ''}): give the full game id")
    if without:  # the game exists: nothing wrong with the command line, there is no replay to open
        raise RunFailure(without)
    if unreadable:  # not "no such game": the database that may hold it could not be asked
        where = f" (nor in {folder}/)" if folder.is_dir() else ""
        raise RunFailure(f"{unreadable}{where}")
    where = " and ".join(looked) if looked else f"{db} or {folder}/ (neither exists)"
    raise CommandError(f"no replay of game {game_id!r} in {where} (give its file, or --db/--replays)")


def _from_database(store, game_id: str) -> Path:
    """The game's stored replay, checked, as a file in a temporary folder removed at exit."""
    from arena.ladder.store import StoredReplayError

    try:
        text = store.replay_text(game_id)
    except StoredReplayError as error:
        raise RunFailure(f"{error} (in {store.path})") from None
    if text is None:  # removed meanwhile
        raise RunFailure(f"no replay of game {game_id!r} in {store.path}")
    folder = Path(tempfile.mkdtemp(prefix="arena-replay-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / f"{game_id}.jsonl"
    path.write_bytes(text)
    return path
