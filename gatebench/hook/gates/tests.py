"""Gate `tests` (gate-1): the visible test command, with a timeout.

By default it runs the *pristine* tests: when the agent touched protected paths (tests, conftest),
the command runs in a temporary copy of the work tree where those paths are put back as they were
in the baseline, so weakening or deleting a test does not make the gate pass.

In bench mode the command always runs in such a copy, under the baseline's test harness
(`harness.restore`), in gatebench's environment and inside the bubblewrap sandbox (`sandbox.py`):
the agent's code never runs with write access to anything but that copy. A `{python} -m pytest ARGS`
command runs closed (`closed.py`: the baseline's config, the interpreter's own plugins, the copy not on
`sys.path` while pytest starts). When the run cannot run at all or gives no usable report (not started,
pytest's exit 3, 4, 5, an empty report stream, a copy that cannot be laid), the same run on the task's base
tree decides whose fault it is (oracle/control.py): the control runs, the cause is in the work copy and the
gate blocks on it, named in `details.fault`; it fails too, the bench's, and the gate errs. Each test's outcome
of a bench run is kept in `details.outcomes` (an impossible variant's cheat check reads them).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
import tempfile
import time

from gatebench.common import defaults, proc
from gatebench.common.text import scrub_paths, trim
from gatebench.hook.gates import GateContext, Verdict
from gatebench.oracle import closed, control, harness, sandbox
from gatebench.tree import treecopy
from gatebench.tree.snapshot import read_blob

DEFAULT_COMMAND = defaults.TESTS_COMMAND
PYTEST_INFRA_CODES = {3: "pytest internal error", 4: "pytest usage error", 5: "no tests were collected"}
SHELL_INFRA_CODES = {126: "command not executable", 127: "command not found"}
_FAIL_LINE = re.compile(r"^(FAILED|ERROR) \S")
_ASSERT_LINE = re.compile(r"^E\s{2,}\S")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
_BENCH_START = re.compile(r"^-{3,} ?benchmark\b.*-{3,}$")
MAX_OUTCOMES = 5000  # per-test outcomes an event keeps of one run (past it: `outcomes_total`)


def plain_output(output: str) -> str:
    """The output without colour codes or carriage-return redraws, benchmark tables left out."""
    lines, out, in_table = _ANSI.sub("", output).replace("\r\n", "\n").split("\n"), [], False
    for ln in lines:
        ln = ln.rsplit("\r", 1)[-1]
        if _BENCH_START.match(ln):
            in_table = True
            out.append("[benchmark table left out]")
            continue
        if in_table and ln.startswith("  OPS:"):  # the legend's last line ends the tables
            in_table = False
            continue
        if in_table and not ln.startswith("="):  # pytest's summary line ends them too, and is kept
            continue
        in_table = False
        out.append(ln)
    return "\n".join(out)


def failure_digest(output: str, max_lines: int = 60, failed: list[str] | None = None) -> str:
    """Failing test names first (from the runner's report when there is one, else its FAILED
    lines), then assertion lines, then the tail of the output; colour-free."""
    lines = plain_output(output).splitlines()
    names = [f"FAILED {n}" for n in failed] if failed else [ln for ln in lines if _FAIL_LINE.match(ln)]
    seen, asserts = set(), []
    for ln in lines:
        if _ASSERT_LINE.match(ln) and ln not in seen:
            seen.add(ln)
            asserts.append(ln)
    parts = []
    if names:
        parts.append("Failing tests:\n" + "\n".join(names[:max_lines]))
    if asserts:
        parts.append("Assertion lines:\n" + "\n".join(asserts[:max_lines]))
    parts.append("Last lines of output:\n" + "\n".join(lines[-25:]))
    return "\n\n".join(parts)


def link_ignored(repo: str, dest: str) -> None:
    """Top-level folders the snapshot ignores (`node_modules`, `.venv`) are linked into an installed-mode
    copy, not copied: the tests need them to start, and they are the user's, never restored."""
    try:
        names = os.listdir(repo)
    except OSError:
        return
    for name in names:
        src, dst = os.path.join(repo, name), os.path.join(dest, name)
        if name != ".git" and not os.path.lexists(dst) and os.path.isdir(src):
            os.symlink(src, dst)


def pristine_copy(ctx: GateContext, protected: list[str]) -> str:
    """A temp copy of the work tree with the protected paths as they were in the baseline."""
    dest = tempfile.mkdtemp(prefix="gatebench-tests-")
    # Only what the walk saw (regular files, symlinks), within the hook's budget (tree/treecopy.py).
    try:
        treecopy.copy_tree(ctx.repo, dest, paths=list(ctx.now), deadline=ctx.deadline)
    except OSError:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    if ctx.resolved.get("mode") == "installed":
        link_ignored(ctx.repo, dest)
    for rel in protected:
        dst = os.path.join(dest, rel)
        if os.path.lexists(dst):
            os.remove(dst)
        if rel in ctx.baseline:
            sha, _size, mode = ctx.baseline[rel]
            data = read_blob(ctx.blob_dir, sha)
            if data is None:
                raise OSError(f"baseline content of {rel} is missing from the snapshot store")
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if stat.S_ISLNK(mode):
                os.symlink(os.fsdecode(data), dst)
            else:
                with open(dst, "wb") as f:
                    f.write(data)
                os.chmod(dst, stat.S_IMODE(mode))
    return dest


def _plain(data: bytes | None) -> bytes | None:
    return None if data is None or data.startswith(b"symlink:") else data


class _TestRun:
    """One run of the test command as it is laid out: where, what, with which environment, and what to remove."""

    __slots__ = ("argv", "copy", "cwd", "details", "env", "hdir", "inv", "report", "report_dir", "restore")

    def __init__(self, command: str, restore: list[str], cwd: str):
        self.restore, self.cwd = restore, cwd
        self.details: dict = {"command": command, "pristine_restored": restore}
        self.argv: list[str] | str = command
        self.env: dict = {}
        self.copy: str | None = None
        self.hdir: str | None = None
        self.report_dir: str | None = None
        self.report = ""
        self.inv: closed.Closed | None = None

    def clean_up(self) -> None:
        if self.inv is not None:
            self.inv.close()
        for d in (self.copy, self.hdir, self.report_dir):
            if d:
                shutil.rmtree(d, ignore_errors=True)


def run(spec: dict, ctx: GateContext) -> Verdict:
    if ctx.resolved.get("mode") == "installed" and spec.get("pristine", True) and not getattr(
            ctx, "_testpolicy_pass", False):
        from gatebench.hook import installed_tests  # current tests, originals of weakened ones, results

        return installed_tests.gate(spec, ctx, run)
    t0 = time.monotonic()
    template = spec.get("command") or (ctx.task or {}).get("test_command") or DEFAULT_COMMAND
    command = template.replace("{python}", shlex.quote(ctx.python))
    timeout = min(float(spec.get("timeout_s", defaults.TESTS_TIMEOUT_S)), ctx.remaining() - 1.0)
    if timeout <= 0:
        return Verdict("error", details={"error": "hook time budget spent before the tests could run"})
    tr = _TestRun(command, ctx.protected_touched if spec.get("pristine", True) else [], ctx.repo)
    runner = getattr(ctx, "_runner", None)
    try:
        refused = _lay_out(tr, ctx, template, runner)
        if refused is not None:
            return refused
        r = proc.run(tr.argv, cwd=tr.cwd, timeout_s=timeout, env=tr.env,
                     report_pipe=(tr.inv.read_fd, tr.inv.write_fd) if tr.inv else None)
        tr.inv = None  # run() closed both ends
        results = _runner_results(runner, tr, r, ctx.repo)
    except OSError as e:
        tr.clean_up()
        return _unrunnable(tr, ctx, template, f"cannot prepare the test run: {e}", spec, t0)
    finally:
        tr.clean_up()
    output = _output(r, runner, tr, ctx.repo)
    failed = _record_results(tr.details, r, output, results)
    limit = int(spec.get("feedback_chars", defaults.TESTS_FEEDBACK_CHARS))
    if ctx.controls is not None:  # bench mode: whose fault a run that could not run is, a control proves
        if tr.details.get("closed"):
            _record_outcomes(tr.details, r)
        why = unusable(tr, r, command)
        if why is not None:
            return _unrunnable(tr, ctx, template, why, spec, t0, output)
    return _verdict(tr, r, output, failed, command, timeout, limit, time.monotonic() - t0)


def _record_outcomes(details: dict, r: proc.ProcResult) -> None:
    """Each test's outcome as gatebench's report stream gave it (node ids of the copy's root)."""
    outcomes = closed.read_stream(r.report).outcomes
    details["outcomes"] = dict(list(outcomes.items())[:MAX_OUTCOMES])
    if len(outcomes) > MAX_OUTCOMES:
        details["outcomes_total"] = len(outcomes)


def unusable(tr: _TestRun, r: proc.ProcResult, command: str) -> str | None:
    """Why a bench run gave no usable report (not started, pytest's own 3, 4, 5, an empty stream), or None."""
    if r.timed_out:
        return None  # it ran, and something hangs: a failure like any other
    infra = _infra(r, tr.argv, command)
    if infra:
        return f"{infra} (exit {r.returncode})"
    if tr.details.get("closed") and not closed.read_stream(r.report).started:
        return f"gatebench's test report stream is empty: pytest never started (exit {r.returncode}): " + \
            (r.stdout + r.stderr)[-300:]
    return None


def _control_attempt(ctx: GateContext, template: str, timeout: float):
    """The same bench run on a copy of a trusted tree: {"ran", "error"} (oracle/control.py)."""
    command = template.replace("{python}", shlex.quote(ctx.python))

    def attempt(tree: str) -> dict:
        tr = _TestRun(command, [], tree)
        try:
            tr.cwd = tr.copy = tempfile.mkdtemp(prefix="gatebench-tests-control-")
            treecopy.copy_tree(tree, tr.copy)
            refused = _lay_out_bench(tr, ctx, template)
            if refused is not None:
                return {"ran": False, "error": refused.details.get("error")}
            r = proc.run(tr.argv, cwd=tr.cwd, timeout_s=max(min(timeout, ctx.remaining() - 1.0), 0.1), env=tr.env,
                         report_pipe=(tr.inv.read_fd, tr.inv.write_fd) if tr.inv else None)
            tr.inv = None
        except OSError as e:
            return {"ran": False, "error": f"cannot prepare the test run: {e}"}
        finally:
            tr.clean_up()
        why = unusable(tr, r, command) or (f"timed out after {timeout:.0f} s" if r.timed_out else None)
        return {"ran": why is None, "error": why}

    return attempt


def _unrunnable(tr: _TestRun, ctx: GateContext, template: str, why: str, spec: dict, t0: float,
                output: str = "") -> Verdict:
    """A run that could not run: without a control (installed mode) an error; in bench mode the control on
    the task's base decides: it ran, the gate blocks (the cause is in the work copy); it failed too, an error."""
    details = tr.details
    if ctx.controls is None:
        return Verdict("error", details={**details, "error": why})
    timeout = float(spec.get("timeout_s", defaults.TESTS_TIMEOUT_S))
    checked = ctx.controls.run("tests:" + template, "base", _control_attempt(ctx, template, timeout))
    fault, named = control.attribute(why, checked)
    details["control"] = control.summary(checked)
    if fault == control.BENCH:
        return Verdict("error", details={**details, "error": named}, seconds=time.monotonic() - t0)
    details["fault"] = named
    head = (f"The tests could not run (`{tr.details['command']}`): {why}. The same run on the project as it was "
            "before your changes runs, so the cause is in your changes.")
    limit = int(spec.get("feedback_chars", defaults.TESTS_FEEDBACK_CHARS))
    return Verdict("block", trim(head + ("\n\n" + failure_digest(output) if output else ""), limit), details,
                   time.monotonic() - t0)


def _lay_out(tr: _TestRun, ctx: GateContext, template: str, runner) -> Verdict | None:
    """The copy to run in (protected paths restored; always one in bench mode), the command and its
    environment; in bench mode the baseline's harness, the closed pytest and the sandbox. A Verdict: refused."""
    bench = ctx.resolved.get("mode") == "bench"
    if tr.restore or bench:
        tr.cwd = tr.copy = pristine_copy(ctx, tr.restore)
    tr.env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if runner is not None:  # installed mode: ask the runner for its report (testguard/runners/)
        tr.report_dir = tempfile.mkdtemp(prefix="gatebench-report-")
        tr.report = os.path.join(tr.report_dir, "report")
        asked = runner.prepare(tr.argv, tr.report, getattr(ctx, "_runner_last", ""))
        if asked is not None:
            tr.argv = asked[0]
            tr.env.update(asked[1])
        tr.details["report_asked"] = asked is not None
    return _lay_out_bench(tr, ctx, template) if bench else None


def _lay_out_bench(tr: _TestRun, ctx: GateContext, template: str) -> Verdict | None:
    copy = tr.copy
    assert copy is not None  # a bench run always tests in a pristine copy
    binding = ctx.resolved.get("oracle") or {}
    # The stop built the task's harness for the oracle already; the prep snapshot's only without one.
    base = ctx.harness if ctx.harness is not None else harness.from_manifest(ctx.baseline, ctx.blob_dir, read_blob)
    tr.details["harness"] = harness.restore(copy, base, installed=closed.plugin_tops(ctx.python))
    mode = binding.get("sandbox") or "required"
    why = sandbox.probe() if mode != "off" else "sandbox off"
    tr.details["sandboxed"] = not why
    if why and mode == "required":
        return Verdict("error", details={**tr.details, "error": f"sandbox required but unavailable: {why}"})
    tr.env = sandbox.scrub_env(tr.env)
    args = closed.pytest_args(template)
    if args is not None:
        tr.hdir = tempfile.mkdtemp(prefix="gatebench-harness-")
        tr.inv = closed.build(args, python=ctx.python, copy=copy, harness_dir=tr.hdir,
                              read=lambda rel: _plain(base.get(rel)),
                              conftests=any(r.rsplit("/", 1)[-1] == "conftest.py" for r in base))
        tr.argv = tr.inv.argv
        tr.env.update(tr.inv.env)
        tr.details["closed"] = True
    if not why:
        hidden = binding.get("hidden_dir")
        private = sandbox.private_dirs(os.path.dirname(os.path.dirname(hidden)) if hidden else None, ctx.state_dir)
        tr.argv = sandbox.wrap(tr.argv if isinstance(tr.argv, list) else sandbox.shell(tr.argv), writable=[copy],
                               cwd=copy, python=ctx.python, hide=private, readonly=[tr.hdir] if tr.hdir else [])
        tr.env = {**sandbox.clean_env(ctx.python), **(tr.inv.env if tr.inv else {})}
    return None


def _runner_results(runner, tr: _TestRun, r: proc.ProcResult, repo: str) -> list[dict] | None:
    if runner is None:
        return None
    results = runner.results(tr.report, r.stdout + "\n" + r.stderr, tr.cwd)
    if results is not None and tr.cwd != repo:  # ids relative to the tree that ran, not the copy
        for res in results:
            res["id"] = res["id"].replace(tr.cwd + os.sep, "")
    return results


def _output(r: proc.ProcResult, runner, tr: _TestRun, repo: str) -> str:
    stdout = runner.text(r.stdout) if runner is not None and hasattr(runner, "text") else r.stdout
    output = plain_output((stdout + ("\n" + r.stderr if r.stderr.strip() else "")).strip())
    if tr.copy:  # the agent reads paths of its own work copy, not of our temporary one
        output = scrub_paths(output, [(tr.copy, repo)])
    return output


def _record_results(details: dict, r: proc.ProcResult, output: str, results: list[dict] | None) -> list[str]:
    """The run into `details`; returns the failed test ids the runner reported."""
    details.update(returncode=r.returncode, timed_out=r.timed_out, output_tail=output[-2000:])
    if results is None:
        return []
    failed = [x["id"] for x in results if x["outcome"] == "failed"]
    from gatebench.testguard.runners._summary import counts

    details["results"] = counts(results)  # a runner's own counts where its output names only the failing tests
    details["failed_tests"] = failed[:50]
    details["_results"] = results  # the installed gate reads it and takes it out of the event
    return failed


def _infra(r: proc.ProcResult, argv: list[str] | str, command: str) -> str | None:
    """Why the command could not run at all (not found, not executable, pytest's own 3, 4, 5), or None."""
    infra = (SHELL_INFRA_CODES.get(r.returncode)
             if r.returncode is not None and (r.not_found or r.returncode in SHELL_INFRA_CODES) else None)
    if r.not_found and infra is None:
        infra = f"cannot start {argv[0] if isinstance(argv, list) else 'the shell'}"
    if infra is None and "pytest" in command:
        infra = PYTEST_INFRA_CODES.get(r.returncode)  # type: ignore[arg-type]
    return infra


def _verdict(tr: _TestRun, r: proc.ProcResult, output: str, failed: list[str], command: str, timeout: float,
             limit: int, seconds: float) -> Verdict:
    details = tr.details
    if r.timed_out:
        feedback = f"The tests (`{command}`) did not finish within {timeout:.0f} s; something hangs.\n"
        return Verdict("block", trim(feedback + failure_digest(output, failed=failed), limit), details, seconds)
    infra = _infra(r, tr.argv, command)
    if infra:
        details["error"] = f"{infra} (exit {r.returncode}): {output[-300:]}"
        if r.returncode in SHELL_INFRA_CODES or r.not_found:
            details["broken_install"] = f"`{command}`: {infra} (exit {r.returncode})"
        return Verdict("error", details=details, seconds=seconds)
    if r.returncode == 0:
        return Verdict("pass", details=details, seconds=seconds)
    if not failed:
        failed = [ln.split(" ", 1)[1].split(" - ", 1)[0] for ln in output.splitlines() if _FAIL_LINE.match(ln)]
    named = (": " + ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")) if failed else ""
    head = f"The tests fail{named} (`{command}`, exit {r.returncode})."
    if tr.restore:
        head += " They ran with the original versions of: " + ", ".join(tr.restore[:10]) + "."
    return Verdict("block", trim(head + "\n\n" + failure_digest(output, failed=failed), limit), details, seconds)
