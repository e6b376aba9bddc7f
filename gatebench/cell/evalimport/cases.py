"""The cases of a `claude plugin eval` suite, as plain data (SPEC.md section 18, "Importing a suite").

A case is a folder holding `case.yaml` (`schema_version`, `name`, `context`, `execution`, `runs`, `graders`) or
`prompt.md` (front matter: description, tags, plugins, runs, model, max_turns, timeout_seconds, allowed_tools,
env; the body is the prompt) with `graders/*.md` (front matter: `type`, `weight`, `arm` and the type's options;
the body is an llm grader's criteria), or both (case.yaml's fields win, its graders add to the folder's). Every
folder under the suite is searched, as the CLI does; folders holding results (`aggregate-result.json`,
`report.html`) and `mocks/` are skipped. Bad input: UsageError naming the file and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from gatebench.errors import UsageError

KINDS = ("regex", "tool_used", "tool_order", "file_exists", "llm", "baseline")
ARMS = ("with-only", "both")
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.DOTALL)


@dataclass
class EvalCase:
    name: str
    dir: Path
    prompt: str
    graders: list[dict]
    runs: int = 3
    max_turns: int = 10
    timeout_s: int = 300
    allowed_tools: list[str] = field(default_factory=list)
    scaffold: Path | None = None
    history: Path | None = None
    tags: list[str] = field(default_factory=list)
    model: str | None = None


def front_matter(path: Path) -> tuple[dict, str]:
    """(front matter, body) of a markdown file; no front matter: ({}, the text)."""
    text = path.read_text(encoding="utf-8")
    m = _FRONT.match(text)
    if not m:
        return {}, text.strip()
    try:
        head = yaml.safe_load(m.group(1)) or {}
    except yaml.YAMLError as e:
        raise UsageError(f"{path}: front matter is not YAML: {e}") from None
    if not isinstance(head, dict):
        raise UsageError(f"{path}: front matter: expected a mapping")
    return head, text[m.end():].strip()


def check_grader(g: dict, where: str) -> dict:
    kind = g.get("type")
    if kind not in KINDS:
        raise UsageError(f"{where}: type: {kind!r} is not a grader kind ({', '.join(KINDS)})")
    w = g.get("weight", 1)
    if not isinstance(w, int | float) or isinstance(w, bool) or w <= 0:
        raise UsageError(f"{where}: weight: must be a number > 0, got {w!r}")
    if g.get("arm", "both") not in ARMS:
        raise UsageError(f"{where}: arm: {g.get('arm')!r} is not one of {', '.join(ARMS)}")
    if kind == "regex" and not isinstance(g.get("pattern"), str):
        raise UsageError(f"{where}: pattern: a regex grader needs one")
    if kind in ("tool_used",) and not isinstance(g.get("tool"), str):
        raise UsageError(f"{where}: tool: a tool_used grader needs one")
    if kind == "file_exists" and not isinstance(g.get("path"), str):
        raise UsageError(f"{where}: path: a file_exists grader needs one")
    return {**g, "weight": float(w), "arm": g.get("arm", "both")}


def folder_graders(case_dir: Path) -> list[dict]:
    out = []
    for p in sorted((case_dir / "graders").glob("*.md")):
        head, body = front_matter(p)
        g = {"name": head.get("name") or p.stem, **head}
        if g.get("type") in ("llm", "baseline") and body and "criteria" not in g:
            g["criteria"] = body
        out.append(check_grader(g, str(p)))
    return out


def _yaml(path: Path) -> dict:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise UsageError(f"{path}: not YAML: {e}") from None
    if not isinstance(doc, dict):
        raise UsageError(f"{path}: expected a mapping")
    sv = str(doc.get("schema_version", ""))
    if not sv or not sv.split(".")[0].isdigit() or int(sv.split(".")[0]) > 1:
        raise UsageError(f"{path}: schema_version: required, major version at most 1 (got {sv or 'none'})")
    return doc


def read_case(case_dir: Path) -> EvalCase:
    doc = _yaml(case_dir / "case.yaml") if (case_dir / "case.yaml").is_file() else {}
    head, body = front_matter(case_dir / "prompt.md") if (case_dir / "prompt.md").is_file() else ({}, "")
    ex, ctx = doc.get("execution") or {}, doc.get("context") or {}
    where = case_dir / ("case.yaml" if doc else "prompt.md")
    graders = folder_graders(case_dir) + [check_grader(g, f"{where}: graders[{i}]")
                                          for i, g in enumerate(doc.get("graders") or [])]
    names = [g.get("name") for g in graders]
    if not graders:
        raise UsageError(f"{where}: graders: a case needs at least one")
    if len(set(names)) != len(names) or None in names:
        raise UsageError(f"{where}: graders: every grader needs a name, unique in its case ({names})")
    prompt = ex.get("prompt") or body
    if not prompt:
        raise UsageError(f"{where}: prompt: missing (execution.prompt or the body of prompt.md)")

    def opt(key: str, alt: str | None = None):
        return ex.get(key, doc.get(key, head.get(alt or key)))

    scaffold = ctx.get("scaffold_script")
    history = ctx.get("history_file")
    return EvalCase(
        name=str(doc.get("name") or case_dir.name), dir=case_dir, prompt=str(prompt), graders=graders,
        runs=int(doc.get("runs", head.get("runs", 3))), max_turns=int(opt("max_turns") or 10),
        timeout_s=int(opt("timeout_seconds") or 300), allowed_tools=list(opt("allowed_tools") or []),
        scaffold=case_dir / scaffold if scaffold else None, history=case_dir / history if history else None,
        tags=list(doc.get("tags") or head.get("tags") or []), model=opt("model"))


def find_cases(suite: Path) -> list[EvalCase]:
    """Every case under `suite` (an eval directory), sorted by folder."""
    if not suite.is_dir():
        raise UsageError(f"{suite}: not a folder")
    dirs = set()
    for p in [*suite.rglob("case.yaml"), *suite.rglob("prompt.md")]:
        rel = p.parent.relative_to(suite).parts
        if "mocks" in rel or "results" in rel:
            continue
        if p.name == "prompt.md" and not (p.parent / "graders").is_dir() and not (p.parent / "case.yaml").is_file():
            continue
        if (p.parent / "aggregate-result.json").exists() or (p.parent / "report.html").exists():
            continue
        dirs.add(p.parent)
    if not dirs:
        raise UsageError(f"{suite}: no case (case.yaml, or prompt.md with graders/) under it")
    return [read_case(d) for d in sorted(dirs)]
