"""A `claude plugin eval` suite's own graders, run by gatebench on a finished run, offline (SPEC.md section 18,
"Importing a suite").

A run is plain data: `last_message` (the agent's last text), `tool_calls` ([{name, input}] in order: what it
executed, never what it wrote about), `trace` (the stream-json text), `work` (its working directory). Kinds:
- `regex` {target: last_message | trace | files | {source: file, path}, pattern, flags (i, m, s), match:
  contains (default) | not_contains | count:N}; `files` = the working directory's file paths, one a line
  (*inferred*); a file target is read from the working directory only (a link out of it is refused, as the CLI
  does); `mock_calls` is unavailable here (gatebench has no MCP mocks) and unscored;
- `tool_used` {tool (a name, `*` as a wildcard), input_match (regex over the input's JSON), min (default 1), max};
- `tool_order` {before, after}: both used, the first `before` call ahead of the first `after` call;
- `file_exists` {path, exists (default true)};
- `llm`, `baseline`: a judge model's; without ANTHROPIC_API_KEY they are unscored, marked so, and out of the score
  (with a key too, for now: gatebench does not call a judge).
A run's score is the weighted share of its scored graders that passed (the CLI's rule); `with-only` graders are
left out of the `without` arm. A grader holding `unscored` (a reason: an imported task's grader on a harness
plugin's file) is unscored with that reason.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from pathlib import Path

_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


def _compile(g: dict) -> re.Pattern:
    flags = 0
    for f in str(g.get("flags") or ""):
        flags |= _FLAGS.get(f, 0)
    return re.compile(str(g["pattern"]), flags)


def _file_text(work: Path, rel: str) -> str | None:
    p = work / rel
    real = os.path.realpath(p)
    if not real.startswith(os.path.realpath(work) + os.sep) or not os.path.isfile(real):
        return None
    return Path(real).read_text(encoding="utf-8", errors="replace")


def _target(g: dict, run: dict) -> str | None:
    t = g.get("target", "last_message")
    work = Path(run["work"])
    if isinstance(t, dict) and t.get("source") == "file":
        return _file_text(work, str(t.get("path")))
    if t == "last_message":
        return str(run.get("last_message") or "")
    if t == "trace":
        return str(run.get("trace") or "")
    if t == "files":
        return "\n".join(sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file()
                                and ".git" not in p.relative_to(work).parts))
    return None


def regex(g: dict, run: dict) -> tuple[bool | None, str]:
    text = _target(g, run)
    if text is None:
        return (False, f"target {g.get('target')!r} not found") if isinstance(g.get("target"), dict) else \
            (None, f"target {g.get('target')!r} is not available offline")
    n = len(_compile(g).findall(text))
    match = str(g.get("match") or "contains")
    if match == "not_contains":
        return n == 0, f"{n} match(es), none wanted"
    if match.startswith("count:"):
        want = int(match.split(":", 1)[1])
        return n == want, f"{n} match(es), {want} wanted"
    return n > 0, f"{n} match(es)"


def _calls(run: dict, tool: str, input_match: str | None) -> list[int]:
    pat = re.compile(input_match) if input_match else None
    return [i for i, c in enumerate(run.get("tool_calls") or [])
            if fnmatch.fnmatchcase(str(c.get("name")), tool)
            and (pat is None or pat.search(json.dumps(c.get("input"), sort_keys=True)))]


def tool_used(g: dict, run: dict) -> tuple[bool | None, str]:
    n = len(_calls(run, str(g["tool"]), g.get("input_match")))
    lo, hi = int(g.get("min", 1)), g.get("max")
    return lo <= n and (hi is None or n <= int(hi)), f"{g['tool']} used {n} time(s)"


def tool_order(g: dict, run: dict) -> tuple[bool | None, str]:
    a, b = _calls(run, str(g.get("before")), None), _calls(run, str(g.get("after")), None)
    if not a or not b:
        return False, f"{g.get('before')} used {len(a)}, {g.get('after')} used {len(b)}"
    return a[0] < b[0], f"first {g.get('before')} at call {a[0]}, first {g.get('after')} at call {b[0]}"


def file_exists(g: dict, run: dict) -> tuple[bool | None, str]:
    there = _file_text(Path(run["work"]), str(g["path"])) is not None
    want = bool(g.get("exists", True))
    return there == want, f"{g['path']} {'exists' if there else 'is missing'}"


def judged(g: dict, run: dict) -> tuple[bool | None, str]:
    if not os.environ.get("ANTHROPIC_API_KEY"):
        return None, "unscored: a judge model's grader, and no ANTHROPIC_API_KEY is set"
    return None, "unscored: gatebench does not call a judge model yet"


KINDS = {"regex": regex, "tool_used": tool_used, "tool_order": tool_order, "file_exists": file_exists,
         "llm": judged, "baseline": judged}


def grade(graders: list[dict], run: dict, arm: str = "with") -> dict:
    """{score, passed, graders: [{name, type, weight, passed (None = unscored), explanation}]}."""
    out = []
    for g in graders:
        if arm == "without" and g.get("arm") == "with-only":
            continue
        passed, why = (None, f"unscored: {g['unscored']}") if g.get("unscored") else KINDS[g["type"]](g, run)
        out.append({"name": g["name"], "type": g["type"], "weight": g["weight"], "passed": passed,
                    "explanation": why})
    scored = [x for x in out if x["passed"] is not None]
    total = sum(x["weight"] for x in scored)
    score = sum(x["weight"] for x in scored if x["passed"]) / total if total else None
    return {"score": score, "passed": score == 1.0, "graders": out,
            "unscored": [x["name"] for x in out if x["passed"] is None]}
