"""The hidden oracle: run hidden tests on a *copy* of a work tree and read per-test outcomes (stdlib only).

The work copy is only ever read: the tree is copied to a temporary folder, the hidden files land in
`<copy>/<dest>/`, pytest writes its JUnit XML outside the copy, and the copy is removed afterwards,
whatever happened (crash, timeout). The hook calls this at every stop attempt in bench mode.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from gatebench.hook import proc

_SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache"}


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in _SKIP_DIRS or n.endswith(".pyc")}


def test_id(classname: str, name: str, dest: str) -> str:
    """JUnit (classname, name) -> `file.py::name`, relative to the hidden folder."""
    parts = classname.split(".") if classname else []
    prefix = dest.strip("/").split("/")
    if parts[: len(prefix)] == prefix:
        parts = parts[len(prefix) :]
    # Test classes start with an upper-case "Test"; the module path ends before them.
    cut = next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts))
    module, klass = parts[:cut], parts[cut:]
    path = "/".join(module) + ".py" if module else "?"
    return "::".join([path, *klass, name])


def parse_junit(xml_text: str, dest: str) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    root = ET.fromstring(xml_text)
    for case in root.iter("testcase"):
        tid = test_id(case.get("classname", ""), case.get("name", ""), dest)
        tags = {child.tag for child in case}
        if "error" in tags:
            outcome = "error"
        elif "failure" in tags:
            outcome = "failed"
        elif "skipped" in tags:
            outcome = "skipped"
        else:
            outcome = "passed"
        # A test that passed its call but errored in teardown shows twice; the worse outcome wins.
        if outcomes.get(tid) in ("failed", "error") and outcome == "passed":
            continue
        outcomes[tid] = outcome
    return outcomes


def summarize(outcomes: dict[str, str], error: str | None, seconds: float, returncode: int | None) -> dict:
    counts = {k: sum(1 for v in outcomes.values() if v == k) for k in ("passed", "failed", "error", "skipped")}
    failing = sorted(t for t, v in outcomes.items() if v in ("failed", "error"))
    solved = bool(outcomes) and not error and counts["passed"] == len(outcomes)
    return {
        "solved": solved,
        "passed": counts["passed"],
        "failed": counts["failed"],
        "errors": counts["error"],
        "skipped": counts["skipped"],
        "failing": failing,
        "tests": outcomes,
        "error": error,
        "returncode": returncode,
        "seconds": round(seconds, 3),
    }


# Files that configure pytest for a whole tree. In the `original` layout none of the copy's own
# survive: the hidden folder brings the task's harness, so an agent's new conftest.py cannot decide.
HARNESS_ROOT_FILES = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")


def _real_dir(copy: str, rel_dir: str) -> str:
    """copy/rel_dir as a real directory: a symlink or file the agent put on the way is removed, so a hidden file
    can never be written through a link to outside the copy."""
    cur = copy
    for part in [p for p in rel_dir.split(os.sep) if p and p != "."]:
        cur = os.path.join(cur, part)
        if os.path.islink(cur) or (os.path.lexists(cur) and not os.path.isdir(cur)):
            os.remove(cur)
        os.makedirs(cur, exist_ok=True)
    return cur


def lay_original(copy: str, hidden_dir: str) -> None:
    """Layout `original`: drop the copy's pytest harness, then lay every hidden file at its own path.

    Removed: every conftest.py, and the pytest config files in the root and in every folder on the way
    to a hidden file (pytest looks for its config from the tests' common folder upwards)."""
    for dirpath, dirnames, filenames in os.walk(copy):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        if "conftest.py" in filenames:
            os.remove(os.path.join(dirpath, "conftest.py"))
    files = []
    for dirpath, dirnames, filenames in os.walk(hidden_dir):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        rel = os.path.relpath(dirpath, hidden_dir)
        files += [os.path.normpath(os.path.join(rel, f)) for f in filenames if not f.endswith(".pyc")]
    folders = {""}
    for rel in files:
        parts = rel.split(os.sep)[:-1]
        folders.update(os.sep.join(parts[:i]) for i in range(1, len(parts) + 1))
    for folder in sorted(folders):
        d = _real_dir(copy, folder)
        for name in HARNESS_ROOT_FILES:
            p = os.path.join(d, name)
            if os.path.lexists(p) and not os.path.isdir(p):
                os.remove(p)
    for rel in files:
        d = _real_dir(copy, os.path.dirname(rel))
        target = os.path.join(d, os.path.basename(rel))
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target)
        elif os.path.lexists(target):
            os.remove(target)
        shutil.copy2(os.path.join(hidden_dir, rel), target)


def judge_sets(result: dict, fail_to_pass: list[str], pass_to_pass: list[str]) -> dict:
    """SWE-bench's `resolved`: solved iff every FAIL_TO_PASS and PASS_TO_PASS test passed (a test that did not
    run counts as failing); `failing` is narrowed to those sets. Other hidden tests are reported, not judged."""
    expected = set(fail_to_pass) | set(pass_to_pass)
    if not expected:
        return result
    outcomes = result["tests"]
    failing = sorted(t for t in expected if outcomes.get(t) != "passed")
    return {**result, "solved": not result["error"] and not failing, "failing": failing}


def oracle_options(binding: dict) -> dict:
    """The keyword arguments of run_oracle that only some tasks' bindings carry (imported tasks)."""
    return {k: binding[k] for k in ("layout", "fail_to_pass", "pass_to_pass") if binding.get(k)}


def run_oracle(
    work: str,
    hidden_dir: str,
    command: str,
    dest: str = "hidden_tests",
    timeout_s: float = 60,
    python: str | None = None,
    layout: str = "dest",
    fail_to_pass: list[str] | None = None,
    pass_to_pass: list[str] | None = None,
) -> dict:
    """Run the hidden tests against a copy of `work`. Never raises for the agent's faults."""
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="gatebench-oracle-")
    try:
        copy = os.path.join(tmp, "tree")
        try:
            shutil.copytree(work, copy, symlinks=True, ignore=_ignore)
            if layout == "original":
                lay_original(copy, hidden_dir)
                dest = ""
            else:
                target = os.path.join(copy, dest)
                if os.path.lexists(target):
                    # The agent created a folder where hidden tests land: the hidden ones win.
                    shutil.rmtree(target) if os.path.isdir(target) and not os.path.islink(target) else os.remove(target)
                shutil.copytree(hidden_dir, target, ignore=_ignore)
        except OSError as e:
            return summarize({}, f"cannot prepare the oracle copy: {e}", time.monotonic() - t0, None)
        junit = os.path.join(tmp, "junit.xml")
        cmd = command.replace("{python}", shlex.quote(python or sys.executable))
        cmd += f" --junitxml={shlex.quote(junit)} -o junit_family=xunit1"
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTEST_ADDOPTS", None)
        r = proc.run(cmd, cwd=copy, timeout_s=timeout_s, env=env)
        error = None
        outcomes: dict[str, str] = {}
        if r.timed_out:
            error = f"oracle timed out after {timeout_s:.0f} s"
        try:
            with open(junit, encoding="utf-8") as f:
                outcomes = parse_junit(f.read(), dest)
        except (OSError, ET.ParseError) as e:
            if not error:
                tail = (r.stdout + r.stderr)[-500:]
                error = f"no JUnit report (exit {r.returncode}): {e}; {tail}"
        if not error and not outcomes:
            error = f"the oracle collected no tests (exit {r.returncode})"
        if not error and r.returncode not in (0, 1, 2):  # 2: collection errors, the code's fault
            error = f"pytest exited {r.returncode}: {(r.stdout + r.stderr)[-500:]}"
        result = summarize(outcomes, error, time.monotonic() - t0, r.returncode)
        return judge_sets(result, fail_to_pass or [], pass_to_pass or [])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
