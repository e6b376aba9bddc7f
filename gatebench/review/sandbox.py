"""A temporary, read-only copy of the work tree for reviewers to read (stdlib only).

Reviewers never run in the agent's work copy: whatever a reviewer (or a tool it was tricked into
using) does, the work under review stays as the agent left it. `.claude/` is left out, so no
project settings or hooks exist where the reviewer starts.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile

from gatebench.tree import treecopy

SKIP_PREFIXES = (".claude/", ".git/")


def read_only_copy(repo: str, paths: list[str], deadline: float | None = None) -> str:
    """Copy `paths` (repo-relative, as in a snapshot manifest) into a new temp dir, files 0444, dirs 0555.

    Regular files and symlinks only, until `deadline` (tree/treecopy.py; CopyDeadline past it). A
    file that vanished since the walk is simply not shown.
    """
    dest = tempfile.mkdtemp(prefix="gatebench-review-")
    try:
        treecopy.copy_tree(repo, dest, paths=[p for p in paths if not p.startswith(SKIP_PREFIXES)],
                           deadline=deadline, mode=0o444)
    except OSError:
        remove_copy(dest)
        raise
    for root, dirs, _files in os.walk(dest, topdown=False):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o555)
    os.chmod(dest, 0o555)
    return dest


def remove_copy(path: str) -> None:
    def writable(func, p, _exc):
        try:
            os.chmod(os.path.dirname(p), stat.S_IRWXU)
            os.chmod(p, stat.S_IRWXU)
            func(p)
        except OSError:
            pass

    try:
        os.chmod(path, stat.S_IRWXU)
    except OSError:
        return
    for root, dirs, _files in os.walk(path):
        for d in dirs:
            try:
                os.chmod(os.path.join(root, d), stat.S_IRWXU)
            except OSError:
                pass
    shutil.rmtree(path, onerror=writable)
