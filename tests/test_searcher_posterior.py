"""scripts/searcher_posterior.py: the real hand always agrees with the model, and the drawn hands are scored against it."""

from __future__ import annotations

from tests.scripts_loaded import load_script


def test_one_deal_counts_decisions_and_the_real_assignment_agrees_at_each(monkeypatch):
    script = load_script(monkeypatch, "searcher_posterior")
    totals = dict.fromkeys(("ms", "decisions", "active", "exact", "uniform", "settled", "overlap", "tells"), 0.0)
    script.play(9001, 0, 2, False, totals)
    assert totals["decisions"] > 0 and totals["active"] > 0
    assert totals["exact"] == totals["active"]  # a misread rule or choice would make the real hand impossible
    assert totals["settled"] == totals["active"]
    assert 0 < totals["overlap"] / totals["settled"] <= 1 and 0 < totals["tells"] / totals["settled"] <= 1
