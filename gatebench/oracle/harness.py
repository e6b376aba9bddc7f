"""The test harness around agent code is the baseline's, never the agent's (stdlib only).

Harness files decide *how* tests run rather than what the code does: pytest configuration
(pytestconfig.NAMES), every conftest.py, modules that shadow pytest or
the standard library from an import root (a root `pytest.py`, `_pytest/`, `json.py`, ...), `.pth`
files, `sitecustomize`/`usercustomize`, package metadata that registers pytest plugins
(`*.dist-info`, `*.egg-info`), and plugin modules the baseline's configuration names.

`restore(copy, base)` makes a copy's harness equal to the baseline's (created files removed,
changed or deleted ones put back) and returns what it did: each action is a tamper finding. A config
file pytest shares with other tools is judged by what pytest reads from it (`pytestconfig.py`).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import sys

from gatebench.oracle import pytestconfig

CONFIG_FILES = pytestconfig.NAMES
# Imported by `python -m pytest` before any test: shadowing one from the copy root hijacks the run.
PYTEST_MODULES = ("pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "exceptiongroup", "tomli",
                  "colorama", "attr", "attrs")
SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache"}


def _shadowing(name: str, installed: frozenset[str] = frozenset()) -> bool:
    mod = name[:-3] if name.endswith(".py") else name
    if "." in mod or not mod.isidentifier():
        return False
    return mod in PYTEST_MODULES or mod in sys.stdlib_module_names or mod in installed


class Baseline(dict):
    """Harness files of a baseline (rel -> content), and `own`: top-level names the baseline itself
    has that would otherwise count as shadowing (a task whose package is called `calendar` keeps it);
    `tops`: every top-level name of the baseline (one that an installed plugin also has stays the task's)."""

    own: frozenset[str] = frozenset()
    tops: frozenset[str] = frozenset()


def _top(rel: str) -> str:
    top = rel.split("/", 1)[0]
    return top[:-3] if "/" not in rel and top.endswith(".py") else top


def own_names(paths) -> frozenset[str]:
    return frozenset(t for t in map(_top, paths) if _shadowing(t))


def is_harness(rel: str, plugins: tuple[str, ...] = (), own: frozenset[str] = frozenset(),
               installed: frozenset[str] = frozenset()) -> str | None:
    """Why `rel` (repo-relative, `/`) is a harness file, or None. `installed`: top-level names of the
    interpreter's own pytest plugins (`closed.plugin_tops`): a module of that name at the root shadows one."""
    parts = rel.split("/")
    name = parts[-1]
    if name == "conftest.py":
        return "conftest.py (pytest hooks and fixtures)"
    if name in CONFIG_FILES:
        return "pytest configuration"
    if name.endswith(".pth"):
        return ".pth file (runs code at interpreter start)"
    if rel == "__init__.py":
        return "package marker at the copy root (changes how pytest imports and names the tests)"
    if name in ("sitecustomize.py", "usercustomize.py"):
        return "site customization (runs code at interpreter start)"
    if any(p.endswith((".dist-info", ".egg-info")) for p in parts[:-1]) or name.endswith(".egg-link"):
        return "package metadata (can register pytest plugins)"
    what = "pytest, an installed pytest plugin or the standard library"
    if _top(rel) in own:
        pass
    elif len(parts) == 1 and name.endswith(".py") and _shadowing(name, installed):
        return f"module {name[:-3]!r} at the import root shadows {what}"
    elif len(parts) > 1 and _shadowing(parts[0], installed):
        return f"package {parts[0]!r} at the import root shadows {what}"
    for p in plugins:
        path = p.replace(".", "/")
        if rel == path + ".py" or rel.startswith(path + "/"):
            return f"pytest plugin {p!r} named by the baseline's configuration"
    return None


def _walk(root: str) -> dict[str, str]:
    """rel -> 'file' | 'link' for every regular file and symlink under root (caches skipped, links not followed)."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and d not in links]
        for n in filenames + links:
            rel = n if rel_dir == "." else f"{rel_dir}/{n}"
            out[rel] = "link" if os.path.islink(os.path.join(dirpath, n)) else "file"
    return out


def _read(path: str) -> bytes | None:
    try:
        if os.path.islink(path):
            return b"symlink:" + os.fsencode(os.readlink(path))
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def baseline_files(base_dir: str) -> Baseline:
    """Harness files of a baseline folder (the task's repo in the bench home): rel -> content."""
    files = _walk(base_dir)
    own = own_names(files)
    plugins = plugin_modules({r: _read(os.path.join(base_dir, r)) or b"" for r in files if is_harness(r, (), own)})
    out = Baseline()
    out.own, out.tops = own, frozenset(map(_top, files))
    for rel in files:
        if is_harness(rel, plugins, own):
            data = _read(os.path.join(base_dir, rel))
            if data is not None:
                out[rel] = data
    return out


_P_OPT = re.compile(r"(?:^|\s)-p\s*([A-Za-z_][\w.]*)")


def plugin_modules(base: dict[str, bytes]) -> tuple[str, ...]:
    """Modules the baseline's harness loads as plugins (`-p NAME` in addopts, `pytest_plugins`)."""
    names: set[str] = set()
    for rel, data in base.items():
        text = data.decode("utf-8", "replace")
        name = rel.rsplit("/", 1)[-1]
        if name in CONFIG_FILES:
            names.update(n for n in _P_OPT.findall(text) if not n.startswith("no:"))
        elif name == "conftest.py":
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytest_plugins"
                                                        for t in node.targets):
                    try:
                        v = ast.literal_eval(node.value)
                    except ValueError:
                        continue
                    names.update([v] if isinstance(v, str) else [x for x in v if isinstance(x, str)])
    return tuple(sorted(names))


def from_manifest(manifest: dict, blob_dir: str, read_blob) -> Baseline:
    """Harness files of a snapshot baseline (manifest + blob store): rel -> content. Raises OSError."""
    import stat

    own = own_names(manifest)
    first = {r for r in manifest if is_harness(r, (), own)}

    def content(rel: str) -> bytes:
        sha, _size, mode = manifest[rel]
        data = read_blob(blob_dir, sha)
        if data is None:
            raise OSError(f"baseline content of {rel} is missing from the snapshot store")
        return b"symlink:" + data if stat.S_ISLNK(mode) else data

    plugins = plugin_modules({r: content(r) for r in first})
    out = Baseline({r: content(r) for r in manifest if is_harness(r, plugins, own)})
    out.own, out.tops = own, frozenset(map(_top, manifest))
    return out


def _write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if data.startswith(b"symlink:"):
        os.symlink(os.fsdecode(data[len(b"symlink:"):]), path)
    else:
        with open(path, "wb") as f:
            f.write(data)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.remove(path)


def _same_harness(rel: str, a: bytes | None, b: bytes | None) -> bool:
    if a == b:
        return True
    name = rel.rsplit("/", 1)[-1]
    # Agents edit these files' other sections legitimately; only what pytest reads counts. Every other
    # harness file (a dedicated pytest config included) is the baseline's byte for byte.
    return name in pytestconfig.SHARED and pytestconfig.same(name, a, b)


def _in(rel: str, folder: str | None) -> bool:
    if not folder:
        return False
    return rel == folder or rel.startswith(folder.rstrip("/") + "/")


def restore(copy: str, base: Baseline, skip: str | None = None, dry_run: bool = False,
            installed: frozenset[str] = frozenset()) -> list[dict]:
    """Make the harness in `copy` the baseline's. Returns [{path, action, why}] for every difference.

    Created harness files are removed, changed or deleted ones put back; a config file whose pytest
    section equals the baseline's is left as the agent wrote it. `skip`: a folder of the copy that
    gatebench fills itself (the oracle's hidden tests). `dry_run`: only say what would be done
    (finalize's tamper scan of the work copy itself). `installed`: as for `is_harness`.
    """
    plugins = plugin_modules(base)
    own: frozenset[str] = getattr(base, "own", frozenset()) | (installed & getattr(base, "tops", frozenset()))
    actions = []
    now = _walk(copy)
    for rel in sorted(now):
        why = None if _in(rel, skip) else is_harness(rel, plugins, own, installed)
        if why is None:
            continue
        path = os.path.join(copy, rel)
        if rel not in base:
            if _same_harness(rel, _read(path), None):
                continue
            if not dry_run:
                _remove(path)
            actions.append({"path": rel, "action": "removed", "why": f"created by the agent: {why}"})
        elif not _same_harness(rel, _read(path), base[rel]):
            if not dry_run:
                _remove(path)
                _write(path, base[rel])
            actions.append({"path": rel, "action": "restored", "why": f"changed by the agent: {why}"})
    for rel in sorted(base.keys() - now.keys()):
        if not _in(rel, skip):
            if not dry_run:
                _write(os.path.join(copy, rel), base[rel])
            actions.append({"path": rel, "action": "restored",
                            "why": f"deleted by the agent: {is_harness(rel, plugins, own)}"})
    return actions


# Names only pytest's own machinery uses: package code that mentions them reaches into the test run
# from inside pytest's process, which no restore can undo (SPEC.md section 8, "What remains possible").
_REACH = re.compile(r"\b(_pytest|pytest_runtest_\w+|pytest_sessionfinish|pytest_collection_modifyitems|hookimpl|"
                    r"hookwrapper|junitxml|LogXML|PYTEST_CURRENT_TEST|os\._exit)\b")
_TEST_FILE = re.compile(r"(^|/)(tests?/|test_[^/]*\.py$|[^/]*_test\.py$)")


def reaches_into_pytest(rel: str, text: str) -> str | None:
    """Why a changed non-test module looks like it tampers with pytest from inside its process, or None."""
    if not rel.endswith(".py") or _TEST_FILE.search(rel) or is_harness(rel):
        return None
    hits = sorted(set(_REACH.findall(text)))
    return f"code outside the tests names pytest internals ({', '.join(hits)})" if hits else None
