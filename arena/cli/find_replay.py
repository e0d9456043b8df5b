"""`find_replay`: the replay file of a game id, for `arena replay GAME_ID`.

A ladder records every game's replay path in its database; `arena match
--replays DIR` and copied folders have no database, so the replay folder is
searched too (files are named ``<game id>.jsonl``, or ``.jsonl.part`` while a
game runs or after a crash).  The short id the dashboard shows (the part
after the last ``-``) is enough when it matches one game only.
"""

from __future__ import annotations

from pathlib import Path

from arena.cli import CommandError


def looks_like_game_id(text: str) -> bool:
    """A bare id, not a path: no folder separator and no replay suffix."""
    return "/" not in text and "\\" not in text and not text.endswith((".jsonl", ".part"))


def find_replay(game_id: str, db: Path, folder: Path) -> Path:
    """The one replay of ``game_id`` (or of a unique id ending in it), or a CommandError saying where it looked."""
    from arena.ladder.store import LadderStore, StoreError
    from arena.replay.listing import replay_files

    looked: list[str] = []
    if db.is_file():
        looked.append(str(db))
        try:
            store = LadderStore.open(db, recover=False)
        except StoreError:
            store = None
        if store is not None:
            try:
                paths = store.replay_paths(game_id)
            finally:
                store.close()
            # a relative path is relative to where `arena serve` ran: here, or next to its database
            candidates = [[Path(p), db.parent / p] for p in paths.values() if p]
            found = [next(c for c in pair if c.is_file()) for pair in candidates if any(c.is_file() for c in pair)]
            if len(found) == 1:
                return found[0]
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
    where = " and ".join(looked) if looked else f"{db} or {folder}/ (neither exists)"
    raise CommandError(f"no replay of game {game_id!r} in {where} (give its file, or --db/--replays)")
