"""PreToolUse guard of a sealed cell: Claude Code's file tools read and write only where the seal allows.

Run by Claude Code as `python -S seal_guard.py POLICY` before every file-tool call (Read, Write, Edit, ...),
outside the Bash sandbox. Standard library only, no gatebench import: it starts once per tool call.

Why a hook and not only `permissions.deny`: a deny rule cannot say "everything under runs/ but my own
work copy" (deny wins over allow), nor "no write anywhere but these two folders". The policy (written
by prep into the cell's state dir, which the agent can neither read nor write) says exactly that:

    {"read_deny": [...], "read_allow": [...], "write": [...], "never_write": [...], "never_write_under": [...]}

A path is checked as given (made absolute against the session's cwd) and with every link resolved; both
must pass. For reads the longest matching prefix of read_deny / read_allow decides (the sandbox's
denyRead / allowRead rule); writes must fall under a `write` root and not be one of `never_write`.
Any failure of the guard itself denies: a crashed PreToolUse hook would let the call through.
"""

from __future__ import annotations

import json
import os
import sys

WRITE_TOOLS = {"Write", "Edit", "MultiEdit", "NotebookEdit"}
PATH_KEYS = ("file_path", "notebook_path", "path")


def _under(path: str, root: str) -> int:
    """len(root) if path is root or below it, else -1."""
    root = root.rstrip("/") or "/"
    if path == root or path.startswith(root + "/") or root == "/":
        return len(root)
    return -1


def _spellings(raw: str, cwd: str) -> list[str]:
    p = os.path.normpath(os.path.join(cwd, os.path.expanduser(raw)))
    return list(dict.fromkeys([p, os.path.realpath(p)]))


def readable(path: str, policy: dict) -> bool:
    best_deny = max((_under(path, r) for r in policy.get("read_deny", [])), default=-1)
    best_allow = max((_under(path, r) for r in policy.get("read_allow", [])), default=-1)
    return best_deny < 0 or best_allow >= best_deny


def writable(path: str, policy: dict) -> bool:
    if path in policy.get("never_write", []) or any(_under(path, r) >= 0 for r in policy.get("never_write_under", [])):
        return False
    return any(_under(path, r) >= 0 for r in policy.get("write", [])) and readable(path, policy)


def decide(event: dict, policy: dict) -> str | None:
    """None to let the call through, else the reason it is refused."""
    tool = str(event.get("tool_name") or "")
    tin = event.get("tool_input") or {}
    cwd = str(event.get("cwd") or os.getcwd())
    for key in PATH_KEYS:
        raw = tin.get(key) if isinstance(tin, dict) else None
        if not isinstance(raw, str) or not raw:
            continue
        for p in _spellings(raw, cwd):
            if tool in WRITE_TOOLS and not writable(p, policy):
                return (f"sealed cell: {tool} may not write {p} (only the work copy or its temp dir, and there "
                        "never the settings, .claude/, .git/config or .git/hooks/)")
            if not readable(p, policy):
                return f"sealed cell: {p} is outside what this agent may read"
    return None


def main(argv: list[str]) -> int:
    try:
        with open(argv[1], encoding="utf-8") as f:
            policy = json.load(f)
        event = json.loads(sys.stdin.read() or "{}")
        why = decide(event, policy)
    except Exception as e:  # fail closed: a guard that cannot judge refuses
        why = f"sealed cell: the file-tool guard could not judge this call ({type(e).__name__}: {e})"
    if why:
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                 "permissionDecisionReason": why}}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
