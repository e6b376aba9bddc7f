"""How the import runs the tests: the oracle on a tree, under CPU load, and pytest's own words when it fails."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from gatebench.oracle.oracle import run_oracle

PYTEST = "{python} -m pytest -q -p no:cacheprovider"
COMPILE_ONLY = "{python} -m compileall -q ."
FIX_OPTIONS = ("--python X.Y (another interpreter), --env 'SPEC' (a package or a version cap for the environment), "
               "--setup CMD (a command run once in the new environment), --exclude TEST_ID (leave a test out)")


def oracle_run(tree: Path, hidden: Path, command: str, python: str, timeout_s: float, **kw) -> dict:
    """The oracle on `tree` with the hidden tests laid at their original paths (an imported task's layout)."""
    return run_oracle(str(tree), str(hidden), command, "", timeout_s, python, layout="original", **kw)


@contextlib.contextmanager
def cpu_load(python: str) -> Iterator[None]:
    """One busy process per core while the block runs: timing tests fail here as they would on a loaded machine."""
    procs = [subprocess.Popen([python, "-S", "-c", "while True: pass"], stdin=subprocess.DEVNULL)
             for _ in range(os.cpu_count() or 2)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def diagnose(tree: Path, command: str, python: str, timeout_s: float, hidden: Path | None = None) -> str:
    """The tail of pytest's own output for a run that failed (the oracle keeps outcomes, not output)."""
    with tempfile.TemporaryDirectory(prefix="gatebench-diagnose-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(tree, copy, symlinks=True)
        if hidden is not None:
            shutil.copytree(hidden, copy, dirs_exist_ok=True)
        from gatebench.common import proc  # the group, not only the shell, dies on timeout

        r = proc.run(command.replace("{python}", shlex.quote(python)), cwd=str(copy), timeout_s=timeout_s,
                     env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        if r.timed_out:
            return f"(timed out after {timeout_s:.0f} s)"
    lines = (r.stdout + r.stderr).strip().splitlines()
    return "\n".join(lines[-30:])
