"""Provenance and run-size plans in every report: who played the agent, with what, and what it would take.

1. Per config, from the ledger alone: worker (sim + policy, or claude), model, CLI, sealed (unknown when
   the records do not say), gatebench version, config and task hashes.
2. A sim ledger's reports say first that the agent was simulated, and label its dollars; a ledger from
   the real `claude` worker (here: the real CLI against the fake API) says model and CLI version instead.
3. The planner: runs and dollars for a target half-width, from the per-task spread.
"""

from __future__ import annotations

import json
import os

import pytest
from cli_harness import fake_api, require_claude
from conftest import gatebench_cli

from gatebench.analyze import pipeline, planner, report_html, report_md, synth
from gatebench.analyze.load import load
from gatebench.claude_cli import credentials
from gatebench.sim.brain import brain_from_data


def ledger(tmp_path, mutate, name="run"):
    m = synth.generate([synth.BASELINE, synth.GATED], tasks=6, reps=2, seed=3)
    for i, r in enumerate(m.records):
        mutate(i, r)
    path = tmp_path / name / "results.jsonl"
    synth.write_ledger(path, m.records)
    return path.parent


def as_sim(i, r, sealed=None):
    r["worker"] = "sim"
    r["sim"]["policy"] = "default"
    r["versions"]["model"] = "claude-opus-5-5"
    r["versions"]["cli_version"] = "2.1.332"
    if sealed is not None:
        r["sealed"] = sealed


def as_claude(i, r):
    r["worker"] = "claude"
    r.pop("sim", None)
    r["versions"]["model"] = "claude-opus-5-5"
    r["versions"]["cli_version"] = "2.1.332"
    r["sealed"] = True


def reports(run, tmp_path):
    a = pipeline.analyze([run], "none", tmp_path / "out", resamples=200)
    return a, report_md.render(a), report_html.render(a)


def test_sim_ledger_says_so_first_and_labels_its_dollars(tmp_path):
    a, md, html = reports(ledger(tmp_path, as_sim), tmp_path)
    assert a.notice.startswith("SIMULATED AGENT: every config was played by gatebench's scripted sim agent "
                               "(policy default)")
    assert "simulator's policy" in a.notice and "never paid" in a.notice
    assert md.splitlines()[2].startswith("**SIMULATED AGENT")  # right under the title
    body = html.split("<body>", 1)[1]
    assert body.index("SIMULATED AGENT") < body.index("Headline") < body.index("Provenance")
    head = next(line for line in md.splitlines() if line.startswith("| none (baseline)"))
    assert "sim $" in head
    p = {x.config: x for x in a.provenance}
    assert p["none"].workers == ["sim"] and p["none"].simulated == "yes" and p["none"].sim_policies == ["default"]
    assert p["none"].sealed == "unknown"  # records without a `sealed` field
    assert p["none"].models == ["claude-opus-5-5"] and p["none"].cli_versions == ["2.1.332"]
    assert sorted(p["none"].tasks) == ["T1", "T2", "T3", "T4", "T5", "T6"]
    assert all(len(h) == 1 for h in p["none"].tasks.values())


def test_claude_ledger_names_model_and_cli_and_sealing(tmp_path):
    a, md, html = reports(ledger(tmp_path, as_claude), tmp_path)
    assert a.notice == ("Agent: worker claude, model claude-opus-5-5, Claude Code CLI 2.1.332; "
                        "dollars are the CLI's reported costs.")
    assert "SIMULATED" not in md and "sim $" not in md and "SIMULATED" not in html
    assert {x.sealed for x in a.provenance} == {"yes"}


def test_mixed_workers_and_sealing_are_named(tmp_path):
    def mix(i, r):
        (as_sim if i % 2 else as_claude)(i, r)
        r["sealed"] = bool(i % 3)

    a, _, _ = reports(ledger(tmp_path, mix), tmp_path)
    assert {x.simulated for x in a.provenance} == {"mixed"} and {x.sealed for x in a.provenance} == {"mixed"}
    assert "Mixed sim and real records in: none, tests+adv" in a.notice


def test_a_bad_sealed_value_reads_as_unknown_not_as_a_crash(tmp_path):
    run = ledger(tmp_path, lambda i, r: as_sim(i, r, sealed="yes"))
    assert {r.sealed for r in load([run]).runs} == {None}


def test_real_claude_worker_ledger_says_model_and_cli(tmp_path):
    """The `claude` worker (the real CLI, pointed at the fake API), one cell, then analyze."""
    require_claude()
    done = {"content": [{"type": "text", "text": "Done."}]}
    runs = tmp_path / "runs"
    with fake_api(brain_from_data({"steps": [{"on": "any", "times": 50, "turns": [done]}]})) as (url, api):
        env = {k: v for k, v in os.environ.items() if not credentials({k: v})}
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="dummy")
        r = gatebench_cli("matrix", "--worker", "claude", "--configs", "none", "--tasks", "T1", "--reps", "1",
                          "--runs-dir", str(runs), "--run-id", "c", "--max-turns", "3", env=env, check=False)
        assert api.requests, r.stdout + r.stderr
    assert "sim $" not in r.stderr + r.stdout
    rec = json.loads((runs / "c" / "results.jsonl").read_text().splitlines()[0])
    assert rec["worker"] == "claude", rec.get("error")
    out = gatebench_cli("analyze", str(runs / "c"), env=env).stdout
    assert out.splitlines()[0].startswith("Agent: worker claude, model claude-opus-5-5, Claude Code CLI 2.1.332")
    md = (runs / "c" / "analysis" / "summary.md").read_text()
    assert "SIMULATED" not in md and "| none | claude | no |" in md


# ---------------------------------------------------------------- the planner


def test_tasks_needed_matches_the_t_formula():
    s, target = 0.30, 0.05
    t = planner.tasks_needed(s, target)
    assert planner.half_width(s, t) <= target < planner.half_width(s, t - 1)
    assert planner.tasks_needed(s, 0.10) < t  # a looser target needs fewer tasks
    assert planner.tasks_needed(0.60, target) > 3.5 * t  # twice the spread, about four times the tasks


def test_plan_scales_runs_and_dollars_with_each_arm():
    values = [0.0, 0.5, -0.5, 0.25, 0.0, 0.75, -0.25, 0.0]  # 8 tasks
    p = planner.make_plan("g", "between", "none", values, [(16, 0.10), (16, 0.30)], 0.05, 0.95)
    assert p.tasks == 8 and p.runs_per_task == 4 and p.usd_now == pytest.approx(6.4)
    assert p.tasks_needed > p.tasks_needed_point > p.next_tasks > 8  # assured > estimate > the safe next step
    assert p.next_runs == 4 * p.next_tasks - 32 and p.next_usd == pytest.approx((p.next_tasks - 8) * 0.8)
    assert p.runs_needed == 4 * p.tasks_needed and p.extra_runs == p.runs_needed - 32
    assert p.usd_needed == pytest.approx(p.tasks_needed * (2 * 0.10 + 2 * 0.30))
    flat = planner.make_plan("g", "within", None, [0.0] * 5, [(10, 0.1)], 0.05, 0.95)
    assert flat.tasks_needed is None and "no spread" in flat.note
    one = planner.make_plan("g", "within", None, [0.5], [(2, 0.1)], 0.05, 0.95)
    assert one.tasks_needed is None and "fewer than 2" in one.note


def test_analyze_reports_plans_for_both_comparisons(tmp_path):
    a, md, _ = reports(ledger(tmp_path, as_sim), tmp_path)
    kinds = {(p.config, p.comparison) for p in a.plans}
    assert kinds == {("tests+adv", "between"), ("tests+adv", "within")}
    assert all(p.target_halfwidth == 0.05 and p.tasks_needed for p in a.plans)
    assert "What it would take: runs for a ±5 pt 95% interval" in md
    wider = pipeline.analyze([tmp_path / "run"], "none", tmp_path / "o2", resamples=200, target_halfwidth=0.10)
    assert all(w.tasks_needed < p.tasks_needed for w, p in zip(wider.plans, a.plans, strict=True))


def test_cli_refuses_a_bad_target(tmp_path):
    run = ledger(tmp_path, as_sim)
    r = gatebench_cli("analyze", str(run), "--target-halfwidth", "0", check=False)
    assert r.returncode == 2 and "--target-halfwidth" in r.stderr


def test_sim_matrix_provenance_names_both_default_models_per_config(tmp_path):
    """A real sim matrix (none, adv): the worker's and the reviewers' models, from the records alone."""
    from gatebench.claude_cli import DEFAULT_REVIEWER_MODEL, DEFAULT_WORKER_MODEL

    require_claude()
    runs = tmp_path / "runs"
    gatebench_cli("matrix", "--worker", "sim", "--configs", "none,adv", "--tasks", "T1", "--reps", "1",
                  "--runs-dir", str(runs), "--run-id", "m")
    gatebench_cli("analyze", str(runs / "m"))
    a = json.loads((runs / "m" / "analysis" / "analysis.json").read_text())
    p = {x["config"]: x for x in a["provenance"]}
    assert p["adv"]["models"] == p["none"]["models"] == [DEFAULT_WORKER_MODEL]
    assert p["adv"]["reviewer_models"] == [DEFAULT_REVIEWER_MODEL] and p["none"]["reviewer_models"] == []
    assert p["adv"]["sim_policies"] == ["default"] and p["adv"]["cli_versions"] == ["2.1.332"]
    assert a["notice"].startswith("SIMULATED AGENT: every config")
