"""Toy ladder games played into a store and a replay file, then crashed or ended at will: the shared steps
of the recovery tests (test_recovery.py) and the stored-replay tests (test_stored_replays.py)."""

from __future__ import annotations

import toy_ladder_game
from arena import games
from arena.ladder.store import SeatRecord
from arena.replay import ReplayWriter

RULESET = toy_ladder_game.NAME


def play(store, replays, game_id, seed=5, decisions=None):
    """Start `game_id` in the store and its replay, and play it (first legal action) to the end or `decisions`."""
    header = {"game_id": game_id, "ruleset": RULESET, "players": 2, "seed": seed, "options": {},
              "seats": [{"seat": 0, "name": "a"}, {"seat": 1, "name": "b"}], "started_at": "2026-11-24T10:00:00Z"}
    store.game_started(game_id, RULESET, {}, seed, f"set-{game_id}", 0, ["a", "b"])
    writer = ReplayWriter.create(replays, header)
    store.set_replay_path(game_id, str(writer.part_path))
    state = games.new_game(RULESET, 2, seed)
    played = 0
    while not state.is_over and (decisions is None or played < decisions):
        seat, action = state.current, state.legal_actions()[0]
        state.apply(action)
        writer.decision(seat, str(action), 0, False, False, state.state_hash())
        played += 1
    return writer, state


def finished_result(state):
    """The result line and the seat records of a finished toy game."""
    placements = list(state.result().placements)
    return {"placements": placements, "points": [0, 0]}, [
        SeatRecord(i, bot, placement=p, points=0) for i, (bot, p) in enumerate(zip("ab", placements))]


def crash(writer):
    writer._handle.close()  # the process died: the file stays as it is on disk
