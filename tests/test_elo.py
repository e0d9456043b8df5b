"""Match statistics against hand-computed values, and the SPRT on clear synthetic data."""

from __future__ import annotations

import math
import random

import pytest

from arena.ladder.elo import (
    SPRT,
    elo_from_pairs,
    elo_from_wdl,
    elo_to_score,
    likelihood_of_superiority,
    pair_bucket,
    score_to_elo,
)


def test_score_and_elo_are_inverse_on_the_400_logistic_scale():
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)   # 10:1 odds at 400 points
    assert score_to_elo(0.75) == pytest.approx(400 * math.log10(3))
    for elo in (-600, -35.5, 0, 12, 250):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf
    with pytest.raises(ValueError):
        score_to_elo(1.2)


def test_60_wins_20_draws_20_losses():
    # score 0.7; per-game variance 0.6*0.3^2 + 0.2*0.2^2 + 0.2*0.7^2 = 0.16; standard error 0.04
    estimate = elo_from_wdl(60, 20, 20)
    assert estimate.score == pytest.approx(0.7)
    assert estimate.elo == pytest.approx(147.19, abs=0.01)          # -400 log10(1/0.7 - 1)
    assert estimate.low == pytest.approx(-400 * math.log10(1 / (0.7 - 1.959964 * 0.04) - 1), abs=0.01)
    assert estimate.high == pytest.approx(-400 * math.log10(1 / (0.7 + 1.959964 * 0.04) - 1), abs=0.01)
    assert estimate.low == pytest.approx(86.25, abs=0.05) and estimate.high == pytest.approx(218.23, abs=0.05)
    assert estimate.games == 100 and estimate.draw_ratio == pytest.approx(0.2)
    assert estimate.los == pytest.approx(0.5 * (1 + math.erf(40 / math.sqrt(160))))
    assert str(estimate) == f"+147.2 +/- {estimate.margin:.1f}"


def test_even_results_are_zero_elo_with_a_symmetric_interval():
    estimate = elo_from_wdl(30, 40, 30)
    assert estimate.elo == pytest.approx(0.0)
    assert estimate.low == pytest.approx(-estimate.high)
    assert estimate.los == 0.5


def test_the_interval_shrinks_with_more_games():
    small, large = elo_from_wdl(6, 2, 2), elo_from_wdl(600, 200, 200)
    assert small.elo == pytest.approx(large.elo)
    assert large.margin < small.margin / 5


def test_a_clean_sweep_has_an_infinite_estimate_not_a_crash():
    estimate = elo_from_wdl(10, 0, 0)
    assert estimate.elo == math.inf
    with pytest.raises(ValueError, match="no games"):
        elo_from_wdl(0, 0, 0)
    with pytest.raises(ValueError):
        elo_from_wdl(-1, 0, 3)


def test_pentanomial_estimate_by_hand():
    # pairs scoring 0, 0.5, 1, 1.5, 2 out of 2: per-game means 0, .25, .5, .75, 1
    pairs = [5, 10, 50, 25, 10]
    mean = (0 * 5 + 0.25 * 10 + 0.5 * 50 + 0.75 * 25 + 1 * 10) / 100
    variance = sum(c * (v - mean) ** 2 for v, c in zip((0, 0.25, 0.5, 0.75, 1), pairs)) / 100
    estimate = elo_from_pairs(pairs)
    assert estimate.score == pytest.approx(mean)
    assert estimate.elo == pytest.approx(score_to_elo(mean))
    assert estimate.high == pytest.approx(score_to_elo(mean + 1.959964 * math.sqrt(variance / 100)), abs=0.01)
    assert estimate.games == 200


def test_correlated_pairs_give_a_narrower_interval_than_counting_the_games_alone():
    # Every pair is 1-1 or 2-0: deals decide single games, so the pair view removes that noise.
    pairs = [0, 0, 80, 0, 20]
    as_games = elo_from_wdl(wins=80 + 40, draws=0, losses=80)
    assert elo_from_pairs(pairs).margin < as_games.margin


def test_pair_bucket():
    assert [pair_bucket(a, b) for a, b in [(0, 0), (0.5, 0), (1, 0), (0.5, 1), (1, 1)]] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError):
        pair_bucket(1, 1.5)


def test_los():
    assert likelihood_of_superiority(0, 0) == 0.5
    assert likelihood_of_superiority(60, 20) > 0.999
    assert likelihood_of_superiority(20, 60) < 0.001


def test_sprt_bounds():
    sprt = SPRT(0, 10, alpha=0.05, beta=0.05)
    assert sprt.bounds == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert sprt.llr() == 0.0 and sprt.verdict() is None


def test_sprt_without_draws_is_the_classical_binomial_sprt():
    # With only wins and losses the constrained MLE is p(win) = s, so LLR = W log(s1/s0) + L log((1-s1)/(1-s0)).
    sprt = SPRT(-20, 30)
    s0, s1 = elo_to_score(-20), elo_to_score(30)
    expected = 70 * math.log(s1 / s0) + 50 * math.log((1 - s1) / (1 - s0))
    assert sprt.llr(70, 0, 50) == pytest.approx(expected, rel=1e-3)


def test_sprt_matches_the_normal_approximation_on_large_samples():
    sprt = SPRT(0, 10)
    s0, s1 = 0.5, elo_to_score(10)
    wins, draws, losses = 4300, 2000, 3700
    n = wins + draws + losses
    mean = (wins + draws / 2) / n
    variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / n
    approximation = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert sprt.llr(wins, draws, losses) == pytest.approx(approximation, rel=0.02)


def test_sprt_is_not_fooled_by_a_few_one_sided_games():
    sprt = SPRT(0, 10)
    assert sprt.verdict(3, 0, 0) is None and 0 < sprt.llr(3, 0, 0) < 1
    assert sprt.verdict(pairs=[0, 0, 0, 0, 2]) is None


def test_sprt_rejects_bad_parameters():
    with pytest.raises(ValueError, match="elo1 > elo0"):
        SPRT(5, 0)
    with pytest.raises(ValueError, match="alpha"):
        SPRT(0, 5, alpha=0.7)


def _simulate(sprt, elo, rng, limit=20000, draw_rate=0.2, pentanomial=False):
    """Play synthetic games until the SPRT decides; returns (verdict, games)."""
    p_win = elo_to_score(elo) - draw_rate / 2
    wdl = [0, 0, 0]
    pairs = [0] * 5
    for n in range(1, limit + 1):
        results = []
        for _ in range(2 if pentanomial else 1):
            r = rng.random()
            result = 1.0 if r < p_win else 0.5 if r < p_win + draw_rate else 0.0
            results.append(result)
            wdl[{1.0: 0, 0.5: 1, 0.0: 2}[result]] += 1
        if pentanomial:
            pairs[pair_bucket(*results)] += 1
            verdict = sprt.verdict(pairs=pairs)
        else:
            verdict = sprt.verdict(*wdl)
        if verdict:
            return verdict, n
    return None, limit


@pytest.mark.parametrize("pentanomial", [False, True])
def test_sprt_accepts_h1_for_a_clearly_stronger_player_and_h0_for_an_equal_one(pentanomial):
    rng = random.Random(2024)
    sprt = SPRT(0, 50)
    assert _simulate(sprt, 150, rng, pentanomial=pentanomial)[0] == "H1"
    assert _simulate(sprt, -100, rng, pentanomial=pentanomial)[0] == "H0"


def test_sprt_error_rates_are_near_alpha_and_beta():
    rng = random.Random(7)
    sprt = SPRT(0, 60, alpha=0.1, beta=0.1)
    runs = 40
    false_h1 = sum(_simulate(sprt, 0, rng)[0] == "H1" for _ in range(runs))
    false_h0 = sum(_simulate(sprt, 60, rng)[0] == "H0" for _ in range(runs))
    assert false_h1 <= runs * 0.25 and false_h0 <= runs * 0.25
