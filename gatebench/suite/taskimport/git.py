"""Git edges of the import: the only place it runs git."""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
from pathlib import Path

from gatebench.errors import UsageError


def _git(repo: Path, *args: str) -> str:
    r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise UsageError(f"{repo}: git {' '.join(args)}: {r.stderr.strip()[:300]}")
    return r.stdout


def resolve_commit(repo: Path, commit: str) -> tuple[str, str]:
    """(commit, first parent) as full ids; a root commit has no parent to start from."""
    if not (repo / ".git").exists() and _git(repo, "rev-parse", "--is-inside-work-tree").strip() != "true":
        raise UsageError(f"{repo}: not a git repository")
    sha = _git(repo, "rev-parse", "--verify", f"{commit}^{{commit}}").strip()
    parents = _git(repo, "rev-list", "--parents", "-n", "1", sha).split()[1:]
    if not parents:
        raise UsageError(f"{repo}: commit {commit} is a root commit: it has no parent to start from")
    return sha, parents[0]


def changed_files(repo: Path, parent: str, commit: str) -> list[tuple[str, str]]:
    """[(status A|M|D|T, path)] between parent and commit, renames as delete + add."""
    out = [x for x in _git(repo, "diff", "--name-status", "--no-renames", "-z", parent, commit).split("\0") if x]
    return [(out[i][0], out[i + 1]) for i in range(0, len(out) - 1, 2)]


def commit_message(repo: Path, commit: str) -> str:
    return _git(repo, "log", "-1", "--format=%B", commit).strip()


def described_version(repo: Path, rev: str) -> str | None:
    """The newest tag reachable from rev, as a version (a VCS-versioned build needs one without .git)."""
    r = subprocess.run(["git", "-C", str(repo), "describe", "--tags", "--abbrev=0", rev], capture_output=True, text=True)
    m = re.search(r"(\d+(?:\.\d+)+)", r.stdout.strip()) if r.returncode == 0 else None
    return m.group(1) if m else None


def export_tree(repo: Path, rev: str, dest: Path) -> None:
    """The tree of `rev` into dest, without .git: no history that holds the fix."""
    r = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", rev], capture_output=True)
    if r.returncode != 0:
        raise UsageError(f"{repo}: git archive {rev}: {r.stderr.decode(errors='replace')[:300]}")
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(r.stdout)) as tf:
        tf.extractall(dest, filter="data")
