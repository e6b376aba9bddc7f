"""The hidden oracle: run hidden tests on a *copy* of a work tree and read per-test outcomes (stdlib only).

The work copy is only ever read: the tree is copied to a temporary folder, the hidden files land in
`<copy>/<dest>/`, pytest writes its JUnit XML outside the copy, and the copy is removed afterwards,
whatever happened (crash, timeout). The hook calls this at every stop attempt in bench mode.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from gatebench.common import proc
from gatebench.common.defaults import TASK_TEST_TIMEOUT_S
from gatebench.oracle import closed, harness, sandbox
from gatebench.oracle.canaries import judge as canary_judge
from gatebench.oracle.canaries import lay as canary_lay
from gatebench.oracle.canaries import record as canary_record
from gatebench.oracle.canaries import rename_args as canary_args
from gatebench.oracle.control import BENCH, UNPROVEN, WORK, Controls, attribute
from gatebench.oracle.control import summary as control_summary
from gatebench.tree import treecopy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


def instances(outcomes: dict[str, str], test_id: str) -> list[str]:
    """The node ids of `outcomes` that a test id stands for: an id without parameters, all its parametrized
    instances; an id with `[...]`, exactly itself."""
    return [t for t in outcomes if t == test_id or ("[" not in test_id and t.startswith(test_id + "["))]


def expected_status(outcomes: dict[str, str], expected: list[str]) -> tuple[list[str], list[str]]:
    """(missing, not passed) expected ids. An id without parameters stands for all its parametrized
    instances (at least one must have run); an id with `[...]` must have run exactly."""
    missing, bad = [], []
    for e in expected:
        hits = instances(outcomes, e)
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
              "sandboxed", "harness", "integrity", "fault", "control")


def event_summary(result: dict, max_listed: int = 50) -> dict:
    """What a stop event keeps of an oracle result (lists cut: an agent can create files by the thousand)."""
    out = {k: result[k] for k in EVENT_KEYS if k in result}
    if result.get("canaries"):
        out["canaries"] = canary_record(result["canaries"])
    for k in ("failing", "missing", "harness", "integrity"):
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


def hidden_files(hidden_dir: str) -> tuple[list[str], set[str]]:
    """(every file of the hidden folder, repo-relative; the folders on the way to them, the root "" included)."""
    files = []
    for dirpath, dirnames, filenames in os.walk(hidden_dir):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        rel = os.path.relpath(dirpath, hidden_dir)
        files += [os.path.normpath(os.path.join(rel, f)) for f in filenames if not f.endswith(".pyc")]
    folders = {""}
    for rel in files:
        parts = rel.split(os.sep)[:-1]
        folders.update(os.sep.join(parts[:i]) for i in range(1, len(parts) + 1))
    return files, folders


def lay_original(copy: str, hidden_dir: str) -> None:
    """Layout `original`: drop the copy's pytest harness, then lay every hidden file at its own path.

    Removed: every conftest.py, and the pytest config files in the root and in every folder on the way
    to a hidden file (pytest looks for its config from the tests' common folder upwards)."""
    for dirpath, dirnames, filenames in os.walk(copy):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        if "conftest.py" in filenames:
            os.remove(os.path.join(dirpath, "conftest.py"))
    files, folders = hidden_files(hidden_dir)
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


def prepare_copy(work: str, hidden_dir: str, dest: str, copy: str, base: harness.Baseline | None,
                 deadline: float | None = None, layout: str = "dest",
                 installed: frozenset[str] = frozenset()) -> list[dict]:
    """The oracle's copy: the work tree, the hidden tests at dest (or, layout `original`, at their own paths),
    the baseline's harness (`base`: its harness files). Raises OSError."""
    treecopy.copy_tree(work, copy, ignore=_ignore, deadline=deadline)
    if layout == "original":
        actions = harness.restore(copy, base, installed=installed) if base is not None else []
        lay_original(copy, hidden_dir)  # and then the hidden folder's own harness decides
        return actions
    target = os.path.join(copy, dest)
    if os.path.lexists(target):
        # The agent created a folder where hidden tests land: the hidden ones win.
        shutil.rmtree(target) if os.path.isdir(target) and not os.path.islink(target) else os.remove(target)
    actions = harness.restore(copy, base, skip=dest, installed=installed) if base is not None else []
    treecopy.copy_tree(hidden_dir, target, ignore=_ignore, deadline=deadline)
    return actions


def trusted_harness(copy: str, hidden_dir: str, dest: str, layout: str, base: harness.Baseline | None):
    """(read(rel) -> the trusted content of a harness file of the copy or None, whether the trusted harness
    has any conftest.py). Trusted: the hidden folder for what it lays, the baseline for the rest; without a
    baseline the caller trusts the tree it gave (task import measuring its own trees)."""
    files, folders = hidden_files(hidden_dir)
    hidden = {f.replace(os.sep, "/") for f in files}
    folders = {f.replace(os.sep, "/") for f in folders}
    prefix = "" if layout == "original" else dest.strip("/") + "/"

    def from_file(path: str) -> bytes | None:
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError:
            return None

    def read(rel: str) -> bytes | None:
        if layout == "original" and (rel.rsplit("/", 1)[0] if "/" in rel else "") in folders:
            return from_file(os.path.join(hidden_dir, rel)) if rel in hidden else None
        if prefix and rel.startswith(prefix):
            inner = rel[len(prefix):]
            return from_file(os.path.join(hidden_dir, inner)) if inner in hidden else None
        if base is None:
            return None if os.path.islink(os.path.join(copy, rel)) else from_file(os.path.join(copy, rel))
        data = base.get(rel)
        return None if data is None or data.startswith(b"symlink:") else data

    conftests = any(f.rsplit("/", 1)[-1] == "conftest.py" for f in hidden)
    if layout != "original":
        if base is not None:
            conftests = conftests or any(r.rsplit("/", 1)[-1] == "conftest.py" for r in base)
        else:
            conftests = conftests or any("conftest.py" in fs for _d, _s, fs in os.walk(copy))
    return read, conftests


def _nodeid_to_id(nodeid: str, dest: str) -> str:
    prefix = dest.strip("/") + "/" if dest else ""
    return nodeid[len(prefix):] if prefix and nodeid.startswith(prefix) else nodeid


def junit_key(nodeid: str) -> tuple[str, str]:
    """The (classname, name) pytest's JUnit writer gives a node id (junitxml.mangle_test_address, xunit1)."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


def junit_cases(xml_text: str) -> dict[tuple[str, str], str]:
    """(classname, name) -> outcome of every testcase of a JUnit report (the worse outcome of repeats)."""
    rank = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
    out: dict[tuple[str, str], str] = {}
    for case in ET.fromstring(xml_text).iter("testcase"):
        tags = {child.tag for child in case}
        outcome = ("error" if "error" in tags else "failed" if "failure" in tags else
                   "skipped" if "skipped" in tags else "passed")
        key = (case.get("classname", ""), case.get("name", ""))
        if rank[outcome] >= rank.get(out.get(key, "passed"), 0):
            out[key] = outcome
    return out


def cross_check(stream: dict[str, str], junit: dict[tuple[str, str], str], name=lambda n: n) -> list[str]:
    """Where gatebench's stream (node id -> outcome) and pytest's JUnit report disagree: a test one says passed
    and the other does not, or a test of the stream the report lacks. `name`: how to show a node id."""
    ours = {junit_key(n): (n, o) for n, o in stream.items()}
    bad = [f"{name(n)}: {o} in gatebench's stream, {junit.get(k, 'absent')} in the JUnit report"
           for k, (n, o) in ours.items() if (o == "passed") != (junit.get(k) == "passed") or k not in junit]
    bad += [f"{'::'.join(k)}: passed in the JUnit report, absent from gatebench's stream"
            for k, o in junit.items() if o == "passed" and k not in ours]
    return sorted(bad)


class _Outcome:
    """What one pytest run gave: the outcomes (by gatebench's test ids), an error, integrity problems."""

    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}
        self.error: str | None = None
        self.fault: str | None = None  # "work" | "bench" | "unproven" (a control run decides: oracle/control.py)
        self.integrity: list[str] = []
        self.collect_errors: list[str] = []
        self.returncode: int | None = None
        self.canary: dict | None = None  # the canaries' judgement (oracle/canaries.py: judge), when there were any
        self.raised: dict[str, list[str]] = {}  # test id -> what its failed call raised (closed.Stream.raised)

    def fail(self, error: str, fault: str) -> None:
        if self.error is None:
            self.error, self.fault = error, fault


def _read_junit(path: str) -> tuple[dict[tuple[str, str], str] | None, str | None]:
    try:
        with open(path, encoding="utf-8") as f:
            return junit_cases(f.read()), None
    except (OSError, ET.ParseError, UnicodeDecodeError) as e:
        return None, str(e)


def _run_closed(args: list[str], *, copy: str, out: str, hdir: str, python: str, timeout_s: float,
                sandboxed: bool, hide: list[str], read, conftests: bool, dest: str, name=lambda n: n) -> _Outcome:
    """One closed pytest run (closed.py) and its outcomes: gatebench's stream first, JUnit as the cross-check."""
    res = _Outcome()
    junit = os.path.join(out, "junit.xml")
    try:
        inv = closed.build(args, python=python, copy=copy, harness_dir=hdir, read=read, conftests=conftests,
                           # No tracebacks: nobody reads the oracle's output, and formatting the failure of every
                           # twin doubled what canaries cost (scripts/bench_canaries.py).
                           extra=[f"--junitxml={junit}", "-o", "junit_family=xunit1", "--tb=no"])
    except OSError as e:
        res.fail(f"cannot lay the closed harness: {e}", UNPROVEN)
        return res
    env = {**sandbox.clean_env(python), **inv.env}
    argv = inv.argv if not sandboxed else sandbox.wrap(inv.argv, writable=[copy, out], readonly=[hdir], cwd=copy,
                                                      python=python, hide=hide)
    r = proc.run(argv, cwd=copy, timeout_s=timeout_s, env=env, report_pipe=(inv.read_fd, inv.write_fd))
    res.returncode = r.returncode
    tail = (r.stdout + r.stderr)[-500:]
    if r.not_found:
        res.fail(f"cannot start the tests: {r.stderr[-300:]}", UNPROVEN)
        return res
    stream = closed.read_stream(r.report)
    res.outcomes = {_nodeid_to_id(n, dest): o for n, o in stream.outcomes.items()}
    res.raised = {_nodeid_to_id(n, dest): names for n, names in stream.raised.items()}
    res.collect_errors = [_nodeid_to_id(n, dest) for n in stream.collect_errors]
    for c in res.collect_errors:  # a module that does not import: an error of its own (no test id has no `::`)
        res.outcomes.setdefault(c, "error")
    if r.timed_out:
        # Started: the code ran out of time. Never started: a control decides (a hung interpreter is the bench's).
        res.fail(f"oracle timed out after {timeout_s:.0f} s", WORK if stream.started else UNPROVEN)
        return res
    res.integrity += _report_problems(r, stream, junit, name)
    _judge_exit(res, stream, tail)
    return res


def _report_problems(r: proc.ProcResult, stream: closed.Stream, junit: str, name) -> list[str]:
    """Where the run's reports disagree: the stream past its cap or at odds with the exit code, the JUnit
    report missing though a session ran, or naming other outcomes than the stream."""
    problems = []
    if r.report_overflow:
        problems.append("gatebench's test report stream was flooded past its cap")
    problem = stream.problem(r.returncode)
    if problem:
        problems.append(problem)
    cases, why = _read_junit(junit)
    if cases is None:
        if stream.session_exit is not None:  # a session ran (a usage error writes no report)
            problems.append(f"pytest's JUnit report is missing or unreadable ({why}) though its session finished")
    else:
        problems += cross_check(stream.outcomes, cases, name)[:20]
    return problems


def _judge_exit(res: _Outcome, stream: closed.Stream, tail: str) -> None:
    """The run's error, if any: its reports disagree, it collected nothing, or pytest's exit says so."""
    code = stream.finished_exit
    if res.integrity:
        res.fail(f"the run's reports disagree: {res.integrity[0]}", UNPROVEN)
    elif code == 5 or (not res.outcomes and code in (0, 1, 2)):  # 5: pytest's own "no tests collected"
        res.fail(f"the oracle collected no tests (exit {code}): {tail}", UNPROVEN)
    elif code not in (0, 1, 2):  # 2: collection errors, the code's fault
        res.fail(f"pytest exited {code}: {tail}", UNPROVEN)
    elif code != 0 and all(v == "passed" for v in res.outcomes.values()) and not stream.collect_errors:
        res.fail(f"pytest exited {code} though every test passed (report forged?)", UNPROVEN)


def _run_open(command: str, *, copy: str, out: str, python: str, timeout_s: float, sandboxed: bool,
              hide: list[str], dest: str) -> _Outcome:
    """The pre-canary invocation (the task's command through a shell, the copy's harness as restored, outcomes
    from the JUnit file alone): what the closed harness is measured against and shown to beat."""
    res = _Outcome()
    junit = os.path.join(out, "junit.xml")
    cmd = command.replace("{python}", shlex.quote(python))
    cmd += (f" -p no:cacheprovider --rootdir={shlex.quote(os.path.realpath(copy))}"
            f" --junitxml={shlex.quote(junit)} -o junit_family=xunit1")
    env = sandbox.clean_env(python)
    argv: list[str] | str = cmd if not sandboxed else sandbox.wrap(sandbox.shell(cmd), writable=[copy, out], cwd=copy,
                                                                   python=python, hide=hide)
    r = proc.run(argv, cwd=copy, timeout_s=timeout_s, env=env)
    res.returncode = r.returncode
    if r.timed_out:
        res.fail(f"oracle timed out after {timeout_s:.0f} s", WORK)
    try:
        with open(junit, encoding="utf-8") as f:
            res.outcomes = parse_junit(f.read(), dest)
    except (OSError, ET.ParseError) as e:
        res.fail(f"no JUnit report (exit {r.returncode}): {e}; {(r.stdout + r.stderr)[-500:]}", UNPROVEN)
    if not res.outcomes:
        res.fail(f"the oracle collected no tests (exit {r.returncode})", UNPROVEN)
    if r.returncode not in (0, 1, 2):
        res.fail(f"pytest exited {r.returncode}: {(r.stdout + r.stderr)[-500:]}", UNPROVEN)
    if r.returncode != 0 and all(v == "passed" for v in res.outcomes.values()):
        res.fail(f"pytest exited {r.returncode} but its report shows every test passed (report forged?)", UNPROVEN)
    return res


def _unexplained_missing(missing: list[str], collect_errors: list[str]) -> list[str]:
    """Expected tests that did not run in a run where nothing failed to collect: something deselected them
    (a module that does not import, or a broken conftest, explains any missing test: an honest failure)."""
    return [] if collect_errors else missing


def _sandbox_for(mode: str, hidden_dir: str, hide: list[str] | None) -> tuple[str | None, list[str]]:
    """(why the run is not sandboxed, None when it is; what the sandbox hides from it)."""
    why = sandbox.probe() if mode != "off" else "sandbox off"
    bench_root = os.path.dirname(os.path.dirname(os.path.abspath(hidden_dir)))
    return why, [] if why else sandbox.private_dirs(bench_root, *(hide or []))


def _shown_id(plan, id_dest: str):
    """How a report names a node id: a disguised one as its original's id (and "the twin of")."""
    def name(nodeid: str) -> str:
        tid, twin = plan.original_id(_nodeid_to_id(nodeid, id_dest)) if plan else (nodeid, False)
        return f"the twin of {tid}" if twin else tid

    return name


def _judge(run: _Outcome, plan, expected: list[str] | None, t0: float, closed_harness: bool) -> dict:
    """The run's outcomes judged: the canaries (`run.canary`), then the summary; an expected test that neither
    ran nor failed to collect (closed harness) is an integrity problem, a twin that passed unsolves."""
    outcomes = run.outcomes
    if plan is not None:
        outcomes, run.canary = canary_judge(run.outcomes, plan, run.raised)
    res = summarize(outcomes, run.error, time.monotonic() - t0, run.returncode, expected)
    unexplained = _unexplained_missing(res["missing"], run.collect_errors) if closed_harness and not run.error else []
    if unexplained:
        run.integrity.append(f"expected tests neither ran nor failed to collect: {', '.join(unexplained[:5])}")
        run.fail(f"the run's reports disagree: {run.integrity[-1]}", UNPROVEN)
        res["error"] = run.error
    if run.canary is not None and run.canary["passed"]:
        res["solved"] = False  # a twin that passed: the outcomes cannot be trusted to be the code's
    return res


def _run_once(work: str, hidden_dir: str, command: str, dest: str = "hidden_tests",
               timeout_s: float = TASK_TEST_TIMEOUT_S, python: str | None = None, *,
               expected: list[str] | None = None, baseline_dir: str | None = None, sandbox_mode: str = "required",
               hide: list[str] | None = None, layout: str = "dest", fail_to_pass: list[str] | None = None,
               pass_to_pass: list[str] | None = None, canaries: dict | None = None, closed_harness: bool = True,
               base: harness.Baseline | None = None) -> dict:
    """One oracle run (run_oracle's arguments); an error a control must decide has fault `unproven`."""
    t0 = time.monotonic()
    python = python or sys.executable
    # An imported task's FAIL_TO_PASS + PASS_TO_PASS are its expected tests (SWE-bench's `resolved`).
    expected = expected or [*(fail_to_pass or []), *(pass_to_pass or [])] or None
    tmp = tempfile.mkdtemp(prefix="gatebench-oracle-")

    def failed(error: str, fault: str, **extra) -> dict:
        return {**summarize({}, error, time.monotonic() - t0, None, expected), "fault": fault, **extra}

    try:
        copy, out, hdir = os.path.join(tmp, "tree"), os.path.join(tmp, "out"), os.path.join(tmp, "harness")
        os.mkdir(out)
        try:
            if base is None and baseline_dir:
                base = harness.baseline_files(baseline_dir)
            # Regular files and symlinks only, within the oracle's time: a device or FIFO in the work copy
            # must not stall or fill the copy (tree/treecopy.py).
            actions = prepare_copy(work, hidden_dir, dest, copy, base, deadline=time.monotonic() + timeout_s,
                                   layout=layout, installed=closed.plugin_tops(python))
        except OSError as e:
            # Past the deadline: the work tree's size is the agent's. Any other error a control decides.
            fault = WORK if isinstance(e, treecopy.CopyDeadline) else UNPROVEN
            return failed(f"cannot prepare the oracle copy: {e}", fault)
        id_dest = "" if layout == "original" else dest  # test ids: paths under dest, or the copy's own
        why, private = _sandbox_for(sandbox_mode, hidden_dir, hide)
        if why and sandbox_mode == "required":
            # Decided before the tree runs, alike for every tree: no control could say otherwise.
            return failed(f"sandbox required but unavailable: {why}", BENCH, sandboxed=False, harness=actions)
        plan = None
        if canaries is not None and expected:
            plan = canary_lay(copy, hidden_dir, id_dest, expected, {"fail_to_pass": fail_to_pass or [], **canaries})
        remaining = max(timeout_s - (time.monotonic() - t0), 1.0)
        if closed_harness:
            args = closed.pytest_args(command)
            if args is None:
                return failed(f"the oracle command is not `{{python}} -m pytest ARGS`: {command}", BENCH,
                              sandboxed=not why, harness=actions)
            read, conftests = trusted_harness(copy, hidden_dir, dest, layout, base)
            run = _run_closed(canary_args(args, plan, id_dest) if plan is not None else args, copy=copy, out=out,
                              hdir=hdir, python=python, timeout_s=remaining, sandboxed=not why, hide=private,
                              read=read, conftests=conftests, dest=id_dest, name=_shown_id(plan, id_dest))
        else:
            run = _run_open(command, copy=copy, out=out, python=python, timeout_s=remaining, sandboxed=not why,
                            hide=private, dest=id_dest)
        return {**_judge(run, plan, expected, t0, closed_harness), "sandboxed": not why, "harness": actions,
                "canaries": run.canary, "integrity": run.integrity, "fault": run.fault if run.error else None}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_oracle(work: str, hidden_dir: str, command: str, dest: str = "hidden_tests",
               timeout_s: float = TASK_TEST_TIMEOUT_S, python: str | None = None, *,
               control: Controls | None = None, control_tree: str = "reference", **opts: Any) -> dict:
    """Run the hidden tests against a copy of `work`. Never raises for the agent's faults.

    `baseline_dir`: the task's pristine repo; the copy's test harness is made equal to its
    (`harness` in the result lists what was removed or put back). `sandbox_mode`: `required` (no
    bwrap -> an error result, nothing run), `auto` (unsandboxed when bwrap is missing, said in
    `sandboxed`), `off`. `canaries`: twins of the expected tests run beside them (`oracle/canaries.py: lay`
    takes its keys; None: none). `closed_harness`: pytest runs so that nothing in the copy configures it
    (closed.py); False is the pre-canary invocation, kept to measure and show what the closed one buys.
    `base`: the harness of `baseline_dir` when the caller built it already (the hook's stop, which hands the
    same one to the tests gate). `control`: the task's trusted trees (oracle/control.py): an error no verdict
    on the code explains is proven by the same run on `control_tree` (once per Controls); None: the tree is
    the caller's own (task import measuring the trees it built), its own control, so such an error is the
    bench's. The result's `control` says what the control run found.
    """
    t0 = time.monotonic()
    res = _run_once(work, hidden_dir, command, dest, timeout_s, python, **opts)
    if res.get("fault") != UNPROVEN:
        return res
    if control is None:
        return {**res, "fault": BENCH}

    def attempt(tree: str) -> dict:
        left = max(timeout_s - (time.monotonic() - t0), min(timeout_s, 10.0))
        r = _run_once(tree, hidden_dir, command, dest, left, python, **opts)
        return {"ran": r["error"] is None, "error": r["error"], "seconds": r["seconds"]}

    key = "oracle:" + "\0".join(map(str, (hidden_dir, command, dest, python, sorted(opts.get("expected") or []))))
    checked = control.run(key, control_tree, attempt)
    fault, error = attribute(res["error"], checked)
    return {**res, "fault": fault, "error": error, "control": control_summary(checked),
            "seconds": round(time.monotonic() - t0, 3)}


def run_binding(work: str, binding: dict, python: str | None, hide: list[str] | None = None,
                timeout_s: float | None = None, canaries: dict | None = None,
                base: harness.Baseline | None = None, control: Controls | None = None) -> dict:
    """run_oracle from a resolved config's `oracle` binding (the hook) or the task (finalize); `timeout_s`
    narrows the binding's own timeout (the hook's remaining budget). Canaries run in every such run: the
    binding's `canaries` (its task's exclusions), `canaries` overriding its keys (selftest's proof).
    `control`: the caller's Controls (one per stop or finalize); None: the binding's own, for this run."""
    limit = binding["timeout_s"] if timeout_s is None else min(timeout_s, binding["timeout_s"])
    opts = {**(binding.get("canaries") or {}), **(canaries or {})}
    own = control is None
    control = binding_controls(binding) if control is None else control
    try:
        return run_oracle(work, binding["hidden_dir"], binding["command"], binding["dest"], limit,
                          python, expected=binding.get("expected") or None, baseline_dir=binding.get("baseline_dir"),
                          sandbox_mode=binding.get("sandbox") or "required", hide=hide,
                          layout=binding.get("layout") or "dest", fail_to_pass=binding.get("fail_to_pass"),
                          pass_to_pass=binding.get("pass_to_pass"), canaries=opts, base=base, control=control)
    finally:
        if own:
            control.close()


def binding_controls(binding: dict) -> Controls:
    """The trusted trees of a binding's task: its base (`baseline_dir`) and its reference laid over it."""
    return Controls(binding.get("baseline_dir"), binding.get("reference_dir"))
