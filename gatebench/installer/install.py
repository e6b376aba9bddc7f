"""Install the gate into a repo: resolved config, baseline, and settings.json entries."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gatebench.errors import UsageError
from gatebench.hook.defaults import SETTINGS_TIMEOUT_MARGIN_S
from gatebench.hook.state import default_state_dir
from gatebench.hook.util import write_atomic
from gatebench.installer import settings as st
from gatebench.installer.configs import load_config, resolve
from gatebench.installer.statedir import write_state


def settings_file(repo: Path, local: bool) -> Path:
    return repo / ".claude" / ("settings.local.json" if local else "settings.json")


def read_settings(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: not valid JSON ({e}); fix it first, nothing was changed")
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a JSON object at the top level; nothing was changed")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise UsageError(f"{path}: field `hooks` must be an object; nothing was changed")
    return data


def write_settings(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=2) + "\n")


def install(repo: Path, config: str, *, local: bool = False, settings: bool = True,
            python: str | None = None, test_command: str | None = None) -> dict:
    """Validate everything first, then write: a bad config or settings file changes nothing."""
    repo = repo.resolve()
    if not repo.is_dir():
        raise UsageError(f"repo {repo} is not a directory")
    cfg = load_config(config)
    if test_command:
        for g in cfg.gates:
            if g.kind == "tests":
                g.command = test_command
    state = Path(default_state_dir(str(repo)))
    sfile = settings_file(repo, local)
    current = read_settings(sfile) if settings else {}
    python = python or sys.executable
    resolved = resolve(cfg, mode="installed", repo=repo, state_dir=state, python=python)
    timeout = int(cfg.budget.hook_seconds + SETTINGS_TIMEOUT_MARGIN_S)
    if settings:
        write_settings(sfile, st.add(current, python, str(state), timeout))
    # After the settings write, so the hook entry itself is part of the baseline, not a change.
    base = write_state(resolved, repo, state, strict=False)
    (state / ".gitignore").write_text("*\n")  # the state dir never ends up in a commit
    return {"repo": str(repo), "config": cfg.name, "state_dir": str(state), "baseline_errors": base["errors"],
            "settings": str(sfile) if settings else None, "baseline_files": base["files"], "timeout_s": timeout}


def uninstall(repo: Path, *, local: bool = False) -> dict:
    sfile = settings_file(repo.resolve(), local)
    current = read_settings(sfile)
    removed = len(st.ours(current))
    if removed:
        write_settings(sfile, st.remove(current))
    return {"settings": str(sfile), "removed": removed}
