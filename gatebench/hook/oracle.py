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
    test passed, at least one). A missing expected test is a failure, named in `missing` and `failing`."""
    counts = {k: sum(1 for v in outcomes.values() if v == k) for k in ("passed", "failed", "error", "skipped")}
    failing = {t for t, v in outcomes.items() if v in ("failed", "error")}
    missing: list[str] = []
    if expected:
        missing, bad = expected_status(outcomes, expected)
        failing |= set(bad)
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


def prepare_copy(work: str, hidden_dir: str, dest: str, copy: str, baseline_dir: str | None,
                 deadline: float | None = None) -> list[dict]:
    """The oracle's copy: the work tree, the hidden tests at dest, the baseline's harness. Raises OSError."""
    treecopy.copy_tree(work, copy, ignore=_ignore, deadline=deadline)
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
) -> dict:
    """Run the hidden tests against a copy of `work`. Never raises for the agent's faults.

    `baseline_dir`: the task's pristine repo; the copy's test harness is made equal to its
    (`harness` in the result lists what was removed or put back). `sandbox_mode`: `required` (no
    bwrap -> an error result, nothing run), `auto` (unsandboxed when bwrap is missing, said in
    `sandboxed`), `off`.
    """
    t0 = time.monotonic()
    python = python or sys.executable
    tmp = tempfile.mkdtemp(prefix="gatebench-oracle-")
    try:
        copy, out = os.path.join(tmp, "tree"), os.path.join(tmp, "out")
        os.mkdir(out)
        try:
            # Regular files and symlinks only, within the oracle's time: a device or FIFO in the work copy
            # must not stall or fill the copy (hook/treecopy.py).
            actions = prepare_copy(work, hidden_dir, dest, copy, baseline_dir, deadline=time.monotonic() + timeout_s)
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
                      sandbox_mode=binding.get("sandbox") or "required", hide=hide)
