"""scripts/field_elo.py: one bot's Elo against the field of a multi-seat match, counted over whole deals."""

from __future__ import annotations

import pytest

from tests.scripts_loaded import load_script


@pytest.fixture
def field(monkeypatch):
    return load_script(monkeypatch, "field_elo")


def line(number, deal, *seats, reason="out"):
    shown = ", ".join(f"{name} #{place} {pts} pts" for name, place, pts in seats)
    return f"Finished game {number} (deal {deal}, seed {5000 + deal}): {shown} ({reason})"


LOG = [
    "Bots: s (s.py), t (t.py), t-2 (t.py)",
    line(1, 0, ("s", 1, 0), ("t", 2, 10), ("t-2", 3, 20)),  # s beats both: 1
    "\r progress bar " + line(2, 0, ("t", 1, 0), ("s", 2, 5), ("t-2", 3, 9)),  # 0.5
    line(3, 0, ("t-2", 1, 0), ("t", 2, 4), ("s", 2, 4)),  # a tie with t: 0.25
    line(4, 1, ("s", 1, 0), ("t", 2, 10), ("t-2", 3, 20)),  # 1
    line(5, 1, ("s", 1, 0), ("t", 2, 10), ("t-2", 3, 20)),  # 1
    line(6, 1, ("t", 1, 0), ("t-2", 2, 1), ("s", 3, 2)),  # 0
    "Finished game 7 (deal 2, seed 5002): aborted (engine error)",
    line(8, 2, ("s", 1, 0), ("t", 2, 10), ("t-2", 3, 20)),  # deal 2 is incomplete
]


def test_the_score_is_pairwise_by_placement_and_counted_over_complete_deals(field):
    games = field.parse_games(LOG)
    assert len(games) == 7 and games[2] == (5000, {"t-2": 1, "t": 2, "s": 2})
    estimate = field.field_elo(games, "s", per_deal=3)
    assert (estimate.deals, estimate.games, estimate.dropped_games) == (2, 6, 1)
    deal_scores = [(1 + 0.5 + 0.25) / 3, (1 + 1 + 0) / 3]
    assert estimate.score == pytest.approx(sum(deal_scores) / 2)
    assert estimate.low < estimate.score < estimate.high
    assert "pairwise score" in str(estimate) and "1 games of incomplete deals left out" in str(estimate)


def test_plus_fifty_elo_is_a_pairwise_score_of_57_percent(field):
    games = [(deal, {"s": 1, "t": 2} if (deal * 7) % 100 < 57 else {"t": 1, "s": 2}) for deal in range(100)]
    estimate = field.field_elo(games, "s", per_deal=1)
    assert estimate.score == pytest.approx(0.57)
    assert estimate.elo == pytest.approx(48.9, abs=0.1)


def test_bad_input_is_one_clear_line(field, tmp_path, capsys):
    log = tmp_path / "match.log"
    log.write_text("\n".join(LOG))
    assert field.main([str(log), "--bot", "nobody"]) == 2
    assert capsys.readouterr().err.strip() == "field_elo: no bot named 'nobody' at seed 5000 (bots: s, t, t-2)"
    log.write_text("no games here\n")
    assert field.main([str(log), "--bot", "s"]) == 2
    assert "was the match run with -v?" in capsys.readouterr().err
    assert field.main([str(log.with_name("missing.log")), "--bot", "s"]) == 2
    assert "field_elo:" in capsys.readouterr().err
    log.write_text("\n".join(LOG))
    assert field.main([str(log), "--bot", "s"]) == 0
    assert capsys.readouterr().out.startswith("6 games in 2 deals: pairwise score 62.5%, Elo +88.7 (")


def test_runs_on_disjoint_seeds_combine_by_seed_and_overlapping_runs_are_an_error(field, tmp_path, capsys):
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_text("\n".join(LOG[:4]))  # deal 0 (seed 5000) complete
    # a second run counts its deals from 0 again: its deal 0 is seed 5001, a different deal
    second.write_text("\n".join(line(n, 0, *seats).replace("seed 5000", "seed 5001") for n, seats in [
        (1, (("s", 1, 0), ("t", 2, 10), ("t-2", 3, 20))),
        (2, (("s", 1, 0), ("t", 2, 10), ("t-2", 3, 20))),
        (3, (("t", 1, 0), ("t-2", 2, 1), ("s", 3, 2)))]))
    assert field.main([str(first), str(second), "--bot", "s"]) == 0
    together = capsys.readouterr().out
    assert together.startswith("6 games in 2 deals: pairwise score 62.5%")  # as the one log of the same games
    assert field.main([str(first), str(first), "--bot", "s"]) == 2
    assert "seed 5000 has 6 finished games for 3 seats" in capsys.readouterr().err


def test_two_versions_on_the_same_deals_compare_deal_by_deal_so_the_deals_luck_cancels(field, tmp_path, capsys):
    # Deal 0 is easy for both versions and deal 1 hard; the new one gains 1/3 on each, so the difference is
    # sure although each version's own estimate spreads widely. Deal 2 is complete in one set only.
    def rotations(deal, *won):  # the deal's games: s placed first (1) or second (0) in each
        return [line(3 * deal + k, deal, *((("s", 1, 0), ("t", 2, 1)) if w else (("s", 2, 1), ("t", 1, 0))))
                for k, w in enumerate(won)]

    old = rotations(0, 1, 0, 1) + rotations(1, 0, 0, 0) + rotations(2, 1, 1, 1)
    new = rotations(0, 1, 1, 1) + rotations(1, 1, 0, 0) + rotations(2, 1)
    paired = field.paired_elo(field.parse_games(new), field.parse_games(old), "s", per_deal=3)
    assert (paired.deals, paired.score, paired.other) == (2, pytest.approx(2 / 3), pytest.approx(1 / 3))
    assert paired.error == pytest.approx(0.0, abs=1e-12)
    assert field.field_elo(field.parse_games(new), "s", per_deal=3).low < 0.4  # alone, far less sure
    (tmp_path / "new.log").write_text("\n".join(new))
    (tmp_path / "old.log").write_text("\n".join(old))
    assert field.main([str(tmp_path / "new.log"), "--bot", "s", "--seats", "3",
                       "--against", str(tmp_path / "old.log")]) == 0
    printed = capsys.readouterr().out
    assert "2 deals in both: pairwise score 66.7% (+120.4) against 33.3% (-120.4): +33.33 ± 0.00 points" in printed
    with pytest.raises(ValueError, match="at least 2"):
        field.paired_elo(field.parse_games(new[:3]), field.parse_games(old), "s", per_deal=3)
