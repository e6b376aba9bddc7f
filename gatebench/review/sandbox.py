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

SKIP_PREFIXES = (".claude/", ".git/")


def read_only_copy(repo: str, paths: list[str]) -> str:
    """Copy `paths` (repo-relative, as in a snapshot manifest) into a new temp dir, files 0444, dirs 0555."""
    dest = tempfile.mkdtemp(prefix="gatebench-review-")
    for rel in paths:
        if rel.startswith(SKIP_PREFIXES):
            continue
        src, dst = os.path.join(repo, rel), os.path.join(dest, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        try:
            if os.path.islink(src):
                os.symlink(os.readlink(src), dst)
            else:
                shutil.copyfile(src, dst)
                os.chmod(dst, 0o444)
        except OSError:
            continue  # a file that vanished since the walk is simply not shown
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
