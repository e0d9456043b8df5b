"""After a crash: bring every replay the last process left as ``.jsonl.part`` in line with the store.

The order a ladder game ends in (`arena.match.runner`, ``_conclude``): the
replay's result line is written and fsynced to the ``.part`` file, then the
store commits the result, then the replay is renamed to ``.jsonl``, and only
then are the bots told.  The store's commit is the one point that makes a
result final, so a ``kill -9`` anywhere leaves one of these, each closed here:

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

With ``keep_in_store`` (a PostgreSQL ladder, whose replays live in the database
too: `arena.ladder.store.replays`), every replay closed here is also stored in
the database, unless one is already there.  A game's replay normally goes in with
its result's commit, so this covers only the replays sealed outside a commit: a
game cut off by a crash or by the death of its host (aborted, then sealed here
when that host starts again: until then its file is on that host's disk only),
and a finished game whose replay writer failed before the result line.  A
finished game whose crash came between the commit and the rename already has its
replay in the database (the same bytes the rename seals).

A ``.part`` without even a whole header line (killed between creating the
file and writing its first line) holds nothing and is removed.  Games are
found from the store's running rows and from the ``.part`` files in
the replay folder's day folders (``DIR/YYYY-MM-DD/*.jsonl.part``); a
``.part`` file no game row names is left alone and reported.
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
    *, keep_in_store: bool = False,
) -> Recovery:
    """Close every ``.part`` replay the last process left, by the status of its game in ``store``
    (keep_in_store: and store each one closed in the database, if it is not there yet)."""
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

