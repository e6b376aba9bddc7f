"""Faults proven by a control run, never assumed (oracle/control.py): when the oracle or the tests gate cannot run
on the work copy, the same run on the task's trusted tree decides. A harness file turned into a folder (the
oracle's copy fails with IsADirectoryError) is the work copy's fault: scored failed, no rerun. A missing task
interpreter (bubblewrap cannot exec it, the report stream stays empty) is the bench's: infra_error."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from cli_harness import fake_api, require_claude
from conftest import gatebench_cli
from test_seal_hostile import bash, say, tool

from gatebench.oracle.control import Controls
from gatebench.oracle.oracle import run_binding
from gatebench.sim.brain import ScriptBrain
from gatebench.suite.benchstate import oracle_binding
from gatebench.suite.tasks import apply_state, copy_tree, load_task

TF = load_task("T1")
FOLDER = "rm -f {repo}/pyproject.toml && mkdir -p {repo}/pyproject.toml/x && touch {repo}/pyproject.toml/x/y"


def reference_tree(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    copy_tree(TF.repo, repo)
    apply_state(TF, "reference", repo)
    return repo


def test_a_harness_file_made_a_folder_is_the_work_copys_fault_and_a_missing_interpreter_the_benchs(tmp_path):
    repo, binding = reference_tree(tmp_path), oracle_binding(TF).model_dump()
    os.remove(repo / "pyproject.toml")
    (repo / "pyproject.toml" / "x").mkdir(parents=True)
    controls = Controls(binding["baseline_dir"], binding["reference_dir"])
    try:
        r = run_binding(str(repo), binding, sys.executable, control=controls)
        assert "Is a directory" in r["error"] and r["fault"] == "work" and not r["solved"]  # old code: "bench"
        assert r["control"] == {"ran": True, "tree": "reference"} and "cause is in the work copy" in r["error"]
        again = run_binding(str(repo), binding, sys.executable, control=controls)
        assert again["fault"] == "work" and len(controls.runs) == 1  # the control ran once for both
    finally:
        controls.close()
    shutil.rmtree(repo / "pyproject.toml")
    shutil.copy2(TF.repo / "pyproject.toml", repo / "pyproject.toml")
    assert run_binding(str(repo), binding, sys.executable)["solved"]  # the same tree, its file back: solved
    gone = run_binding(str(repo), binding, str(tmp_path / "gone" / "bin" / "python"))
    assert gone["fault"] == "bench" and gone["control"]["ran"] is False  # old code: "work"
    assert "failed too" in gone["error"] and "never started" in gone["error"]


def fix_turns(repo: Path) -> list[dict]:
    return [t for rel in ("pagekit/paginator.py", "pagekit/window.py")
            for t in (tool("Read", file_path=str(repo / rel)),
                      tool("Write", file_path=str(repo / rel), content=(TF.reference / rel).read_text()))]


@pytest.mark.cli
def test_an_agent_that_turns_a_harness_file_into_a_folder_is_scored_failed_with_no_rerun(tmp_path):
    require_claude()
    repo_of = tmp_path / "runs" / "dir" / "cells" / "tests" / "T1" / "r0" / "repo"
    turns = [*fix_turns(repo_of), bash(FOLDER.format(repo=repo_of)), say("Done.")]
    brain = ScriptBrain.from_data({"steps": [{"on": "start", "times": 3, "turns": turns}], "fallback": say("Done.")})
    with fake_api(brain) as (url, _api):
        env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-fake"}
        r = gatebench_cli("matrix", "--configs", "tests", "--tasks", "T1", "--worker", "claude", "--retries", "2",
                          "--runs-dir", str(tmp_path / "runs"), "--run-id", "dir", "--timeout-s", "150",
                          "--max-turns", "20", "--unsealed", check=False, env=env, timeout=600)
        sessions = brain.played.count("step 0 turn 0")
    run = tmp_path / "runs" / "dir"
    [rec] = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert r.returncode == 0, r.stderr[-2000:]
    assert rec["status"] == "ok" and rec["solved"] is False and rec["attempt_no"] == 1, rec["error"]
    assert not (run / "infra.jsonl").exists() and sessions == 1  # one agent run paid; the old code paid three
    assert rec["oracle"]["fault"] == "work" and "Is a directory" in rec["oracle"]["error"]
    assert rec["oracle"]["control"]["ran"] is True
    tests_gate = [g for s in rec["stops"] for g in s["gates"] if g["kind"] == "tests"]
    assert tests_gate and all(g["verdict"] == "block" and "cause is in the work copy" in (g.get("fault") or "")
                              for g in tests_gate)
    assert all(s["oracle_error"] and "Is a directory" in s["oracle_error"] for s in rec["stops"])


@pytest.mark.cli
def test_a_missing_task_interpreter_is_an_infra_error(tmp_path):
    from gatebench.cell.prep import prep

    require_claude()
    cell = tmp_path / "cell"
    prep("T1", "tests", cell)
    config = json.loads((cell / "state" / "config.json").read_text())
    config["python"] = str(tmp_path / "env-gone" / "bin" / "python")  # the task's interpreter, removed after prep
    (cell / "state" / "config.json").write_text(json.dumps(config))
    brain = ScriptBrain.from_data({"steps": [{"on": "start", "turns": [*fix_turns(cell / "repo"), say("Done.")]}],
                                   "fallback": say("Done.")})
    with fake_api(brain) as (url, _api):
        env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-fake"}
        gatebench_cli("run", str(cell), "--worker", "claude", "--finalize", "--timeout-s", "150", "--max-turns", "20",
                      "--quiet", "--unsealed", env=env, timeout=300, check=False)
    rec = json.loads((cell / "result.json").read_text())
    events = [json.loads(x) for x in (cell / "state" / "events.jsonl").read_text().splitlines()]
    stops = [e for e in events if e["hook"] == "stop"]
    assert rec["status"] == "infra_error" and not rec["solved"], rec
    assert stops and all(s["oracle"]["fault"] == "bench" and s["oracle"]["control"]["ran"] is False for s in stops)
    tests_gate = [g for s in stops for g in s["gates"] if g["kind"] == "tests"]
    assert tests_gate and all(g["verdict"] == "error" and "failed too" in g["details"]["error"] for g in tests_gate)
    assert "gate tests never ran" in rec["error"]  # old code: the tests "fail" (bwrap's exit 1) and it blocked


def test_a_run_no_oracle_judged_is_no_solve_rate_analyze_says_so_and_exits_1(tmp_path, capsys):
    from gatebench.analyze import synth
    from gatebench.cli import main
    from gatebench.cli.matrix import _report

    m = synth.generate([synth.BASELINE, synth.GATED], tasks=2, reps=1, seed=9, run_id="r1")
    for r in m.records:  # scored, but every oracle failed for the bench's own reason (the demo's missing interpreter)
        r["solved"], r["oracle"] = False, {"solved": False, "error": "stream empty [control failed too]", "fault": "bench"}
    synth.write_ledger(tmp_path / "r1" / "results.jsonl", m.records)
    code = main(["analyze", str(tmp_path / "r1"), "--resamples", "100"])
    err = capsys.readouterr().err
    assert code == 1 and "NO ORACLE RAN" in err and (tmp_path / "r1" / "analysis" / "summary.md").is_file()
    assert json.loads((tmp_path / "r1" / "analysis" / "analysis.json").read_text())["oracle_runs"] == 0
    m.records[0]["oracle"]["fault"] = "work"  # one oracle error a control proved the work copy's: that one judged
    synth.write_ledger(tmp_path / "r1" / "results.jsonl", m.records)
    assert main(["analyze", str(tmp_path / "r1"), "--resamples", "100"]) == 0
    assert "NO ORACLE RAN" not in capsys.readouterr().err

    class Args:
        json = False

    class Spec:
        worker = "sim"

    summary = {"run_id": "x", "cells": 2, "recorded": 2, "solved": 0, "infra_error": 0, "oracle_judged": 0,
               "cost_usd": 0.0, "interrupted": False, "ledger": "l"}
    assert _report(Args(), Spec(), summary) == 1 and "NO ORACLE RAN" in capsys.readouterr().err  # type: ignore[arg-type]
    assert _report(Args(), Spec(), {**summary, "oracle_judged": 1}) == 0
