"""The tool that builds task environments: `uv` where it is installed, else pip (the old path, and the fallback).

`uv` (a PyPI package, pinned as `UV_VERSION` and installed by `scripts/setup` into the bench's venv) makes a
venv and installs a pinned set from its warm cache in about a second where pip takes tens of seconds, and it
builds a project with its build dependencies cached rather than fetched into a fresh isolated env each time.
It installs with `--link-mode copy`: a hard link into uv's cache would let an agent that edits a file of its
task environment in place change the cache, and so every environment built from it later.

`$GATEBENCH_ENV_BUILDER` = `pip` forces the old path (scripts/bench_materialize.py measures both side by
side); `uv` demands uv (an error when it is missing); unset: uv when found, else pip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gatebench.errors import UsageError

UV_VERSION = "0.13.8"  # scripts/setup installs exactly this one
BUILDER_ENV = "GATEBENCH_ENV_BUILDER"
PIP = ["-m", "pip", "--disable-pip-version-check", "--no-input"]


def find_uv() -> str | None:
    """The uv beside the bench's interpreter (its venv's bin/), else on PATH."""
    own = Path(sys.executable).parent / "uv"
    if own.is_file() and os.access(own, os.X_OK):
        return str(own)
    return shutil.which("uv")


@dataclass(frozen=True)
class Builder:
    """Argument vectors for one tool; `uv` is None for pip."""

    uv: str | None

    @property
    def name(self) -> str:
        return "uv" if self.uv else "pip"

    def venv(self, python: str, dest: Path) -> list[list[str]]:
        """The commands that make the venv. Either way its pip and setuptools are the ones the interpreter bundles
        (ensurepip's wheels: offline, the same every day; `uv venv --seed` would take PyPI's newest, a setuptools
        without pkg_resources): uv installs those wheels in a fraction of ensurepip's time."""
        wheels = bundled_wheels(python) if self.uv else []
        if not wheels:
            return [[python, "-m", "venv", str(dest)]]
        return [[python, "-m", "venv", "--without-pip", str(dest)],
                self.install(str(dest / "bin" / "python"), ["--no-deps", *wheels])]

    def install(self, env_python: str, args: list[str]) -> list[str]:
        if self.uv:
            # --compile-bytecode, as pip does: an environment whose modules were not compiled would gain
            # __pycache__ files at its first use, and its fingerprint (taskenv.intact) would change.
            return [self.uv, "pip", "install", "-q", "--python", env_python, "--link-mode", "copy",
                    "--compile-bytecode", *args]
        return [env_python, *PIP, "install", "-q", *args]

    def freeze(self, env_python: str) -> list[str]:
        if self.uv:
            return [self.uv, "pip", "freeze", "--python", env_python]
        return [env_python, *PIP, "freeze", "--all"]


def bundled_wheels(python: str) -> list[str]:
    """The pip and setuptools wheels ensurepip would install into a venv of `python` ([] when it has none)."""
    code = "import ensurepip, os; print(os.path.join(os.path.dirname(ensurepip.__file__), '_bundled'))"
    try:
        r = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    folder = Path(r.stdout.strip()) if r.returncode == 0 else None
    found = sorted(str(p) for p in folder.glob("*.whl")) if folder and folder.is_dir() else []
    return found if any(Path(w).name.startswith("pip-") for w in found) else []


def builder() -> Builder:
    """The tool `$GATEBENCH_ENV_BUILDER` asks for (see the module doc)."""
    want = os.environ.get(BUILDER_ENV, "").strip().lower()
    if want not in ("", "uv", "pip"):
        raise UsageError(f"${BUILDER_ENV}={want!r}: expected uv or pip (or unset: uv when installed, else pip)")
    if want == "pip":
        return Builder(None)
    uv = find_uv()
    if uv is None and want == "uv":
        raise UsageError(f"${BUILDER_ENV}=uv but no uv is installed (scripts/setup installs uv=={UV_VERSION} into "
                         "the bench's venv); unset it to build with pip")
    return Builder(uv)
