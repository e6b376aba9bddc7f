"""A `claude plugin eval` suite imported as gatebench tasks (`gatebench task import-eval`, SPEC.md section 18,
"Importing a suite"): tests/evalsuites/kata's cases run in sealed sim cells with the kata plugin as an arm against
its own ablation (`none`), each cell graded by the case's own graders from its stream and work copy, and analyze's
per-grader table with the paired Δ. The arm is tests/plugins/modelguard (a PreToolUse guard that asks a model, as
TDD Guard does) with its model calls refused (`plugin_calls: unscorable`): its errors block every edit, so the
same grader accepts the ablation's cell and rejects the arm's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import require_claude
from conftest import ROOT

from gatebench.cell.evalimport.cases import find_cases
from gatebench.cell.evalimport.cellgrade import denied_ids, last_message
from gatebench.cell.evalimport.graders import grade
from gatebench.cell.evalimport.tasks import graders_of, import_suite
from gatebench.errors import UsageError

KATA = ROOT / "tests" / "evalsuites" / "kata"
SUITE = KATA / "evals"
REF = ROOT / "tests" / "evalsuites" / "kata_reference"
MODELGUARD = ROOT / "tests" / "plugins" / "modelguard"
# The sim agent reads a file, then Edits it to the reference, and runs the visible tests: what fix-add's graders ask.
POLICY = """name: evaltest
description: writes the reference with Edit after reading it, and runs the visible tests
first: {reference: 1.0, inject: {}}
after_block: {fix: 1.0, repeat: 0.0, other: 0.0}
run_tests: 1.0
edit: 1.0
leak: 0.0
reviewer: {hit_rate: 0.8, false_block_rate: 0.1}
plugin_calls: unscorable
"""


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "bench"
    shutil.copytree(ROOT / "configs", home / "configs")
    (home / "configs" / "sim" / "evaltest.yaml").write_text(POLICY)
    return home


def _cli(*args: str, home: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "GATEBENCH_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "gatebench", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def test_import_lays_each_case_as_a_task_with_a_hidden_oracle_and_refuses_bad_input_writing_nothing(tmp_path: Path):
    home = _home(tmp_path)
    with pytest.raises(UsageError, match="--scaffold"):
        import_suite(SUITE, home)
    with pytest.raises(UsageError, match="no case of that name"):
        import_suite(SUITE, home, references={"nope": REF / "fix-add"}, run_scaffold=True)
    assert not (home / "tasks").exists()
    out = import_suite(SUITE, home, prefix="K-", references={"fix-add": REF / "fix-add"}, run_scaffold=True)
    assert [t["id"] for t in out["tasks"]] == ["K-explain-add", "K-fix-add"] and out["skipped"] == []
    fix = next(t for t in out["tasks"] if t["case"] == "fix-add")
    assert fix["tests"] == ["tests/test_calc.py"] and sorted(fix["unscored"]) == ["only-calc-changed", "tests-pass"]
    assert (home / "hidden" / "K-fix-add" / "tests" / "test_calc.py").read_text() == \
        (home / "tasks" / "K-fix-add" / "repo" / "tests" / "test_calc.py").read_text()
    assert "return a - b" in (home / "tasks" / "K-fix-add" / "repo" / "calc" / "__init__.py").read_text()
    assert not (home / "tasks" / "K-fix-add" / "repo" / ".git").exists()
    assert list((home / "reference" / "K-explain-add").iterdir()) == []  # no reference: the sim changes nothing
    with pytest.raises(UsageError, match="exists already"):
        import_suite(SUITE, home, prefix="K-", run_scaffold=True)


def test_a_harness_file_the_agent_writes_itself_scores_nothing(tmp_path: Path):
    """The graders on the harness's report are unscored: gatebench loads no harness, and the agent's own copy of
    the report (`tests: pass`) is no verdict. The tool-call graders still judge what was executed."""
    case = next(c for c in find_cases(SUITE) if c.name == "fix-add")
    base = tmp_path / "base"
    base.mkdir()
    subprocess.run(["sh", str(case.scaffold)], cwd=base, check=True, capture_output=True)
    gs = graders_of(case, base)
    (base / ".eval-report.txt").write_text("tests: pass\n")  # forged by the agent
    run = {"last_message": "All tests pass.", "work": str(base), "trace": "",
           "tool_calls": [{"name": "Edit", "input": {"file_path": "tests/test_calc.py"}}]}
    g = grade(gs, run)
    verdicts = {x["name"]: x["passed"] for x in g["graders"]}
    assert verdicts["tests-pass"] is None and verdicts["only-calc-changed"] is None
    assert verdicts["ran-tests"] is False and verdicts["read-before-edit"] is False and g["score"] == 0.5


def test_a_denied_call_was_never_executed_and_the_last_message_is_the_agents_last_text():
    events = [
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "first"}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "a", "name": "Bash",
                                                       "input": {"command": "pytest"}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "a", "is_error": True,
                                                  "content": "PreToolUse:Bash hook error: no"}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "b", "is_error": True,
                                                  "content": "Exit code 1"}]}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "Done."}]}},
    ]
    assert denied_ids(events) == {"a"} and last_message(events) == "Done."


def test_imported_suite_runs_in_sealed_cells_with_the_plugin_against_its_ablation_graded_by_its_graders(
        tmp_path: Path):
    require_claude()
    home = _home(tmp_path)
    r = _cli("task", "import-eval", str(SUITE), "--scaffold", "--prefix", "K-", "--reference",
             f"fix-add={REF / 'fix-add'}", home=home)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "K-fix-add: case fix-add" in r.stdout and "unscored: only-calc-changed, tests-pass" in r.stdout
    runs = tmp_path / "runs"
    r = _cli("matrix", "--worker", "sim", "--policy", "evaltest", "--configs", "none", "--arm", f"modelguard={MODELGUARD}",
             "--tasks", "K-fix-add,K-explain-add", "--reps", "1", "--jobs", "2", "--runs-dir", str(runs),
             "--run-id", "ev", home=home)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    recs = {x["cell_id"]: x for x in map(json.loads, (runs / "ev" / "results.jsonl").read_text().splitlines())}
    assert set(recs) == {"none/K-fix-add/0", "none/K-explain-add/0", "modelguard/K-fix-add/0",
                         "modelguard/K-explain-add/0"}
    assert all(x["status"] == "ok" and x["sealed"] for x in recs.values()), {k: x["error"] for k, x in recs.items()}
    assert {k: x["eval"]["arm"] for k, x in recs.items()} == {
        "none/K-fix-add/0": "without", "none/K-explain-add/0": "without", "modelguard/K-fix-add/0": "with",
        "modelguard/K-explain-add/0": "with"}
    fix = recs["none/K-fix-add/0"]
    v = {g["name"]: g["passed"] for g in fix["eval"]["graders"]}
    # accepted: the cell executed pytest, read calc before editing it, ran nothing destructive; the hidden oracle
    # (the pristine tests) says solved
    assert v == {"no-destructive": True, "ran-tests": True, "read-before-edit": True, "only-calc-changed": None,
                 "tests-pass": None} and fix["eval"]["score"] == 1.0 and fix["solved"]
    guarded = recs["modelguard/K-fix-add/0"]
    v = {g["name"]: g["passed"] for g in guarded["eval"]["graders"]}
    # rejected: every Edit was denied by the plugin's own error (plugin_error, no denial), so none was executed
    assert guarded["pretool_plugin_errors"] >= 1 and guarded["pretool_denials"] == 0
    assert {d["tool"] for d in guarded["pretool"]} <= {"Edit", "Write"}
    assert v == {"no-destructive": True, "ran-tests": True, "read-before-edit": False, "only-calc-changed": None,
                 "tests-pass": None} and guarded["eval"]["score"] == 0.75 and not guarded["solved"]
    for arm in ("none", "modelguard"):
        explain = recs[f"{arm}/K-explain-add/0"]
        w = {g["name"]: g["passed"] for g in explain["eval"]["graders"]}
        # rejected: the sim's reply ("... Done.") never names the sign; the judged grader is unscored offline
        assert w == {"names-the-sign": False, "no-report-file-written-by-agent": True, "explanation-is-right": None}
        assert explain["eval"]["score"] == pytest.approx(0.5 / 1.5) and not explain["solved"]
    from gatebench.analyze import pipeline

    a = pipeline.analyze([runs / "ev"], "none", tmp_path / "out", resamples=200)
    rows = {s.config: s for s in a.scores}
    assert set(rows) == {"none", "modelguard"} and rows["modelguard"].against == "none"
    base, mg = rows["none"], rows["modelguard"]
    assert (base.tasks, base.runs, base.score.value, base.pass_rate.value) == (2, 2, pytest.approx(2 / 3), 0.5)
    assert (mg.tasks, mg.runs, mg.score.value, mg.pass_rate.value) == (2, 2, pytest.approx((0.75 + 1 / 3) / 2), 0)
    assert mg.delta_score is not None and mg.delta_score.value == pytest.approx(-0.125)
    assert mg.delta_pass is not None and mg.delta_pass.value == -0.5
    assert mg.score.lo is None  # 2 tasks: below the clusters a bootstrap is trusted with, no interval (section 17)
    rates = {g.grader: (g.runs, g.rate.value) for g in mg.graders}
    assert rates == {"no-destructive": (1, 1.0), "ran-tests": (1, 1.0), "read-before-edit": (1, 0.0),
                     "names-the-sign": (1, 0.0), "no-report-file-written-by-agent": (1, 1.0)}
    assert {g.grader: g.rate.value for g in base.graders}["read-before-edit"] == 1.0
    from gatebench.analyze.tables import scores

    table = scores(a)
    assert ["modelguard", "read-before-edit", "0.50", "2", "1", "", "0.0%", "–", "", "", ""] in table.rows
    assert ["modelguard", "(score)", "", "2", "2", "0.54", "0.0%", "–", "none", "-0.12", "-50.0 pt –"] in table.rows
