"""A finished game's frames as JSON, from the terminal viewer's own projection.

Each frame is what `arena replay --step N` shows, in data: the decision
that led to it (its cards masked for a view that could not see them), the
table's facts in the game's own terms, every seat (a hand face up only
where the view may look), and the status line.  Building them through
`FrameBuilder` is what keeps the browser's seat view exactly as narrow as
the terminal's.
"""

from __future__ import annotations

from typing import Any

from arena.replay.facts import describe


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
