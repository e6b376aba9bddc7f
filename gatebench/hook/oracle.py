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

from gatebench.hook import harness, proc, sandbox, treecopy
from gatebench.hook.defaults import TASK_TEST_TIMEOUT_S

_SKIP_DIRS = harness.SKIP_DIRS


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


def expected_status(outcomes: dict[str, str], expected: list[str]) -> tuple[list[str], list[str]]:
    """(missing, not passed) expected ids. An id without parameters stands for all its parametrized
    instances (at least one must have run); an id with `[...]` must have run exactly."""
    missing, bad = [], []
    for e in expected:
        hits = [t for t in outcomes if t == e or ("[" not in e and t.startswith(e + "["))]
        if not hits:
            missing.append(e)
        bad += [t for t in hits if outcomes[t] != "passed"]
    return missing, bad


def summarize(outcomes: dict[str, str], error: str | None, seconds: float, returncode: int | None,
              expected: list[str] | None = None) -> dict:
    """`solved`: no error and every expected id ran and passed (without `expected`: every collected
    test passed, at least one). A missing expected test is a failure, named in `missing` and `failing`.
    With `expected`, `failing` names expected tests only: others are reported in `tests`, never judged
    (an imported task's hidden files may hold tests that fail on the parent and the fix alike)."""
    counts = {k: sum(1 for v in outcomes.values() if v == k) for k in ("passed", "failed", "error", "skipped")}
    failing = {t for t, v in outcomes.items() if v in ("failed", "error")}
    missing: list[str] = []
    if expected:
        missing, bad = expected_status(outcomes, expected)
        failing = set(bad)
        solved = not error and not missing and not bad
    else:
        solved = bool(outcomes) and not error and counts["passed"] == len(outcomes)
    return {
        "solved": solved,
        "passed": counts["passed"],
        "failed": counts["failed"],
        "errors": counts["error"],
        "skipped": counts["skipped"],
        "failing": sorted(failing | {f"{m} (not run)" for m in missing}),
        "missing": missing,
        "tests": outcomes,
        "error": error,
        "returncode": returncode,
        "seconds": round(seconds, 3),
    }


EVENT_KEYS = ("solved", "passed", "failed", "errors", "skipped", "failing", "missing", "error", "seconds",
              "sandboxed", "harness")


def event_summary(result: dict, max_listed: int = 50) -> dict:
    """What a stop event keeps of an oracle result (lists cut: an agent can create files by the thousand)."""
    out = {k: result[k] for k in EVENT_KEYS if k in result}
    for k in ("failing", "missing", "harness"):
        if isinstance(out.get(k), list) and len(out[k]) > max_listed:
            out[k] = out[k][:max_listed]
            out[f"{k}_total"] = len(result[k])
    return out


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
        for name in harness.CONFIG_FILES:  # the hidden folder brings the task's own
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


def prepare_copy(work: str, hidden_dir: str, dest: str, copy: str, baseline_dir: str | None,
                 deadline: float | None = None, layout: str = "dest") -> list[dict]:
    """The oracle's copy: the work tree, the hidden tests at dest (or, layout `original`, at their own paths),
    the baseline's harness. Raises OSError."""
    treecopy.copy_tree(work, copy, ignore=_ignore, deadline=deadline)
    if layout == "original":
        actions = harness.restore(copy, harness.baseline_files(baseline_dir)) if baseline_dir else []
        lay_original(copy, hidden_dir)  # and then the hidden folder's own harness decides
        return actions
    target = os.path.join(copy, dest)
    if os.path.lexists(target):
        # The agent created a folder where hidden tests land: the hidden ones win.
        shutil.rmtree(target) if os.path.isdir(target) and not os.path.islink(target) else os.remove(target)
    actions = harness.restore(copy, harness.baseline_files(baseline_dir), skip=dest) if baseline_dir else []
    treecopy.copy_tree(hidden_dir, target, ignore=_ignore, deadline=deadline)
    return actions


def run_oracle(
    work: str,
    hidden_dir: str,
    command: str,
    dest: str = "hidden_tests",
    timeout_s: float = TASK_TEST_TIMEOUT_S,
    python: str | None = None,
    *,
    expected: list[str] | None = None,
    baseline_dir: str | None = None,
    sandbox_mode: str = "required",
    hide: list[str] | None = None,
    layout: str = "dest",
    fail_to_pass: list[str] | None = None,
    pass_to_pass: list[str] | None = None,
) -> dict:
    """Run the hidden tests against a copy of `work`. Never raises for the agent's faults.

    `baseline_dir`: the task's pristine repo; the copy's test harness is made equal to its
    (`harness` in the result lists what was removed or put back). `sandbox_mode`: `required` (no
    bwrap -> an error result, nothing run), `auto` (unsandboxed when bwrap is missing, said in
    `sandboxed`), `off`.
    """
    t0 = time.monotonic()
    python = python or sys.executable
    # An imported task's FAIL_TO_PASS + PASS_TO_PASS are its expected tests (SWE-bench's `resolved`).
    expected = expected or [*(fail_to_pass or []), *(pass_to_pass or [])] or None
    tmp = tempfile.mkdtemp(prefix="gatebench-oracle-")
    try:
        copy, out = os.path.join(tmp, "tree"), os.path.join(tmp, "out")
        os.mkdir(out)
        try:
            # Regular files and symlinks only, within the oracle's time: a device or FIFO in the work copy
            # must not stall or fill the copy (hook/treecopy.py).
            actions = prepare_copy(work, hidden_dir, dest, copy, baseline_dir, deadline=time.monotonic() + timeout_s,
                                   layout=layout)
            if layout == "original":
                dest = ""  # test ids are the hidden files' own paths
        except OSError as e:
            return summarize({}, f"cannot prepare the oracle copy: {e}", time.monotonic() - t0, None, expected)
        junit = os.path.join(out, "junit.xml")
        cmd = command.replace("{python}", shlex.quote(python))
        cmd += (f" -p no:cacheprovider --rootdir={shlex.quote(os.path.realpath(copy))}"
                f" --junitxml={shlex.quote(junit)} -o junit_family=xunit1")
        why = sandbox.probe() if sandbox_mode != "off" else "sandbox off"
        if why and sandbox_mode == "required":
            res = summarize({}, f"sandbox required but unavailable: {why}", time.monotonic() - t0, None, expected)
            return {**res, "sandboxed": False, "harness": actions}
        env = sandbox.clean_env(python)  # the oracle needs nothing of the caller's environment
        if why:
            argv: list[str] | str = cmd
        else:
            private = sandbox.private_dirs(os.path.dirname(os.path.dirname(os.path.abspath(hidden_dir))), *(hide or []))
            argv = sandbox.wrap(sandbox.shell(cmd), writable=[copy, out], cwd=copy, python=python, hide=private)
        r = proc.run(argv, cwd=copy, timeout_s=timeout_s, env=env)
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
        if not error and r.returncode != 0 and all(v == "passed" for v in outcomes.values()):
            # Something in pytest's process rewrote the report: its exit code still says a test failed.
            error = f"pytest exited {r.returncode} but its report shows every test passed (report forged?)"
        res = summarize(outcomes, error, time.monotonic() - t0, r.returncode, expected)
        return {**res, "sandboxed": not why, "harness": actions}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_binding(work: str, binding: dict, python: str | None, hide: list[str] | None = None,
                timeout_s: float | None = None) -> dict:
    """run_oracle from a resolved config's `oracle` binding (the hook) or the task (finalize); `timeout_s`
    narrows the binding's own timeout (the hook's remaining budget)."""
    limit = binding["timeout_s"] if timeout_s is None else min(timeout_s, binding["timeout_s"])
    return run_oracle(work, binding["hidden_dir"], binding["command"], binding["dest"], limit,
                      python, expected=binding.get("expected") or None, baseline_dir=binding.get("baseline_dir"),
                      sandbox_mode=binding.get("sandbox") or "required", hide=hide,
                      layout=binding.get("layout") or "dest", fail_to_pass=binding.get("fail_to_pass"),
                      pass_to_pass=binding.get("pass_to_pass"))
