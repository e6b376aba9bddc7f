"""gatebench.analyze.stats against known values and brute force."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from gatebench.analyze import stats


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [(0.975, 11, 2.200985), (0.975, 1, 12.706205), (0.975, 30, 2.042272), (0.995, 5, 4.032143),
     (0.9, 3, 1.637744), (0.025, 11, -2.200985), (0.5, 7, 0.0)],
)
def test_t_quantile_matches_tables(p, df, expected):
    assert stats.t_quantile(p, df) == pytest.approx(expected, abs=2e-6)


def test_t_cdf_inverts_quantile_and_tends_to_normal():
    for df in (1, 2.5, 11, 200):
        for p in (0.01, 0.3, 0.9, 0.999):
            assert stats.t_cdf(stats.t_quantile(p, df), df) == pytest.approx(p, abs=1e-9)
    assert stats.t_quantile(0.975, 1e8) == pytest.approx(1.959964, abs=1e-6)


def test_wilson_known_values():
    lo, hi = stats.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.277533, abs=1e-6)
    lo, hi = stats.wilson(5, 10)
    assert (lo, hi) == (pytest.approx(0.236593, abs=1e-6), pytest.approx(0.763407, abs=1e-6))
    lo, hi = stats.wilson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.722467, abs=1e-6)
    with pytest.raises(ValueError):
        stats.wilson(0, 0)


def test_mcnemar_exact_known_values_and_large_n():
    assert stats.mcnemar_exact(1, 9) == pytest.approx(22 / 1024)
    assert stats.mcnemar_exact(9, 1) == pytest.approx(22 / 1024)
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(5, 5) == 1.0
    assert stats.mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    # The log-space path (n > 1000) agrees with exact integer arithmetic.
    b, c = 480, 560
    exact = 2 * sum(math.comb(b + c, i) for i in range(b + 1)) / 2 ** (b + c)
    assert stats.mcnemar_exact(b, c) == pytest.approx(exact, rel=1e-9)
    assert stats.mcnemar_exact(3000, 3000) == 1.0


@pytest.mark.parametrize(("n", "c"), [(5, 0), (5, 2), (6, 3), (6, 6), (7, 1)])
def test_pass_k_estimators_equal_brute_force_over_subsets(n, c):
    outcomes = [1] * c + [0] * (n - c)
    for k in range(1, n + 1):
        subsets = list(itertools.combinations(outcomes, k))
        any_ok = sum(any(s) for s in subsets) / len(subsets)
        all_ok = sum(all(s) for s in subsets) / len(subsets)
        assert stats.pass_at_k(n, c, k) == pytest.approx(any_ok)
        assert stats.pass_hat_k(n, c, k) == pytest.approx(all_ok)
    with pytest.raises(ValueError):
        stats.pass_at_k(3, 1, 4)


def test_expanded_alpha_widens_for_few_clusters():
    a12 = stats.expanded_alpha(12)
    z = math.sqrt(12 / 11) * stats.t_quantile(0.975, 11)
    assert a12 == pytest.approx(2 * (1 - stats._NORMAL.cdf(z)))
    assert a12 < 0.05
    assert stats.expanded_alpha(500) == pytest.approx(0.05, abs=0.002)


def test_cluster_bootstrap_is_seeded_and_matches_the_t_interval_on_smooth_data():
    rng = random.Random(3)
    values = [rng.gauss(0.2, 0.3) for _ in range(40)]
    a = stats.cluster_bootstrap_mean(values, 4000, seed="x")
    assert a == stats.cluster_bootstrap_mean(values, 4000, seed="x")
    assert a != stats.cluster_bootstrap_mean(values, 4000, seed="y")
    est, lo, hi = a
    _, tlo, thi = stats.t_interval_mean(values)
    assert est == pytest.approx(sum(values) / 40)
    assert lo < est < hi
    assert hi - lo == pytest.approx(thi - tlo, rel=0.12)


def test_cluster_bootstrap_edge_cases():
    assert stats.cluster_bootstrap_mean([0.3]) == (0.3, None, None)
    assert stats.cluster_bootstrap_mean([0.5, 0.5, 0.5]) == (0.5, 0.5, 0.5)
    with pytest.raises(ValueError):
        stats.cluster_bootstrap_mean([])


def test_clustered_rate_counts_clusters_not_runs_when_tasks_agree_internally():
    # Every run of a task has the same outcome: 100 reps per task say no more than 1.
    one = stats.clustered_rate([(1, 1)] * 6 + [(0, 1)] * 6)
    hundred = stats.clustered_rate([(100, 100)] * 6 + [(0, 100)] * 6)
    assert hundred[1:3] == pytest.approx(one[1:3])
    assert hundred[3] == pytest.approx(11.0)
    # Identical tasks, variation within them only: every run counts.
    p, lo, hi, n_eff = stats.clustered_rate([(50, 100), (48, 100), (52, 100)])
    naive = stats.wilson(150, 300)
    assert n_eff == 300
    assert hi - lo > naive[1] - naive[0]  # t on 2 df, not z
    # No success anywhere: a non-degenerate interval from the number of tasks.
    p, lo, hi, n_eff = stats.clustered_rate([(0, 5)] * 12)
    assert (p, lo, n_eff) == (0.0, 0.0, 12.0)
    assert 0.15 < hi < 0.35


def test_quantile_interpolates():
    xs = [0.0, 1.0, 2.0, 3.0]
    assert stats.quantile(xs, 0.5) == 1.5
    assert stats.quantile(xs, 0.0) == 0.0
    assert stats.quantile(xs, 1.0) == 3.0


def test_below_the_few_tasks_threshold_no_delta_interval_and_no_half_width_that_disagrees():
    """2 tasks gave Δ [0.0, 33.3] beside a planned half-width of ±211.8 (issue 33): one statement only now."""
    from fractions import Fraction

    from gatebench.analyze import planner
    from gatebench.analyze.metrics import MIN_BOOTSTRAP_TASKS, bootstrap

    settings = {"resamples": 500, "seed": 0, "confidence": 0.95}
    two = [Fraction(0), Fraction(1, 3)]
    e = bootstrap(two, "d", settings)
    assert (e.value, e.lo, e.hi) == (float(Fraction(1, 6)), None, None)
    plan = planner.make_plan("c", "between", "none", [0.0, 1 / 3], [(6, 0.1), (6, 0.1)], 0.05, 0.95)
    assert plan.halfwidth is None and "fewer than" in plan.note and plan.tasks_needed
    five = [Fraction(k, 4) for k in (0, 1, 1, 2, 3)][:MIN_BOOTSTRAP_TASKS]
    e5 = bootstrap(five, "d", settings)
    assert e5.lo is not None and e5.hi is not None and e5.lo < e5.value < e5.hi
    p5 = planner.make_plan("c", "between", "none", [float(x) for x in five], [(10, 0.1), (10, 0.1)], 0.05, 0.95)
    assert p5.halfwidth is not None and "fewer than" not in p5.note
