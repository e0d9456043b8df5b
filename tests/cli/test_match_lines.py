"""`arena match -v`'s per-game lines read back: what the Elo scripts combining runs rely on."""

from __future__ import annotations

from arena.cli.match_result import describe_game, parse_game_lines
from arena.match.outcome import GameOutcome, SeatOutcome
from arena.match.plan import PlannedGame


def test_the_lines_describe_game_prints_parse_back_to_seeds_and_placements():
    planned = PlannedGame(set_index=3, seed=5003, rotation=1, seats=("b", "a", "c"))
    finished = GameOutcome("g1", "maumau", {}, 5003, "finished", seats=[
        SeatOutcome(0, "b", placement=2, points=-35), SeatOutcome(1, "a", placement=1),
        SeatOutcome(2, "c", placement=2, points=12, forfeited=True)])
    aborted = GameOutcome("g2", "maumau", {}, 5004, "aborted", reason="server shutting down")
    lines = [
        "progress 3/10\r" + describe_game(7, planned, finished),  # a progress bar may share the line
        describe_game(8, PlannedGame(4, 5004, 0, ("a", "b", "c")), aborted),
        "a summary line that is not a game",
    ]
    assert parse_game_lines(lines) == ([(5003, {"a": 1, "b": 2, "c": 2})], 1)
