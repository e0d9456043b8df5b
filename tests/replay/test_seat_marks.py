"""The seats' marks (strikes, timeouts, bot errors so far) of every frame: counted once along the game, the same as
counting each frame's decisions from the start (which made a view's frames quadratic in the game's length)."""

from __future__ import annotations

import pytest

from arena.replay import load
from arena.replay.render import FrameBuilder, View

from .conftest import all_rulesets, players_for, record_random_game


def counted_from_the_start(replay, step: int) -> list[tuple[int, int, int]]:
    """The old computation, kept here as the reference."""
    strikes, timeouts, errors = [0] * replay.players, [0] * replay.players, [0] * replay.players
    for record in replay.decisions[:step]:
        if 0 <= record.seat < replay.players:
            strikes[record.seat] += record.strike
            timeouts[record.seat] += record.timeout
            errors[record.seat] += bool(record.bot_error)
    return list(zip(strikes, timeouts, errors))


@pytest.mark.parametrize("ruleset", all_rulesets())
def test_every_frames_marks_are_those_counted_from_the_start_in_any_order(tmp_path, ruleset, toy_ruleset):
    replay = load(record_random_game(tmp_path, ruleset, players=players_for(ruleset), seed=11, max_decisions=300))
    # marks to count (the recorder marks every 17th decision a timeout, every 29th a strike)
    marked = any(r.strike for r in replay.decisions) and any(r.timeout for r in replay.decisions)
    assert marked or len(replay.decisions) < 29
    builder = FrameBuilder(replay)
    steps = range(builder.last_step + 1)
    later_first = FrameBuilder(replay)  # asked from the end back: counted once, then read
    assert [later_first.marks_before(step) for step in reversed(steps)][::-1] == \
        [tuple(counted_from_the_start(replay, step)) for step in steps]
    for step in steps:
        expected = counted_from_the_start(replay, step)
        assert builder.marks_before(step) == tuple(expected)
        for view in (View.spectator(), View.of_seat(0), View.omniscient()):
            rows = builder.seat_rows(step, view)
            marks = [" · ".join(m for m in (f"{s} strike{'s' * (s != 1)}" if s else "",
                                            f"{t} timeout{'s' * (t != 1)}" if t else "",
                                            f"{e} error{'s' * (e != 1)}" if e else "") if m) for s, t, e in expected]
            assert [row.marks for row in rows] == marks
