"""Gate `oracle`: the hidden tests as a gate (bench only). The upper bound on what any gate could buy."""

from __future__ import annotations

from gatebench.hook.gates import GateContext, Verdict


def run(spec: dict, ctx: GateContext) -> Verdict:
    res = ctx.oracle
    if res is None:
        return Verdict("error", details={"error": "no hidden oracle in this mode (bench only)"})
    if res.get("error") and not res.get("tests") and res.get("fault") != "work":
        return Verdict("error", details={"error": res["error"]})  # the bench could not judge
    if res.get("solved"):
        return Verdict("pass", details={"passed": res.get("passed", 0)})
    failing = res.get("failing", [])
    lines = "\n".join(f"- {t}" for t in failing[:30])
    feedback = f"Hidden acceptance tests fail ({len(failing)}):\n{lines}"
    if res.get("error"):
        feedback += f"\n{res['error']}"
    return Verdict("block", feedback, {"failing": failing, **({"fault": res["error"]} if res.get("error") else {})})
