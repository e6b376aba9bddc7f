"""Find and load bench tasks, their hidden tests, reference and injections; apply end states to a tree."""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from gatebench.errors import UsageError
from gatebench.models.loading import load_model
from gatebench.models.task import Inject, Task
from gatebench.paths import project_root

_SKIP = {"__pycache__", ".pytest_cache", ".git"}


@dataclass(frozen=True)
class TaskFiles:
    task: Task
    dir: Path  # tasks/<ID>
    repo: Path  # tasks/<ID>/repo: the base
    hidden: Path  # hidden/<ID>
    reference: Path  # reference/<ID>
    inject: Path  # inject/<ID>

    @property
    def id(self) -> str:
        return self.task.id

    def injections(self) -> dict[str, Inject]:
        out = {}
        if self.inject.is_dir():
            for d in sorted(p for p in self.inject.iterdir() if p.is_dir()):
                out[d.name] = load_model(d / "inject.yaml", Inject)
        return out


def task_ids(root: Path | None = None) -> list[str]:
    base = (root or project_root()) / "tasks"
    ids = [p.name for p in base.iterdir() if (p / "task.yaml").is_file()] if base.is_dir() else []
    return sorted(ids, key=lambda s: (len(s), s))


def load_task(task_id: str, root: Path | None = None) -> TaskFiles:
    root = root or project_root()
    d = root / "tasks" / task_id
    if not (d / "task.yaml").is_file():
        known = ", ".join(task_ids(root)) or "none"
        raise UsageError(f"no task {task_id!r}: {d / 'task.yaml'} not found (known: {known})")
    task = load_model(d / "task.yaml", Task)
    if task.id != task_id:
        raise UsageError(f"{d / 'task.yaml'}: id: {task.id!r} does not match its folder {task_id!r}")
    if not (d / "repo").is_dir():
        raise UsageError(f"{d / 'repo'}: the task's base repo is missing")
    return TaskFiles(task, d, d / "repo", root / "hidden" / task_id, root / "reference" / task_id,
                     root / "inject" / task_id)


def tree_hash(*dirs: Path) -> str:
    """Content hash of files under dirs (names and bytes), stable across machines."""
    h = hashlib.sha256()
    for d in dirs:
        if not d.exists():
            continue
        for p in sorted(d.rglob("*")):
            if p.is_file() and not _SKIP.intersection(p.parts):
                h.update(str(p.relative_to(d)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def copy_tree(src: Path, dest: Path) -> None:
    shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True,
                    ignore=lambda _d, names: {n for n in names if n in _SKIP or n.endswith(".pyc")})


def overlay(src: Path, dest: Path) -> list[str]:
    """Copy every file under src over dest; returns the repo-relative paths written."""
    written = []
    for p in sorted(src.rglob("*")):
        if p.is_file() and not _SKIP.intersection(p.parts) and not p.name.endswith(".pyc"):
            rel = p.relative_to(src)
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, dest / rel)
            written.append(str(rel))
    return written


def apply_state(tf: TaskFiles, state: str, dest: Path) -> list[str]:
    """Turn a copy of the base repo at dest into an end state: 'base', 'reference' or 'inject:<name>'."""
    if state == "base":
        return []
    if state == "reference":
        return overlay(tf.reference, dest)
    if state.startswith("inject:"):
        name = state.split(":", 1)[1]
        d = tf.inject / name
        inj = load_model(d / "inject.yaml", Inject)
        written = overlay(d / "files", dest) if (d / "files").is_dir() else []
        for rel in inj.delete:
            p = dest / rel
            if p.is_file() or p.is_symlink():
                os.remove(p)
        return written + [f"-{r}" for r in inj.delete]
    raise ValueError(f"unknown end state {state!r}")
