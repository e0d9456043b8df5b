"""The ladder's benchmark scripts: their figures are computed as their docstrings say (no timing asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from scripts_loaded import load_script  # noqa: E402


def test_bench_ladder_memory_per_bot_and_game_and_when_they_cannot_be_separated(monkeypatch):
    bench = load_script(monkeypatch, "bench_ladder")
    # 500 then 1,000 bots with the same 200 games: the bots' share, then the games' (no growth in the window)
    per_bot, per_game = bench.memory_split(60_000, [(500, 200, 100_000, 10.0), (1000, 200, 130_000, 40.0)])
    assert per_bot == pytest.approx(60.0) and per_game == pytest.approx(50.0)
    # 100 bots at 50 games, then 200 at 100: every bot plays, the two grow together (was NaN, which is not JSON)
    playing = [(100, 50, 90_000, 8.0), (200, 100, 104_000, 23.0)]
    assert bench.memory_split(75_000, playing, 100.0) == (None, None)
    assert bench.memory_per_playing_bot(playing, 100.0) == pytest.approx((14_000 - 1_500) / 100)
    assert bench.memory_per_playing_bot(playing[:1]) is None


def test_bench_planning_round_plans_the_same_tables_in_each_tree_it_compares(monkeypatch, capsys):
    """The script runs the same simulated ladder in two trees (here this one twice, each in its own process)
    and says whether they planned the same tables; a round over the server's slot view is what it times."""
    bench = load_script(monkeypatch, "bench_planning_round")
    root = Path(bench.__file__).resolve().parents[1]
    monkeypatch.setattr(sys, "argv", ["bench_planning_round.py", "--bots", "30", "--concurrency", "10", "--rounds", "60",
                                      "--warm", "10", "--repeat", "1", "--against", str(root)])
    assert bench.main() == 0
    out = capsys.readouterr().out
    assert "slot view, pool by changes" in out and "the same tables in every run: yes" in out
    first, again = bench.simulate(30, 10, 60, 10, seed=4), bench.simulate(30, 10, 60, 10, seed=4)
    assert first["digest"] == again["digest"] and first["incremental"] and first["games"] > 20


def test_ladder_cpu_accounting_counts_a_wrapped_functions_calls_and_collections(monkeypatch):
    """The accounting script's wrapper counts each call of a wrapped method (the result unchanged), its
    collections by generation, and starts again from zero on reset (what SIGUSR1 does in the server)."""
    import json

    bench = load_script(monkeypatch, "ladder_cpu_accounting")
    from arena.ladder.scheduler import Candidate

    monkeypatch.setattr(Candidate, "plays", Candidate.plays)  # restored after the test
    accounts = bench.Accounts()
    accounts.wrap("arena.ladder.scheduler", "Candidate.plays")
    candidate = Candidate("a", 1, frozenset({"moumou"}))
    assert candidate.plays("moumou") and not candidate.plays("mose")
    calls, seconds = accounts.functions["scheduler.Candidate.plays"]
    assert calls == 2 and seconds >= 0
    accounts.on_gc("start", {"generation": 1})
    accounts.on_gc("stop", {"generation": 1})
    assert accounts.gc[1][0] == 1
    accounts.reset()
    assert accounts.functions["scheduler.Candidate.plays"] == [0, 0.0] and accounts.gc[1] == [0, 0.0]
    assert json.loads(json.dumps(accounts.to_dict()))["functions"]["scheduler.Candidate.plays"] == [0, 0.0]


def test_ladder_cpu_accounting_names_a_function_this_tree_does_not_have(monkeypatch, capsys):
    """A listed name that is gone (renamed, or an older tree) is not counted, and the report says so."""
    bench = load_script(monkeypatch, "ladder_cpu_accounting")
    accounts = bench.Accounts()
    accounts.wrap("arena.ladder.scheduler", "Candidate.no_such_method")
    data = accounts.to_dict()
    assert data["missing"] == ["scheduler.Candidate.no_such_method"] and not data["functions"]
    bench.show("ladder (SQLite)", data, decisions=100, cpu_us=250.0)
    assert "not in this tree, not counted: scheduler.Candidate.no_such_method" in capsys.readouterr().out
