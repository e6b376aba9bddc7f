"""Per-task virtual environments (imported tasks): a shared environment per dependency set, and a thin layer per task.

**Resolution** (at import): pip resolves, without installing, what the base needs to run its tests: the
project with its test extras, its test requirement files, the pytest plugins its configuration names, and
pytest (`testdeps`). The result is pinned (`TaskEnv.requirements`, `name==version`), so the environment
is the same on every machine and day.

**Shared environment** (key: Python X.Y and the pinned set): a venv with exactly those pins. Tasks whose
sets are equal share it, whatever project they come from.

**Task layer** (key: the shared key, the base's dependency files, the version, the setup command): a copy of
the shared environment made of hard links (no disk but the folder entries), with the project's own
distribution installed as its tests expect it (its metadata, entry points and scripts: `importlib.metadata`
finds its version), but not its code: the module files are removed, since the code under test is always
the work copy's, imported from the working directory (a `.pth` adds `<cwd>/src` for src layouts).

Each is built under a file lock in its final place (a venv is not relocatable) and marked ready only at
the end; a failed build is removed and its log kept under `<cache>/logs/`, which the error names.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock

from gatebench.common.util import read_json_object
from gatebench.errors import UsageError
from gatebench.models.task import TaskEnv
from gatebench.paths import project_root
from gatebench.suite.envbuilder import PIP, Builder, builder
from gatebench.suite.pythons import find_python
from gatebench.suite.testdeps import (
    FALLBACK_EXTRAS,
    TEST_EXTRAS,
    file_requirements,
    pkg_info_version,
    plugin_requirements,
    pretend_version_env,
)

ENV_FORMAT = 2  # bump when the shared build recipe changes: old environments are then rebuilt, not reused
LAYER_FORMAT = 3  # the same for task layers
CACHE_ENV = "GATEBENCH_ENV_CACHE"
DEP_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "PKG-INFO")
SRC_PTH = ("import os, sys; p = os.path.join(os.getcwd(), 'src'); "
           "os.path.isdir(p) and p not in sys.path and sys.path.insert(0, p)\n")
BUILD_SKIP = {".git", "__pycache__", "build", "dist", ".eggs", ".tox", ".nox"}


@dataclass(frozen=True)
class EnvInfo:
    key: str
    dir: Path
    python: str  # the environment's interpreter
    built: bool  # False: reused from the cache
    seconds: float
    shared: str = ""  # the shared environment's key
    shared_built: bool = False
    disk_bytes: int = 0  # bytes this build added to the cache (hard links count once)


@dataclass
class Resolution:
    requirements: list[str]  # pinned name==version, the project itself left out
    extras: list[str]
    generated: dict[str, bytes] = field(default_factory=dict)  # files the build wrote into the tree (_version.py)
    dropped: list[str] = field(default_factory=list)  # requirement-file lines left out to resolve at all


def cache_dir() -> Path:
    env = os.environ.get(CACHE_ENV)
    return Path(env).resolve() if env else project_root() / ".cache" / "envs"


def log_dir(cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / "logs"


def dep_files(repo: Path) -> list[str]:
    """The repo-root files that decide what the task layer holds (the project's own metadata)."""
    return [n for n in DEP_FILES if (repo / n).is_file()]


def shared_key(env: TaskEnv) -> str:
    h = hashlib.sha256(json.dumps({"format": ENV_FORMAT, "python": env.python,
                                   "requirements": sorted(env.requirements, key=str.lower)}).encode())
    return f"py{env.python}-{h.hexdigest()[:16]}"


def env_key(repo: Path, env: TaskEnv) -> str:
    h = hashlib.sha256(json.dumps({"format": LAYER_FORMAT, "shared": shared_key(env), "setup": env.setup, "install": env.install,
                                   "version": env.version, "deps": env.deps}).encode())
    for name in env.deps:
        p = repo / name
        h.update(name.encode() + b"\0" + (p.read_bytes() if p.is_file() else b"<missing>") + b"\0")
    return f"task-py{env.python}-{h.hexdigest()[:16]}"


def env_python(d: Path) -> Path:
    return d / "bin" / "python"


def site_packages(d: Path) -> Path:
    return next((d / "lib").glob("python*/site-packages"))


# --- resolution (import time) --------------------------------------------------------------------------

def resolver(python: str, cache: Path | None = None) -> str:
    """A bare venv with pip for Python X.Y, used only to resolve (never to run tests)."""
    d = (cache or cache_dir()) / f"resolver-py{python}"
    with FileLock(str(d) + ".lock"):
        if not env_python(d).is_file():
            shutil.rmtree(d, ignore_errors=True)
            _run([find_python(python), "-m", "venv", str(d)], _fresh_log(cache, f"resolver-py{python}"))
    return str(env_python(d))


def copy_source(repo: Path, dest: Path) -> Path:
    shutil.copytree(repo, dest, symlinks=True, ignore=lambda _d, names: {n for n in names if n in BUILD_SKIP
                                                                        or n.endswith(".pyc")})
    return dest


def _py_files(tree: Path) -> set[str]:
    return {str(p.relative_to(tree)) for p in tree.rglob("*.py") if not BUILD_SKIP.intersection(p.relative_to(tree).parts)
            and not any(part.endswith(".egg-info") for part in p.relative_to(tree).parts)}


def resolve(repo: Path, python: str, *, version: str | None = None, extra: list[str] | None = None,
            cache: Path | None = None, log=lambda _m: None) -> Resolution:
    """Pin what the base needs for its tests (see the module doc). Raises UsageError naming pip's output,
    the log and the options that fix it."""
    py = resolver(python, cache)
    with tempfile.TemporaryDirectory(prefix="gatebench-resolve-") as tmp:
        src = copy_source(repo, Path(tmp) / "repo")
        before = _py_files(src)
        has_meta = any((src / n).is_file() for n in ("pyproject.toml", "setup.py", "setup.cfg"))
        files = file_requirements(src)
        base = ["pytest", *plugin_requirements(src), *(extra or [])]
        env = {**os.environ, **pretend_version_env(version or pkg_info_version(src) or "0.0.0")}
        log_path = _fresh_log(cache, "resolve")
        extras = list(TEST_EXTRAS)
        attempts = [files, []] if files else [[]]
        last: UsageError | None = None
        for reqs in attempts:
            report = Path(tmp) / "report.json"
            target = [f"{src}[{','.join(extras)}]"] if has_meta else []
            try:
                _run([py, *PIP, "install", "--dry-run", "--ignore-installed", "-q", "--report", str(report),
                      *target, *base, *reqs], log_path, env=env, cwd=tmp)
            except UsageError as e:
                cause = _cause(log_path)
                last = UsageError(f"pip cannot resolve the environment in python {python}"
                                  + (f": {cause}" if cause else "") + f"\n{e}")
                continue
            data = json.loads(report.read_text())
            own = _own(data, src)
            provided = set(own.get("metadata", {}).get("provides_extra", []) if own else [])
            if own and not provided.intersection(TEST_EXTRAS) and provided.intersection(FALLBACK_EXTRAS) \
                    and extras == list(TEST_EXTRAS):
                extras = [e for e in FALLBACK_EXTRAS if e in provided]
                _run([py, *PIP, "install", "--dry-run", "--ignore-installed", "-q", "--report", str(report),
                      f"{src}[{','.join(extras)}]", *base, *reqs], log_path, env=env, cwd=tmp)
                data = json.loads(report.read_text())
            pins = sorted({f"{i['metadata']['name']}=={i['metadata']['version']}" for i in data.get("install", [])
                           if i is not own and not _is_local(i, src)}, key=str.lower)
            generated = {rel: (src / rel).read_bytes() for rel in sorted(_py_files(src) - before)}
            used = [e for e in extras if e in provided]
            log(f"resolved {len(pins)} packages for python {python}"
                + (f" (extras: {', '.join(used)})" if used else "")
                + (f"; the build wrote {', '.join(generated)}" if generated else ""))
            return Resolution(pins, used, generated, [] if reqs is files else files)
        assert last is not None
        raise UsageError(f"{last}\nfix: --python X.Y (another interpreter), --env 'SPEC' (a package the resolution "
                         "needs or a version cap, e.g. --env 'pytest<8'), or --setup CMD")


def _cause(log: Path) -> str:
    """The last line of a pip log that names an error (pip's own summary lines left out)."""
    lines = [x.strip() for x in log.read_text(errors="replace").splitlines()]
    hits = [x for x in lines if re.search(r"\b\w*(Error|Exception)\b:|^ERROR: ", x)
            and not x.startswith(("error: subprocess-exited", "note:"))]
    return hits[-1][:300] if hits else ""


def _is_local(item: dict, src: Path) -> bool:
    url = (item.get("download_info") or {}).get("url", "")
    return url.rstrip("/") == src.resolve().as_uri()


def _own(report: dict, src: Path) -> dict | None:
    return next((i for i in report.get("install", []) if _is_local(i, src)), None)


# --- builds -------------------------------------------------------------------------------------------

def _fresh_log(cache: Path | None, what: str) -> Path:
    d = log_dir(cache)
    d.mkdir(parents=True, exist_ok=True)
    return d / f"{what}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"


def _run(argv: list[str] | str, log: Path, **kw) -> subprocess.CompletedProcess:
    with open(log, "a") as f:
        f.write(f"$ {argv if isinstance(argv, str) else ' '.join(argv)}\n")
        f.flush()
        r = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **kw)
    if r.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise UsageError(f"{argv[0] if isinstance(argv, list) else 'setup'} failed (exit {r.returncode}) while building "
                         f"the task environment; the full log stays at {log}:\n{tail}")
    return r


def ensure_env(repo: Path, env: TaskEnv, cache: Path | None = None) -> EnvInfo:
    """The environment for a task whose base is `repo`, built if the cache does not hold it."""
    cache = cache or cache_dir()
    t0 = time.monotonic()
    key = env_key(repo, env)
    d = cache / key
    if intact(d):
        return EnvInfo(key, d, str(env_python(d)), False, round(time.monotonic() - t0, 3), shared_key(env))
    cache.mkdir(parents=True, exist_ok=True)
    with FileLock(str(cache / f"{key}.lock")):
        if intact(d):  # another process built it while this one waited
            return EnvInfo(key, d, str(env_python(d)), False, round(time.monotonic() - t0, 3), shared_key(env))
        shared, shared_built, shared_bytes = ensure_shared(env, cache)
        # Missing, half-built, or changed since it was built (an agent can `pip install` into it): build anew.
        shutil.rmtree(d, ignore_errors=True)
        log = _fresh_log(cache, key)
        try:
            _layer(repo, env, shared, d, log)
        except BaseException:
            shutil.rmtree(d, ignore_errors=True)
            raise
        seconds = round(time.monotonic() - t0, 3)
        _mark_ready(d, {"key": key, "shared": shared.name, "python": env.python, "seconds": seconds,
                        "log": str(log)})
    return EnvInfo(key, d, str(env_python(d)), True, seconds, shared.name, shared_built,
                   shared_bytes + own_bytes(d))


def ensure_shared(env: TaskEnv, cache: Path) -> tuple[Path, bool, int]:
    key = shared_key(env)
    d = cache / key
    if intact(d):
        return d, False, 0
    with FileLock(str(cache / f"{key}.lock")):
        if intact(d):
            return d, False, 0
        shutil.rmtree(d, ignore_errors=True)
        log = _fresh_log(cache, key)
        tool = builder()
        try:
            for argv in tool.venv(find_python(env.python), d):
                _run(argv, log)
            # No pins (a task.yaml written by hand): pytest alone, resolved now.
            pins = ["--no-deps", *env.requirements] if env.requirements else ["pytest"]
            _run(tool.install(str(env_python(d)), pins), log)
        except BaseException:
            shutil.rmtree(d, ignore_errors=True)
            raise
        _mark_ready(d, {"key": key, "python": env.python, "requirements": env.requirements, "log": str(log),
                        "builder": tool.name})
    return d, True, own_bytes(d)


def _mark_ready(d: Path, info: dict) -> None:
    r = subprocess.run(builder().freeze(str(env_python(d))), capture_output=True, text=True)
    info.update(packages=r.stdout.split(), fingerprint=fingerprint(d), content=content_hash(d))
    (d / "ready.json").write_text(json.dumps(info, indent=1) + "\n")


def clone(src: Path, dest: Path) -> None:
    """`src` venv as `dest` from hard links: scripts and config that name `src` are rewritten copies."""
    s, t = str(src), str(dest)
    for dirpath, dirnames, filenames in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        out = os.path.normpath(os.path.join(dest, rel))
        os.makedirs(out, exist_ok=True)
        for name in dirnames + filenames:
            p, q = os.path.join(dirpath, name), os.path.join(out, name)
            if rel == "." and name in ("ready.json",):
                continue
            if os.path.islink(p):
                os.symlink(os.readlink(p), q)
                if name in dirnames:
                    dirnames.remove(name)
            elif name in filenames:
                if rel in ("bin", ".") and _names_src(p, s):
                    with open(p, "rb") as f:
                        data = f.read().replace(s.encode(), t.encode())
                    with open(q, "wb") as f:
                        f.write(data)
                    shutil.copymode(p, q)
                else:
                    try:
                        os.link(p, q)
                    except OSError:  # another filesystem: a copy
                        shutil.copy2(p, q)


def _names_src(path: str, src: str) -> bool:
    try:
        with open(path, "rb") as f:
            return src.encode() in f.read(4096)
    except OSError:
        return False


def _layer(repo: Path, env: TaskEnv, shared: Path, d: Path, log: Path) -> None:
    clone(shared, d)
    py = str(env_python(d))
    with tempfile.TemporaryDirectory(prefix="gatebench-env-src-") as tmp:
        # pip and setuptools write build debris into a source tree: give them a copy, never the task's base.
        src = copy_source(repo, Path(tmp) / "repo")
        version = env.version or pkg_info_version(src) or "0.0.0"
        if env.install and any((src / n).is_file() for n in ("pyproject.toml", "setup.py", "setup.cfg")):
            tool = builder()
            if tool.uv:
                _install_own(tool, src, d, version, log, Path(tmp))
            else:
                report = Path(tmp) / "report.json"
                _run([py, *PIP, "install", "-q", "--no-deps", "--report", str(report), str(src)], log,
                     env={**os.environ, **pretend_version_env(version)}, cwd=tmp)
                for item in json.loads(report.read_text()).get("install", []):
                    if _is_local(item, src):
                        strip_code(d, item["metadata"]["name"])
        if env.setup:
            path = f"{d / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}"
            _run(env.setup, log, shell=True, cwd=src, env={**os.environ, "PATH": path, "VIRTUAL_ENV": str(d)})
    if (repo / "src").is_dir():
        (site_packages(d) / "_gatebench_src.pth").write_text(SRC_PTH)


def release_of(tree: Path) -> tuple[str, str] | None:
    """(name, version) when the tree is a release's sdist (its PKG-INFO): that release's wheel is its build."""
    p = tree / "PKG-INFO"
    if not p.is_file():
        return None
    text = p.read_text(encoding="utf-8", errors="replace")
    name, version = re.search(r"^Name:\s*(\S+)", text, re.M), re.search(r"^Version:\s*(\S+)", text, re.M)
    return (name.group(1), version.group(1)) if name and version else None


def _dists(d: Path) -> dict[str, str]:
    """The distributions installed in a venv: .dist-info folder name -> its METADATA's Name."""
    out = {}
    for info in site_packages(d).glob("*.dist-info"):
        meta = info / "METADATA"
        m = re.search(r"^Name:\s*(\S+)", meta.read_text(errors="replace"), re.M) if meta.is_file() else None
        out[info.name] = m.group(1) if m else info.name.rsplit("-", 1)[0]
    return out


def _install_own(tool: Builder, src: Path, d: Path, version: str, log: Path, tmp: Path) -> None:
    """The project's own distribution in the layer (no deps), its code then removed: the release's wheel where
    the base is a release sdist and PyPI has one (no build at all), else built from the copy of the base."""
    py = str(env_python(d))
    before = _dists(d)
    release = release_of(src)
    built = False
    if release:
        try:
            _run(tool.install(py, ["--no-deps", "--only-binary", release[0], f"{release[0]}=={release[1]}"]), log,
                 cwd=tmp)
            built = True
        except UsageError:  # no wheel of that release (an sdist-only project): build it, as pip did
            with open(log, "a") as f:
                f.write(f"# no wheel of {release[0]}=={release[1]}: building the base instead\n")
    if not built:
        _run(tool.install(py, ["--no-deps", str(src)]), log, env={**os.environ, **pretend_version_env(version)},
             cwd=tmp)
    for info, name in _dists(d).items():
        if before.get(info) != name:
            strip_code(d, name)


def strip_code(d: Path, name: str) -> list[str]:
    """Remove the module files of an installed distribution, keeping its .dist-info (metadata, entry points)
    and its scripts: `import` then finds the work copy's code, `importlib.metadata` still finds the project."""
    site = site_packages(d)
    norm = re.sub(r"[-_.]+", "_", name).lower()
    info = next((p for p in site.glob("*.dist-info")
                 if re.sub(r"[-_.]+", "_", p.name.removesuffix(".dist-info").rsplit("-", 1)[0]).lower() == norm), None)
    if info is None:
        return []
    removed = []
    for line in (info / "RECORD").read_text().splitlines():
        rel = line.rsplit(",", 2)[0]
        p = (site / rel).resolve()
        if rel.startswith("..") or info.name in Path(rel).parts[:1] or not p.is_file() or p.suffix == ".pth":
            continue
        p.unlink()
        removed.append(rel)
        # Its bytecode too: uv compiles without listing the .pyc files in RECORD (pip lists them).
        for pyc in (p.parent / "__pycache__").glob(f"{p.stem}.*.pyc") if p.suffix == ".py" else ():
            pyc.unlink()
    for dirpath, _dirs, _files in sorted(os.walk(site), reverse=True):
        if dirpath != str(site) and not os.listdir(dirpath):
            os.rmdir(dirpath)
    return removed


# --- integrity ----------------------------------------------------------------------------------------

def _walk(d: Path):
    for dirpath, dirnames, filenames in os.walk(d):
        dirnames.sort()
        for name in sorted(filenames):
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, d)
            if rel != "ready.json":
                yield rel, p


def fingerprint(d: Path) -> str:
    """Hash of every file's path, size, mtime, inode and mode under d (but ready.json): cheap, checked at every
    use. ctime is not in it: a task layer shares its files' inodes with the shared environment, so another
    layer's build changes their ctime. Running python or pytest leaves it unchanged (pip compiled every module)."""
    h = hashlib.sha256()
    for rel, p in _walk(d):
        st = os.lstat(p)
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{st.st_mode}\n".encode())
    return h.hexdigest()


def content_hash(d: Path) -> str:
    """Hash of every file's path and bytes (finalize's check: an in-place edit whose mtime was set back)."""
    h = hashlib.sha256()
    for rel, p in _walk(d):
        h.update(rel.encode() + b"\0")
        if os.path.islink(p):
            h.update(b"->" + os.readlink(p).encode())
        else:
            with open(p, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def own_bytes(d: Path) -> int:
    """Disk the folder holds beyond its hard links into another folder (files linked once)."""
    total = 0
    for _rel, p in _walk(d):
        st = os.lstat(p)
        if st.st_nlink == 1:
            total += st.st_size
    return total


def _ready(d: Path) -> dict | None:
    return read_json_object(d / "ready.json")


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
    same = ready["fingerprint"] == fingerprint(d) and ready.get("content", content_hash(d)) == content_hash(d)
    return [] if same else [f"<task environment {d.name}>"]


def path_with(env_dir: Path, path: str | None = None) -> str:
    """PATH with the environment's bin/ first: the agent's `python` and `pytest` are the task's."""
    return f"{env_dir / 'bin'}:{path if path is not None else os.environ.get('PATH', '/usr/bin:/bin')}"


def task_env(tf) -> EnvInfo | None:
    """The environment of a task (a TaskFiles) that has one, built on first use; None for bundled tasks."""
    if tf.task.env is None:
        return None
    return ensure_env(tf.repo, tf.task.env)
