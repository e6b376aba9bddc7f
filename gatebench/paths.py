"""Where the bench's own folders are: the checkout that holds configs/, tasks/, hidden/, ..."""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    """GATEBENCH_HOME if set, else the checkout this package was imported from."""
    env = os.environ.get("GATEBENCH_HOME")
    return Path(env).resolve() if env else Path(__file__).resolve().parent.parent


def configs_dir() -> Path:
    return project_root() / "configs"


def tasks_dir() -> Path:
    return project_root() / "tasks"
