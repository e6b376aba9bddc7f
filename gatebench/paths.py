"""Where the bench's own folders are: the checkout that holds configs/, tasks/, hidden/, ..."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent  # this gatebench package: what every child process must run


def package_parent() -> Path:
    """The folder that holds this package (its checkout, or site-packages): on a child's path ahead of its cwd,
    so a cwd holding another `gatebench/` (a bench home that is a second copy of the repository) never shadows it."""
    return PACKAGE_DIR.parent


def project_root() -> Path:
    """GATEBENCH_HOME if set, else the checkout this package was imported from."""
    env = os.environ.get("GATEBENCH_HOME")
    return Path(env).resolve() if env else package_parent()


def configs_dir() -> Path:
    return project_root() / "configs"


def bench_configs() -> Path:
    """The configs a new bench home is given: the current home's, else this checkout's (a fresh GATEBENCH_HOME
    holds none yet: curate and mine crashed on it with FileNotFoundError)."""
    own = configs_dir()
    return own if own.is_dir() else package_parent() / "configs"


def tasks_dir() -> Path:
    return project_root() / "tasks"


def named_file(name_or_path: str, folder: Path, suffix: str, kind: str, also: tuple[str, ...] = ()) -> Path:
    """`name` -> folder/name<suffix>; anything that looks like a path is taken as one. Raises UsageError."""
    from gatebench.errors import UsageError

    p = Path(name_or_path)
    if p.suffix in (suffix, *also) or "/" in name_or_path:
        if not p.is_file():
            raise UsageError(f"{kind} file {p} not found")
        return p
    cand = folder / f"{name_or_path}{suffix}"
    if not cand.is_file():
        known = ", ".join(sorted(x.stem for x in folder.glob(f"*{suffix}"))) or "none"
        raise UsageError(f"no {kind} named {name_or_path!r} in {folder} (known: {known})")
    return cand
