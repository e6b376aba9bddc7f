"""A small version of scripts/calibrate_analyze.py: coverage in a loose band, efficiency of the counterfactual.

The full script runs 1000 matrices per experiment and asserts 93-97%; here ~100 matrices keep the
test fast, so the band is loose (a binomial SE of ~2.2 points at 95%), but a CI that ignored the
task clustering or sat off-centre would still fall out of it.
"""

from __future__ import annotations

import dataclasses

import pytest

from gatebench.analyze import calibrate, synth

KW = {"tasks": 12, "reps": 4, "resamples": 400}


@pytest.mark.slow
def test_delta_and_solve_rate_intervals_cover_the_population_truth():
    r = calibrate.coverage_delta(calibrate.GATED, calibrate.BASELINE, calibrate.POPULATION,
                                 matrices=100, seed=3, **KW)
    assert r["bootstrap"].total == 100
    assert 0.87 <= r["bootstrap"].coverage <= 1.0
    assert 0.87 <= r["rate"].coverage <= 1.0


@pytest.mark.slow
def test_aa_covers_zero():
    a1 = calibrate.aa_config(calibrate.GATED, "A1")
    a2 = calibrate.aa_config(calibrate.GATED, "A2")
    assert synth.true_delta(a2, a1, calibrate.POPULATION) == 0.0
    r = calibrate.coverage_delta(a2, a1, calibrate.POPULATION, matrices=100, seed=4, **KW)
    assert 0.87 <= r["bootstrap"].coverage <= 1.0


@pytest.mark.slow
def test_clustering_matters_the_naive_rate_interval_undercovers():
    # Tasks that differ a lot and many reps each: runs of one task are far from independent.
    pop = synth.Population(mu=0.0, sigma=2.5)
    cfg = dataclasses.replace(calibrate.GATED, fix_sd=0.0)
    r = calibrate.coverage_delta(cfg, calibrate.BASELINE, pop, tasks=12, reps=8, matrices=80, seed=5, resamples=200)
    assert r["rate_naive"].coverage < 0.80
    assert r["rate"].coverage >= 0.87


@pytest.mark.slow
def test_within_run_counterfactual_needs_fewer_runs():
    e = calibrate.efficiency(calibrate.GATED, calibrate.BASELINE, calibrate.POPULATION, matrices=60, seed=6, **KW)
    ratio = e["within_run"].mean_width / e["two_arm_unpaired"].mean_width
    assert ratio <= 0.5
    assert e["within_run"].mean_width < e["two_arm_paired"].mean_width
    assert e["validity"].coverage >= 0.85  # first-stop rate of gated runs = the baseline's final rate
    assert calibrate.runs_for_half_width(48, 0.2) == 48 * 4


def test_efficiency_needs_an_even_split():
    with pytest.raises(ValueError):
        calibrate.efficiency(calibrate.GATED, calibrate.BASELINE, calibrate.POPULATION, tasks=4, reps=3,
                             matrices=1, seed=0, resamples=100)


@pytest.mark.slow
@pytest.mark.parametrize("comparison", ["within", "between"])
def test_the_planners_advice_followed_lands_within_20_percent_of_the_target(comparison):
    steps = calibrate.follow_steps(calibrate.GATED, calibrate.BASELINE, calibrate.POPULATION, 12, 4, 30, 8,
                                   comparison)
    assert len(steps.ratios) == 30 and steps.within_20 >= 0.8, steps.ratios
    # Planning once from a dozen tasks cannot do it: the sd is known only to about ±20% (this is what the
    # step-by-step advice is for, and what a one-shot planner would be caught by).
    once = calibrate.follow_plans(calibrate.GATED, calibrate.BASELINE, calibrate.POPULATION, 12, 4, 30, 8,
                                  comparison)
    assert once.within_20 < 0.8
