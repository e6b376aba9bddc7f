"""Merge gatebench's hook entries into a Claude Code settings document, and take them out again.

Pure functions on plain dicts; the CLI verbs do the file I/O. gatebench's entries are recognised by
a marker in their command (MARKERS), so every other hook and key is left as it was.
"""

from __future__ import annotations

import copy
import os
import shlex

# The hook runs as a script with -S: no site-packages scan, no editable-install finder, so a stop
# costs milliseconds less. It is standard library only, so it needs nothing from site-packages.
HOOK_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hook", "__main__.py")
MARKERS = ("gatebench/hook/__main__.py", "-m gatebench.hook", ".claude/hooks/gatebench.sh")  # the last: install --shared
EVENTS = {"Stop": "stop", "SessionStart": "session-start"}


def hook_command(python: str, verb: str, state_dir: str) -> str:
    return f"{shlex.quote(python)} -S {shlex.quote(HOOK_SCRIPT)} {verb} --state {shlex.quote(state_dir)}"


def is_ours(hook: dict) -> bool:
    return isinstance(hook, dict) and any(m in str(hook.get("command", "")) for m in MARKERS)


def remove(settings: dict) -> dict:
    """A copy of `settings` without gatebench's hooks; containers that only held ours go too."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(is_ours(h) for h in inner):
                kept_groups.append(group)
                continue
            rest = [h for h in inner if not is_ours(h)]
            if rest:
                kept_groups.append({**group, "hooks": rest})
        if kept_groups:
            hooks[event] = kept_groups
        elif groups:
            del hooks[event]
    if not hooks and settings.get("hooks"):
        del out["hooks"]
    return out


def add(settings: dict, python: str, state_dir: str, timeout_s: int) -> dict:
    """`settings` with exactly one gatebench Stop and SessionStart entry (idempotent)."""
    out = remove(settings)
    hooks = out.setdefault("hooks", {})
    for event, verb in EVENTS.items():
        entry = {"type": "command", "command": hook_command(python, verb, state_dir), "timeout": timeout_s}
        hooks.setdefault(event, []).append({"hooks": [entry]})
    return out


def ours(settings: dict) -> list[tuple[str, dict]]:
    found = []
    for event, groups in (settings.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for h in (group.get("hooks") or []) if isinstance(group, dict) else []:
                if is_ours(h):
                    found.append((event, h))
    return found


# Every install denies the agent's tools (Read/Edit/Write, and Bash commands naming the path) the
# gate's state dir: cheap, and it stops the literal-path attacks. `install --sandbox` adds Claude
# Code's Bash sandbox (bubblewrap), which also stops indirect paths (globs, computed names), and
# denies edits of the settings that hold the hook (shared/claude-code/README.md, "Bash sandbox").
SANDBOX_BASE = {"enabled": True, "allowUnsandboxedCommands": False, "failIfUnavailable": True}
SETTINGS_EDIT_RULES = ["Edit(./.claude/settings.json)", "Edit(./.claude/settings.local.json)"]


def guard_rules(state_dir: str) -> tuple[list[str], list[str]]:
    """(sandbox.filesystem.denyRead, permissions.deny for the state dir); absolute paths as `//...`."""
    tree = "/" + state_dir.rstrip("/") + "/**"
    return [tree], [f"Read({tree})", f"Edit({tree})"]


def add_guard(settings: dict, state_dir: str, sandbox: bool) -> dict:
    """`settings` with the state dir denied, and with `sandbox` the Bash sandbox on (idempotent)."""
    out = copy.deepcopy(settings)
    deny_read, deny = guard_rules(state_dir)
    if sandbox:
        deny = [*deny, *SETTINGS_EDIT_RULES]
        sb = out.get("sandbox")
        box = {**(sb if isinstance(sb, dict) else {}), **SANDBOX_BASE}
        fs_ = box.get("filesystem")
        fs = fs_ if isinstance(fs_, dict) else {}
        fs["denyRead"] = [*[r for r in fs.get("denyRead") or [] if r not in deny_read], *deny_read]
        box["filesystem"] = fs
        out["sandbox"] = box
    perms_ = out.get("permissions")
    perms = perms_ if isinstance(perms_, dict) else {}
    perms["deny"] = [*[r for r in perms.get("deny") or [] if r not in deny], *deny]
    out["permissions"] = perms
    return out


def remove_guard(settings: dict, state_dir: str) -> dict:
    """Undo add_guard: our rules go; a sandbox object left as exactly ours goes too."""
    out = copy.deepcopy(settings)
    deny_read, deny = guard_rules(state_dir)
    deny = [*deny, *SETTINGS_EDIT_RULES]
    box = out.get("sandbox")
    if isinstance(box, dict) and isinstance(box.get("filesystem"), dict):
        fs = box["filesystem"]
        fs["denyRead"] = [r for r in fs.get("denyRead") or [] if r not in deny_read]
        if not fs["denyRead"]:
            del fs["denyRead"]
        if not fs:
            del box["filesystem"]
        if box == SANDBOX_BASE:
            del out["sandbox"]
    perms = out.get("permissions")
    if isinstance(perms, dict) and isinstance(perms.get("deny"), list):
        perms["deny"] = [r for r in perms["deny"] if r not in deny]
        if not perms["deny"]:
            del perms["deny"]
        if not perms:
            del out["permissions"]
    return out
