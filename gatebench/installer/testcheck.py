"""Prove a tests gate's command the gate's way before installing it, and again in `status`.

It runs once in the repo, through the shell, with the runner's report asked for as at a stop
(`testguard/runners/`). A command that does not start (exit 126/127, a shell that cannot run it) or
that collects no tests would make every stop pass with nothing checked: install refuses it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile

from gatebench.common import proc
from gatebench.hook.gates.tests import DEFAULT_COMMAND, PYTEST_INFRA_CODES, SHELL_INFRA_CODES, plain_output
from gatebench.hook.installed_tests import coverage
from gatebench.testguard import runners
from gatebench.testguard.runners import _summary


def tests_command(gates: list, python: str) -> tuple[str, float] | None:
    """(the tests gate's command with {python} filled in, its timeout), None without a tests gate."""
    for g in gates:
        kind = g.get("kind") if isinstance(g, dict) else g.kind
        if kind == "tests":
            cmd = (g.get("command") if isinstance(g, dict) else g.command) or DEFAULT_COMMAND
            timeout = (g.get("timeout_s") if isinstance(g, dict) else g.timeout_s) or 300
            return cmd.replace("{python}", shlex.quote(python)), float(timeout)
    return None


def check(command: str, repo: str, timeout_s: float) -> dict:
    """{"problem": why the gate could not use it or None, "summary", "coverage"}."""
    name, last = runners.detect(command, repo)
    runner = runners.get(name) if name else None
    tmp = tempfile.mkdtemp(prefix="gatebench-check-")
    try:
        argv, env = command, dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        if runner is not None:
            asked = runner.prepare(command, os.path.join(tmp, "report"), last)
            if asked is not None:
                argv = asked[0]
                env.update(asked[1])
        r = proc.run(argv, cwd=repo, timeout_s=timeout_s, env=env)
        results = runner.results(os.path.join(tmp, "report"), r.stdout + "\n" + r.stderr, repo) if runner else None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = plain_output((r.stdout + "\n" + r.stderr).strip())
    tail = " ".join(out.splitlines()[-1:])[:300]
    problem = None
    if r.timed_out:
        problem = f"did not finish within {timeout_s:.0f} s"
    elif r.not_found or r.returncode in SHELL_INFRA_CODES:
        problem = f"{SHELL_INFRA_CODES.get(r.returncode or 127, 'cannot start')} (exit {r.returncode}): {tail}"
    elif name == "pytest" and r.returncode in PYTEST_INFRA_CODES:
        problem = f"{PYTEST_INFRA_CODES[r.returncode]} (exit {r.returncode}): {tail}"
    counts = _summary.counts(results) if results is not None else {}
    if results is not None and not any(counts.values()):
        problem = f"no tests were collected (exit {r.returncode})"
    if any(counts.values()):
        summary = ", ".join(f"{n} {o}" for o, n in counts.items() if n) + (
            f" ({name}'s own output: its failing tests named, the rest counted)" if hasattr(results, "partial")
            else f" ({name} report)")
    else:
        summary = f"exit {r.returncode}" + (f": {tail}" if tail else "")
    return {"problem": problem, "summary": summary, "coverage": coverage(name, last), "seconds": round(r.seconds, 2)}
