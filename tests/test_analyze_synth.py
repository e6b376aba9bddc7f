"""The synthetic generator's truths: exact per-task probabilities and population integrals vs simulation."""

from __future__ import annotations

import random

import pytest

from gatebench.analyze import synth

CFG = synth.SynthConfig(
    "g", gates=synth.GATED.gates, fix_logit=0.2, harm=0.1, timeout=0.05, budget=2,
)


@pytest.mark.parametrize("p_first", [0.15, 0.7])
def test_final_pass_prob_matches_simulated_runs(p_first):
    rng = random.Random(1)
    n = 30000
    hits = sum(synth._run(CFG, p_first, 0.55, rng)["solved"] for _ in range(n))
    exact = synth.final_pass_prob(CFG, p_first, 0.55)
    assert hits / n == pytest.approx(exact, abs=0.015)  # ~5 binomial SEs


def test_no_gate_means_final_equals_first_stop():
    assert synth.final_pass_prob(synth.BASELINE, 0.37, 0.9) == 0.37
    rng = random.Random(2)
    for _ in range(200):
        out = synth._run(synth.BASELINE, 0.5, 0.9, rng)
        assert out["solved"] == out["first"] and out["blocks"] == 0 and len(out["stops"]) == 1


def test_population_truth_matches_monte_carlo():
    pop = synth.Population(mu=0.3, sigma=1.2)
    cfg = synth.SynthConfig("g", gates=CFG.gates, fix_logit=0.0, fix_sd=0.8, harm=0.05, budget=3)
    rng = random.Random(3)
    n = 20000
    mc = sum(
        synth.final_pass_prob(cfg, synth.expit(rng.gauss(pop.mu, pop.sigma)), synth.expit(rng.gauss(0.0, 0.8)))
        for _ in range(n)
    ) / n
    assert synth.true_solve_rate(cfg, pop) == pytest.approx(mc, abs=0.006)
    assert synth.true_first_stop_rate(synth.Population(0.0, 1.5)) == pytest.approx(0.5, abs=1e-9)


def test_generated_records_are_valid_and_consistent():
    from gatebench.models.result import ResultRecord

    m = synth.generate([synth.BASELINE, CFG], tasks=3, reps=4, seed=4, infra_error=0.3)
    for d in m.records:
        r = ResultRecord.model_validate(d)
        if r.status == "ok" and r.stops:
            assert r.solved == r.stops[-1].oracle_solved
            assert r.first_stop_solved == r.stops[0].oracle_solved
            assert r.blocks == sum(s.decision == "block" for s in r.stops)
    retried = [d for d in m.records if d["attempt_no"] == 2]
    assert retried and all(d["status"] != "infra_error" for d in retried)
    assert len(m.records) - sum(d["status"] == "infra_error" for d in m.records) == 2 * 3 * 4
