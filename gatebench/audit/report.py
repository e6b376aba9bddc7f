"""The audit's summary as plain data (what --json prints), its table, and its exit code."""

from __future__ import annotations

from gatebench.audit.runner import TaskAudit
from gatebench.common.defaults import GUESS_ODDS


def summarize(audits: list[TaskAudit], classes: list[str], seconds: float) -> dict:
    """Per class: hackable tasks over tasks played (the hackable-task ratio), tasks whose audit failed, seconds
    per task; per task: the control and every variant's runs."""
    per_class = {}
    for c in classes:
        played = [a for a in audits if c not in a.skipped]
        ok = [a for a in played if not a.failed(c)]
        runs = [r for a in ok for v in a.variants if v.cls == c for r in v.runs]
        per_class[c] = {"runs": len(runs), "unflagged": sum(r.outcome == "failed" and not r.findings and not r.changed_protected
                                                         for r in runs),
                        "hackable": sorted(a.task for a in played if a.hackable(c)),
                        "tasks": len(played), "audit_failed": sorted(a.task for a in played if a.failed(c)),
                        "judged": len(ok), "skipped": {a.task: a.skipped[c] for a in audits if c in a.skipped},
                        "seconds_per_task": round(sum(a.class_seconds(c) for a in played) / max(1, len(played)), 2)}
    tasks = [{"task": a.task, "seconds": a.seconds, "guess_odds": a.odds,
              "control": a.control.to_dict() if a.control else None,
              "control_ok": a.control_ok, "skipped": a.skipped,
              "variants": [{"class": v.cls, "variant": v.variant, "hacked": v.hacked, "error": v.error,
                            "seconds": v.seconds, "runs": [r.to_dict() for r in v.runs]} for v in a.variants]}
             for a in audits]
    return {"classes": per_class, "tasks": tasks, "seconds": seconds}


def text(summary: dict) -> str:
    # `unflagged`: runs the attack lost without a trace (a wrong guess on a negation twin, a voided harness).
    head = f"{'class':18} {'hackable':>9} {'ratio':>6} {'failed':>6} {'s/task':>7} {'unflagged':>9}  hackable tasks"
    lines = [head, "-" * len(head)]
    for c, r in summary["classes"].items():
        ratio = f"{len(r['hackable']) / r['tasks']:.2f}" if r["tasks"] else "-"
        lines.append(f"{c:18} {len(r['hackable']):>4}/{r['tasks']:<4} {ratio:>6} {len(r['audit_failed']):>6} "
                     f"{r['seconds_per_task']:>7.1f} {r['unflagged']:>4}/{r['runs']:<4}  {', '.join(r['hackable'])}")
    out = ["\n".join(lines)]
    for c, r in summary["classes"].items():
        for why in sorted(set(r["skipped"].values())):
            tasks = sorted(t for t, w in r["skipped"].items() if w == why)
            out.append(f"{c}: not played on {', '.join(tasks)}: {why}")
    for t in summary["tasks"]:
        if t.get("guess_odds"):
            met = "met" if t["guess_odds"] <= GUESS_ODDS else "NOT met: too few twin sites"
            out.append(f"{t['task']}: a blind guess of every twin group is right 1 in {1 / t['guess_odds']:,.0f} "
                       f"per run, on average over its runs' plans (bound 1 in {1 / GUESS_ODDS:,.0f}: {met})")
        if not t["control_ok"]:
            ctl = t["control"] or {}
            out.append(f"{t['task']}: CONTROL FAILED: the reference ended {ctl.get('outcome')} "
                       f"({ctl.get('error') or '; '.join(ctl.get('findings') or [])[:300]}): its classes are not judged")
        for v in t["variants"]:
            if v["error"]:
                out.append(f"{t['task']}: {v['class']}/{v['variant']}: AUDIT FAILED: {v['error']}")
            elif v["hacked"]:
                why = next(r for r in v["runs"] if r["outcome"] in ("solved", "rerun"))
                out.append(f"{t['task']}: {v['class']}/{v['variant']}: HACKABLE: ended {why['outcome']}"
                           + (f" ({why['error']})" if why["error"] else "")
                           + (f" (discounted, the end state's own: {'; '.join(why['discounted'])[:300]})"
                              if why.get("discounted") else ""))
    n = len(summary["tasks"])
    hacked = sorted({t for r in summary["classes"].values() for t in r["hackable"]})
    out.append(f"\n{n} tasks, {len(hacked)} hackable, {summary['seconds']:.0f} s: "
               + ("audit passed" if exit_code(summary, 3) == 0 else "audit FAILED"))
    return "\n".join(out)


def exit_code(summary: dict, audit_failed: int) -> int:
    """1 on any hackable task (a proven hole outranks an incomplete audit), else `audit_failed` when a control
    or an attack failed, else 0."""
    classes = summary["classes"].values()
    if any(r["hackable"] for r in classes):
        return 1
    if any(r["audit_failed"] for r in classes):
        return audit_failed
    return 0
