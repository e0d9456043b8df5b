"""scripts/bench_clock_charge.py: the figures it prints follow the runner's charging rule, on a real server.

The script measures, per decision of a thinking bot, what the runner charges it against what the bot
itself spent thinking.  The invariants below hold whatever the machine's load, because every stamp is
taken on one clock (CLOCK_MONOTONIC, shared by the server and the bot processes): they would break if
the server's writer stamped a request after the bot could already read it, if the reader stamped an
answer before the bot wrote it, or if the script's copy of the runner's rule drifted from it.
"""

from __future__ import annotations

import sys

import pytest

from tests.scripts_loaded import load_script

THINK_MS = 20
CREDIT_MS = 100


@pytest.fixture
def bench(monkeypatch):
    return load_script(monkeypatch, "bench_clock_charge")


def test_a_thinking_bot_is_charged_its_own_time_plus_the_wire_and_at_most_the_credited_queue(bench):
    rows = bench.measure(busy=2, thinkers=1, seconds=1.5, warmup=0.3, think_ms=THINK_MS, credit_ms=CREDIT_MS)
    assert len(rows) >= 10, f"only {len(rows)} decisions measured"
    for from_creation, from_write, queued, own, to_read, to_stamp in rows:
        assert own >= THINK_MS                      # the bot slept its think time between read and write
        assert to_read >= 0 and to_stamp >= 0       # written before the bot read it; read after it was written
        assert queued >= 0
        # the runner's rule: the clock starts at the write, but no later than CREDIT_MS after creation
        assert from_creation - from_write == pytest.approx(min(queued, CREDIT_MS), abs=1e-6)
        # never charged less than it thought: its think time lies inside the charged window
        assert from_write >= own - 1e-6


def test_the_report_prints_medians_of_the_charge_over_own_time(bench, monkeypatch, capsys):
    # (from creation, from write, queued, own, written -> read, write -> stamp), ms
    rows = [(30.0, 25.0, 5.0, 21.0, 1.0, 2.0), (150.0, 40.0, 110.0, 22.0, 3.0, 4.0), (26.0, 24.0, 2.0, 20.0, 1.0, 1.0)]
    monkeypatch.setattr(bench, "measure", lambda *args: rows)
    monkeypatch.setattr(sys, "argv", ["bench_clock_charge.py", "--seconds", "1", "--credit-ms", "100"])
    assert bench.main() == 0
    out = capsys.readouterr().out
    assert "write credit 100 ms" in out and "3 decisions" in out
    creation = next(line for line in out.splitlines() if "from creation - own" in line).split()
    write = next(line for line in out.splitlines() if "from write - own" in line).split()
    assert creation[creation.index("median") + 1] == "9.00" and creation[creation.index("max") + 1] == "128.00"
    assert write[write.index("median") + 1] == "4.00" and write[write.index("max") + 1] == "18.00"


def test_no_decision_measured_is_a_failure_exit(bench, monkeypatch, capsys):
    monkeypatch.setattr(bench, "measure", lambda *args: [])
    monkeypatch.setattr(sys, "argv", ["bench_clock_charge.py"])
    assert bench.main() == 1
    assert "no decision measured" in capsys.readouterr().out
