"""scripts/bench_arena.py's verdict: ours over raw from pairs measured back to back."""

from __future__ import annotations

import sys

import pytest

from tests.scripts_loaded import load_script


@pytest.fixture
def bench(monkeypatch):
    return load_script(monkeypatch, "bench_arena")


def test_the_paired_ratio_pairs_each_run_with_the_raw_run_just_before_it(bench):
    # The reference doubles in the second attempt (the host got faster); best over best would
    # compare the first arena run's luck with the second reference's.
    summary = bench.ratios([1200.0, 1000.0, 1300.0], [2000.0, 4000.0, 2200.0])
    assert summary.paired == pytest.approx((0.6, 0.25, 1300 / 2200))
    assert summary.paired_median == pytest.approx(1300 / 2200)
    assert summary.best == pytest.approx(1300 / 4000)
    assert summary.paired_text() == "0.59 (0.25-0.60)"
    assert bench.ratios([900.0], [1800.0]).paired_text() == "0.50"


def test_runs_without_their_reference_are_refused(bench):
    with pytest.raises(ValueError, match="2 arena runs but 1 raw"):
        bench.ratios([1.0, 2.0], [3.0])


def test_the_table_reports_the_paired_median_and_the_median_cpu(bench, monkeypatch, capsys):
    raw_runs = iter([bench.Run(2000.0, 100.0, 300.0), bench.Run(1000.0, 140.0, 340.0)])
    arena_runs = iter([bench.Run(1100.0, 350.0, 420.0, 40), bench.Run(600.0, 370.0, 460.0, 30)])
    monkeypatch.setattr(bench, "raw_rate", lambda games, seconds, warmup, turn: next(raw_runs))
    monkeypatch.setattr(bench, "arena_rate", lambda games, seconds, warmup, kind: next(arena_runs))
    monkeypatch.setattr(sys, "argv", ["bench_arena.py", "--games", "8", "--bots", "sdk", "--repeat", "2",
                                      "--overshoot-games", ""])
    assert bench.main() == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.split()[:2] == ["8", "sdk"])
    # best 1,100 / 2,000 = 0.55; pairs 0.55 and 0.60; CPU medians 360 (120) and 440 (320)
    assert row.split() == ["8", "sdk", "1,100", "2,000", "0.55", "0.57", "(0.55-0.60)",
                           "360", "(120)", "440", "(320)"]
    assert "raw ping-pong 2,000, 1,000; sdk bots 1,100, 600" in " ".join(out.split())
    assert "8 games, every run (steal " in out


def test_steal_is_the_hypervisors_share_of_the_cpu_time_between_two_readings(bench, monkeypatch):
    readings = iter([(100, 10_000), (150, 11_000)])  # (steal, user..steal) in jiffies
    monkeypatch.setattr(bench.StealMeter, "read", staticmethod(lambda: next(readings)))
    assert bench.percent(bench.StealMeter().share()) == "5.0%"
    monkeypatch.setattr(bench.StealMeter, "read", staticmethod(lambda: None))  # no /proc/stat
    assert bench.percent(bench.StealMeter().share()) == "n/a"


@pytest.mark.parametrize("flag, value, bad", [("--games", "1,x", "'x'"), ("--overshoot-games", "8,0", "'0'")])
def test_game_counts_that_are_not_positive_numbers_are_an_error(bench, monkeypatch, capsys, flag, value, bad):
    monkeypatch.setattr(sys, "argv", ["bench_arena.py", flag, value])
    with pytest.raises(SystemExit) as exit_info:
        bench.main()
    assert exit_info.value.code == 2
    assert f"{bad} is not a number of games" in capsys.readouterr().err
    assert bench.game_counts(" 1, 8 ,64,") == [1, 8, 64] and bench.game_counts("") == []


def test_a_repeat_below_one_is_an_error(bench, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_arena.py", "--repeat", "0"])
    with pytest.raises(SystemExit) as exit_info:
        bench.main()
    assert exit_info.value.code == 2
    assert "--repeat must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["raw", "rawaio"])
def test_the_minimal_bots_play_whole_games_through_a_real_arena(bench, kind):
    # The reference bots are only useful if they really play.  A bot whose answers the arena
    # refused would collect strikes (timeouts after the bench's 5 s move limit, or illegal moves).
    # The window lasts until three games have finished in it, however slow the machine is.
    run = bench.arena_rate(1, seconds=0.1, warmup=0.0, bots=kind, min_games=3, timeout_s=120)
    assert run.games_finished >= 3
    assert run.strikes == 0
    assert run.server_us > 0 and run.bots_us > 0
