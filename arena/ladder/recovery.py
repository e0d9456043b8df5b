"""After a crash: seal the replays of the games the store just marked aborted.

`LadderStore.open` marks games left ``running`` as aborted and lists them in
``store.recovered`` with the path of their unfinished replay (``.jsonl.part``).
Sealing keeps every whole decision line, adds an ``aborted`` result and
renames the file, so the replay opens, lists and verifies like any other.
"""

from __future__ import annotations

import logging
from pathlib import Path

from arena.ladder.store import LadderStore

log = logging.getLogger("arena.ladder")


def seal_recovered_replays(store: LadderStore, reason: str = "server restarted") -> list[str]:
    """Seal what can be sealed; returns one line per replay that could not be (for the operator)."""
    from arena.replay.format import PART_SUFFIX, SUFFIX, ReplayFormatError
    from arena.replay.writer import seal_partial

    problems = []
    for game_id, path in store.recovered:
        if not path or not path.endswith(PART_SUFFIX):
            continue
        part = Path(path)
        final = part.with_name(part.name[: -len(PART_SUFFIX)] + SUFFIX)
        try:
            if part.exists():
                final = seal_partial(part, reason)
            elif not final.exists():  # the game died before its first line reached the disk
                store.set_replay_path(game_id, None)
                continue
            # (a replay already closed means the crash came between its last line and the commit)
            store.set_replay_path(game_id, str(final))
        except (ReplayFormatError, OSError) as error:
            problems.append(f"replay of aborted game {game_id} left as {part}: {error}")
            log.warning(problems[-1])
    return problems
