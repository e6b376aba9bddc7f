"""Git work trees for the tests that run on both snapshot paths."""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT_ID = ["-c", "user.name=gatebench", "-c", "user.email=dev@gatebench.invalid", "-c", "commit.gpgsign=false"]


def git(repo: Path, *args: str) -> str:
    r = subprocess.run(["git", *GIT_ID, *args], cwd=repo, capture_output=True, text=True, check=True)
    return r.stdout


def git_commit_all(repo: Path) -> Path:
    """`repo` as a git work tree with everything committed once (as prep's work copies are)."""
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo
