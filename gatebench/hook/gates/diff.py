"""Gate `diff`: blocks a stop that changed nothing, or that touched protected paths (tests, task files).

In installed mode (a developer's own repo) tests are not protected as files: the test policy
(gatebench/hook/testpolicy.py) lets the agent add tests and blocks, once, changes that weaken them.
"""

from __future__ import annotations

import time

from gatebench.hook.gates import GateContext, Verdict


def run(spec: dict, ctx: GateContext) -> Verdict:
    t0 = time.monotonic()
    installed = ctx.resolved.get("mode") == "installed"
    problems = []
    details: dict = {}
    # In a developer's repo a question needs no change: the no-change nudge is given once per prompt.
    noop_nudged = installed and ctx.session.get("noop_blocked")
    if spec.get("block_noop", True) and ctx.diff.empty and not noop_nudged:
        if installed:
            ctx.session["noop_blocked"] = True
        problems.append(
            "You have not changed any file in the repository. If the work you were asked for needs a change, "
            "make it; if it needs none, say so in your answer."
            if installed else
            "You have not changed any file in the repository, so the task is not done yet. "
            "Make the change the task asks for."
        )
    touched = ctx.protected_touched
    if installed:
        from gatebench.hook import testpolicy

        touched = [p for p in touched if not testpolicy.concerns(p)]
    if spec.get("block_protected", True) and touched:
        problems.append(
            ("You changed files this repository's gate protects: " if installed else
             "You changed protected files, which the task does not allow: ")
            + ", ".join(touched[:20])
            + (". Restore them to their original content." if installed else
               ". Restore them to their original content and fix the code instead.")
        )
    if installed and spec.get("block_protected", True):
        policy = testpolicy.evaluate(ctx)
        details["test_policy"] = {k: policy[k] for k in ("findings", "fingerprint", "acknowledged", "errors")}
        if policy["findings"] and policy["acknowledged"]:
            details["user_notice"] = testpolicy.notice_text(policy["findings"])
        elif policy["findings"]:
            problems.append(testpolicy.block_text(policy["findings"]))
            testpolicy.remember_block(ctx, policy["fingerprint"])
    if spec.get("block_stray", False) and ctx.stray:
        problems.append("Remove these stray files: " + ", ".join(ctx.stray[:20]) + ".")
    details.update(noop=ctx.diff.empty, protected_touched=ctx.protected_touched, stray=ctx.stray)
    verdict = "block" if problems else "pass"
    return Verdict(verdict, "\n".join(problems), details, time.monotonic() - t0)
