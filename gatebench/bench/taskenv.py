"""Per-task virtual environments (imported tasks): built once, cached under a key of what decides their contents.

The key is a hash of the Python version, the setup command, the install flag and the bytes of the repo's
dependency files (`TaskEnv.deps`). The environment holds pytest, the repo's dependencies and its test
extras, but not the repo itself: the code under test must be the work copy's, which `python -m pytest`
(and the agent's own `python`) import from the working directory (a `.pth` adds `src/` for src layouts).
The build runs under a file lock in its final place (a venv is not relocatable: its scripts name their
own path), and is marked ready only at the end; a failed build is removed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from gatebench.errors import UsageError
from gatebench.models.task import TaskEnv
from gatebench.paths import project_root

ENV_FORMAT = 1  # bump when the build recipe changes: old environments are then rebuilt, not reused
CACHE_ENV = "GATEBENCH_ENV_CACHE"
DEP_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini")
TEST_EXTRAS = "test,tests,testing"
SRC_PTH = ("import os, sys; p = os.path.join(os.getcwd(), 'src'); "
           "os.path.isdir(p) and p not in sys.path and sys.path.insert(0, p)\n")


@dataclass(frozen=True)
class EnvInfo:
    key: str
    dir: Path
    python: str  # the environment's interpreter
    built: bool  # False: reused from the cache
    seconds: float


def cache_dir() -> Path:
    env = os.environ.get(CACHE_ENV)
    return Path(env).resolve() if env else project_root() / ".cache" / "envs"


def dep_files(repo: Path) -> list[str]:
    """The repo-root files that decide what an environment holds."""
    found = [n for n in DEP_FILES if (repo / n).is_file()]
    found += sorted(p.name for p in repo.glob("requirements*.txt") if p.is_file())
    found += sorted(p.name for p in repo.glob("*requirements.txt") if p.is_file() and p.name not in found)
    return found


def env_key(repo: Path, env: TaskEnv) -> str:
    h = hashlib.sha256(json.dumps({"format": ENV_FORMAT, "python": env.python, "setup": env.setup,
                                   "install": env.install, "deps": env.deps}).encode())
    for name in env.deps:
        p = repo / name
        h.update(name.encode() + b"\0" + (p.read_bytes() if p.is_file() else b"<missing>") + b"\0")
    return f"py{env.python}-{h.hexdigest()[:16]}"


def find_python(version: str) -> str:
    """An interpreter of version X.Y: this one if it matches, else `pythonX.Y` on PATH."""
    if f"{sys.version_info[0]}.{sys.version_info[1]}" == version:
        return sys.executable
    found = shutil.which(f"python{version}")
    if not found:
        raise UsageError(f"--python {version}: no python{version} on PATH")
    return found


def env_python(d: Path) -> Path:
    return d / "bin" / "python"


def ensure_env(repo: Path, env: TaskEnv, cache: Path | None = None) -> EnvInfo:
    """The environment for a task whose base is `repo`, built if the cache does not hold it."""
    cache = cache or cache_dir()
    key = env_key(repo, env)
    d = cache / key
    t0 = time.monotonic()
    if intact(d):
        return EnvInfo(key, d, str(env_python(d)), False, round(time.monotonic() - t0, 3))
    cache.mkdir(parents=True, exist_ok=True)
    with FileLock(str(cache / f"{key}.lock")):
        if intact(d):  # another process built it while this one waited
            return EnvInfo(key, d, str(env_python(d)), False, round(time.monotonic() - t0, 3))
        # Missing, half-built, or changed since it was built (an agent can `pip install` into it): build anew.
        shutil.rmtree(d, ignore_errors=True)
        try:
            freeze = _build(repo, env, d)
        except BaseException:
            shutil.rmtree(d, ignore_errors=True)
            raise
        seconds = round(time.monotonic() - t0, 3)
        (d / "ready.json").write_text(json.dumps({"key": key, "python": env.python, "seconds": seconds,
                                                  "fingerprint": fingerprint(d), "packages": freeze}, indent=1) + "\n")
    return EnvInfo(key, d, str(env_python(d)), True, seconds)


def fingerprint(d: Path) -> str:
    """Hash of every file's path, size, mtime, ctime and mode under d (but ready.json). ctime cannot be set
    back by a process, so a file written after the build shows even if its mtime and size were restored.
    Running python or pytest in the environment does not change it: pip compiled every module at install."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(d):
        dirnames.sort()
        for name in sorted(filenames):
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, d)
            if rel == "ready.json":
                continue
            st = os.lstat(p)
            h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_mode}\n".encode())
    return h.hexdigest()


def _ready(d: Path) -> dict | None:
    try:
        data = json.loads((d / "ready.json").read_text())
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def intact(d: Path) -> bool:
    """Built to the end, and not changed since."""
    ready = _ready(d)
    if not ready:
        return False
    return ready.get("fingerprint") == fingerprint(d)


def env_tampered(python: str | None) -> list[str]:
    """finalize: a task environment (the resolved config's python lives in one) changed since it was built
    counts as tampering: the agent could have installed a pytest plugin or a .pth that the oracle then loads."""
    if not python:
        return []
    d = Path(python).parent.parent
    ready = _ready(d)
    if ready is None or "fingerprint" not in ready:
        return []
    return [] if ready["fingerprint"] == fingerprint(d) else [f"<task environment {d.name}>"]


def _run(argv: list[str] | str, log: Path, **kw) -> subprocess.CompletedProcess:
    with open(log, "a") as f:
        f.write(f"$ {argv if isinstance(argv, str) else ' '.join(argv)}\n")
        f.flush()
        r = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **kw)
    if r.returncode != 0:
        tail = log.read_text(errors="replace")[-1500:]
        raise UsageError(f"building the task environment failed (exit {r.returncode}): {argv!r}; log {log}:\n{tail}")
    return r


def _build(repo: Path, env: TaskEnv, d: Path) -> list[str]:
    d.mkdir(parents=True)
    log = d / "build.log"
    _run([find_python(env.python), "-m", "venv", str(d)], log)
    py = str(env_python(d))
    pip = [py, "-m", "pip", "--disable-pip-version-check", "install", "-q"]
    _run([*pip, "pytest"], log)
    with tempfile.TemporaryDirectory(prefix="gatebench-env-src-") as tmp:
        # pip and setuptools write build debris into a source tree: give them a copy, never the task's base.
        src = Path(tmp) / "repo"
        shutil.copytree(repo, src, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.pyc"))
        if env.install and dep_files(src):
            report = Path(tmp) / "report.json"
            _run([*pip, "--report", str(report), f"{src}[{TEST_EXTRAS}]"], log)
            for name in _own_names(report, src):
                _run([py, "-m", "pip", "uninstall", "-y", "-q", name], log)
        if env.setup:
            path = f"{d / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}"
            _run(env.setup, log, shell=True, cwd=src, env={**os.environ, "PATH": path, "VIRTUAL_ENV": str(d)})
    if (repo / "src").is_dir():
        site = next((d / "lib").glob("python*/site-packages"))
        (site / "_gatebench_src.pth").write_text(SRC_PTH)
    r = subprocess.run([py, "-m", "pip", "freeze", "--all"], capture_output=True, text=True)
    return r.stdout.split()


def _own_names(report: Path, src: Path) -> list[str]:
    """The distributions pip built from the repo itself (its report names their source folder)."""
    data = json.loads(report.read_text())
    out = []
    for item in data.get("install", []):
        url = (item.get("download_info") or {}).get("url", "")
        if url.rstrip("/") == src.resolve().as_uri():
            out.append(item["metadata"]["name"])
    return out


def path_with(env_dir: Path, path: str | None = None) -> str:
    """PATH with the environment's bin/ first: the agent's `python` and `pytest` are the task's."""
    return f"{env_dir / 'bin'}:{path if path is not None else os.environ.get('PATH', '/usr/bin:/bin')}"


def task_env(tf) -> EnvInfo | None:
    """The environment of a task (a TaskFiles) that has one, built on first use; None for bundled tasks."""
    if tf.task.env is None:
        return None
    return ensure_env(tf.repo, tf.task.env)
