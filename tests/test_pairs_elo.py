"""scripts/pairs_elo.py: two bots' Elo from several head-to-head match logs, the pairs kept together by seed."""

from __future__ import annotations

import pytest

from arena.ladder.elo import elo_from_pairs
from tests.scripts_loaded import load_script


@pytest.fixture
def pairs(monkeypatch):
    return load_script(monkeypatch, "pairs_elo")


def line(number, deal, seed, first, second, reason="out"):
    return f"Finished game {number} (deal {deal}, seed {seed}): {first} #1 0 pts, {second} #2 9 pts ({reason})"


# Two runs on disjoint seed ranges, each counting its deals from 0; a pair's games may be lines apart.
RUN_A = [
    "Bots: s (s.py), t (t.py)",
    line(1, 0, 5000, "s", "t"), line(2, 0, 5000, "s", "t"),  # 2 of 2
    line(3, 1, 5001, "t", "s"), "\r progress " + line(4, 1, 5001, "s", "t"),  # 1 of 2
]
RUN_B = [
    line(1, 0, 5002, "t", "s"),
    line(2, 1, 5003, "s", "t"),
    line(3, 0, 5002, "t", "s"),  # 0 of 2
    "Finished game 4 (deal 1, seed 5003): aborted (engine error)",  # seed 5003 stays incomplete
]


def test_pairs_are_formed_by_seed_across_logs_and_give_the_match_elo(pairs, tmp_path):
    (tmp_path / "a.log").write_text("\n".join(RUN_A))
    (tmp_path / "b.log").write_text("\n".join(RUN_B))
    games, aborted = pairs.parse(RUN_B)
    assert aborted == 1 and len(games[5002]) == 2 and len(games[5003]) == 1
    merged = {**pairs.parse(RUN_A)[0], **games}
    counts, dropped = pairs.pairs_of(merged, "s")
    assert counts == [1, 0, 1, 0, 1] and dropped == 1
    assert pairs.main([str(tmp_path / "b.log"), str(tmp_path / "a.log"), "--bot", "s"]) == 0


def test_the_printed_elo_is_arena_matchs_estimate(pairs, tmp_path, capsys):
    (tmp_path / "a.log").write_text("\n".join(RUN_A))
    assert pairs.main([str(tmp_path / "a.log"), "--bot", "s"]) == 0
    out = capsys.readouterr().out
    assert "4 games in 2 pairs" in out and "pairs [0, 0, 1, 0, 1]" in out
    assert f"Elo {elo_from_pairs([0, 0, 1, 0, 1])}" in out


def test_overlapping_runs_are_an_error(pairs, tmp_path, capsys):
    (tmp_path / "a.log").write_text("\n".join(RUN_A))
    assert pairs.main([str(tmp_path / "a.log"), str(tmp_path / "a.log"), "--bot", "s"]) == 2
    assert "overlap" in capsys.readouterr().err


def test_against_compares_the_same_seeds_deal_by_deal(pairs, tmp_path, capsys):
    # the new code wins both games of 5000 and 5001, the old code one game of each; 5002 only in the new logs
    new = [line(1, 0, 5000, "s", "t"), line(2, 0, 5000, "s", "t"), line(3, 1, 5001, "s", "t"), line(4, 1, 5001, "s", "t"),
           line(5, 2, 5002, "t", "s"), line(6, 2, 5002, "t", "s")]
    old = [line(1, 0, 5000, "s", "t"), line(2, 0, 5000, "t", "s"), line(3, 1, 5001, "t", "s"), line(4, 1, 5001, "s", "t")]
    (tmp_path / "new.log").write_text("\n".join(new))
    (tmp_path / "old.log").write_text("\n".join(old))
    assert pairs.paired({5000: 2.0, 5001: 2.0, 5002: 0.0}, {5000: 1.0, 5001: 1.0}) == (2, 1.0, 0.0)
    assert pairs.main([str(tmp_path / "new.log"), "--bot", "s", "--against", str(tmp_path / "old.log")]) == 0
    out = capsys.readouterr().out
    assert "over the 2 seeds of both: +1.000 ± 0.000 pair points" in out
    assert f"Elo {elo_from_pairs([0, 0, 0, 0, 2])} against {elo_from_pairs([0, 0, 2, 0, 0])}" in out
