"""Gate `review` (gate-3): a panel of LLM (or any command) reviewers read the task and the diff.

Stdlib only. The reviewer definitions come from the resolved config (`reviewers`, filled by
install/prep), never from YAML. In installed mode there is no task binding: the task is the user's
prompt, read from the session transcript (`transcript_path`). Reviewers see the visible tests'
output: the tests gate's run of this stop when the config has one, else a run of their own
(its time is logged as `tests_seconds`).
"""

from __future__ import annotations

import os
import time

from gatebench.common import defaults
from gatebench.hook.gates import GateContext, Verdict

MIN_REVIEW_S = 5.0  # below this, there is no point starting a reviewer


def visible_test_output(ctx: GateContext, budget_s: float) -> tuple[str, float]:
    """The visible tests' output for the prompt, when this config or task has visible tests.

    Reuses the tests gate's run from this same stop when there was one; runs them only otherwise.
    """
    for kind, earlier in ctx.results.values():
        if kind == "tests" and earlier.verdict in ("pass", "block") and "output_tail" in earlier.details:
            d = earlier.details
            state = "timed out" if d.get("timed_out") else f"exit {d.get('returncode')}"
            return f"$ {d.get('command')}   ({state})\n{d.get('output_tail', '')}", 0.0
    cfg = ctx.resolved.get("config") or {}
    spec = next((g for g in cfg.get("gates", []) if g.get("kind") == "tests"), None)
    if spec is None and not ctx.task:
        return "(this config runs no visible tests)", 0.0
    from gatebench.hook.gates import tests

    spec = dict(spec or {"kind": "tests"})
    task_timeout = float((ctx.task or {}).get("test_timeout_s") or spec.get("timeout_s", defaults.TESTS_TIMEOUT_S))
    spec["timeout_s"] = max(min(float(spec.get("timeout_s", task_timeout)), budget_s / 3), 1.0)
    v = tests.run(spec, ctx)
    d = v.details
    if v.verdict == "error" and "output_tail" not in d:
        return f"(the visible tests could not run: {d.get('error')})", v.seconds
    state = "timed out" if d.get("timed_out") else f"exit {d.get('returncode')}"
    return f"$ {d.get('command')}   ({state})\n{d.get('output_tail', '')}", v.seconds


def run(spec: dict, ctx: GateContext) -> Verdict:
    # Imported here: every hook call loads the gate registry, few configs have reviewers.
    from gatebench.review.panel import run_panel
    from gatebench.review.prompt import ReviewInputs, changed_files, diff_text, task_from_transcript

    t0 = time.monotonic()
    defs_all = ctx.resolved.get("reviewers") or {}
    names = list(spec.get("reviewers") or [])
    missing = [n for n in names if n not in defs_all]
    if not names or missing:
        why = f"reviewers {missing} are not in the resolved config" if missing else "no reviewers named"
        return Verdict("error", details={"error": f"{why}; re-run `gatebench install` or `gatebench prep`"})
    budget = min(float(spec.get("timeout_s", defaults.REVIEW_TIMEOUT_S)), ctx.remaining() - 2.0)
    if budget < MIN_REVIEW_S:
        return Verdict("error", details={"error": f"hook time budget spent ({budget:.1f} s left) before review"})
    test_output, test_s = visible_test_output(ctx, budget)
    budget = min(budget, ctx.remaining() - 2.0)
    if budget < MIN_REVIEW_S:
        return Verdict("error", details={"error": "hook time budget spent by the visible tests before review"})
    task = (ctx.task or {}).get("prompt") or task_from_transcript(ctx.transcript_path, ctx.session.get("prompt_id"))
    inputs = ReviewInputs(
        task=task,
        diff=diff_text(ctx.repo, ctx.baseline, ctx.now, ctx.diff, ctx.blob_dir),
        files=changed_files(ctx.diff),
        test_output=test_output,
        agent_message=ctx.last_message,
    )
    cfg = ctx.resolved.get("config") or {}
    outcome = run_panel(
        {n: defs_all[n] for n in names},
        inputs,
        repo=ctx.repo,
        paths=sorted(ctx.now),
        vote=spec.get("vote", "any"),
        budget_s=budget,
        on_no_evidence=spec.get("on_no_evidence", "pass"),
        python=ctx.python,
        log_dir=os.path.join(ctx.state_dir, "reviews"),
        feedback_chars=int(cfg.get("reason_chars", defaults.REASON_CHARS)),
    )
    details = {**outcome.details, "tests_seconds": round(test_s, 3), "diff_chars": len(inputs.diff)}
    return Verdict(outcome.verdict, outcome.feedback, details, time.monotonic() - t0, outcome.cost_usd)
