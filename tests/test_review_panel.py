"""Panels: the vote rules, errors that never decide silently, the evidence rule, parallel runs
under one budget, and compact de-duplicated feedback."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from gatebench.hook.state import GUARD_ENV
from gatebench.review.panel import dedupe, effective, run_panel, tally
from gatebench.review.prompt import REVIEW_MARKER, ReviewInputs
from gatebench.review.verdict import ReviewResult


@pytest.mark.parametrize("verdicts, vote, expected", [
    (["pass", "pass"], "any", "pass"),
    (["pass", "block"], "any", "block"),
    (["pass", "error"], "any", "error"),  # the error could have been the block
    (["block", "error"], "any", "block"),  # decided whatever the error would have said
    (["block", "pass", "pass"], "majority", "pass"),
    (["block", "block", "pass"], "majority", "block"),
    (["pass", "pass", "error"], "majority", "pass"),
    (["block", "pass", "error"], "majority", "error"),
    (["block", "block"], "all", "block"),
    (["block", "pass"], "all", "pass"),
    (["block", "error"], "all", "error"),
    (["error", "error"], "any", "error"),
    ([], "any", "error"),
])
def test_tally(verdicts, vote, expected):
    assert tally(verdicts, vote) == expected


def test_block_without_evidence_counts_as_configured():
    r = ReviewResult("adv", "block", no_evidence=True)
    assert effective(r, "pass") == "pass" and effective(r, "block") == "block"
    assert effective(ReviewResult("adv", "block"), "pass") == "block"


def _finding(file, line, claim, sev="high", ev="x"):
    return {"file": file, "line": line, "severity": sev, "claim": claim, "evidence": ev}


def test_dedupe_merges_same_finding_and_orders_by_severity():
    a = ReviewResult("adv", "block", [_finding("a.py", 3, "Off by one in num_pages", "medium"),
                                      _finding("b.py", 1, "nit", "low")])
    s = ReviewResult("spec", "block", [_finding("a.py", 3, "off-by-one in num_pages!", "medium", "longer evidence"),
                                       _finding("c.py", 9, "missing requirement", "high")])
    p = ReviewResult("tests", "pass", [_finding("z.py", 1, "passing reviewers' notes are not sent")])
    out = dedupe([a, s, p], {"adv": "block", "spec": "block", "tests": "pass"})
    assert [(f["file"], f["reviewers"]) for f in out] == [("c.py", ["spec"]), ("a.py", ["adv", "spec"]),
                                                          ("b.py", ["adv"])]
    assert out[1]["evidence"] == "longer evidence"


def _fake(verdicts: dict[str, ReviewResult], barrier: threading.Barrier | None = None, seen: list | None = None):
    def backend(job):
        if seen is not None:
            seen.append(job)
        if barrier is not None:  # every reviewer waits for the others: run one after another, they break it
            barrier.wait()
        r = verdicts[job.name]
        return ReviewResult(job.name, r.verdict, r.findings, r.summary, r.error, r.no_evidence, cost_usd=r.cost_usd)
    return backend


def _defs(*names, timeout=30.0):
    return {n: {"name": n, "backend": "fake", "prompt": "T {task} D {diff}", "timeout_s": timeout} for n in names}


INPUTS = ReviewInputs("do the thing", "--- a/x.py\n+++ b/x.py\n", [{"path": "x.py", "status": "changed"}], "ok")


def test_panel_runs_in_parallel_and_sums_cost(tmp_path):
    (tmp_path / "x.py").write_text("x = 1\n")
    results = {"adv": ReviewResult("adv", "block", [_finding("x.py", 1, "x is wrong")], "bad", cost_usd=0.5),
               "spec": ReviewResult("spec", "pass", cost_usd=0.25),
               "tests": ReviewResult("tests", "pass", cost_usd=0.25)}
    seen: list = []
    out = run_panel(_defs("adv", "spec", "tests"), INPUTS, repo=str(tmp_path), paths=["x.py"], vote="majority",
                    budget_s=30, on_no_evidence="pass", python=sys.executable,
                    backends={"fake": _fake(results, barrier=threading.Barrier(3, timeout=20), seen=seen)})
    # all three met at the barrier (in parallel): a serial panel would have crashed each of them
    assert out.verdict == "pass" and out.cost_usd == 1.0 and out.feedback == ""
    job = seen[0]
    assert job.prompt.startswith(REVIEW_MARKER) and "do the thing" in job.prompt
    assert job.env[GUARD_ENV] == "1"
    assert not os.path.exists(job.workdir)  # the read-only copy is removed afterwards
    out = run_panel(_defs("adv", "spec"), INPUTS, repo=str(tmp_path), paths=["x.py"], vote="any", budget_s=10,
                    on_no_evidence="pass", python=sys.executable, backends={"fake": _fake(results)})
    assert out.verdict == "block"
    assert "x.py:1: x is wrong" in out.feedback and "adv" in out.feedback


def test_reviewers_see_a_read_only_copy_without_claude_settings(tmp_path):
    (tmp_path / "x.py").write_text("x = 1\n")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{}")
    looked: dict = {}

    def backend(job):
        wd = Path(job.workdir)
        looked["files"] = sorted(str(p.relative_to(wd)) for p in wd.rglob("*") if p.is_file())
        looked["mode"] = (wd / "x.py").stat().st_mode & 0o777
        return ReviewResult(job.name, "pass")

    run_panel(_defs("adv"), INPUTS, repo=str(tmp_path), paths=["x.py", ".claude/settings.json"], vote="any",
              budget_s=10, on_no_evidence="pass", python=sys.executable, backends={"fake": backend})
    assert looked == {"files": ["x.py"], "mode": 0o444}


def test_budget_caps_each_reviewer_and_crashes_are_errors(tmp_path):
    seen: list = []

    def crash(job):
        seen.append(job.timeout_s)
        raise RuntimeError("boom")

    out = run_panel(_defs("adv", timeout=240), INPUTS, repo=str(tmp_path), paths=[], vote="any", budget_s=7,
                    on_no_evidence="pass", python=sys.executable, backends={"fake": crash})
    assert seen == [7]
    assert out.verdict == "error" and "backend crashed: RuntimeError: boom" in out.error
    unknown = run_panel({"adv": {"name": "adv", "backend": "nope", "prompt": "{task}{diff}"}}, INPUTS,
                        repo=str(tmp_path), paths=[], vote="any", budget_s=5, on_no_evidence="pass",
                        python=sys.executable)
    assert unknown.verdict == "error" and "unknown backend 'nope'" in unknown.error


def test_feedback_stays_within_budget_and_says_what_was_cut(tmp_path):
    many = [_finding(f"f{i}.py", i, f"problem number {i} " + "x" * 150) for i in range(60)]
    results = {"adv": ReviewResult("adv", "block", many, "many problems")}
    out = run_panel(_defs("adv"), INPUTS, repo=str(tmp_path), paths=[], vote="any", budget_s=5,
                    on_no_evidence="pass", python=sys.executable, backends={"fake": _fake(results)})
    assert out.verdict == "block"
    assert len(out.feedback) <= 4000 and "more finding(s) not shown" in out.feedback
    assert out.feedback.count("problem number") < 60


def test_no_evidence_block_is_reported_as_such(tmp_path):
    results = {"adv": ReviewResult("adv", "block", [], "I just feel it is wrong", no_evidence=True)}
    lenient = run_panel(_defs("adv"), INPUTS, repo=str(tmp_path), paths=[], vote="any", budget_s=5,
                        on_no_evidence="pass", python=sys.executable, backends={"fake": _fake(results)})
    assert lenient.verdict == "pass" and lenient.details["reviewers"][0]["no_evidence"] is True
    strict = run_panel(_defs("adv"), INPUTS, repo=str(tmp_path), paths=[], vote="any", budget_s=5,
                       on_no_evidence="block", python=sys.executable, backends={"fake": _fake(results)})
    assert strict.verdict == "block" and "without a concrete finding" in strict.feedback


def test_threads_really_overlap(tmp_path):
    active, peak, lock, barrier = [0], [0], threading.Lock(), threading.Barrier(3, timeout=20)

    def backend(job):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        barrier.wait()  # no reviewer finishes before all three have started
        with lock:
            active[0] -= 1
        return ReviewResult(job.name, "pass")

    out = run_panel(_defs("a", "b", "c"), INPUTS, repo=str(tmp_path), paths=[], vote="all", budget_s=30,
                    on_no_evidence="pass", python=sys.executable, backends={"fake": backend})
    assert peak[0] == 3 and out.verdict == "pass"


def test_hook_side_of_reviewers_is_stdlib_only():
    import subprocess

    mods = ["gatebench.review.gate", "gatebench.review.panel", "gatebench.review.backends.claude",
            "gatebench.review.backends.command", "gatebench.sim.reviewer"]
    code = ("import sys\n" + "".join(f"import {m}\n" for m in mods)
            + "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'yaml', 'filelock')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
