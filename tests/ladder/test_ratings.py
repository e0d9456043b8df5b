"""The rating fit against hand-computed and independently computed answers."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arena.ladder.ratings import ELO_PER_NATURAL, LiveElo, RatedGame, aggregate, fit_bradley_terry


def games_between(a: str, b: str, wins: int, losses: int, draws: int = 0, start: int = 0):
    """Single games (each its own set) with a's wins, losses and draws against b."""
    out = []
    for k in range(wins):
        out.append(RatedGame(f"g{start + len(out)}", {a: 1, b: 2}))
    for k in range(losses):
        out.append(RatedGame(f"g{start + len(out)}", {a: 2, b: 1}))
    for k in range(draws):
        out.append(RatedGame(f"g{start + len(out)}", {a: 1, b: 1}))
    return out


def by_name(ratings):
    return {r.bot: r for r in ratings}


def test_two_bots_exact_mle_is_400_log10_of_win_ratio():
    table = by_name(fit_bradley_terry(games_between("a", "b", 30, 10), prior_draws=0))
    difference = table["a"].rating - table["b"].rating
    assert difference == pytest.approx(400 * math.log10(30 / 10), abs=1e-6)
    assert (table["a"].rating + table["b"].rating) / 2 == pytest.approx(1500)
    assert table["a"].games == table["b"].games == 40
    assert table["a"].score == pytest.approx(0.75)


def test_two_bots_interval_matches_hand_computed_fisher_information():
    # n=40, p=0.75: information of the difference = n p (1-p) = 7.5; each bot holds half.
    table = by_name(fit_bradley_terry(games_between("a", "b", 30, 10), prior_draws=0))
    sd_difference = 1 / math.sqrt(40 * 0.75 * 0.25)
    expected = 1.959963984540054 * (sd_difference / 2) * 400 / math.log(10)
    assert table["a"].ci == pytest.approx(expected, rel=1e-6)
    assert table["b"].ci == pytest.approx(expected, rel=1e-6)


def test_anchor_holds_named_bot_at_its_rating():
    table = by_name(fit_bradley_terry(games_between("a", "b", 30, 10), prior_draws=0, anchor="b", anchor_rating=1000))
    assert table["b"].rating == pytest.approx(1000)
    assert table["b"].ci == 0
    assert table["a"].rating == pytest.approx(1000 + 400 * math.log10(3), abs=1e-6)


def test_symmetric_results_give_equal_ratings():
    games = (
        games_between("a", "b", 5, 5)
        + games_between("b", "c", 5, 5, start=100)
        + games_between("c", "a", 5, 5, start=200)
    )
    ratings = fit_bradley_terry(games, prior_draws=0)
    for r in ratings:
        assert r.rating == pytest.approx(1500, abs=1e-6)
    assert len({round(r.ci, 6) for r in ratings}) == 1


def zermelo_mm(wins: np.ndarray, iterations: int = 20000) -> np.ndarray:
    """Zermelo's fixed-point iteration (an independent route to the same MLE)."""
    n = wins + wins.T
    strength = np.ones(len(wins))
    for _ in range(iterations):
        denominator = (n / (strength[:, None] + strength[None, :])).sum(axis=1)
        strength = wins.sum(axis=1) / denominator
        strength /= np.exp(np.log(strength).mean())
    return 400 * np.log10(strength)


def test_small_table_matches_zermelo_iteration():
    bots = ["a", "b", "c", "d"]
    wins = np.array([[0, 7, 6, 9], [3, 0, 5, 8], [4, 5, 0, 6], [1, 2, 4, 0]], dtype=float)
    games = []
    for i, a in enumerate(bots):
        for j, b in enumerate(bots):
            if i < j:
                games += games_between(a, b, int(wins[i, j]), int(wins[j, i]), start=len(games))
    fitted = by_name(fit_bradley_terry(games, prior_draws=0))
    expected = zermelo_mm(wins)
    for i, bot in enumerate(bots):
        assert fitted[bot].rating - 1500 == pytest.approx(expected[i], abs=1e-4)
    assert [r.bot for r in fit_bradley_terry(games, prior_draws=0)] == bots

    # And directly: moving any one rating by 1 Elo either way lowers the plain likelihood.
    def log_likelihood(ratings):
        total = 0.0
        for i, a in enumerate(bots):
            for j, b in enumerate(bots):
                if i != j:
                    total += wins[i, j] * math.log(1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400)))
        return total

    best = {bot: fitted[bot].rating for bot in bots}
    for bot in bots:
        for nudge in (-1.0, 1.0):
            assert log_likelihood({**best, bot: best[bot] + nudge}) < log_likelihood(best)


def test_intervals_shrink_with_more_games():
    few = by_name(fit_bradley_terry(games_between("a", "b", 6, 4)))
    many = by_name(fit_bradley_terry(games_between("a", "b", 600, 400)))
    assert many["a"].ci < few["a"].ci / 5
    assert many["a"].rating - many["b"].rating == pytest.approx(400 * math.log10(1.5), abs=1)


def test_undefeated_bot_stays_finite_with_prior():
    table = by_name(fit_bradley_terry(games_between("a", "b", 20, 0)))
    assert math.isfinite(table["a"].rating) and math.isfinite(table["a"].ci)
    assert table["a"].rating > table["b"].rating + 200
    # The prior: 2 virtual draws -> 21 of 22 points.
    assert table["a"].rating - table["b"].rating == pytest.approx(400 * math.log10(21), abs=1e-4)


def test_duplicate_set_counts_once_with_its_summed_score():
    # One set of two rotations, split 1-1: a draw-like observation, no rating gap.
    split = [RatedGame("s1", {"a": 1, "b": 2}), RatedGame("s1", {"a": 2, "b": 1})]
    table = by_name(fit_bradley_terry(split + games_between("a", "b", 1, 1, start=10), prior_draws=0))
    assert table["a"].rating == pytest.approx(table["b"].rating)
    # Three sets: a sweeps two, splits one -> set scores 1, 1, 0.5 -> 2.5 of 3.
    sets = []
    for set_id, results in (("x", (1, 1)), ("y", (1, 1)), ("z", (1, 2))):
        for rotation, a_place in enumerate(results):
            sets.append(RatedGame(set_id, {"a": a_place, "b": 3 - a_place}))
    sets += games_between("b", "a", 1, 0, start=50)  # keep b from being undefeated-against
    table = by_name(fit_bradley_terry(sets, prior_draws=0))
    assert table["a"].rating - table["b"].rating == pytest.approx(400 * math.log10(2.5 / 1.5), abs=1e-6)
    assert table["a"].games == 7


def test_multiplayer_game_counts_pairwise_by_placement():
    games = [RatedGame(f"g{k}", {"a": 1, "b": 2, "c": 3}) for k in range(5)]
    games += [RatedGame(f"h{k}", {"a": 3, "b": 2, "c": 1}) for k in range(1)]
    ratings = fit_bradley_terry(games)
    assert [r.bot for r in ratings] == ["a", "b", "c"]
    assert by_name(ratings)["a"].games == 6


def test_disconnected_bot_gets_an_infinite_interval_not_a_crash():
    games = games_between("a", "b", 3, 2) + games_between("c", "d", 1, 1, start=20) + games_between("c", "e", 2, 1, start=40)
    table = by_name(fit_bradley_terry(games))
    assert math.isinf(table["a"].ci) and math.isinf(table["b"].ci)
    assert math.isfinite(table["c"].ci)


def test_the_pinned_component_of_a_split_ladder_keeps_its_own_interval():
    """Two pairs that never met (the demo's random/random-2 and greedy/tactician early on)."""
    games = games_between("a", "b", 30, 10) + games_between("c", "d", 5, 5, start=100)
    table = by_name(fit_bradley_terry(games, prior_draws=0))
    alone = by_name(fit_bradley_terry(games_between("a", "b", 30, 10), prior_draws=0))
    pinned = [bot for bot in "abcd" if math.isfinite(table[bot].ci)]
    assert pinned in (["a", "b"], ["c", "d"])
    if pinned == ["a", "b"]:
        assert table["a"].ci == pytest.approx(alone["a"].ci, rel=1e-6)
    else:
        assert table["c"].ci < 400  # 10 even games: a few hundred Elo, not millions


def test_a_sparse_ladder_is_fitted_at_the_maximum_of_the_whole_likelihood():
    # 60 bots, 150 three-player games: most pairs never met (the fit works over the pairs that did).  At the
    # returned ratings the gradient of the likelihood over every ordered pair, computed here on the
    # whole matrix with the fit's prior draws, is zero: the same maximum as a dense fit.
    rng = random.Random(7)
    bots = [f"b{i:02d}" for i in range(60)]
    games = [RatedGame(f"g{g}", dict(zip(rng.sample(bots, 3), rng.choice([(1, 2, 3), (1, 1, 3), (2, 1, 3)]))))
             for g in range(150)]
    table = aggregate(games)
    assert (table.n > 0).sum() < 0.3 * len(bots) ** 2
    ratings = by_name(fit_bradley_terry(games))
    theta = np.array([ratings[b].rating for b in table.bots]) / ELO_PER_NATURAL
    met = table.n > 0
    n = table.n + np.where(met, 2.0, 0.0)
    s = table.s + np.where(met, 1.0, 0.0)
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    assert np.abs((s - n * p).sum(axis=1)).max() < 1e-6
    assert np.mean([r.rating for r in ratings.values()]) == pytest.approx(1500.0)
    assert all(math.isfinite(r.ci) and r.ci > 0 for r in ratings.values())


def test_live_elo_moves_winner_up_by_k_half_and_conserves_points():
    elo = LiveElo(k=32)
    change = elo.update("moumou", {"a": 1, "b": 2})
    assert change["a"] == pytest.approx(16)
    assert change["b"] == pytest.approx(-16)
    change = elo.update("moumou", {"a": 1, "b": 1, "c": 3})
    assert sum(change.values()) == pytest.approx(0)
    assert elo.rating("moumou", "c") < 1500
    assert elo.rating("other", "a") == 1500


def test_arena_serve_keeps_blas_on_one_thread():
    """`arena serve` calls it before fitting: OpenBLAS's own threads made a fit cost several times its CPU."""
    from threadpoolctl import threadpool_info

    from arena.ladder.ratings import single_threaded_linear_algebra

    single_threaded_linear_algebra()
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas and all(pool["num_threads"] == 1 for pool in blas)
