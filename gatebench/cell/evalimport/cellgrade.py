"""An imported eval task's cell graded by the case's own graders (SPEC.md section 18, "Importing a suite"):
finalize's `eval` record field, from the cell's evidence alone.

The run the graders see: `last_message`, the agent's last text in the stream; `tool_calls`, the calls the CLI
executed (a call a PreToolUse hook denied never ran, so it is left out); `trace`, the stream as JSON lines;
`work`, the final work copy. A plugin arm's cell is the `with` arm, the `none` cell beside it the ablation
(`without`: with-only graders left out).
"""

from __future__ import annotations

import json

from gatebench.cell.evalimport.cases import check_grader
from gatebench.cell.evalimport.graders import grade
from gatebench.cell.evidence import Evidence
from gatebench.cell.stream import tool_uses
from gatebench.models.evaltask import EvalTask
from gatebench.models.loading import load_model

EVAL_FILE = "eval.yaml"


def _blocks(e: dict) -> list:
    msg = e.get("message")
    c = msg.get("content") if isinstance(msg, dict) else None
    return [{"type": "text", "text": c}] if isinstance(c, str) else c if isinstance(c, list) else []


def denied_ids(events: list[dict]) -> set[str]:
    """tool_use ids whose result is a PreToolUse denial (`PreToolUse:<Tool> hook error: ...`): never executed."""
    out = set()
    for e in events:
        if e.get("type") != "user":
            continue
        for b in _blocks(e):
            if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error"):
                c = b.get("content")
                text = "".join(x.get("text", "") for x in c if isinstance(x, dict)) if isinstance(c, list) else str(c)
                if text.startswith("PreToolUse:"):
                    out.add(str(b.get("tool_use_id")))
    return out


def last_message(events: list[dict]) -> str:
    text = ""
    for e in events:
        if e.get("type") == "assistant":
            said = [b.get("text", "") for b in _blocks(e) if isinstance(b, dict) and b.get("type") == "text"]
            if any(said):
                text = "\n".join(said)
    return text


def run_of(ev: Evidence) -> dict:
    events = ev.stream.events
    denied = denied_ids(events)
    return {"last_message": last_message(events), "work": str(ev.cell.repo),
            "tool_calls": [c for c in tool_uses(events) if str(c["id"]) not in denied],
            "trace": "\n".join(json.dumps(e, sort_keys=True) for e in events)}


def record_fields(ev: Evidence) -> dict:
    """{"eval": {case, arm, score, passed, graders, unscored}} for an imported eval task's cell, else {}."""
    path = ev.trusted.task.dir / EVAL_FILE
    if not path.is_file():
        return {}
    spec = load_model(path, EvalTask)
    graders = [check_grader(g, f"{path}: graders[{i}]") for i, g in enumerate(spec.graders)]
    arm = "with" if getattr(ev.meta, "arm", None) is not None else "without"
    return {"eval": {"case": spec.case, "arm": arm, **grade(graders, run_of(ev), arm)}}
