"""Install the gate into a repo: resolved config and baseline in the per-user state dir, hook entries
in `.claude/settings.local.json` (the per-machine file: it holds absolute paths of this machine), or
with `shared` in `.claude/settings.json` through the committed launcher (`installer/shared.py`); the
permission rules naming this user's state dir always go into the per-machine file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gatebench.common.defaults import SETTINGS_TIMEOUT_MARGIN_S
from gatebench.common.util import write_atomic
from gatebench.errors import UsageError
from gatebench.hook.state import default_state_dir
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


def install(repo: Path, config: str, *, local: bool = True, settings: bool = True,
            python: str | None = None, test_command: str | None = None, sandbox: bool = False,
            check_tests: bool = True, shared: bool = False) -> dict:
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
    local = local and not shared
    sfile = settings_file(repo, local)
    current = read_settings(sfile) if settings else {}
    mine = read_settings(settings_file(repo, True)) if settings and shared else {}
    # reads (so validates) the other settings file before any write; --shared cleans its own local entries
    stale = [] if shared else stale_entries(repo, sfile)
    python = python or sys.executable
    resolved = resolve(cfg, mode="installed", repo=repo, state_dir=state, python=python)
    timeout = int(cfg.budget.hook_seconds + SETTINGS_TIMEOUT_MARGIN_S)
    proof = prove_tests(cfg.gates, python, repo) if check_tests else None
    created = [str(f) for f in {sfile, settings_file(repo, True) if shared else sfile} if settings and not f.exists()]
    if settings and shared:
        from gatebench.installer import shared as team

        team.write_launcher(repo, python)
        write_settings(sfile, team.add(current, timeout))
        write_settings(settings_file(repo, True), st.add_guard(st.remove(mine), str(state), sandbox))
        exclude_settings(repo)
    elif settings:
        write_settings(sfile, st.add_guard(st.add(current, python, str(state), timeout), str(state), sandbox))
        if local:
            exclude_settings(repo)
    # After the settings write, so the hook entry itself is part of the baseline, not a change.
    base = write_state(resolved, repo, state, strict=False)
    (state / ".gitignore").write_text("*\n")  # in case GATEBENCH_STATE puts it inside a repo
    record = state / "install.json"
    if created or not record.exists():
        write_atomic(record, json.dumps({"created": sorted(created)}) + "\n")
    return {"repo": str(repo), "config": cfg.name, "state_dir": str(state), "baseline_errors": base["errors"],
            "settings": str(sfile) if settings else None, "baseline_files": base["files"], "timeout_s": timeout,
            "sandbox": sandbox and settings, "stale": stale, "tests": proof, "shared": shared and settings}


def prove_tests(gates: list, python: str, repo: Path) -> dict | None:
    """Run the tests gate's command once, the gate's way; UsageError (exit 2) if the gate could not use it."""
    from gatebench.installer.testcheck import check, tests_command

    found = tests_command(gates, python)
    if found is None:
        return None
    command, timeout = found
    r = check(command, str(repo), timeout)
    if r["problem"]:
        raise UsageError(f'test command "{command}": {r["problem"]}. Nothing was installed; give a working '
                         "--test-command.")
    return {"command": command, **r}


EXCLUDE_LINE = "/.claude/settings.local.json"
EXCLUDE_NOTE = "# gatebench install: the per-machine hook settings (gatebench uninstall removes these lines)"


def exclude_settings(repo: Path) -> None:
    """Keep the per-machine settings out of `git status`: the clone's own ignore file, never committed."""
    info = repo / ".git" / "info"
    if not (repo / ".git").is_dir():
        return
    path = info / "exclude"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if EXCLUDE_LINE in text.splitlines():
        return
    info.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text + ("" if not text or text.endswith("\n") else "\n") + f"{EXCLUDE_NOTE}\n{EXCLUDE_LINE}\n")


def unexclude_settings(repo: Path) -> bool:
    path = repo / ".git" / "info" / "exclude"
    if not path.is_file():
        return False
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [ln for ln in lines if ln.rstrip("\n") not in (EXCLUDE_LINE, EXCLUDE_NOTE)]
    if kept != lines:
        write_atomic(path, "".join(kept))
    return kept != lines


def stale_entries(repo: Path, written: Path) -> list[str]:
    """Settings files other than `written` that still hold gatebench entries (an older install)."""
    return [str(f) for f in (settings_file(repo, False), settings_file(repo, True))
            if f != written and f.exists() and st.ours(read_settings(f))]


def uninstall(repo: Path) -> dict:
    """Take gatebench's entries (and --sandbox rules) out of both settings files."""
    repo = repo.resolve()
    state = default_state_dir(str(repo))
    try:
        created = json.loads((Path(state) / "install.json").read_text()).get("created") or []
    except (OSError, ValueError, AttributeError):
        created = []
    out = []
    for local in (True, False):
        sfile = settings_file(repo, local)
        current = read_settings(sfile)
        removed = len(st.ours(current))
        new = st.remove_guard(st.remove(current), state)
        if new == {} and str(sfile) in created and sfile.exists():
            sfile.unlink()  # install made it: leave no file holding `{}`
            if sfile.parent.is_dir() and not any(sfile.parent.iterdir()):
                sfile.parent.rmdir()
        elif new != current:
            write_settings(sfile, new)
        out.append({"settings": str(sfile), "removed": removed})
    unexclude_settings(repo)
    from gatebench.installer import shared as team

    team.remove_launcher(repo)  # only if it is ours, byte for byte
    return {"files": out, "removed": sum(x["removed"] for x in out), "state_dir": state}


def check_command(command: str, cwd: Path, timeout_s: float = 20.0) -> str | None:
    """None if an installed hook command starts; else why not.

    Runs the exact command through the shell as Claude Code does, with the guard variable set so
    the hook exits at once without gating or logging anything (harmless). A command that cannot
    start (moved checkout, missing interpreter) exits non-zero: Claude Code would then let every
    stop through without a word, so this is the one check that matters.
    """
    import os

    from gatebench.common import proc
    from gatebench.hook.state import GUARD_ENV

    r = proc.run(["sh", "-c", command], cwd=str(cwd), timeout_s=timeout_s,
                 env={**os.environ, GUARD_ENV: "1", "CLAUDE_PROJECT_DIR": str(cwd)}, stdin_text="")
    if r.timed_out:
        return f"did not exit within {timeout_s:.0f} s"
    if r.returncode is None:  # it could not start (the folder is gone): the hook could not either
        return f"cannot start: {r.stderr.strip()[:300]}"
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
        return f"exit {r.returncode}: {tail[0][:300]}"
    if "systemMessage" in r.stdout:  # the hook says nothing under the guard; the shared launcher does when lost
        return r.stderr.strip().splitlines()[-1][:400] if r.stderr.strip() else r.stdout.strip()[:400]
    return None
