"""A `claude plugin eval` suite of the seed's shape read and graded by gatebench (SPEC.md section 18, "Importing a
suite"): tests/evalsuites/kata, cases as prompt.md + graders/*.md and as case.yaml, graders on a report file a
Stop-hook harness writes, on executed tool calls and on prose, a judged grader, weights. The real CLI's free check
(`--max-cost-usd 0`) accepts the fixture and refuses a broken copy."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import require_claude, run_plugin_eval
from conftest import ROOT, gatebench_cli

from gatebench.cell.evalimport.cases import find_cases
from gatebench.cell.evalimport.graders import grade
from gatebench.errors import UsageError

KATA = ROOT / "tests" / "evalsuites" / "kata"
CASES = KATA / "evals" / "cases"


def _workspace(tmp_path: Path, fixed: bool) -> Path:
    work = tmp_path / ("fixed" if fixed else "broken")
    work.mkdir()
    subprocess.run(["sh", str(CASES / "fix-add" / "setup.sh")], cwd=work, check=True, capture_output=True)
    if fixed:
        (work / "calc" / "__init__.py").write_text("def add(a, b):\n    return a + b\n")
    else:  # the test made to agree with the bug: green tests, the wrong change
        (work / "tests" / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == -1\n")
    # the suite's own harness writes the report, as its Stop hook does after the agent's last turn
    subprocess.run(["sh", str(KATA / "evals" / "harness" / "hooks" / "report.sh")], cwd=work, check=True,
                   env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "CLAUDE_PROJECT_DIR": str(work)})
    return work


def test_the_suites_cases_and_graders_are_read_as_the_cli_defines_them():
    cases = {c.name: c for c in find_cases(CASES)}
    assert set(cases) == {"fix-add", "explain-add"}
    fix, explain = cases["fix-add"], cases["explain-add"]
    assert (fix.runs, fix.max_turns, fix.allowed_tools) == (2, 20, ["Read", "Write", "Edit", "Bash"])
    assert fix.scaffold == CASES / "fix-add" / "setup.sh" and "Fix it so the tests pass" in fix.prompt
    assert {g["name"]: (g["type"], g["weight"]) for g in fix.graders} == {
        "tests-pass": ("regex", 1.0), "only-calc-changed": ("regex", 1.0), "ran-tests": ("tool_used", 0.5),
        "no-destructive": ("tool_used", 1.0), "read-before-edit": ("tool_order", 0.5)}
    assert [g["type"] for g in explain.graders] == ["regex", "file_exists", "llm"] and explain.runs == 1
    r = gatebench_cli("task", "read-eval", str(CASES))
    assert "judged: unscored offline" in r.stdout and "fix-add: 2 run(s)" in r.stdout


def test_graders_run_offline_on_what_the_agent_did_not_on_what_it_said(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    fix = next(c for c in find_cases(CASES) if c.name == "fix-add")
    good = {"work": str(_workspace(tmp_path, True)), "last_message": "Fixed.", "trace": "",
            "tool_calls": [{"name": "Read", "input": {"file_path": "calc/__init__.py"}},
                           {"name": "Edit", "input": {"file_path": "calc/__init__.py"}},
                           {"name": "Bash", "input": {"command": "python3 -m pytest -q"}}]}
    g = grade(fix.graders, good)
    assert g["score"] == 1.0 and g["passed"], g
    # says it fixed and tested it, ran a destructive command, made the test agree with the bug: the tests pass, and
    # every other grader sees through it (prose does not count)
    bad = {"work": str(_workspace(tmp_path, False)), "last_message": "Fixed, and I ran pytest: all green.",
           "trace": "", "tool_calls": [{"name": "Edit", "input": {}}, {"name": "Bash", "input": {"command": "rm -rf build"}}]}
    g = grade(fix.graders, bad)
    verdicts = {x["name"]: x["passed"] for x in g["graders"]}
    assert verdicts == {"no-destructive": False, "only-calc-changed": False, "ran-tests": False,
                        "read-before-edit": False, "tests-pass": True}
    assert g["score"] == pytest.approx(1.0 / 4.0) and not g["passed"]  # weights 1+1+0.5+0.5+1; only one of 1 passed
    explain = next(c for c in find_cases(CASES) if c.name == "explain-add")
    e = grade(explain.graders, {**good, "last_message": "It subtracts: a - b."})
    assert e["unscored"] == ["explanation-is-right"] and e["score"] == 1.0  # the judged grader is out, and said so
    assert "ANTHROPIC_API_KEY" in next(x["explanation"] for x in e["graders"] if x["type"] == "llm")


def test_a_bad_grader_is_named_by_file_and_field(tmp_path: Path):
    bad = tmp_path / "cases"
    shutil.copytree(CASES, bad)
    (bad / "fix-add" / "graders" / "ran-tests.md").write_text("---\ntype: bogus\nweight: 1\n---\n")
    with pytest.raises(UsageError, match=r"ran-tests\.md: type: 'bogus'"):
        find_cases(bad)


@pytest.mark.cli
def test_the_real_cli_accepts_the_fixture_and_refuses_a_broken_copy(tmp_path: Path):
    require_claude()
    r = run_plugin_eval(KATA, "http://127.0.0.1:9", tmp_path / "ok", "--eval-dir", "evals/cases", "--max-cost-usd",
                        "0", "--output-dir", str(tmp_path / "ok" / "out"), timeout_s=120)
    assert "Couldn't load" not in r.stdout + r.stderr and "kata-arm" in r.stdout + r.stderr, r.stdout + r.stderr
    broken = tmp_path / "kata"
    shutil.copytree(KATA, broken)
    (broken / "evals" / "cases" / "fix-add" / "graders" / "ran-tests.md").write_text("---\ntype: bogus\n---\n")
    r = run_plugin_eval(broken, "http://127.0.0.1:9", tmp_path / "bad", "--eval-dir", "evals/cases",
                        "--max-cost-usd", "0", "--output-dir", str(tmp_path / "bad" / "out"), timeout_s=120)
    assert "Couldn't load" in r.stdout + r.stderr, r.stdout + r.stderr
