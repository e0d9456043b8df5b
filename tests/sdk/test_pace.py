"""The pace computation (`mau_arena_sdk.pace`) with fixed numbers: the quantile, the fallbacks, the cap."""

from __future__ import annotations

import pytest

from mau_arena_sdk.pace import COLD_PACE_S, Pacer, pace_s, quantile, release_at


def test_quantile_is_the_nearest_rank_sample():
    samples = [0.05, 0.01, 0.03, 0.02, 0.04, 0.06, 0.07, 0.08, 0.09, 0.10]
    assert quantile(samples, 0.9) == 0.09   # 9 of 10 at or below it
    assert quantile(samples, 1.0) == 0.10
    assert quantile(samples, 0.5) == 0.05
    assert quantile(samples, 0.01) == 0.01
    assert quantile([0.2], 0.9) == 0.2
    assert quantile([], 0.9) is None


def test_the_pace_falls_back_to_the_pooled_samples_then_to_the_cold_pace():
    assert pace_s([0.1, 0.3, 0.2], [9.0]) == 0.3
    assert pace_s([], [0.4, 0.1]) == 0.4
    assert pace_s([], []) == COLD_PACE_S
    assert pace_s([], [], cold_s=0.0) == 0.0


def test_the_hold_never_takes_more_than_the_share_of_the_decisions_limit():
    assert release_at(10.0, 0.3, 1000) == pytest.approx(10.3)
    assert release_at(10.0, 0.8, 1000) == pytest.approx(10.5)       # half of 1,000 ms
    assert release_at(10.0, 0.8, 1000, share=0.25) == pytest.approx(10.25)
    assert release_at(10.0, 0.8, 0) == 10.0                          # no time left: no hold at all


class FakeClock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_forced_answer_is_held_to_the_quantile_of_the_earlier_choices():
    clock = FakeClock()
    pacer = Pacer(clock, q=0.9, window=10, cold_s=0.0)
    key = ("maumau", 2)
    for think in (0.040, 0.050, 0.060, 0.070, 0.080, 0.090, 0.100, 0.110, 0.120, 0.130):
        received = clock.now
        clock.now += think
        hold = pacer.hold_s(key, received, 60_000, choice=True)
        clock.now += hold
    assert pacer.pace(key) == pytest.approx(0.120)
    received = clock.now
    clock.now += 0.001  # a forced decision answered in a millisecond
    assert pacer.hold_s(key, received, 60_000, choice=False) == pytest.approx(0.119)
    assert pacer.pace(key) == pytest.approx(0.120)  # a forced decision teaches nothing
    received = clock.now
    clock.now += 0.500  # a long search: sent at once, and learned (the oldest sample, 40 ms, leaves the window)
    assert pacer.hold_s(key, received, 60_000, choice=True) == 0.0
    assert pacer.pace(key) == pytest.approx(0.130)


def test_the_pace_is_learned_per_ruleset_and_table_size_and_capped_by_the_limit():
    clock = FakeClock()
    pacer = Pacer(clock, q=0.9, window=8, cold_s=0.25)
    assert pacer.pace(("mose", 2)) == 0.25                # nothing learned: the cold pace
    received = clock.now
    clock.now += 0.3
    assert pacer.hold_s(("mose", 2), received, 60_000, choice=True) == 0.0
    assert pacer.pace(("mose", 2)) == pytest.approx(0.3)
    assert pacer.pace(("maumau", 2)) == pytest.approx(0.3)   # another ruleset: the pooled choices until its own
    received = clock.now
    clock.now += 0.01
    pacer.hold_s(("maumau", 2), received, 60_000, choice=True)
    assert pacer.pace(("maumau", 2)) == pytest.approx(0.01)
    assert pacer.pace(("mose", 2)) == pytest.approx(0.3)
    received = clock.now
    clock.now += 0.001
    # Mose's pace is 300 ms, but the decision's limit is 400 ms: at most 200 ms after the request arrived.
    assert pacer.hold_s(("mose", 2), received, 400, choice=False) == pytest.approx(0.199)
    with pytest.raises(ValueError, match="quantile"):
        Pacer(clock, q=0.0)


def test_a_decision_kind_is_paced_by_its_own_choices_and_falls_back_to_its_rulesets():
    # A 4-seat Mose game asks each seat hundreds of lone passes in windows: held to the pace of its turns (searched
    # longer), they made the game minutes longer; the kind a seat faces is public, so its own pace hides as much.
    now = [0.0]
    pacer = Pacer(lambda: now[0], q=0.9, window=8, cold_s=0.25)
    turn, window = ("mose", 4, "turn"), ("mose", 4, "window")
    for think in (0.40, 0.42, 0.38):  # choices in turns
        received = now[0]
        now[0] += think
        pacer.hold_s(turn, received, 60_000, choice=True)
    assert pacer.pace(window) == pytest.approx(0.42)  # no window choice yet: the ruleset's and table's pace
    received = now[0]
    now[0] += 0.05
    pacer.hold_s(window, received, 60_000, choice=True)  # one window choice, searched briefly
    assert pacer.pace(window) == pytest.approx(0.05)
    assert pacer.pace(turn) == pytest.approx(0.42)
    received = now[0]
    now[0] += 0.001
    assert pacer.hold_s(window, received, 60_000, choice=False) == pytest.approx(0.049)  # a lone pass waits 50 ms
    assert pacer.pace(("mose", 4, "suit")) == pytest.approx(0.42)  # the ruleset's, both kinds together
    assert pacer.pace(("maumau", 2, "turn")) == pytest.approx(0.42)  # another ruleset: every choice so far
