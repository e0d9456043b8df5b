"""Where the server's readers find a ladder game this host does not hold (Spectate, the web view).

An ended game's replay comes from the database, where its result's commit stored it, or from the
file a ladder from before replays went into the database wrote (its row names it, under
`LadderSettings.replays`).  A game running on another host of a shared ladder is there only: its live
events are in that host's process, so the reader is told where it runs, in one line.  Both are called
on a worker thread (`Handle.replay_provider`, `Handle.host_provider`): they read the database.
"""

from __future__ import annotations

from pathlib import Path

from arena.ladder.store import LadderStore


def replay_text(store: LadderStore, replays: Path, game_id: str) -> bytes | None:
    """An ended game's replay: from the database, or the older version's file its row names; None if neither."""
    text = store.replay_text(game_id)
    if text is not None:
        return text
    from arena.ladder.store.replays import legacy_file

    path = legacy_file(store.replay_paths(game_id).get(game_id), replays)
    return path.read_bytes() if path is not None else None


def running_elsewhere(store: LadderStore, game_id: str) -> str | None:
    """Where another host of the ladder runs this game, in one line, or None."""
    found = store.running_on([game_id]).get(game_id)
    return found.sentence(game_id) if found is not None else None
