"""`install --shared`: the hook in `.claude/settings.json`, the file a team commits.

That file cannot hold this machine's interpreter or checkout, so its command runs a small launcher
committed beside it (`.claude/hooks/gatebench.sh`). The launcher finds this machine's gatebench:
`$GATEBENCH_HOOK`, else the hook command `gatebench install --shared` recorded for this user
(`$XDG_CONFIG_HOME/gatebench/hook`, default `~/.config`). When none starts it says so at every stop (`systemMessage` and stderr, exit 0): Claude Code would let a missing command through
without a word. The hook then finds the state dir from `$CLAUDE_PROJECT_DIR`, per user, as always.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from gatebench.common.util import write_atomic
from gatebench.installer import settings as st

LAUNCHER = ".claude/hooks/gatebench.sh"
COMMAND = 'sh "$CLAUDE_PROJECT_DIR"/' + LAUNCHER
SCRIPT = r"""#!/bin/sh
# gatebench's Stop and SessionStart hook for everyone who works in this repo; written by
# `gatebench install --shared`; commit it with .claude/settings.json. It runs this machine's gatebench:
# $GATEBENCH_HOOK, else the command `gatebench install --shared` recorded for this user. When none
# starts it says so at every stop: a silent pass would hide that the gate is off.
verb="${1:-stop}"
hook="${GATEBENCH_HOOK:-}"
record="${XDG_CONFIG_HOME:-$HOME/.config}/gatebench/hook"
if [ -z "$hook" ] && [ -r "$record" ]; then hook=$(cat "$record"); fi
if [ -n "$hook" ]; then
  eval "$hook \"\$verb\""
  rc=$?
  [ "$rc" -eq 0 ] && exit 0
  why="its hook command ($hook) did not start (exit $rc)"
else
  why="gatebench is not found (no GATEBENCH_HOOK, no $record)"
fi
msg="gatebench: this repo's stop gate is OFF on this machine: $why. Install gatebench and run 'gatebench install --shared' in this repo (or set GATEBENCH_HOOK to its hook command)."
printf '%s\n' "$msg" >&2
esc=$(printf '%s' "$msg" | sed 's/\\/\\\\/g; s/"/\\"/g')
printf '{"systemMessage": "%s"}\n' "$esc"
exit 0
"""


def record_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME", "")
    return Path(base if os.path.isabs(base) else os.path.expanduser("~/.config")) / "gatebench" / "hook"


def hook_command(python: str) -> str:
    """This machine's hook, without a state dir: the hook finds it from `$CLAUDE_PROJECT_DIR`."""
    return f"{shlex.quote(python)} -S {shlex.quote(st.HOOK_SCRIPT)}"


def add(settings: dict, timeout_s: int) -> dict:
    """`settings` with exactly one gatebench Stop and SessionStart entry running the launcher."""
    out = st.remove(settings)
    hooks = out.setdefault("hooks", {})
    for event, verb in st.EVENTS.items():
        hooks.setdefault(event, []).append({"hooks": [{"type": "command", "command": f"{COMMAND} {verb}",
                                                       "timeout": timeout_s}]})
    return out


def write_launcher(repo: Path, python: str) -> None:
    """The launcher in the repo (same bytes on every machine) and this user's record of the hook."""
    path = repo / LAUNCHER
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != SCRIPT:
        write_atomic(path, SCRIPT)
    path.chmod(0o755)
    rec = record_path()
    rec.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(rec, hook_command(python) + "\n")


def remove_launcher(repo: Path) -> bool:
    path = repo / LAUNCHER
    if path.is_file() and path.read_text(encoding="utf-8") == SCRIPT:
        path.unlink()
        if not any(path.parent.iterdir()):
            path.parent.rmdir()
        return True
    return False
