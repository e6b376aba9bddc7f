"""The versions manifest of a result record: what produced it, so results of different code never mix unseen."""

from __future__ import annotations

import functools
import os
import platform
import subprocess
from pathlib import Path

from gatebench import __version__
from gatebench.paths import project_root

_PINNED: dict[str, tuple[str | None, bool | None]] = {}


def pin_git_state(root: Path, state: tuple[str | None, bool | None]) -> None:
    """Use `state` for `root` in this process: a matrix's cell children record the state the matrix saw when it
    started (their code is what its fork server loaded then), without two git processes per cell."""
    _PINNED[str(root)] = state


def git_state(root: Path) -> tuple[str | None, bool | None]:
    """(HEAD commit, dirty) of the gatebench checkout; (None, None) outside a git checkout."""
    pinned = _PINNED.get(str(root))
    return pinned if pinned is not None else _git_state(root)


@functools.lru_cache(maxsize=4)
def _git_state(root: Path) -> tuple[str | None, bool | None]:
    # The checkout's .git is the user's: GIT_OPTIONAL_LOCKS=0 keeps `git status` from refreshing (writing) its index.
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30, env=env)

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0:
            return None, None
        # Only tracked files and the project's own sources count as dirt, not run outputs.
        status = git("status", "--porcelain", "--untracked-files=no")
        return head.stdout.strip(), bool(status.stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        return None, None


def versions(*, cli_version: str | None, model: str | None, task_hash: str | None, config_hash: str | None) -> dict:
    commit, dirty = git_state(project_root())
    return {"gatebench": __version__, "git_commit": commit, "git_dirty": dirty, "cli_version": cli_version,
            "model": model, "task_hash": task_hash, "config_hash": config_hash, "python": platform.python_version()}
