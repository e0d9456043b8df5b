"""check-bot's ``own answers`` line counts its failures and its decisions over the same games.

Under load a bot that fails on every decision was reported as "failed on 55 of 41 decisions": the
failures of the game of late answers (whose decisions are not counted) were added to the others', and
the decisions that timed out (whose code ran and failed too) were left out of the count."""

from arena.match.compliance import FAIL, PASS, ComplianceRun, Played
from arena.match.outcome import GameOutcome, SeatOutcome


def played(decisions, timeouts, errors, dropped=False):
    me = SeatOutcome(seat=0, name="bot", decisions=decisions, timeouts=timeouts, errors=errors)
    outcome = GameOutcome(game_id="g", ruleset="prsi", options={}, seed=1, status="finished",
                          seats=[me, SeatOutcome(seat=1, name="other")])
    return Played("prsi", outcome, 0, bot_errors=[f"act() raised at {i}" for i in range(errors)],
                  dropped_answers=dropped)


def test_a_bot_failing_every_decision_never_fails_more_decisions_than_it_was_asked():
    games = [played(20, 3, 20), played(21, 0, 21), played(14, 14, 14, dropped=True)]
    check = ComplianceRun.own_answers(None, games)
    assert check.status == FAIL
    assert "failed on 41 of 41 decisions in 2 game(s) and 14 time(s) in the game of late answers" in check.happened


def test_failures_only_in_the_game_of_late_answers_still_fail_and_say_where():
    check = ComplianceRun.own_answers(None, [played(10, 0, 0), played(5, 5, 2, dropped=True)])
    assert check.status == FAIL
    assert "failed on 0 of 10 decisions in 1 game(s) and 2 time(s) in the game of late answers" in check.happened


def test_a_clean_bot_passes_with_every_decision_counted():
    check = ComplianceRun.own_answers(None, [played(10, 2, 0), played(7, 7, 0, dropped=True)])
    assert check.status == PASS and "no failure in 10 decisions in 1 game(s)" in check.happened
