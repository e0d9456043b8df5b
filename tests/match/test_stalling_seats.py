"""Seats that stall a game through the real runner: the ruleset's own bound ends it, finished and scored.

The runner aborts a game (unrated) after ``max_decisions``; here that abort sits one decision past the
game's ``decision_limit``, so a game that did not end by its own bound would be aborted, not finished.
"""

from __future__ import annotations

import pytest
import trio

from arena.cli import main
from arena.match.local import LocalSeat
from arena.match.runner import play_game
from arena.match.timecontrol import TimeControl

ROOMY = TimeControl(move_ms=5000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=3)
STALL_VERBS = ("take", "draw", "pass", "accept", "believe", "stop", "discard")
LIMIT = 300


class Staller:
    """Never ends anything it need not: takes the pile, draws, passes, accepts, stops, discards."""

    def act(self, turn):
        for verb in STALL_VERBS:
            for action in turn.legal:
                if action.verb == verb:
                    return action
        return turn.legal[0]


@pytest.mark.parametrize(("ruleset", "players"), [("ddmau", 2), ("ddmau", 10), ("mose", 2), ("mose", 10),
                                                  ("maumau", 5), ("moumou", 2)])
def test_stallers_end_by_the_rulesets_bound_not_the_runners_abort(ruleset, players):
    seats = [LocalSeat(Staller(), name=f"s{i}", threaded=False) for i in range(players)]

    async def run():
        return await play_game(ruleset, {"decision_limit": LIMIT}, 3, seats, ROOMY, max_decisions=LIMIT + 1)

    outcome = trio.run(run)
    assert outcome.status == "finished", outcome.reason  # rated: not aborted
    assert sum(s.decisions for s in outcome.seats) <= LIMIT
    assert outcome.reason and sorted({s.placement for s in outcome.seats})[0] == 1


def test_arena_match_refuses_a_game_with_no_bound_below_the_abort(capsys):
    status = main(["match", "sample_bots/random_bot.py", "sample_bots/greedy_bot.py", "--game", "ddmau",
                   "--local", "--option", "decision_limit=0"])
    assert status == 2
    error = capsys.readouterr().err.strip()
    assert error.endswith("ddmau with decision_limit=0 has no bound: a counted game needs decision_limit 1..49999, "
                          "below the runner's unrated abort at 50000 decisions, or a seat could stall a game it "
                          "is losing into that abort") and "\n" not in error


def test_arena_match_with_stalling_bots_finishes_every_game_at_the_bound(capsys):
    """End to end through `arena match --local`: two stalling bots play Mose; each game ends at its
    decision_limit, finished and counted, not aborted."""
    status = main(["match", "a=tests/bots/stalling_bot.py", "b=tests/bots/stalling_bot.py", "--game", "mose",
                   "--local", "--option", f"decision_limit={LIMIT}", "--games", "2", "-v"])
    assert status == 0
    out = capsys.readouterr().out
    assert out.count("(option decision_limit ended the game in round 1)") == 2 and "aborted (" not in out
