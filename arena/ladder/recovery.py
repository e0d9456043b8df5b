"""After a crash: the games it cut off, and the replay files an older version left as ``.jsonl.part``.

Since replays went into the database, a ladder game's replay is kept in memory while the game
runs (`arena.replay.buffer.ReplayBuffer`) and written once, whole, in the transaction that
commits the game's result or abort (`arena.ladder.commit_closed`): the result and its replay
become durable together, before any bot is told, and no file is written per game.  **The trade:**
a crash (``kill -9``, a power loss, a host's death) loses the replays of the games running at
that moment.  Those games are aborted at the next start (`LadderStore.open`, or another host's
sweep), never rated, and no bot was ever told they finished; they keep their row, seats and
reason, with no replay.  Halite's ladder made the same choice: a game's replay is stored when the
game ends.  Writing every running game's lines to disk as they come cost more of the server's CPU
per game than anything else the ladder adds (arena/ladder/README.md, "Replays").

What is left for recovery is an **upgrade**: a ladder whose last process was an older version may
have left ``.part`` files, closed here by their game's status in the store as that version's own
recovery closed them, and each closed one is stored in the database too (``keep_in_store``,
unless one is already there), so an upgrade loses nothing:

* a game still ``running`` in the store (`LadderStore.open` has just marked
  it aborted; it is never rated): its ``.part`` is sealed as ``aborted``,
  keeping every whole decision line.  A result line already in the file is
  dropped: the crash came between its fsync and the commit, so no bot was
  told that result, and the store never rated it;
* a game ``finished`` in the store whose replay is still ``.part`` (the crash
  came between the commit and the rename; the bots may not have been told):
  the result line is in the file, so it is renamed;
* a game ``aborted`` in the store whose replay is still ``.part`` (a result
  the store refused, or an abort whose rename did not happen): sealed as
  ``aborted`` like the first case.

A ``.part`` without even a whole header line (killed between creating the
file and writing its first line) holds nothing and is removed.  Games are
found from the store's running rows (a new game's row names no file: nothing
to do) and from the ``.part`` files in the replay folder's day folders
(``DIR/YYYY-MM-DD/*.jsonl.part``); a ``.part`` file no game row names is left
alone and reported.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from arena.ladder.store import LadderStore

log = logging.getLogger("arena.ladder")


@dataclass
class Recovery:
    """What `recover_replays` did: counts for the operator and one line per replay it could not close."""

    aborted: int = 0      # replays closed as aborted
    renamed: int = 0      # finished games' replays renamed to .jsonl
    stored: int = 0       # replays stored in the database here (keep_in_store)
    problems: list[str] = field(default_factory=list)


def recover_replays(
    store: LadderStore, replays: "str | os.PathLike[str] | None", reason: str = "server restarted",
    *, keep_in_store: bool = True,
) -> Recovery:
    """Close every ``.part`` replay an older version's last process left, by the status of its game in
    ``store``, and store each one closed in the database if it is not there yet (keep_in_store=False:
    leave the database alone)."""
    from arena.ladder.store import PackedReplay
    from arena.replay.format import PART_SUFFIX, SUFFIX, ReplayFormatError
    from arena.replay.reader import load
    from arena.replay.writer import seal_complete, seal_partial

    done = Recovery()

    def problem(text: str) -> None:
        done.problems.append(text)
        log.warning(text)

    def keep(game_id: str, sealed: Path) -> None:
        if keep_in_store:
            packed = PackedReplay.read(sealed)
            if packed is not None and store.store_replay(game_id, packed):
                done.stored += 1

    for game_id, path in store.recovered:  # running rows, now aborted: their replay may be anywhere
        if not path or not path.endswith(PART_SUFFIX):
            continue
        part = Path(path)
        final = part.with_name(part.name[: -len(PART_SUFFIX)] + SUFFIX)
        try:
            if part.exists() and _headerless(part):  # killed between creating the file and its first line
                part.unlink()
            if part.exists():
                final = seal_partial(part, reason)
                done.aborted += 1
            elif not final.exists():  # the game died before its first line reached the disk
                store.set_replay_path(game_id, None)
                continue
            store.set_replay_path(game_id, str(final))
            keep(game_id, final)
        except (ReplayFormatError, OSError) as error:
            problem(f"replay of aborted game {game_id} left as {part}: {error}")

    parts = {part.name[: -len(PART_SUFFIX)]: part for part in _parts(replays, PART_SUFFIX)}
    statuses = store.statuses(list(parts)) if parts else {}
    for game_id, part in sorted(parts.items()):
        status = statuses.get(game_id)
        final = part.with_name(part.name[: -len(PART_SUFFIX)] + SUFFIX)
        try:
            if status is not None and final.exists() and load(final).complete:
                part.unlink()  # an earlier recovery was killed after writing the sealed copy: it stands
                keep(game_id, final)
                continue
            if status == "finished":
                replay = load(part)
                if replay.complete:
                    final = seal_complete(part)
                    done.renamed += 1
                    keep(game_id, final)  # normally stored by the commit already: then kept as it is
                    if replay.status != "finished":
                        problem(f"game {game_id} is finished in the store but its replay {final} says {replay.status}")
                else:  # the replay writer failed before the result line; the store has the result
                    final = seal_partial(part, "the replay could not be finished (the result is in the ladder database)")
                    done.aborted += 1
                    keep(game_id, final)
                    problem(f"finished game {game_id}: its replay had no result line; closed as aborted")
            elif status == "aborted" and _headerless(part):
                part.unlink()
                store.set_replay_path(game_id, None)
            elif status == "aborted":
                final = seal_partial(part, reason)
                done.aborted += 1
                store.set_replay_path(game_id, str(final))
                keep(game_id, final)
            elif status is None:
                problem(f"{part} belongs to no game in {store.path}; left alone")
        except (ReplayFormatError, OSError) as error:
            problem(f"replay of {status} game {game_id} left as {part}: {error}")
    return done


def _headerless(part: Path) -> bool:
    """True for a file without even a whole header line: nothing of the game is in it."""
    with open(part, "rb") as handle:
        return b"\n" not in handle.read(1 << 16)


def _parts(replays: "str | os.PathLike[str] | None", suffix: str) -> list[Path]:
    if replays is None or not Path(replays).is_dir():
        return []
    return sorted(Path(replays).glob(f"*/*{suffix}"))

