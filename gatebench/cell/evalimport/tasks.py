"""A `claude plugin eval` suite's cases made gatebench tasks (SPEC.md section 18, "Importing a suite"):
`gatebench task import-eval SUITE_DIR`.

Per case: its scaffold script run in an empty folder (trusted code from the suite, as the CLI's `--scaffold`)
gives the base repo; the test modules it lays (test_*.py, *_test.py) are copied to hidden/<ID>/ at their own
paths and become the hidden oracle (layout `original`: the pristine tests run on the final code, so editing a
test to agree with a bug does not pass it); the prompt is the case's; `tasks/<ID>/eval.yaml` keeps its graders,
which finalize runs on every cell (`cellgrade.py`). A grader that reads a file the base does not hold and the
agent was not asked to write (a harness plugin's report) is kept unscored: gatebench loads no harness, and a
file the agent could write is no verdict. A reference (`--reference CASE=DIR`, files laid over the base) is
only for the sim worker (without one the reference is empty: the sim agent changes nothing); the real worker
needs none. Cases without tests (no oracle) or with a
recorded history (multi-turn) are skipped with a warning. Nothing is written under the home unless every case
imports (staged, then moved in).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from pydantic import ValidationError

from gatebench.cell.evalimport.cases import EvalCase, find_cases
from gatebench.errors import UsageError
from gatebench.models.evaltask import EvalTask
from gatebench.models.loading import describe, load_model
from gatebench.models.task import ImportSource, Oracle, Task, VisibleTests
from gatebench.suite.taskimport.files import dump_yaml
from gatebench.suite.tasks import copy_tree, tree_hash

BASES = ("tasks", "hidden", "reference", "inject")
ID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
TEST_RE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")
KINDS = {"bugfix", "feature", "refactor", "multifile", "concurrency", "caching", "wrong_tests"}
EVAL_FILE = "eval.yaml"


def scaffold(case: EvalCase, dest: Path, timeout_s: float = 120) -> None:
    """The case's scaffold script run in `dest` (empty); a failure is a UsageError naming the script."""
    dest.mkdir(parents=True)
    if case.scaffold is None:
        return
    if not case.scaffold.is_file():
        raise UsageError(f"{case.dir}: context.scaffold_script: {case.scaffold} not found")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "GATEBENCH_", "CLAUDE"))}
    r = subprocess.run(["sh", str(case.scaffold.resolve())], cwd=dest, env=env, capture_output=True, text=True,
                       timeout=timeout_s)
    if r.returncode != 0:
        raise UsageError(f"{case.scaffold}: the scaffold script failed (exit {r.returncode}): {r.stderr[-500:]}")


def test_files(repo: Path) -> list[str]:
    return sorted(str(p.relative_to(repo)) for p in repo.rglob("*.py")
                  if p.is_file() and ".git" not in p.relative_to(repo).parts and TEST_RE.search(str(p.relative_to(repo))))


def harness_file(g: dict, base: Path, prompt: str) -> str | None:
    """The path a file-target grader reads when the base lacks it and the prompt does not name it, else None."""
    t = g.get("target")
    path = t.get("path") if g.get("type") == "regex" and isinstance(t, dict) and t.get("source") == "file" else None
    if path is None and g.get("type") == "file_exists" and g.get("exists", True):
        path = g.get("path")
    if path is None or (base / str(path)).exists() or str(path) in prompt:
        return None
    return str(path)


def graders_of(case: EvalCase, base: Path) -> list[dict]:
    out = []
    for g in case.graders:
        path = harness_file(g, base, case.prompt)
        if path is not None:
            g = {**g, "unscored": f"reads {path}, which the base does not hold and the prompt does not ask for: "
                                  "a harness plugin's output (gatebench loads none), and a file the agent could write"}
        out.append(g)
    return out


def task_of(case: EvalCase, tid: str, suite: Path, tests: list[str], chash: str) -> Task:
    dirs = sorted({t.split("/", 1)[0] if "/" in t else t for t in tests})
    cmd = "{python} -m pytest -q -p no:cacheprovider " + " ".join(dirs)
    kinds = [k for k in case.tags if k in KINDS] or ["bugfix"]
    try:
        return Task(id=tid, title=f"{suite.name}: {case.name}", kinds=kinds, prompt=case.prompt,  # type: ignore[arg-type]
                    visible=VisibleTests(command=cmd, timeout_s=min(1800, case.timeout_s)),
                    oracle=Oracle(command=cmd, layout="original", timeout_s=min(1800, case.timeout_s)),
                    protected=tests, source=ImportSource(repo=str(suite), commit=chash, parent="scaffold",
                                                         prompt_from="eval suite"))
    except ValidationError as e:
        raise UsageError(f"{case.dir}: {describe(e)}") from None


def stage_case(case: EvalCase, tid: str, suite: Path, staging: Path, reference: Path | None) -> list[str]:
    """The case laid as task `tid` under `staging`; returns its test modules (empty: skipped, nothing laid)."""
    built = staging / ".scaffold" / tid
    scaffold(case, built)
    tests = test_files(built)
    if not tests:
        return []
    chash = tree_hash(case.dir)
    tdir = staging / "tasks" / tid
    copy_tree(built, tdir / "repo")
    for t in tests:
        (staging / "hidden" / tid / t).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built / t, staging / "hidden" / tid / t)
    (staging / "reference" / tid).mkdir(parents=True)
    if reference is not None:
        copy_tree(reference, staging / "reference" / tid)
    task = task_of(case, tid, suite, tests, chash)
    dump_yaml(tdir / "task.yaml", task.model_dump(mode="json", exclude_none=True))
    ev = EvalTask(suite=str(suite), case=case.name, case_hash=chash, graders=graders_of(case, tdir / "repo"))
    dump_yaml(tdir / EVAL_FILE, ev.model_dump(mode="json"))
    return tests


def import_suite(suite: Path, home: Path, *, prefix: str = "", references: dict[str, Path] | None = None,
                 run_scaffold: bool = False) -> dict:
    """Every case of `suite` imported under `home`: {tasks: [{id, case, tests, graders, unscored}], skipped}."""
    suite = suite.resolve()
    refs = references or {}
    cases = find_cases(suite)
    unknown = sorted(set(refs) - {c.name for c in cases})
    if unknown:
        raise UsageError(f"--reference {unknown[0]}=...: no case of that name in {suite}")
    if not run_scaffold and any(c.scaffold for c in cases):
        raise UsageError(f"{next(c for c in cases if c.scaffold).dir}: context.scaffold_script: the case runs a "
                         "setup script; pass --scaffold to trust it (as claude plugin eval asks)")
    home.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".import-eval-", dir=home))
    try:
        out = stage_all(cases, suite, home, staging, prefix, refs)
        for row in out["tasks"]:
            for base in BASES:
                if (staging / base / row["id"]).exists():
                    (home / base).mkdir(parents=True, exist_ok=True)
                    (staging / base / row["id"]).rename(home / base / row["id"])
        return out
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def stage_all(cases: list[EvalCase], suite: Path, home: Path, staging: Path, prefix: str,
              refs: dict[str, Path]) -> dict:
    rows, skipped = [], []
    for case in cases:
        tid = prefix + case.name
        if not ID_RE.match(tid):
            raise UsageError(f"{case.dir}: name: {tid!r} is no task id (a letter, then letters, digits, _ or -)")
        if any((home / base / tid).exists() for base in BASES):
            raise UsageError(f"{home / 'tasks' / tid}: a task of that id exists already (pick --prefix)")
        if case.history is not None:
            skipped.append({"case": case.name, "why": "a recorded history (multi-turn): not supported"})
            continue
        ref = refs.get(case.name)
        if ref is not None and not ref.is_dir():
            raise UsageError(f"--reference {case.name}={ref}: not a folder")
        tests = stage_case(case, tid, suite, staging, ref)
        if not tests:
            skipped.append({"case": case.name, "why": "its base holds no test module: no hidden oracle"})
            continue
        ev = load_model(staging / "tasks" / tid / EVAL_FILE, EvalTask)
        rows.append({"id": tid, "case": case.name, "tests": tests, "graders": [g["name"] for g in ev.graders],
                     "unscored": {g["name"]: g["unscored"] for g in ev.graders if g.get("unscored")},
                     "reference": ref is not None})
    return {"suite": str(suite), "tasks": rows, "skipped": skipped}
