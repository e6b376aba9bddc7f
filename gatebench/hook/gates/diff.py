"""Gate `diff`: blocks a stop that changed nothing, or that touched protected paths (tests, task files).

In bench mode protected test modules are judged by their checks (testguard/benchtests.py): a weakening blocks,
naming what was lost; added tests and updated stale tests do not.

In installed mode (a developer's own repo) tests are not protected as files: the test policy
(gatebench/testguard/testpolicy.py) lets the agent add and refactor tests; the tests gate
(hook/installed_tests.py) decides on weakening. Without a tests gate this gate blocks a weakening once.
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
        from gatebench.testguard import testpolicy

        touched = [p for p in touched if not testpolicy.concerns(p)]
    weak_paths = {f["path"] for f in ctx.weakened}
    if spec.get("block_protected", True) and ctx.weakened:
        from gatebench.testguard import benchtests

        problems.append(benchtests.block_text(ctx.weakened))
        touched = [p for p in touched if p not in weak_paths]
    if spec.get("block_protected", True) and touched:
        problems.append(
            ("You changed files this repository's gate protects: " if installed else
             "You changed protected files, which the task does not allow: ")
            + ", ".join(touched[:20])
            + (". Restore them to their original content." if installed else
               ". Restore them to their original content and fix the code instead.")
        )
    if installed and spec.get("block_protected", True):
        from gatebench.hook import installed_tests

        policy = testpolicy.evaluate(ctx)
        details["test_policy"] = {k: policy[k] for k in ("findings", "fingerprint", "errors")}
        tests_gate = any(g.get("kind") == "tests" and g.get("pristine", True)
                         for g in (ctx.resolved.get("config") or {}).get("gates", []))
        memory = ctx.session.setdefault(installed_tests.SESSION_KEY, {})
        if tests_gate:  # it runs the originals and decides (hook/installed_tests.py)
            details["test_policy"]["decided_by"] = "the tests gate"
        elif policy["findings"] and memory.get("blocked") == policy["fingerprint"]:
            details["user_notice"] = installed_tests.notice_text(policy["findings"])
        elif policy["findings"]:
            problems.append(installed_tests.weak_text(policy["findings"], []))
            memory["blocked"] = policy["fingerprint"]
    if spec.get("block_stray", False) and ctx.stray:
        problems.append("Remove these stray files: " + ", ".join(ctx.stray[:20]) + ".")
    details.update(noop=ctx.diff.empty, protected_touched=ctx.protected_touched, stray=ctx.stray)
    if ctx.weakened:
        details["weakened_tests"] = ctx.weakened[:50]
    verdict = "block" if problems else "pass"
    return Verdict(verdict, "\n".join(problems), details, time.monotonic() - t0)
