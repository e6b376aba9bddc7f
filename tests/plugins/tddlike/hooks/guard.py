"""tddlike: a small TDD-style PreToolUse guard (written for gatebench's tests, in the spirit of TDD Guard).

Before a Write/Edit/MultiEdit of a source file it asks for a failing test first: the first edit of each source
file in a session is denied unless a test file was written or edited earlier in that session. An agent that
insists (edits the same file again) is let through: the guard nudges, it does not wall off. Test files are
`test_*.py`, `*_test.py` and anything under a `tests/` folder. State per session in $CLAUDE_PLUGIN_DATA.
"""

import json
import os
import sys
import tempfile


def is_test(path: str) -> bool:
    name = os.path.basename(path)
    return name.startswith("test_") or name.endswith("_test.py") or "/tests/" in f"/{path}"


def main() -> int:
    event = json.loads(sys.stdin.read() or "{}")
    if event.get("tool_name") not in ("Write", "Edit", "MultiEdit"):
        return 0
    path = str((event.get("tool_input") or {}).get("file_path") or "")
    cwd = str(event.get("cwd") or os.getcwd())
    rel = os.path.relpath(path, cwd) if os.path.isabs(path) else path
    data_dir = os.environ.get("CLAUDE_PLUGIN_DATA") or tempfile.gettempdir()
    os.makedirs(data_dir, exist_ok=True)
    state_file = os.path.join(data_dir, f"tddlike-{event.get('session_id', 'unknown')}.json")
    try:
        with open(state_file) as f:
            state = json.load(f)
    except (OSError, ValueError):
        state = {"tests_touched": False, "denied": []}
    if is_test(rel):
        state["tests_touched"] = True
    elif not state["tests_touched"] and rel not in state["denied"]:
        state["denied"].append(rel)
        with open(state_file, "w") as f:
            json.dump(state, f)
        print(json.dumps({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": f"tddlike: write or change a failing test before editing {rel} (red, then green)"}}))
        return 0
    with open(state_file, "w") as f:
        json.dump(state, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
