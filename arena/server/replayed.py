"""Spectate an ended game from its replay: the events a spectator of the live game was sent, rebuilt.

A host remembers the events of its own recent games only (`arena.server.live`).
A game that ended elsewhere (another host of a PostgreSQL ladder) or long ago
is rebuilt from its replay (`Handle.replay_provider`, the ladder database's
copy): re-simulated through the engine, each step gives what `LiveGames.record`
published at that point (the public view, `state.observation(None)`, the
action's public text and the public events it made happen), and the result
line gives the last event's `GameEnded`.  Only the public view is sent, as
for a live game: nothing here reads a hand.
"""

from __future__ import annotations

from typing import Any

from arena.messages import observation_to_pb, public_events_fields
from mau_arena_sdk.wire import pb

_STATUS = {"finished": pb.GameEnded.FINISHED, "aborted": pb.GameEnded.ABORTED}


def spectator_event_bytes(text: bytes, game_id: str) -> tuple[bytes, ...]:
    """`spectator_events`, each serialized: the work of a Spectate of an ended game, in the reader-work process
    (`arena.rebuilds`); what it sends back, and what the budget remembers."""
    return tuple(event.SerializeToString() for event in spectator_events(text, game_id))


def spectator_events(text: bytes, game_id: str) -> list[pb.SpectatorEvent]:
    """Every event of the game the replay ``text`` records, from the start to the one carrying ``ended``.

    Raises `arena.replay.ReplayFormatError` for a text that is not a replay, and
    `LookupError` for one that does not re-simulate (an unknown ruleset, a changed engine).
    """
    from arena.replay.reader import parse

    replay = parse(text, f"{game_id}.jsonl")
    simulation = replay.simulate()
    if simulation.error or len(simulation.states) != len(replay.decisions) + 1:
        raise LookupError(f"the replay of {game_id} does not re-simulate: {simulation.error}")
    names = replay.header.names
    events = [_event(game_id, 0, -1, "", simulation.states[0], simulation.events, names)]
    for record in replay.decisions:
        state = simulation.states[record.i]
        events.append(_event(game_id, record.i, record.seat, state.public_text(record.action), state,
                             simulation.events, names))
    events.append(pb.SpectatorEvent(game_id=game_id, index=len(replay.decisions) + 1, seat=-1,
                                    ended=_ended(replay, game_id)))
    return events


def _event(game_id: str, index: int, seat: int, action: str, state: Any, public: Any, names: Any) -> pb.SpectatorEvent:
    return pb.SpectatorEvent(game_id=game_id, index=index, seat=seat, action=action,
                             view=observation_to_pb(state.observation(None), names),
                             events=public_events_fields(public[index]) if public is not None else ())


def _ended(replay: Any, game_id: str) -> pb.GameEnded:
    result = replay.result or {}
    status = replay.status
    players = replay.players

    def column(key: str, default: Any) -> list[Any]:
        values = result.get(key)
        values = list(values) if isinstance(values, (list, tuple)) else []
        return [values[i] if i < len(values) and values[i] is not None else default for i in range(players)]

    placements, points = column("placements", 0), column("points", 0)
    strikes, timeouts, forfeits = column("strikes", 0), column("timeouts", 0), column("forfeits", False)
    think = [0] * players
    for record in replay.decisions:
        if 0 <= record.seat < players:
            think[record.seat] += record.think_ms
    names = replay.header.names
    ended = pb.GameEnded(game_id=game_id, reason=str(result.get("reason") or status),
                         status=_STATUS.get(status, pb.GameEnded.STATUS_UNSPECIFIED))
    for seat in range(players):
        finished = status == "finished"
        ended.results.add(seat=seat, name=names[seat] if seat < len(names) else "",
                          placement=max(0, int(placements[seat])) if finished else 0,
                          points=int(points[seat]) if finished else 0, strikes=int(strikes[seat]),
                          timeouts=int(timeouts[seat]), forfeited=bool(forfeits[seat]), think_ms=max(0, think[seat]))
    return ended
