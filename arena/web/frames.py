"""A finished game's frames as JSON, from the terminal viewer's own projection.

Each frame is what `arena replay --step N` shows, in data: the decision
that led to it (its cards masked for a view that could not see them), the
table's facts in the game's own terms, every seat (a hand face up only
where the view may look), and the status line.  Building them through
`FrameBuilder` is what keeps the browser's seat view exactly as narrow as
the terminal's.

`replay_json` is the whole of a replay request's work, run in the reader-work
process (`arena.rebuilds`, `arena.workerprocesses`): the replay read from its
file or its text, re-simulated, one view's frames built and encoded as the
API sends them.  The worker keeps its last `BUILDERS_KEPT` re-simulated games,
so the other views of a game just rebuilt skip the re-simulation.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from typing import Any

from arena.replay.facts import describe

#: Re-simulated games a worker keeps (each a few MB for a long game), for the other views of the same game.
BUILDERS_KEPT = 2
_builders: "OrderedDict[str, Any]" = OrderedDict()


#: A seat's view as the API names it: ``seat:N``, N in ASCII digits without a leading zero ("seat:00", "seat:٠" and
#: "seat:²" are no views: each other spelling of one view was a rebuild of its own, past the cache, and ``²`` a 500).
_SEAT_VIEW = re.compile(r"seat:(0|[1-9][0-9]{0,2})")


def choose_view(view: str, players: int) -> Any:
    """The `arena.replay.render.View` a reader's ``view`` names for a game of ``players`` seats, or
    `arena.web.source.BadRequest` saying what it may be."""
    from arena.replay.render import View
    from arena.web.source import BadRequest

    if view == "omniscient":
        return View.omniscient()
    if view == "spectator":
        return View.spectator()
    seat = _SEAT_VIEW.fullmatch(view)  # ASCII digits, no leading zero: one spelling a view, one cache entry each
    if seat is not None and int(seat.group(1)) < players:
        return View.of_seat(int(seat.group(1)))
    raise BadRequest(f"view must be spectator, omniscient or seat:0..seat:{players - 1}, not {view!r}")


def replay_json(replay: "str | bytes", game_id: str, ruleset: str, view: str) -> bytes:
    """One view of an ended game's frames, encoded as the API answers it (JSON, UTF-8): the work of a replay
    request, in a worker process.  ``replay`` is its file's path (str) or its text (bytes, the database's copy).
    Raises `arena.web.source.NotFound` for a replay that cannot be read or does not re-simulate."""
    builder = _builder(replay, game_id)
    answer = frames(builder, choose_view(view, builder.replay.players), _Game(game_id, ruleset))
    return json.dumps(answer, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


class _Game:
    def __init__(self, game_id: str, ruleset: str) -> None:
        self.id = game_id
        self.ruleset = ruleset


def _builder(replay: "str | bytes", game_id: str) -> Any:
    """The game's re-simulated frames: the worker's own if it built them last, else built now."""
    from arena.replay import ReplayFormatError, load
    from arena.replay.reader import parse
    from arena.replay.render import FrameBuilder
    from arena.web.source import NotFound

    if game_id in _builders:
        _builders.move_to_end(game_id)
        return _builders[game_id]
    try:
        builder = FrameBuilder(load(replay) if isinstance(replay, str) else parse(replay, f"{game_id}.jsonl"))
    except (ReplayFormatError, OSError) as error:
        raise NotFound(f"the replay of {game_id} cannot be read: {error}") from None
    if not builder.states:
        raise NotFound(f"the replay of {game_id} does not re-simulate: {builder.simulation.error}")
    _builders[game_id] = builder
    while len(_builders) > BUILDERS_KEPT:
        _builders.popitem(last=False)
    return builder


def frames(builder: Any, view: Any, record: Any) -> dict[str, Any]:
    replay = builder.replay
    names = builder.names
    out = []
    for step in range(builder.last_step + 1):
        seat = view.seat if view.kind == "seat" else None
        observation = builder.states[step].observation(seat).to_dict()
        decision = None
        if step:
            r = replay.decisions[step - 1]
            decision = {"i": r.i, "seat": r.seat, "bot": names[r.seat] if 0 <= r.seat < len(names) else "",
                        "action": builder.shown_action(r, view).plain, "think_ms": r.think_ms,
                        "timeout": r.timeout, "strike": r.strike}
        out.append({
            "step": step,
            "decision": decision,
            "status": builder.status(step, view).plain,
            "facts": [[label, text.plain] for label, text in describe(observation, names)],
            "seats": [{"seat": row.seat, "bot": row.name, "cards": list(row.cards) if row.cards is not None else None,
                       "size": row.size, "score": row.score, "to_decide": row.to_decide,
                       "placement": row.placement} for row in builder.seat_rows(step, view)],
        })
    return {"game_id": record.id, "ruleset": record.ruleset, "view": str(view), "players": replay.players,
            "bots": list(names), "status": replay.status, "frames": out}
