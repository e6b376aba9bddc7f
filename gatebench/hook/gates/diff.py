"""Gate `diff`: blocks a stop that changed nothing, or that touched protected paths (tests, task files)."""

from __future__ import annotations

import time

from gatebench.hook.gates import GateContext, Verdict


def run(spec: dict, ctx: GateContext) -> Verdict:
    t0 = time.monotonic()
    problems = []
    if spec.get("block_noop", True) and ctx.diff.empty:
        problems.append(
            "You have not changed any file in the repository, so the task is not done yet. "
            "Make the change the task asks for."
        )
    if spec.get("block_protected", True) and ctx.protected_touched:
        problems.append(
            "You changed protected files, which the task does not allow: "
            + ", ".join(ctx.protected_touched[:20])
            + ". Restore them to their original content and fix the code instead."
        )
    if spec.get("block_stray", False) and ctx.stray:
        problems.append("Remove these stray files: " + ", ".join(ctx.stray[:20]) + ".")
    details = {
        "noop": ctx.diff.empty,
        "protected_touched": ctx.protected_touched,
        "stray": ctx.stray,
    }
    verdict = "block" if problems else "pass"
    return Verdict(verdict, "\n".join(problems), details, time.monotonic() - t0)
