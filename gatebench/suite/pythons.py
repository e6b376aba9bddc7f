"""Interpreters on this machine for task environments, found without version-manager shims.

A pyenv shim (`~/.pyenv/shims/python3.9`) is a shell script that picks an interpreter by the
current folder's `.python-version`: run from a task's copy it can pick none, or another one. So only
real interpreters count: this one, `$GATEBENCH_PYTHONS` (colon-separated paths), every pyenv
installation (`$PYENV_ROOT/versions/*/bin/pythonX.Y`), `/usr/bin`, `/usr/local/bin`, and PATH minus
folders named `shims`. PyPI serves no interpreters: a version not installed here cannot be used.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from gatebench.errors import UsageError


def this_version() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


def _candidates(version: str) -> list[str]:
    name = f"python{version}"
    out = [sys.executable] if this_version() == version else []
    out += [p for p in os.environ.get("GATEBENCH_PYTHONS", "").split(":") if p]
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    out += sorted(glob.glob(os.path.join(root, "versions", f"{version}*", "bin", name)), reverse=True)
    out += [f"/usr/local/bin/{name}", f"/usr/bin/{name}"]
    for d in os.environ.get("PATH", "").split(":"):
        if d and os.path.basename(d.rstrip("/")) != "shims":
            out.append(os.path.join(d, name))
    return list(dict.fromkeys(out))


@lru_cache(maxsize=64)
def _probe(path: str) -> str | None:
    """The X.Y of a working interpreter that can make a venv, else None."""
    try:
        r = subprocess.run([path, "-c", "import sys, venv, ensurepip; print('%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def find_python(version: str) -> str:
    """A real interpreter of version X.Y (absolute path). Raises UsageError naming where it looked."""
    for path in _candidates(version):
        if os.path.isfile(path) and os.access(path, os.X_OK) and _probe(path) == version:
            return path
    have = ", ".join(available()) or "none"
    raise UsageError(f"--python {version}: no python{version} on this machine (looked in $GATEBENCH_PYTHONS, pyenv's "
                     f"versions/, /usr/local/bin, /usr/bin and PATH without shims; found: {have}). PyPI serves no "
                     "interpreters: install one (e.g. `pyenv install`) or pick a listed version")


@lru_cache(maxsize=1)
def available() -> tuple[str, ...]:
    """The X.Y versions with a real interpreter here (3.8 and newer), newest first."""
    found = []
    for minor in range(20, 7, -1):
        v = f"3.{minor}"
        if any(os.path.isfile(p) and _probe(p) == v for p in _candidates(v)):
            found.append(v)
    return tuple(found)


def choose(classifiers: list[str], requires: str | None, default: str) -> list[str]:
    """Versions to try for a project, in order: the default if the project admits it, then the versions
    its classifiers name (newest first); when they name only versions not installed here (code older than
    every interpreter here), the installed ones older than the default, newest first. Only installed ones."""
    from gatebench.suite.testdeps import allows

    have = available()
    minor = int(default.split(".")[1])
    older = [v for v in have if int(v.split(".")[1]) < minor] if classifiers and not set(classifiers) & set(have) else []
    order = [default, *classifiers, *older]
    out = [v for v in dict.fromkeys(order) if v in have and allows(requires, v)]
    return out or [v for v in have if allows(requires, v)][:1]


def interpreter_of(venv: Path) -> Path:
    return venv / "bin" / "python"
