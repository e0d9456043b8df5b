"""The fair-play battery (scripts/battery.py): every hostile client at once against real `arena serve` processes.

The slow tests run a short battery once (20 s of the control alone, 20 s
under attack; about a minute in all) and check one target each, so a run
says exactly which targets the server misses.  The fast tests check the
verdicts themselves: a target that could not be measured is never reported
as met, and the script refuses bad arguments in one line.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from arena.replay.writer import ReplayWriter
from scripts.hostile.battery import AttackResults, BatterySettings, Report, RunResult, run_battery
from scripts.hostile.measure import LadderRecord, Stall, percentile
from scripts.hostile.players import EndedGame

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the battery against the real server

@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Report:
    settings = BatterySettings(seconds=20.0, workdir=tmp_path_factory.mktemp("battery"), progress=lambda _: None)
    return run_battery(settings)


def _check(report: Report, met: bool) -> None:
    """Fail with the whole battery report, not an introspection of its objects."""
    if not met:
        pytest.fail("\n".join(report.lines()), pytrace=False)


@pytest.mark.slow
def test_the_battery_carries_out_every_attack(report):
    """Guards the targets below: a battery that attacked nothing would meet them all."""
    x = report.attacks
    _check(report, report.baseline.control_games > 0 and report.attacked.told_finished > 0)
    _check(report, x.takeover.played == 1 and bool(x.silent.honest_replies))
    _check(report, x.flood.sent > 0 and x.churn.tried > 0 and x.garbage.sent > 0 and bool(x.tricks.tried))
    _check(report, x.stall_drops > 0 and x.cross_tries > 0 and x.memory_games >= 2)
    _check(report, sum(games for games, _ in x.throttlers.values()) > 0)


@pytest.mark.slow
def test_the_server_never_crashes(report):
    _check(report, not report.baseline.crashed and not report.attacked.crashed)


@pytest.mark.slow
def test_no_game_stands_still_longer_than_the_time_model_allows(report):
    _check(report, not report.attacked.stuck and not report.baseline.stuck)


@pytest.mark.slow
def test_every_game_a_bot_was_told_had_finished_is_finished_in_the_database_with_its_replay(report):
    _check(report, not report.attacked.lost and not report.baseline.lost)


@pytest.mark.slow
def test_the_control_gets_no_strike(report):
    _check(report, report.attacked.control_strikes == 0 and report.baseline.control_strikes == 0)


@pytest.mark.slow
def test_the_control_keeps_80_percent_of_its_baseline_rate(report):
    _check(report, report.ratio is not None and report.ratio >= 0.8)


@pytest.mark.slow
def test_the_server_grows_by_at_most_30_mb(report):
    growth = report.attacked.rss_growth_mb
    _check(report, growth is not None and growth <= 30)


@pytest.mark.slow
def test_no_session_is_taken_over(report):
    _check(report, report.attacks.takeover.successes == 0)


@pytest.mark.slow
def test_no_bot_is_dealt_a_hand_it_has_seen_from_another_seat(report):
    _check(report, report.attacks.deal_hits == 0)


@pytest.mark.slow
def test_an_honest_bot_is_admitted_beside_hundreds_of_silent_streams(report):
    _check(report, report.attacks.silent.honest_admitted is True)


# ---------------------------------------------------------------- the verdicts (fast)

def _report(**attacks_fields) -> Report:
    settings = BatterySettings(seconds=60.0)
    baseline = RunResult("baseline", 60.0, control_games=100, rss_before_mb=60.0, rss_after_mb=62.0,
                         told_finished=100)
    attacked = RunResult("attacked", 60.0, control_games=90, rss_before_mb=60.0, rss_after_mb=70.0,
                         told_finished=150)
    x = AttackResults(memory_games=6, **attacks_fields)
    x.takeover.attempts = x.takeover.played = 1
    x.silent.honest_admitted = True
    x.silent.honest_replies = ["welcome"]
    return Report(settings, baseline, attacked, x)


def test_a_clean_report_meets_every_target():
    report = _report()
    assert report.missed() == []
    assert report.ratio == pytest.approx(0.9)


def test_each_miss_is_reported_against_its_target():
    report = _report()
    report.attacked.control_games = 70
    report.attacked.rss_after_mb = 95.0
    report.attacked.stuck = [Stall("g1", ("staller", "hon-1"), 14.0)]
    report.attacks.takeover.successes = 1
    report.attacks.deal_hits = 2
    missed = {t.name.split(" (")[0] for t in report.missed()}
    assert missed == {"control games per minute", "server RSS", "stuck games", "session takeovers", "deal-leak hits"}
    assert any("0.70" in line for line in report.lines())


def test_what_could_not_be_measured_is_never_reported_as_met():
    report = _report()
    report.attacks.takeover.played = 0        # never seated: the victim never came
    report.attacks.memory_games = 1            # a single game cannot show a deal seen twice
    report.attacks.silent.honest_admitted = None
    report.baseline.control_games = 0          # no baseline: no ratio
    report.attacked.rss_after_mb = None        # the server was gone
    unmeasured = {t.name.split(" (")[0] for t in report.targets() if t.met is None and t.goal is not None}
    assert unmeasured == {"session takeovers", "deal-leak hits", "honest bot admitted under the silent flood",
                          "control games per minute", "server RSS"}
    assert {t.name.split(" (")[0] for t in report.missed()} == unmeasured


def test_the_baseline_halves_add_up_and_keep_the_larger_growth():
    before = RunResult("baseline-before", 30.0, control_games=50, control_strikes=1, rss_before_mb=60.0,
                       rss_after_mb=63.0, think_ms=[20, 21], told_finished=50, stuck=[Stall("a", ("x",), 12.0)])
    after = RunResult("baseline-after", 30.0, control_games=40, rss_before_mb=60.0, rss_after_mb=68.0,
                      think_ms=[25], told_finished=40, lost=[("g", "replay missing")], crashed=True)
    both = RunResult.combined("baseline", [before, after])
    assert (both.seconds, both.control_games, both.control_strikes, both.told_finished) == (60.0, 90, 1, 90)
    assert both.games_per_minute == 90 and both.rss_growth_mb == 8.0 and both.crashed
    assert sorted(both.think_ms) == [20, 21, 25] and len(both.stuck) == 1 and len(both.lost) == 1


def test_a_game_told_finished_is_lost_unless_its_row_is_finished_and_its_replay_complete(tmp_path):
    """Read back from a real ladder database: a replay counts where the ladder keeps it (in the database
    since the replays moved there; a file for an older database), complete, with a finished row."""
    from arena.ladder.store import LadderStore, SeatRecord
    from arena.ladder.store.replays import PackedReplay

    def replay(game_id, finish=True):
        writer = ReplayWriter.create(tmp_path, {"game_id": game_id, "ruleset": "maumau", "players": 2, "seed": 5})
        writer.decision(0, "draw", 17, False, False, None)
        return writer.finish({"placements": [1, 2], "points": [0, 3]}) if finish else writer.current_path

    db = tmp_path / "ladder.db"
    store = LadderStore.open(db)
    seats = [SeatRecord(seat=0, bot="ctl-1", placement=1, points=0), SeatRecord(seat=1, bot="ctl-2", placement=2, points=3)]
    for game_id, status, where in (("kept", "finished", "db"), ("filed", "finished", "file"),
                                   ("aborted", "aborted", "db"), ("gone", "finished", None),
                                   ("cut", "finished", "db-cut")):
        store.game_started(game_id, "maumau", {}, 5, "set-" + game_id, 0, ["ctl-1", "ctl-2"])
        path = replay(game_id, finish=where != "db-cut")
        packed = PackedReplay.of(Path(path).read_bytes()) if where in ("db", "db-cut") else None
        if where != "file":
            Path(path).unlink()
        store.game_ended(game_id, status, seats, replay_path=str(path), replay=packed, decisions=1)
    store.close()

    record = LadderRecord.read(db)
    told = [EndedGame(g, True, "out", "ctl-1", 0, 0, False, 0.0)
            for g in ("kept", "filed", "aborted", "gone", "cut", "norow")]
    told.append(EndedGame("kept", False, "server shutting down", "ctl-2", 0, 0, False, 0.0))
    lost = dict(record.lost(told))
    assert set(lost) == {"aborted", "gone", "cut", "norow"}, lost
    assert "aborted" in lost["aborted"] and "missing" in lost["gone"] and "result" in lost["cut"]
    # the think times of finished games come from their replays wherever they are: kept and cut (database),
    # filed (file); none from the aborted game's or from gone's, which has none
    assert record.think_ms({"ctl-1", "ctl-2"}) == [17, 17, 17]


def test_percentile_is_nearest_rank():
    assert percentile([], 0.99) is None
    assert percentile([5.0], 0.99) == 5.0
    assert percentile([float(i) for i in range(1, 101)], 0.99) == 99.0
    assert percentile([float(i) for i in range(1, 1001)], 0.99) == 990.0


@pytest.mark.parametrize("arguments, complaint", [
    (["--seconds", "0"], "must be positive"),
    (["--seconds", "soon"], "expected a number"),
    (["--port", "70000"], "a port is 0-65535"),
])
def test_bad_arguments_get_one_line_and_status_2(arguments, complaint, capsys):
    spec = importlib.util.spec_from_file_location("battery_script", ROOT / "scripts" / "battery.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    with pytest.raises(SystemExit) as exited:
        script.main(arguments)
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert complaint in error and "Traceback" not in error
