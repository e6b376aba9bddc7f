"""Metrics, Δ, counterfactual and gate tallies on a small ledger whose every number is worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatebench.analyze import load, metrics, pipeline

F, T = False, True


def stop(oracle, decision, **verdicts):
    return {"attempt": 1, "decision": decision, "oracle_solved": oracle,
            "gates": [{"name": n, "kind": n, "verdict": v} for n, v in verdicts.items()]}


def rec(config, task, rep, solved, stops=(), status="ok", cost=0.1, reviewer=0.0, **kw) -> dict:
    d = {"v": 1, "run_id": "r1", "cell_id": f"{config}/{task}/{rep}", "config": config, "task": task, "rep": rep,
         "worker": "sim", "status": status, "solved": solved, "stops": list(stops), "cost_usd": cost,
         "reviewer_cost_usd": reviewer, "versions": {"gatebench": "0.1.0"},
         "blocks": sum(s["decision"] == "block" for s in stops)}
    d.update(kw)
    return d


def base_ledger() -> list[dict]:
    g = {"cost": 0.2, "reviewer": 0.05}
    return [
        rec("none", "T1", 0, T, [stop(T, "allow")]),
        rec("none", "T1", 1, F, [stop(F, "allow")]),
        rec("none", "T2", 0, F, [stop(F, "allow")]),
        rec("none", "T2", 1, F, [stop(F, "allow")]),
        rec("g", "T1", 0, T, [stop(F, "block", tests="block"), stop(T, "allow", tests="pass")], **g),  # rescue
        rec("g", "T1", 1, T, [stop(T, "allow", tests="pass")], **g),
        rec("g", "T2", 0, F, [stop(F, "block", tests="block"), stop(F, "allow", tests="pass")], **g),
        rec("g", "T2", 1, F, [stop(T, "block", tests="block"), stop(F, "allow", tests="pass")], **g),  # harm
    ]


def analyze(records: list[dict], baseline="none", **kw):
    runs = [load.to_run(d, f"x:{i}", "/runs/r1") for i, d in enumerate(records)]
    return pipeline.build(load.Loaded(runs=runs), baseline, Path("/runs/r1/analysis"), **kw)


def by(items, config):
    return next(x for x in items if x.config == config)


def test_rates_delta_and_mcnemar():
    a = analyze(base_ledger())
    none, g = by(a.configs, "none"), by(a.configs, "g")
    assert (none.solve_rate.value, g.solve_rate.value) == (0.25, 0.5)
    assert (none.solved, none.runs, g.solved, g.runs) == (1, 4, 2, 4)
    d = by(a.deltas, "g")
    assert d.tasks == 2
    # Per-task differences +0.5 (T1) and 0 (T2): two clusters, so the interval spans their extremes.
    # 2 tasks: below MIN_BOOTSTRAP_TASKS no interval (a bootstrap over 2 clusters gave [0, 50] here: the data's range)
    assert (d.estimate.value, d.estimate.lo, d.estimate.hi) == (0.25, None, None)
    assert (d.mcnemar.pairs, d.mcnemar.baseline_only, d.mcnemar.config_only) == (4, 0, 1)
    assert d.mcnemar.p_value == 1.0
    assert [x.config for x in a.deltas] == ["g"]


def test_counterfactual_rescue_harm_and_validity():
    a = analyze(base_ledger())
    cf = by(a.counterfactual, "g")
    assert (cf.runs, cf.unknown, cf.first_stop_rate, cf.final_rate) == (4, 0, 0.5, 0.5)
    assert cf.delta.value == 0.0  # T1: +0.5, T2: -0.5
    assert (cf.rescue.k, cf.rescue.n, cf.harm.k, cf.harm.n) == (1, 2, 1, 2)
    assert cf.between_delta.value == 0.25
    v = cf.validity
    assert (v.tasks, v.baseline_final_rate, v.first_stop_rate) == (2, 0.25, 0.5)
    assert v.difference.value == 0.25
    base_cf = by(a.counterfactual, "none")
    assert base_cf.delta.value == 0.0 and base_cf.validity is None


def test_gate_confusion_matrix():
    a = analyze(base_ledger())
    (t,) = [x for x in a.gates if x.config == "g"]
    assert (t.gate, t.tp, t.fp, t.fn, t.tn, t.verdicts) == ("tests", 2, 1, 2, 2, 7)
    assert t.precision.value == pytest.approx(2 / 3)
    assert t.recall.value == pytest.approx(2 / 4)
    assert t.false_block_rate.value == pytest.approx(1 / 3)
    assert t.recall.lo < 0.5 < t.recall.hi
    assert not [x for x in a.gates if x.config == "none"]  # no gate, no row


def test_any_row_errors_skipped_and_missing_oracle():
    recs = [
        rec("two", "T1", 0, T, [stop(F, "block", a="block", b="skipped"), stop(T, "allow", a="pass", b="pass")]),
        rec("two", "T1", 1, T, [stop(None, "allow", a="pass", b="error"), stop(T, "allow", a="error", b="pass")]),
    ]
    a = analyze(recs, baseline=None)
    rows = {g.gate: g for g in a.gates}
    assert list(rows) == ["a", "b", "(any)"]
    assert (rows["a"].tp, rows["a"].tn, rows["a"].errors, rows["a"].no_oracle) == (1, 1, 1, 1)
    assert (rows["b"].tn, rows["b"].skipped, rows["b"].errors) == (2, 1, 1)
    # (any): stop 1 blocked on a failing state, stops 2 and 4 passed a passing state, stop 3 had no oracle.
    assert (rows["(any)"].tp, rows["(any)"].tn, rows["(any)"].no_oracle) == (1, 2, 1)


def test_costs_pareto_and_matrix():
    a = analyze(base_ledger())
    none, g = by(a.configs, "none"), by(a.configs, "g")
    assert none.cost_per_run == pytest.approx(0.1) and g.cost_per_run == pytest.approx(0.25)
    assert g.reviewer_cost_per_run == pytest.approx(0.05)
    assert none.cost_per_solve == pytest.approx(0.4) and g.cost_per_solve == pytest.approx(0.5)
    assert g.blocks_per_run == pytest.approx(0.75)
    assert a.pareto == ["none", "g"]
    assert a.matrix.tasks == ["T2", "T1"]  # hardest first
    assert a.matrix.configs == ["none", "g"]  # baseline first
    assert [[c.solved for c in row] for row in a.matrix.cells] == [[0, 0], [1, 2]]


def test_pareto_drops_dominated_configs():
    pts = {"a": (1.0, 0.5), "b": (2.0, 0.6), "c": (2.0, 0.4), "d": (0.5, 0.5)}
    assert metrics.pareto(pts) == ["d", "b"]


def test_timeouts_score_as_unsolved_and_infra_errors_are_excluded():
    recs = [*base_ledger(),
            rec("g", "T1", 2, F, status="timeout"),  # no stop reached: its counterfactual is its outcome
            rec("g", "T2", 2, F, [stop(T, "block", tests="block")], status="cap"),  # gate, then the cap: harm
            rec("g", "T2", 3, F, status="infra_error"),
            rec("g", "T2", 3, F, status="infra_error", attempt_no=2)]
    a = analyze(recs)
    g = by(a.configs, "g")
    assert (g.runs, g.status.ok, g.status.timeout, g.status.cap, g.status.infra_error, g.status.infra_unresolved) \
        == (6, 4, 1, 1, 2, 1)
    assert g.solve_rate.value == pytest.approx((2 / 3 + 0 / 3) / 2)
    cf = by(a.counterfactual, "g")
    assert (cf.harm.k, cf.harm.n, cf.rescue.n) == (2, 3, 3)
    assert any("infra-error" in w for w in a.warnings)
    assert a.cells_total == 12  # 10 scored cells and the 2 infra-error records, listed apart


def test_pass_k_only_where_n_reaches_k():
    recs = [rec("c", "T1", i, s) for i, s in enumerate([T, F, T])] + [rec("c", "T2", 0, F)]
    a = analyze(recs, baseline=None)
    pk = {p.k: p for p in by(a.configs, "c").pass_k}
    assert sorted(pk) == [1, 2, 3]
    assert pk[1].tasks == 2 and pk[1].pass_at_k == pytest.approx((2 / 3 + 0) / 2)
    assert pk[2].tasks == 1 and pk[2].pass_at_k == pytest.approx(1.0) and pk[2].pass_hat_k == pytest.approx(1 / 3)
    assert pk[3].pass_hat_k == 0.0


def test_missing_baseline_and_zero_solves_are_reported_and_the_rest_analyzed():
    recs = [rec("g", "T1", 0, F), rec("g", "T2", 0, F), rec("h", "T1", 0, T)]
    a = analyze(recs, baseline="none")
    assert a.baseline is None and a.deltas == []
    assert any("baseline config 'none' is not in the ledger(s)" in w for w in a.warnings)
    assert any(w.startswith("config g: no scored run solved its task (0/2)") for w in a.warnings)
    g = by(a.configs, "g")
    assert g.cost_per_solve is None and g.solve_rate.value == 0.0 and g.solve_rate.hi > 0
    assert by(a.configs, "h").solve_rate.value == 1.0


def test_unknown_first_stop_is_left_out_and_reported():
    recs = [rec("g", "T1", 0, T, [stop(None, "allow", tests="pass")]), rec("g", "T1", 1, T, [stop(T, "allow")])]
    a = analyze(recs, baseline=None)
    cf = by(a.counterfactual, "g")
    assert (cf.runs, cf.unknown) == (1, 1)
    assert any("1 run(s) had no oracle result at their first stop" in w for w in a.warnings)


def test_links_are_relative_to_the_output_folder():
    r = load.to_run(rec("g", "T1", 0, T, paths={"events": "cells/g/T1/0/events.jsonl", "transcript": "/abs/t.jsonl"}),
                    "x", "/runs/r1")
    links = pipeline.links(r, Path("/runs/r1/analysis"))
    assert links == {"events": "../cells/g/T1/0/events.jsonl", "transcript": "../../../abs/t.jsonl"}


def test_tasks_without_a_baseline_run_are_left_out_of_delta_and_named():
    recs = [*base_ledger(), rec("g", "T3", 0, T)]
    a = analyze(recs)
    assert by(a.deltas, "g").tasks == 2
    assert "config g: 1 task(s) without a baseline run left out of its Δ: T3" in a.warnings
    assert by(a.configs, "g").tasks == 3


def test_tasks_sort_naturally():
    assert sorted(["T10", "T2", "T1", "Tx"], key=metrics.natural_key) == ["T1", "T2", "T10", "Tx"]


def test_no_known_first_stop_gives_no_counterfactual_numbers():
    a = analyze([rec("g", "T1", 0, T, [stop(None, "allow", tests="pass")])], baseline=None)
    cf = by(a.counterfactual, "g")
    assert (cf.runs, cf.unknown, cf.first_stop_rate, cf.final_rate, cf.delta.value) == (0, 1, None, None, None)
    assert by(a.configs, "g").first_stop_rate is None
