"""Gate `self_check` (gate-2): sends a fixed checklist back once per session prompt, then passes.

No outside judgement: it measures what a "re-check your work" nudge alone buys.
"""

from __future__ import annotations

from gatebench.common.defaults import DEFAULT_SELF_CHECK, DEFAULT_SELF_CHECK_INSTALLED
from gatebench.hook.gates import GateContext, Verdict


def run(spec: dict, ctx: GateContext) -> Verdict:
    fired = ctx.session.setdefault("fired", [])
    name = spec.get("name", "self_check")
    if name in fired:
        return Verdict("pass", details={"already_sent": True})
    fired.append(name)
    text = spec.get("text") or DEFAULT_SELF_CHECK
    if text == DEFAULT_SELF_CHECK and ctx.resolved.get("mode") == "installed":
        text = DEFAULT_SELF_CHECK_INSTALLED  # "the task" only in bench mode
    return Verdict("block", text, {"already_sent": False})
